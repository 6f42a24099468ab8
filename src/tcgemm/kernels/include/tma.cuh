// tma.cuh — the Tensor Memory Accelerator (sm_90): bulk tensor loads described
// by a tensor map (CUtensorMap), and the kernel entry that receives the maps.
//
// A tensor map, encoded on the host (tcgemm/tma.py, cuTensorMapEncodeTiled),
// holds a global base address, up to 5 dimensions with byte strides, a *box*
// (the tile one instruction copies) and a shared-memory swizzle mode.  One
// thread issues `cp.async.bulk.tensor`: the TMA unit fetches the box
// asynchronously, writes it (swizzled) to shared memory and reports the bytes
// to an mbarrier ("complete_tx").  Parts of the box outside the tensor are
// filled with zeros and still count: every load delivers exactly the box's
// bytes, which is what makes the expect_tx arithmetic of the kernels exact and
// any M, N, K (ragged edges included) safe.
//
// Limits the host checks: base address 16-byte aligned, every byte stride a
// multiple of 16, box inner extent <= 128 bytes with the 128-byte swizzle.
#pragma once
#include "gemm.cuh"

// The 128-byte opaque CUtensorMap, declared here so NVRTC needs no cuda.h.
struct alignas(64) TmaDesc {
    unsigned long long opaque[16];
};

// Fetch the descriptor into the TMA unit's cache ahead of the first load.
__device__ __forceinline__ void tma_prefetch_desc(const TmaDesc* desc) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<unsigned long long>(desc)) : "memory");
}

// Copy the 3-D box whose first element is at coordinates (c0, c1, c2)
// (c0 along the contiguous dimension) into shared memory at `dst`, completing
// `box bytes` transactions on the mbarrier `bar`.  `desc` must point to a
// __grid_constant__ kernel parameter (or global/const memory).
__device__ __forceinline__ void tma_load_3d(unsigned dst, const TmaDesc* desc, unsigned bar, int c0, int c1,
                                            int c2) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(desc)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
        : "memory");
}

// Hint the L2 to fetch the box at (c0, c1, c2) from global memory; nothing lands in shared memory and
// nothing completes on a barrier.  Safe ahead of griddepcontrol.wait (pdl.cuh) even for data the grid
// before may still be writing: the L2 is the point of coherence, so a write that arrives after the
// prefetch updates the line, and the real load that follows the wait reads the final bytes.
__device__ __forceinline__ void tma_prefetch_l2_3d(const TmaDesc* desc, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(
                     reinterpret_cast<unsigned long long>(desc)),
                 "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

// Bring `bytes` (a multiple of 16) of global memory at `p` (16-byte aligned) into L2: no shared memory, no
// barrier; the same coherence argument as above.
__device__ __forceinline__ void bulk_prefetch_l2(const void* p, unsigned bytes) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(reinterpret_cast<unsigned long long>(p)), "r"(bytes)
                 : "memory");
}

// Entry point of a TMA kernel: the TCGEMM_KERNEL scalars, preceded by the
// tensor maps of A and B.  The maps are __grid_constant__ so that their
// address (in parameter space) can be handed to the TMA unit without a copy.
// Pointers A/B still arrive (they describe the same memory) but the body
// reads A and B only through the maps; the batch index goes into the maps'
// third coordinate instead.
#define TCGEMM_TMA_KERNEL(NAME, BODY)                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) NAME(             \
        const __grid_constant__ TmaDesc tma_a, const __grid_constant__ TmaDesc tma_b,   \
        int M, int N, int K, float alpha, float beta,                                   \
        const elem_a* A, i64 lda, i64 batch_a, const elem_b* B, i64 ldb, i64 batch_b,   \
        const elem_c* C, i64 c_row, i64 c_col, i64 batch_c,                             \
        elem_d* D, i64 ldd, i64 batch_d) {                                              \
        const i64 z = blockIdx.z;                                                       \
        Gemm g = {M, N, K, alpha, beta, A + z * batch_a, lda, batch_a,                  \
                  B + z * batch_b, ldb, batch_b, C ? C + z * batch_c : C,               \
                  c_row, c_col, batch_c, D + z * batch_d, ldd, batch_d};                \
        BODY(g, &tma_a, &tma_b);                                                        \
    }

// Multicast variant (sm_90a, clusters): one load from global memory lands at
// the same CTA-relative shared-memory offset `dst` in every CTA of the cluster
// whose bit is set in `cta_mask`, and completes its bytes on the mbarrier at
// the same offset `bar` in each of those CTAs.  One L2 read feeds them all.
__device__ __forceinline__ void tma_load_3d_multicast(unsigned dst, const TmaDesc* desc, unsigned bar, int c0,
                                                      int c1, int c2, unsigned short cta_mask) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(dst),
        "l"(reinterpret_cast<unsigned long long>(desc)), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(cta_mask)
        : "memory");
}

// Entry point of a *persistent* TMA kernel (KernelSpec.persistent): the grid
// is one-dimensional (about one CTA per SM, launch.plan) and every CTA walks
// output tiles of all batch entries itself, so the Gemm pointers stay at batch
// entry 0 and the batch count arrives as an extra last argument.  ATTRS may
// add kernel attributes such as __cluster_dims__(2, 1, 1).
#define TCGEMM_TMA_PERSISTENT_KERNEL(NAME, BODY, ATTRS)                                 \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) ATTRS NAME(       \
        const __grid_constant__ TmaDesc tma_a, const __grid_constant__ TmaDesc tma_b,   \
        int M, int N, int K, float alpha, float beta,                                   \
        const elem_a* A, i64 lda, i64 batch_a, const elem_b* B, i64 ldb, i64 batch_b,   \
        const elem_c* C, i64 c_row, i64 c_col, i64 batch_c,                             \
        elem_d* D, i64 ldd, i64 batch_d, int batch) {                                   \
        Gemm g = {M, N, K, alpha, beta, A, lda, batch_a, B, ldb, batch_b, C,            \
                  c_row, c_col, batch_c, D, ldd, batch_d};                              \
        BODY(g, batch, &tma_a, &tma_b);                                                 \
    }

// ---- TMA stores (shared -> global), the epilogue's direction ----
//
// A store reads a box from shared memory and writes it to the tensor, with
// the parts outside the tensor's extents dropped: ragged right and bottom
// edges of D need no bounds checks.  Stores are tracked per thread in *bulk
// async-groups*: commit closes a group, wait_group.read N returns once at most
// N groups may still be reading shared memory (the buffer may be reused),
// wait_group N once at most N are incomplete (the writes are done).  Threads
// that wrote the staged box with ordinary stores (st.shared, stmatrix) must
// each execute fence_proxy_async() before the barrier that precedes the
// store: the TMA unit reads through the async proxy.
__device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void tma_store_3d(const TmaDesc* desc, unsigned src, int c0, int c1, int c2) {
    asm volatile(
        "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
            reinterpret_cast<unsigned long long>(desc)),
        "r"(src), "r"(c0), "r"(c1), "r"(c2)
        : "memory");
}

__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

template <int N>
__device__ __forceinline__ void tma_store_wait() {
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

// Entry point of a persistent TMA kernel that also *stores* D through a tensor
// map (KernelSpec.tma_store): a third map, of D, and after the batch count a
// flag `d_map_ok`; when the host could not describe D (not 16-byte aligned,
// or a 32-bit output) the flag is 0, the map is a placeholder and the kernel
// writes D from registers instead.  Last, the split-K workspace and tile
// counters (split_k.cuh; null for configs without SPLIT_K).  Compiled with
// SCALE_ARGS (KernelSpec.scale_args, fp8), the per-tensor scale pointers of
// tma_scaled.cuh come right after D's arguments, where the launcher puts them.
#if defined(SCALE_ARGS)
#define TCGEMM_SCALE_PARAMS const float *scale_a, const float *scale_b,
#define TCGEMM_SCALE_VALUES scale_a, scale_b
#else
#define TCGEMM_SCALE_PARAMS
#define TCGEMM_SCALE_VALUES nullptr, nullptr
#endif
#define TCGEMM_TMA_STORE_PERSISTENT_KERNEL(NAME, BODY, ATTRS)                           \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) ATTRS NAME(       \
        const __grid_constant__ TmaDesc tma_a, const __grid_constant__ TmaDesc tma_b,   \
        const __grid_constant__ TmaDesc tma_d,                                          \
        int M, int N, int K, float alpha, float beta,                                   \
        const elem_a* A, i64 lda, i64 batch_a, const elem_b* B, i64 ldb, i64 batch_b,   \
        const elem_c* C, i64 c_row, i64 c_col, i64 batch_c,                             \
        elem_d* D, i64 ldd, i64 batch_d, TCGEMM_SCALE_PARAMS int batch, int d_map_ok,   \
        float* workspace, int* counters) {                                              \
        Gemm g = {M, N, K, alpha, beta, A, lda, batch_a, B, ldb, batch_b, C,            \
                  c_row, c_col, batch_c, D, ldd, batch_d};                              \
        BODY(g, batch, &tma_a, &tma_b, d_map_ok ? &tma_d : nullptr, workspace, counters, \
             TCGEMM_SCALE_VALUES);                                                      \
    }
