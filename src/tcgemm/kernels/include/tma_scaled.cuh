// tma_scaled.cuh — entry point of a TMA kernel that also takes per-tensor
// scales (KernelSpec.scale_args; fp8 GEMMs, following torch._scaled_mm):
//     D = alpha * (A * scale_a) @ (B * scale_b) + beta * C
// scale_a and scale_b point to one float each in device memory, or are null
// (scale 1: the host folded Python-number scales into alpha).  They come after
// the TCGEMM_TMA_KERNEL arguments, so everything else is laid out as there.
#pragma once
#include "tma.cuh"

#define TCGEMM_TMA_SCALED_KERNEL(NAME, BODY)                                            \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) NAME(             \
        const __grid_constant__ TmaDesc tma_a, const __grid_constant__ TmaDesc tma_b,   \
        int M, int N, int K, float alpha, float beta,                                   \
        const elem_a* A, i64 lda, i64 batch_a, const elem_b* B, i64 ldb, i64 batch_b,   \
        const elem_c* C, i64 c_row, i64 c_col, i64 batch_c,                             \
        elem_d* D, i64 ldd, i64 batch_d, const float* scale_a, const float* scale_b) {  \
        const i64 z = blockIdx.z;                                                       \
        Gemm g = {M, N, K, alpha, beta, A + z * batch_a, lda, batch_a,                  \
                  B + z * batch_b, ldb, batch_b, C ? C + z * batch_c : C,               \
                  c_row, c_col, batch_c, D + z * batch_d, ldd, batch_d};                \
        BODY(g, &tma_a, &tma_b, scale_a, scale_b);                                      \
    }
