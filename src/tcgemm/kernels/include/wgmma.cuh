// wgmma.cuh — warpgroup MMA (sm_90a): the shared-memory matrix descriptor,
// the async fences and the m64nNk16 f32 += bf16/f16 instructions.
//
// A *warpgroup* is 4 consecutive warps (128 threads, warp index % 4 == 0 first).
// `wgmma.mma_async` multiplies a 64 x 16 tile of A by a 16 x N tile of B, both
// read straight from shared memory through 64-bit descriptors, and accumulates
// into a 64 x N fp32 tile held in the warpgroup's registers.  It is
// asynchronous: issue a batch, `commit` it as a group, and `wait` until at
// most n groups are still in flight before touching the accumulators or
// overwriting the shared memory the batch reads.
//
// Accumulator layout (m64nNk16, f32, N/2 registers per thread): warp w of the
// warpgroup owns rows 16w..16w+15; inside it the layout of mma.sync's m16n8
// C fragment repeats along N.  With lane = threadIdx % 32, register i holds
//     row = 16 w + lane / 4 + 8 * ((i / 2) % 2)
//     col = 8 * (i / 4) + 2 * (lane % 4) + i % 2
// so d[4j], d[4j+1] are two adjacent columns of one row and d[4j+2], d[4j+3]
// the same columns eight rows below: runs of 2 for the epilogue.
//
// Shared-memory layouts (128-byte swizzle, the only mode used here).  TMA
// with CU_TENSOR_MAP_SWIZZLE_128B writes a box whose rows are 128 bytes (64
// 16-bit elements) so that, inside each 1024-byte block of 8 rows, the 16-byte
// chunk c of row r lands at chunk c ^ r: a column read by 8 rows touches 8
// different bank quads.  wgmma undoes the same XOR when given layout type
// SWIZZLE_128B, which is why tile bases must be 1024-byte aligned (the XOR
// uses address bits 7..9).  Two orientations:
//   K-major  (A row-major, B column-major): one 128-byte row per M (or N)
//     index holding 64 consecutive k.  An instruction reads 16 k = 32 bytes of
//     each row: advance the start address by 32 bytes per k16 step.  8-row
//     groups are SBO = 1024 bytes apart; LBO is unused (set to 1, 16 bytes).
//   MN-major (A column-major, B row-major; "transposed", 16-bit types only):
//     one 128-byte row per k holding 64 consecutive m (or n).  8-k groups are
//     SBO = 1024 bytes apart; the next 64 m (n) are LBO bytes away (the next
//     TMA box).  Advance 16 rows = 2048 bytes per k16 step.
#pragma once

// Descriptor: bits 0-13 start address >> 4, 16-29 leading byte offset >> 4,
// 32-45 stride byte offset >> 4, 49-51 base offset (0: atoms 1024-aligned),
// 62-63 layout type (1 = SWIZZLE_128B).  From the address in 16-byte units
// (a shared-memory offset >> 4, under 2^14) the fields never overlap, so the
// descriptor is a plain sum: the next k step or ring slot is one add on the
// low word.  Built per wgmma from a byte address (mask, shift, or, then a move
// into uniform registers) it cost ptxas ~15 instructions per wgmma in the fp8
// main loop, all between a k-tile's data arriving and its first wgmma.
// A shared-memory address in those 16-byte units.  The mask drops the CTA's rank in
// the cluster, which the shared window carries in bits 24 and up (it would land in
// the leading-byte-offset field).
__device__ __forceinline__ unsigned smem_units(unsigned smem_addr) { return (smem_addr & 0x3FFFF) >> 4; }

__device__ __forceinline__ unsigned long long wgmma_desc_sw128_units(unsigned addr16, unsigned lbo_bytes,
                                                                     unsigned sbo_bytes) {
    const unsigned lo = addr16 + (((lbo_bytes >> 4) & 0x3FFF) << 16);
    const unsigned hi = ((sbo_bytes >> 4) & 0x3FFF) | 1u << 30;
    return static_cast<unsigned long long>(hi) << 32 | lo;
}

__device__ __forceinline__ unsigned long long wgmma_desc_sw128(unsigned smem_addr, unsigned lbo_bytes,
                                                               unsigned sbo_bytes) {
    return wgmma_desc_sw128_units(smem_units(smem_addr), lbo_bytes, sbo_bytes);
}

// K-major operand tile: rows of 128 bytes, 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long wgmma_desc_k_major(unsigned smem_addr) {
    return wgmma_desc_sw128(smem_addr, 16, 1024);
}

// MN-major operand tile: 64-wide MN chunks `chunk_bytes` apart, 8-k groups 1024 apart.
__device__ __forceinline__ unsigned long long wgmma_desc_mn_major(unsigned smem_addr, unsigned chunk_bytes) {
    return wgmma_desc_sw128(smem_addr, chunk_bytes, 1024);
}

// The same from addresses in 16-byte units (see wgmma_desc_sw128_units).
__device__ __forceinline__ unsigned long long wgmma_desc_k_major_units(unsigned addr16) {
    return wgmma_desc_sw128_units(addr16, 16, 1024);
}
__device__ __forceinline__ unsigned long long wgmma_desc_mn_major_units(unsigned addr16, unsigned chunk_bytes) {
    return wgmma_desc_sw128_units(addr16, chunk_bytes, 1024);
}

// Before the first wgmma of a batch: orders earlier register writes (zeroing
// the accumulators, or a previous batch's results being read) before the
// asynchronous reads of those registers.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

// Close the batch of wgmmas issued since the last commit into one group.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }

// Wait until at most N committed groups are pending.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

// Keep the compiler from moving reads or writes of an accumulator register
// across a wait (the asm statements above do not name the registers).
__device__ __forceinline__ void wgmma_fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

template <int N>
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) wgmma_fence_operand(d[i]);
}

// D(64 x N, fp32 registers) += A(64 x 16) * B(16 x N) from shared memory,
// scale_d == 0 overwrites instead.  BF16 picks bf16 inputs (else fp16);
// TRANS_A / TRANS_B = 1 marks an MN-major (transposed) operand.
template <int N, bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma;

// ---- generated operand lists (one specialisation per N) ----
template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<64, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[32], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<128, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[64], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};

template <bool BF16, int TRANS_A, int TRANS_B>
struct Wgmma<256, BF16, TRANS_A, TRANS_B> {
    static __device__ __forceinline__ void mma(float (&d)[128], unsigned long long desc_a,
                                               unsigned long long desc_b, int scale_d) {
        if constexpr (BF16)
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
        else
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                "{"
                "%0, %1, %2, %3, %4, %5, %6, %7,"
                " %8, %9, %10, %11, %12, %13, %14, %15,"
                " %16, %17, %18, %19, %20, %21, %22, %23,"
                " %24, %25, %26, %27, %28, %29, %30, %31,"
                " %32, %33, %34, %35, %36, %37, %38, %39,"
                " %40, %41, %42, %43, %44, %45, %46, %47,"
                " %48, %49, %50, %51, %52, %53, %54, %55,"
                " %56, %57, %58, %59, %60, %61, %62, %63,"
                " %64, %65, %66, %67, %68, %69, %70, %71,"
                " %72, %73, %74, %75, %76, %77, %78, %79,"
                " %80, %81, %82, %83, %84, %85, %86, %87,"
                " %88, %89, %90, %91, %92, %93, %94, %95,"
                " %96, %97, %98, %99, %100, %101, %102, %103,"
                " %104, %105, %106, %107, %108, %109, %110, %111,"
                " %112, %113, %114, %115, %116, %117, %118, %119,"
                " %120, %121, %122, %123, %124, %125, %126, %127"
                "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                  "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
                  "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
                  "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
                  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
                  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
                  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
                  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
                  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                  "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
                  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
                  "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
                  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
                  "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
                  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
                  "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
                  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
                  "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
                  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
                  "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
                  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
                  "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
                  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
                  "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
                  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
                  "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TRANS_A), "n"(TRANS_B));
    }
};
