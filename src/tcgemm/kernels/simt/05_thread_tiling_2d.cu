// Stage 5 — 2D thread tiling.
//
// Each thread now owns a THREAD_M x THREAD_N block of D.  Per k it loads
// THREAD_M values of A and THREAD_N values of B into registers and forms
// their outer product: THREAD_M * THREAD_N FMAs for THREAD_M + THREAD_N
// shared loads (64 for 16 with 8 x 8), so the FMA units, not shared memory,
// become the limit.  The CTA tile grows to 128 x 128, which also halves the
// global traffic per FMA again.
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 8
#define THREAD_M 8
#define THREAD_N 8
#define THREADS 256
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS * THREAD_M * THREAD_N, "one THREAD_M x THREAD_N block per thread");

constexpr int A_LD = BLOCK_K + 1, B_LD = BLOCK_N + 1;
constexpr int THREADS_N = BLOCK_N / THREAD_N;

__device__ __forceinline__ void thread_tiling_2d(const Gemm& g) {
    __shared__ float As[BLOCK_M * A_LD];  // As[m][k]
    __shared__ float Bs[BLOCK_K * B_LD];  // Bs[k][n]
    ALoader<BLOCK_M, BLOCK_K, false, A_LD, THREADS, 1> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, 1> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

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
            for (int i = 0; i < THREAD_M; ++i) a[i] = As[(tm + i) * A_LD + k];
#pragma unroll
            for (int j = 0; j < THREAD_N; ++j) b[j] = Bs[k * B_LD + tn + j];
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
                for (int j = 0; j < THREAD_N; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    // Rolled over rows: fully unrolled, sm_80's scheduler hoists all 64
    // epilogue loads at once and runs out of registers.
#pragma unroll 1
    for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) store_d(g, m0 + tm + i, n0 + tn + j, acc[i][j]);
}

TCGEMM_KERNEL(simt_thread_tiling_2d, thread_tiling_2d)
