// Stage 4 — 1D thread tiling.
//
// Stages 2-3 do one FMA per two shared-memory loads.  Here each thread
// computes THREAD_M outputs of one column of the CTA tile: it loads
// Bs[k][n] once into a register and reuses it for THREAD_M multiply-adds
// against As[m..m+THREAD_M-1][k] (a broadcast: all lanes of a warp share m).
// Shared loads per FMA fall from 2 to about (1 + 1/THREAD_M), and with a
// shallower BLOCK_K each CTA keeps more independent accumulators in flight.
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 64
#define BLOCK_N 64
#define BLOCK_K 8
#define THREAD_M 8
#define THREADS 512
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS * THREAD_M, "THREAD_M outputs per thread");
static_assert(BLOCK_N % 32 == 0, "a warp must share one row block so As reads broadcast");

constexpr int A_LD = BLOCK_K + 1, B_LD = BLOCK_N + 1;

__device__ __forceinline__ void thread_tiling_1d(const Gemm& g) {
    __shared__ float As[BLOCK_M * A_LD];  // As[m][k]
    __shared__ float Bs[BLOCK_K * B_LD];  // Bs[k][n]
    ALoader<BLOCK_M, BLOCK_K, false, A_LD, THREADS, 1> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, 1> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int tm = (threadIdx.x / BLOCK_N) * THREAD_M, tn = threadIdx.x % BLOCK_N;
    float acc[THREAD_M] = {};
    for (int k0 = 0; k0 < g.K; k0 += BLOCK_K) {
        load_a.fetch(k0);
        load_b.fetch(k0);
        load_a.store(As);
        load_b.store(Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_K; ++k) {
            const float b = Bs[k * B_LD + tn];
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i) acc[i] += As[(tm + i) * A_LD + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < THREAD_M; ++i) store_d(g, m0 + tm + i, n0 + tn, acc[i]);
}

TCGEMM_KERNEL(simt_thread_tiling_1d, thread_tiling_1d)
