// cp_async.cuh — asynchronous global -> shared copies (cp.async, sm_80+).
//
// cp.async writes shared memory without passing through registers and
// without blocking the issuing thread: a kernel issues the copies for a tile
// several K steps ahead, computes meanwhile, and waits only when it needs the
// tile.  Copies are tracked in "groups": commit_group closes the group of
// copies issued since the last commit, wait_group<N> blocks until at most N
// groups are still in flight (then a __syncthreads makes every thread's
// copies visible to the CTA).
//
//   .cg: 16 bytes, cached in L2 only (operand tiles are reused from shared
//        memory, not L1).  The src-size form copies only the first src_bytes
//        (0..16) and zero-fills the rest: src_bytes = 0 turns an out-of-range
//        chunk into zeros with no global access (the address must still be a
//        valid-looking one; kernels pass the operand's base).
//   .ca: 4 or 8 bytes (.cg only exists for 16), for operands whose rows are
//        not 16-byte aligned.
#pragma once
#include "gemm.cuh"

__device__ __forceinline__ void cp_async_16(u32 smem_addr, const void* gmem) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr), "l"(gmem));
}
// Copies src_bytes (0..16) and fills the remaining bytes of the 16 with zeros.
__device__ __forceinline__ void cp_async_16_zfill(u32 smem_addr, const void* gmem, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_8(u32 smem_addr, const void* gmem) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(smem_addr), "l"(gmem));
}
__device__ __forceinline__ void cp_async_4(u32 smem_addr, const void* gmem) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr), "l"(gmem));
}
__device__ __forceinline__ void cp_async_4_zfill(u32 smem_addr, const void* gmem, int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr), "l"(gmem), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
