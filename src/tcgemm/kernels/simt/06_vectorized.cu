// Stage 6 — vectorised access, A transposed in shared memory.
//
// Stage 5 issues one 4-byte load per element everywhere.  Three changes make
// the memory instructions 16 bytes wide:
//   * global loads are float4 (VEC = 4) whenever the operand's alignment
//     allows; the host compiles VEC = 1 otherwise, so odd leading dimensions
//     stay correct;
//   * A is stored transposed, As[k][m], so a thread's THREAD_M values of A for
//     one k are contiguous and come in as two LDS.128 instead of eight LDS.32
//     (B already is Bs[k][n]);
//   * the epilogue writes four columns per store (STG.128).
// Fewer, wider instructions leave more issue slots to the FMAs.
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 8
#define THREAD_M 8
#define THREAD_N 8
#define THREADS 256
#define VEC 4
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS * THREAD_M * THREAD_N, "one THREAD_M x THREAD_N block per thread");
static_assert(THREAD_M % 4 == 0 && THREAD_N % 4 == 0, "fragments are read as float4");

// +4 words keeps rows 16-byte aligned and moves the transposing stores of a
// row-major A (four k per thread) onto different banks.
constexpr int A_LD = BLOCK_M + 4, B_LD = BLOCK_N + 4;
constexpr int THREADS_N = BLOCK_N / THREAD_N;

__device__ __forceinline__ void vectorized(const Gemm& g) {
    __shared__ __align__(16) float As[BLOCK_K * A_LD];  // As[k][m]
    __shared__ __align__(16) float Bs[BLOCK_K * B_LD];  // Bs[k][n]
    ALoader<BLOCK_M, BLOCK_K, true, A_LD, THREADS, VEC> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, VEC> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int tm = (threadIdx.x / THREADS_N) * THREAD_M, tn = (threadIdx.x % THREADS_N) * THREAD_N;
    float acc[THREAD_M][THREAD_N] = {};
    float a[THREAD_M], b[THREAD_N];
    for (int k0 = 0; k0 < g.K; k0 += BLOCK_K) {
        load_a.fetch(k0);
        load_b.fetch(k0);
        load_a.store(As);
        load_b.store(Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_K; ++k) {
#pragma unroll
            for (int i = 0; i < THREAD_M; i += 4)
                load_float4(&a[i], &As[k * A_LD + tm + i]);
#pragma unroll
            for (int j = 0; j < THREAD_N; j += 4)
                load_float4(&b[j], &Bs[k * B_LD + tn + j]);
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
                for (int j = 0; j < THREAD_N; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; j += 4) store_d4(g, m0 + tm + i, n0 + tn + j, &acc[i][j]);
}

TCGEMM_KERNEL(simt_vectorized, vectorized)
