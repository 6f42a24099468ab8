// Stage 2 — shared-memory tiling.
//
// A CTA computes a BLOCK_M x BLOCK_N tile of D.  It walks K in steps of
// BLOCK_K: all threads copy one BLOCK_M x BLOCK_K tile of A and one
// BLOCK_K x BLOCK_N tile of B into shared memory together, synchronise, and
// then each thread does BLOCK_K multiply-adds reading only shared memory.
// Every element brought from global memory is now used BLOCK_N (A) or
// BLOCK_M (B) times, so global traffic falls by the tile size; the limit
// moves to shared-memory bandwidth (two shared loads per FMA).
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 32
#define BLOCK_N 32
#define BLOCK_K 32
#define THREADS 1024
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS, "one thread per output element");

// +1 column: a column-major source is stored one row per lane, and rows
// BLOCK_K + 1 words apart fall in 32 different banks.
constexpr int A_LD = BLOCK_K + 1, B_LD = BLOCK_N + 1;

__device__ __forceinline__ void smem_tiling(const Gemm& g) {
    __shared__ float As[BLOCK_M * A_LD];  // As[m][k]
    __shared__ float Bs[BLOCK_K * B_LD];  // Bs[k][n]
    ALoader<BLOCK_M, BLOCK_K, false, A_LD, THREADS, 1> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, 1> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int ty = threadIdx.x / BLOCK_N, tx = threadIdx.x % BLOCK_N;
    float acc = 0.0f;
    for (int k0 = 0; k0 < g.K; k0 += BLOCK_K) {
        load_a.fetch(k0);
        load_b.fetch(k0);
        load_a.store(As);
        load_b.store(Bs);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BLOCK_K; ++k) acc += As[ty * A_LD + k] * Bs[k * B_LD + tx];
        __syncthreads();  // nobody overwrites the tiles while others still read them
    }
    store_d(g, m0 + ty, n0 + tx, acc);
}

TCGEMM_KERNEL(simt_smem_tiling, smem_tiling)
