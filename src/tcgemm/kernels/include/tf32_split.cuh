// tf32_split.cuh — an fp32 value as the sum of two tf32 values (3xTF32), written once for the split copies of
// tcgemm/emulation.py (util/stage_copy.cu) and for the decode kernel that splits its operands itself
// (hopper/05_swap_ab_stream_k.cu with fp32 inputs).
//
// A tf32 product keeps 11 significant bits of each factor; fp32 has 24.  Written as x = hi + lo, with hi = x
// rounded to tf32 and lo = x - hi (exact in fp32: hi is within half a tf32 ulp of x), a product is
// a b = ha hb + ha lb + la hb + la lb, and the last term is below 2^-22 |a b|: three tf32 products carry an fp32
// product's accuracy.  hi rounds to nearest with ties away (add half a tf32 ulp to the magnitude bits, clear the
// low 13); where that would carry past the largest finite float (|x| > (2 - 2^-11) 2^127) hi is x truncated
// instead.  hi' ("hi_finite") is hi where x is finite and 0 where it is inf or NaN (lo is 0 there): the cross
// terms take hi', so a non-finite product reaches D through hi hi alone, as IEEE fp32 forms it (inf * finite =
// inf, NaN propagates), not as inf * 0 = NaN from a cross term.
#pragma once

// (Selects, no branches: in the decode kernel the parts are wgmma's A registers, and registers a wgmma reads that
// were written on a divergent path make ptxas serialize the warpgroup's wgmmas.)
__device__ __forceinline__ void split_tf32_value(float x, float& hi, float& hi_finite, float& lo) {
    const unsigned int bits = __float_as_uint(x);
    const bool finite = (bits & 0x7f800000u) != 0x7f800000u;
    unsigned int rounded = (bits + 0x1000u) & 0xffffe000u;
    rounded = (rounded & 0x7f800000u) == 0x7f800000u ? bits & 0xffffe000u : rounded;
    hi = finite ? __uint_as_float(rounded) : x;
    hi_finite = finite ? hi : 0.0f;
    lo = finite ? __fsub_rn(x, hi) : 0.0f;
}

// The split of a value the tensor cores read from registers or from a plain shared-memory copy: lo rounded to tf32
// here (the split copies leave that to their GEMM's TMA loads, whose TFLOAT32 maps round as they copy; the tensor
// cores themselves would truncate).  lo is far from overflow, so its rounding needs no guard.
__device__ __forceinline__ void split_tf32_rounded(unsigned x, unsigned& hi, unsigned& hi_finite, unsigned& lo) {
    float h, hf, l;
    split_tf32_value(__uint_as_float(x), h, hf, l);
    hi = __float_as_uint(h);
    hi_finite = __float_as_uint(hf);
    lo = (__float_as_uint(l) + 0x1000u) & 0xffffe000u;
}

// Split a tile of `bytes` fp32 values in shared memory at `raw` in place into three planes `plane` bytes apart:
// hi over the raw values, hi' at raw + plane, lo at raw + 2 plane.  Element i of each plane sits where element i
// of the raw tile sat, so a swizzled TMA tile splits into three tiles of the same swizzle.  Thread `tid` of
// `threads` takes 16-byte chunks tid, tid + threads, ...  The caller orders the writes for the tensor cores
// (fence.proxy.async, then a barrier).
__device__ __forceinline__ void split_tf32_tile(unsigned raw, int bytes, unsigned plane, int tid, int threads) {
    for (int off = 16 * tid; off < bytes; off += 16 * threads) {
        unsigned x[4], hi[4], hf[4], lo[4];
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(raw + off) : "memory");
#pragma unroll
        for (int e = 0; e < 4; ++e) split_tf32_rounded(x[e], hi[e], hf[e], lo[e]);
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                     ::"r"(raw + off), "r"(hi[0]), "r"(hi[1]), "r"(hi[2]), "r"(hi[3]) : "memory");
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                     ::"r"(raw + plane + off), "r"(hf[0]), "r"(hf[1]), "r"(hf[2]), "r"(hf[3]) : "memory");
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                     ::"r"(raw + 2 * plane + off), "r"(lo[0]), "r"(lo[1]), "r"(lo[2]), "r"(lo[3]) : "memory");
    }
}
