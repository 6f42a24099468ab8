// Stage 3 — double-buffered tiling.
//
// Stage 2 waits for each tile's global loads before it can compute, and
// synchronises twice per tile.  Here the loads of tile t+1 are issued into
// registers before the arithmetic on tile t, and written to a second
// shared-memory buffer after it: the global latency overlaps the FMAs, and
// since the two buffers alternate, one barrier per tile is enough (the buffer
// being written was last read before the previous barrier).
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 32
#define BLOCK_N 32
#define BLOCK_K 32
#define THREADS 1024
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS, "one thread per output element");

constexpr int A_LD = BLOCK_K + 1, B_LD = BLOCK_N + 1;

__device__ __forceinline__ void double_buffering(const Gemm& g) {
    __shared__ float As[2][BLOCK_M * A_LD];
    __shared__ float Bs[2][BLOCK_K * B_LD];
    ALoader<BLOCK_M, BLOCK_K, false, A_LD, THREADS, 1> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, 1> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int ty = threadIdx.x / BLOCK_N, tx = threadIdx.x % BLOCK_N;
    const int tiles = (g.K + BLOCK_K - 1) / BLOCK_K;

    load_a.fetch(0);
    load_b.fetch(0);
    load_a.store(As[0]);
    load_b.store(Bs[0]);
    __syncthreads();

    float acc = 0.0f;
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        const int k_next = (t + 1) * BLOCK_K;
        if (t + 1 < tiles) {  // in flight while we compute
            load_a.fetch(k_next);
            load_b.fetch(k_next);
        }
#pragma unroll
        for (int k = 0; k < BLOCK_K; ++k) acc += As[cur][ty * A_LD + k] * Bs[cur][k * B_LD + tx];
        if (t + 1 < tiles) {
            load_a.store(As[cur ^ 1]);
            load_b.store(Bs[cur ^ 1]);
        }
        __syncthreads();
    }
    store_d(g, m0 + ty, n0 + tx, acc);
}

TCGEMM_KERNEL(simt_double_buffering, double_buffering)
