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

// The specialisations, one per N, and those of the other input types: generated (wgmma_ops.cuh).
#include "wgmma_ops.cuh"
