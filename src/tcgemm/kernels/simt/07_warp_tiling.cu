// Stage 7 — warp tiling, double-buffered with register prefetch.
//
// The last SIMT stage arranges threads by the hardware's unit of execution:
//   CTA tile  BLOCK_M x BLOCK_N   split among (BLOCK_M/WARP_M) x (BLOCK_N/WARP_N) warps
//   warp tile WARP_M  x WARP_N    its 32 lanes laid out LANES_M x LANES_N
//   thread    THREAD_M x THREAD_N made of 4 x 4 pieces strided across the warp tile
// Because each lane's pieces sit LANES_* x 4 apart, a warp's fragment load
// for one k reads LANES_N (or LANES_M) consecutive float4s of shared memory:
// one conflict-free LDS.128 wavefront per 128 bytes, where stage 6's
// 8-wide thread blocks made lanes collide on banks.  The epilogue's
// float4 stores likewise cover whole 128-byte lines per warp row.
// On top: two shared-memory buffers and register-staged prefetch of the next
// K tile (stage 3's idea), so one barrier per tile and global latency hidden.
#include "epilogue.cuh"
#include "tile_load.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 8
#define WARP_M 32
#define WARP_N 64
#define THREAD_M 8
#define THREAD_N 8
#define THREADS 256
#define VEC 4
#endif

constexpr int WARPS_N = BLOCK_N / WARP_N;
constexpr int LANES_M = WARP_M / THREAD_M, LANES_N = WARP_N / THREAD_N;
constexpr int PIECES_M = THREAD_M / 4, PIECES_N = THREAD_N / 4;
static_assert((BLOCK_M / WARP_M) * WARPS_N * 32 == THREADS, "one warp per warp tile");
static_assert(LANES_M * LANES_N == 32, "a warp tile holds 32 lanes' thread tiles");
static_assert(THREAD_M % 4 == 0 && THREAD_N % 4 == 0, "thread tiles are made of 4x4 pieces");

// Two CTAs of 256 threads per SM leave 128 registers a thread.  Hopper's
// compiler fits the 64 accumulators, fragments and float4 prefetch in that;
// sm_80's, and the scalar-load fallback (VEC = 1, one bounds check and
// address per element), spill a few words, so they ask for one CTA per SM.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 900 || VEC == 1) && MIN_BLOCKS > 1
#undef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif

constexpr int A_LD = BLOCK_M + 4, B_LD = BLOCK_N + 4;  // see stage 6

__device__ __forceinline__ void warp_tiling(const Gemm& g) {
    __shared__ __align__(16) float As[2][BLOCK_K * A_LD];  // As[k][m]
    __shared__ __align__(16) float Bs[2][BLOCK_K * B_LD];  // Bs[k][n]
    ALoader<BLOCK_M, BLOCK_K, true, A_LD, THREADS, VEC> load_a(g.A, g.lda, blockIdx.y * BLOCK_M, g.M, g.K);
    BLoader<BLOCK_K, BLOCK_N, B_LD, THREADS, VEC> load_b(g.B, g.ldb, blockIdx.x * BLOCK_N, g.N, g.K);

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    // First row / column of this lane's first 4x4 piece, relative to the CTA tile.
    const int tm = (warp / WARPS_N) * WARP_M + (lane / LANES_N) * 4;
    const int tn = (warp % WARPS_N) * WARP_N + (lane % LANES_N) * 4;
    const int tiles = (g.K + BLOCK_K - 1) / BLOCK_K;

    load_a.fetch(0);
    load_b.fetch(0);
    load_a.store(As[0]);
    load_b.store(Bs[0]);
    __syncthreads();

    float acc[THREAD_M][THREAD_N] = {};
    float a[THREAD_M], b[THREAD_N];
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        const int k_next = (t + 1) * BLOCK_K;
        if (t + 1 < tiles) {
            load_a.fetch(k_next);
            load_b.fetch(k_next);
        }
#pragma unroll
        for (int k = 0; k < BLOCK_K; ++k) {
#pragma unroll
            for (int p = 0; p < PIECES_M; ++p) load_float4(&a[4 * p], &As[cur][k * A_LD + tm + p * LANES_M * 4]);
#pragma unroll
            for (int p = 0; p < PIECES_N; ++p) load_float4(&b[4 * p], &Bs[cur][k * B_LD + tn + p * LANES_N * 4]);
#pragma unroll
            for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
                for (int j = 0; j < THREAD_N; ++j) acc[i][j] += a[i] * b[j];
        }
        if (t + 1 < tiles) {
            load_a.store(As[cur ^ 1]);
            load_b.store(Bs[cur ^ 1]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < THREAD_M; ++i) {
        const int m = m0 + tm + (i / 4) * LANES_M * 4 + i % 4;
#pragma unroll
        for (int p = 0; p < PIECES_N; ++p) store_d4(g, m, n0 + tn + p * LANES_N * 4, &acc[i][4 * p]);
    }
}

TCGEMM_KERNEL(simt_warp_tiling, warp_tiling)
