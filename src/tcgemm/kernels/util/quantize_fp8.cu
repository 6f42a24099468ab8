// quantize_fp8.cu — 16- or 32-bit rows to fp8 e4m3 with one scale per group of GROUP consecutive elements of a row
// (tcgemm/quantize.py; not a GEMM).  A group is a whole row (row-wise: the scale_a (M, 1) of torch._scaled_mm's
// row-wise mode, or a weight's per-output-channel scale_b) or 128 elements (DeepSeek-V3's 1 x 128 activation
// groups); the last group of a row may be shorter.  Or the scales are given, one per group of a block of rows (a
// weight's 128 x 128 blocks, DeepSeek-V3's).
//
//   scale = amax(|x|) / 448 (e4m3's largest finite value; 1 for a group of zeros)
//   q     = x / scale, rounded to nearest even and saturated to +-448 (cvt.rn.satfinite)
//
// so x ~= q * scale and every group uses e4m3's whole range.  Both divisions are IEEE (div.rn), not multiplies by a
// reciprocal: the result is bitwise what tcgemm.quantize.quantize_reference computes (tests/gpu/test_quantize_on_gpu.py).
// One warp per group: a pass for the amax (a butterfly of shuffles), a second over the same elements (L1/L2-
// resident) for the quantized bytes.
#ifndef ELEM
#define ELEM __nv_bfloat16
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "elem_convert.cuh"

__device__ __forceinline__ unsigned short to_e4m3x2(float lo, float hi) {
    unsigned short pair;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(pair) : "f"(hi), "f"(lo));  // (the second source: low byte)
    return pair;
}

// vectors: the host found x's rows, the groups and q's rows 16-byte / VEC-element aligned; each lane then reads VEC
// elements a load (16 bytes) and writes VEC bytes a store.  A group of at most 32 VEC elements (DeepSeek's 128 of
// bf16: 16 lanes) takes that many lanes and one vector a lane, kept in registers between the two passes; several
// such groups share a warp.  Longer groups (whole rows) read x twice, the second time from L1/L2.  Else one element
// at a time, a group a warp.
constexpr int VEC = 16 / sizeof(ELEM);
union Words {
    int4 raw;
    ELEM e[VEC];
};

__device__ __forceinline__ void store_vec(unsigned char* dst, const Words& w, float scale) {
    unsigned short p[VEC / 2];
#pragma unroll
    for (int i = 0; i < VEC; i += 2)
        p[i / 2] = to_e4m3x2(__fdiv_rn(to_f32(w.e[i]), scale), __fdiv_rn(to_f32(w.e[i + 1]), scale));
    if constexpr (VEC == 8) {
        *reinterpret_cast<uint2*>(dst) = make_uint2((unsigned)p[0] | ((unsigned)p[1] << 16),
                                                    (unsigned)p[2] | ((unsigned)p[3] << 16));
    } else {
        *reinterpret_cast<unsigned*>(dst) = (unsigned)p[0] | ((unsigned)p[1] << 16);
    }
}

extern "C" __global__ void __launch_bounds__(256) quantize_fp8(const ELEM* __restrict__ x, long long ld_x,
                                                                unsigned char* __restrict__ q, long long ld_q,
                                                                float* __restrict__ scales, long long ld_s, long long group_s, int rows,
                                                                int cols, int group, int vectors,
                                                                const float* __restrict__ given, long long ld_given,
                                                                int given_rows) {
    const int groups = (cols + group - 1) / group;
    const int lane = threadIdx.x % 32;
    // lanes per group: a power of two, 32 unless the group is one vector a lane or less
    int lanes = 32;
    if (vectors)
        while (lanes > 1 && (lanes / 2) * VEC >= group) lanes /= 2;
    const long long gid = ((long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * (32 / lanes) + lane / lanes;
    const bool valid = gid < (long long)rows * groups;  // (no early exit: every lane takes part in the shuffles)
    const int sub = lane % lanes;
    const int row = valid ? (int)(gid / groups) : 0, g = valid ? (int)(gid % groups) : 0;
    const int c0 = g * group, c1 = valid ? min(cols, c0 + group) : 0;
    const ELEM* xr = x + row * ld_x;
    unsigned char* qr = q + row * ld_q;
    const bool one = vectors && lanes * VEC >= group;  // one vector a lane at most: held in registers
    Words held;
    held.raw = make_int4(0, 0, 0, 0);
    float amax = 0.0f;
    if (one) {
        const int c = c0 + sub * VEC;
        if (c < c1) held.raw = __ldg(reinterpret_cast<const int4*>(xr + c));
#pragma unroll
        for (int i = 0; i < VEC; ++i) amax = fmaxf(amax, fabsf(to_f32(held.e[i])));
    } else if (vectors) {
#pragma unroll 4
        for (int c = c0 + sub * VEC; c < c1; c += lanes * VEC) {
            Words w;
            w.raw = __ldg(reinterpret_cast<const int4*>(xr + c));
#pragma unroll
            for (int i = 0; i < VEC; ++i) amax = fmaxf(amax, fabsf(to_f32(w.e[i])));
        }
    } else {
        for (int c = c0 + lane; c < c1; c += 32) amax = fmaxf(amax, fabsf(to_f32(xr[c])));
    }
    for (int o = lanes / 2; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    // given: the scales are the caller's, one per given_rows rows and group (a weight's 128 x 128 blocks, whose amax
    // spans rows of other warps: tcgemm.quantize.quantize_fp8_blocks works them out first); nothing written back.
    const float scale = given != nullptr ? given[(row / given_rows) * ld_given + g]
                                         : amax > 0.0f ? __fdiv_rn(amax, 448.0f) : 1.0f;
    if (one) {
        const int c = c0 + sub * VEC;
        if (c < c1) store_vec(qr + c, held, scale);
    } else if (vectors) {
#pragma unroll 4
        for (int c = c0 + sub * VEC; c < c1; c += lanes * VEC) {
            Words w;
            w.raw = __ldg(reinterpret_cast<const int4*>(xr + c));
            store_vec(qr + c, w, scale);
        }
    } else {
        for (int c = c0 + lane; c < c1; c += 32)
            qr[c] = (unsigned char)(to_e4m3x2(__fdiv_rn(to_f32(xr[c]), scale), 0.0f) & 0xff);
    }
    if (valid && sub == 0 && given == nullptr) scales[row * ld_s + g * group_s] = scale;
}
