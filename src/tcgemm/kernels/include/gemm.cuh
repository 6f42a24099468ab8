// gemm.cuh — the one contract every tcgemm kernel shares.
//
// Every kernel computes, for each batch index z,
//     D[z] = alpha * A[z] @ B[z] + beta * C[z]
// with A (M x K), B (K x N), D (M x N, row-major, leading dimension ldd).
// A and B are each row- or column-major (A_LAYOUT, B_LAYOUT, chosen per
// launch as compile-time defines) and are read in place through their leading
// dimension, so a transposed or sliced torch tensor costs no copy.  A
// column-major output is produced by the host as D^T = B^T A^T, which is again
// a row-major product; kernels therefore only ever write row-major D.
// C is read through two arbitrary strides (stride 0 broadcasts a bias row or
// column) and is never touched when beta == 0, as in BLAS.
//
// Compile-time inputs (-D defines from the registry / launcher):
//   ELEM_A, ELEM_B, ELEM_C, ELEM_D   element types
//   A_LAYOUT, B_LAYOUT              LAYOUT_ROW or LAYOUT_COL
//   THREADS                         threads per CTA
//   plus each kernel's tile parameters (BLOCK_M, BLOCK_N, BLOCK_K, ...).
#pragma once

#if defined(TCGEMM_NEEDS_FP16)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif
#if defined(TCGEMM_NEEDS_FP8)
#include <cuda_fp8.h>  // __nv_fp8_e4m3 / __nv_fp8_e5m2 inputs (kernels copy them, never convert)
#endif

#define LAYOUT_ROW 0
#define LAYOUT_COL 1

#ifndef ELEM_A
#define ELEM_A float
#endif
#ifndef ELEM_B
#define ELEM_B ELEM_A
#endif
#ifndef ELEM_C
#define ELEM_C float
#endif
#ifndef ELEM_D
#define ELEM_D ELEM_C
#endif
#ifndef A_LAYOUT
#define A_LAYOUT LAYOUT_ROW
#endif
#ifndef B_LAYOUT
#define B_LAYOUT LAYOUT_ROW
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

typedef ELEM_A elem_a;
typedef ELEM_B elem_b;
typedef ELEM_C elem_c;
typedef ELEM_D elem_d;
typedef long long i64;
typedef unsigned int u32;

// Everything a kernel knows about its problem.  Offsets are 64-bit: an operand
// may hold more than 2^31 elements.
struct Gemm {
    int M, N, K;
    float alpha, beta;
    const elem_a* __restrict__ A; i64 lda, batch_a;
    const elem_b* __restrict__ B; i64 ldb, batch_b;
    const elem_c* __restrict__ C; i64 c_row, c_col, batch_c;
    elem_d* __restrict__ D; i64 ldd, batch_d;
};

// The one kernel signature the launcher knows.  Arguments are flat scalars
// and pointers (the launcher cannot pass structs by value); the entry point
// packs them into a Gemm, moves the pointers to this CTA's batch entry and
// hands over to the kernel's own __device__ body.
#define TCGEMM_KERNEL(NAME, BODY)                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) NAME(             \
        int M, int N, int K, float alpha, float beta,                                   \
        const elem_a* A, i64 lda, i64 batch_a, const elem_b* B, i64 ldb, i64 batch_b,   \
        const elem_c* C, i64 c_row, i64 c_col, i64 batch_c,                             \
        elem_d* D, i64 ldd, i64 batch_d) {                                              \
        const i64 z = blockIdx.z;                                                       \
        Gemm g = {M, N, K, alpha, beta, A + z * batch_a, lda, batch_a,                  \
                  B + z * batch_b, ldb, batch_b, C ? C + z * batch_c : C,               \
                  c_row, c_col, batch_c, D + z * batch_d, ldd, batch_d};                \
        BODY(g);                                                                        \
    }

// Element (row, col) of A (M x K) and B (K x N) in their own layouts.
__device__ __forceinline__ i64 a_offset(const Gemm& g, int m, int k) {
    return A_LAYOUT == LAYOUT_ROW ? (i64)m * g.lda + k : (i64)k * g.lda + m;
}
__device__ __forceinline__ i64 b_offset(const Gemm& g, int k, int n) {
    return B_LAYOUT == LAYOUT_ROW ? (i64)k * g.ldb + n : (i64)n * g.ldb + k;
}

// Conversions between storage types and the epilogue's arithmetic type.
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(int x) { return (float)x; }
#if defined(TCGEMM_NEEDS_FP16)
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
#endif

template <typename T> __device__ __forceinline__ T from_float(float x) { return (T)x; }
#if defined(TCGEMM_NEEDS_FP16)
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}
#endif
