// Stage 8 — few rows: the weight streamed once (fp32 decode, CUDA cores).
//
// With M <= BLOCK_M rows (a token or a few), a product reads each element of B
// (K x N: the weight) once and does 2 M flops with it: DRAM bandwidth is the
// bound, not the FMAs.  The tiled stages cut B into 128 x 64 tiles that each
// pair with 128 rows of A, mostly empty here, and read B through shared memory
// behind barriers.  Here a CTA owns BLOCK_N columns of B and all M rows, and
// each thread loads B straight into registers, 16 bytes a load, along
// whichever dimension of B is contiguous, and 4 consecutive k of every row of
// A, all loads of a step issued before the first FMA:
//
//   B row-major (x @ w, w stored K x N): lanes along n, 4 columns each; the
//     THREADS / (BLOCK_N / 4) thread rows take 4 k at a time, SLICES apart.  A
//     warp reads 512 contiguous bytes of 4 rows of B per step.  The rows of A
//     are read as the same address by every lane (one broadcast per warp), from
//     the L1: they are small.  (Loaded one row at a time, each behind the last
//     one's FMAs, the first build ran 16 x 4096 x 4096 at 0.30x of cuBLAS:
//     2026-11-26-h100-explore-fp32-skinny-stage-rr-08bca12.json.)  The k slices' sums are added in shared memory
//     in slice order (deterministic).
//   B column-major (x @ w.t(), nn.Linear's weight N x K): a warp owns
//     BLOCK_N / WARPS columns (4: 16 x 8 accumulators spilled on sm_80) and its lanes run along k, 4 values each (a warp
//     reads 512 contiguous bytes of each weight row per step); the lanes' sums
//     meet in a butterfly of shuffles (fixed order: deterministic).
//
// The GPU fills through the batch: tcgemm.api cuts K into equal parts as one
// strided batched GEMM (fp32_k_splits) and sums the parts in order, so each
// CTA streams a slab of (K / parts) x BLOCK_N of the weight.
#include "epilogue.cuh"

#ifndef BLOCK_M
#define BLOCK_M 16
#define BLOCK_N 128
#define THREADS 256
#endif
#ifndef VEC
#define VEC 1  // 4: A and B 16-byte aligned (the launcher's define)
#endif

constexpr int WARPS = THREADS / 32;

// 4 consecutive elements at p (16-byte aligned when aligned16), or those in bounds (count < 4) one by one.
__device__ __forceinline__ float4 load4(const float* p, int count, bool aligned16) {
    if (count >= 4 && aligned16) return __ldg(reinterpret_cast<const float4*>(p));
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < 4; ++i)
        if (i < count) v[i] = __ldg(p + i);
    return make_float4(v[0], v[1], v[2], v[3]);
}

__device__ __forceinline__ float a_at(const Gemm& g, int m, int k) { return __ldg(g.A + a_offset(g, m, k)); }

// The rows of A at k .. k + 3 for every row of the CTA (0 past M or K), all loads issued before any is used:
// one memory latency per step, not one per row.
__device__ __forceinline__ void load_rows(const Gemm& g, int m0, int rows, int k, bool a_vec, float4 (&x)[BLOCK_M]) {
#pragma unroll
    for (int m = 0; m < BLOCK_M; ++m) {
        const int row = m0 + m;
        if (m >= rows) {
            x[m] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        } else if (A_LAYOUT == LAYOUT_ROW) {
            x[m] = load4(g.A + (i64)row * g.lda + k, g.K - k, a_vec);
        } else {
            x[m] = make_float4(a_at(g, row, k), k + 1 < g.K ? a_at(g, row, k + 1) : 0.0f,
                               k + 2 < g.K ? a_at(g, row, k + 2) : 0.0f, k + 3 < g.K ? a_at(g, row, k + 3) : 0.0f);
        }
    }
}

#if B_LAYOUT == LAYOUT_ROW
constexpr int COLS = BLOCK_N / 4;        // threads along n
constexpr int SLICES = THREADS / COLS;  // thread rows: slice s takes k = 4 s .. 4 s + 3, then 4 SLICES further on
static_assert(THREADS % COLS == 0 && COLS % 32 == 0, "whole warps along n");

__device__ __forceinline__ void skinny(const Gemm& g) {
    __shared__ float total[BLOCK_M][BLOCK_N];
    const int col = threadIdx.x % COLS, slice = threadIdx.x / COLS;
    const int n = blockIdx.x * BLOCK_N + 4 * col;
    const int m0 = blockIdx.y * BLOCK_M, rows = g.M - m0;  // (a forced launch may have more rows: grid.y)
    const bool vec = VEC == 4 && g.ldb % 4 == 0;  // (the host passes VEC = 4 only with 16-byte aligned A and B)
    const bool a_vec = VEC == 4 && g.lda % 4 == 0;
    float acc[BLOCK_M][4] = {};
    for (int k = 4 * slice; k < g.K; k += 4 * SLICES) {
        float4 w[4], x[BLOCK_M];
#pragma unroll
        for (int u = 0; u < 4; ++u)  // rows k .. k + 3 of B, this thread's 4 columns
            w[u] = k + u < g.K && n < g.N ? load4(g.B + (i64)(k + u) * g.ldb + n, g.N - n, vec)
                                          : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        load_rows(g, m0, rows, k, a_vec, x);
#pragma unroll
        for (int m = 0; m < BLOCK_M; ++m) {
            const float xs[4] = {x[m].x, x[m].y, x[m].z, x[m].w};
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                acc[m][0] = fmaf(xs[u], w[u].x, acc[m][0]);
                acc[m][1] = fmaf(xs[u], w[u].y, acc[m][1]);
                acc[m][2] = fmaf(xs[u], w[u].z, acc[m][2]);
                acc[m][3] = fmaf(xs[u], w[u].w, acc[m][3]);
            }
        }
    }
    // The slices' sums, added in slice order.
    for (int s = 0; s < SLICES; ++s) {
        if (slice == s) {
#pragma unroll
            for (int m = 0; m < BLOCK_M; ++m)
#pragma unroll
                for (int j = 0; j < 4; ++j) total[m][4 * col + j] = s == 0 ? acc[m][j] : total[m][4 * col + j] + acc[m][j];
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < BLOCK_M * COLS; i += THREADS) {
        const int m = i / COLS, c = i % COLS;
        store_d4(g, m0 + m, blockIdx.x * BLOCK_N + 4 * c, &total[m][4 * c]);
    }
}
#else
constexpr int WARP_COLS = BLOCK_N / WARPS;  // columns of B (weight rows) per warp
static_assert(BLOCK_N % WARPS == 0, "whole columns per warp");

__device__ __forceinline__ void skinny(const Gemm& g) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int n0 = blockIdx.x * BLOCK_N + warp * WARP_COLS;
    const int m0 = blockIdx.y * BLOCK_M, rows = g.M - m0;  // (a forced launch may have more rows: grid.y)
    const bool vec = VEC == 4 && g.ldb % 4 == 0;
    const bool a_vec = VEC == 4 && g.lda % 4 == 0;
    float acc[BLOCK_M][WARP_COLS] = {};
    for (int k = 4 * lane; k < g.K; k += 128) {
        float4 w[WARP_COLS], x[BLOCK_M];
#pragma unroll
        for (int c = 0; c < WARP_COLS; ++c)  // one 16-byte load from each of the warp's weight rows
            w[c] = n0 + c < g.N ? load4(g.B + (i64)(n0 + c) * g.ldb + k, g.K - k, vec)
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        load_rows(g, m0, rows, k, a_vec, x);
#pragma unroll
        for (int m = 0; m < BLOCK_M; ++m)
#pragma unroll
            for (int c = 0; c < WARP_COLS; ++c) {
                float v = acc[m][c];
                v = fmaf(x[m].x, w[c].x, v);
                v = fmaf(x[m].y, w[c].y, v);
                v = fmaf(x[m].z, w[c].z, v);
                acc[m][c] = fmaf(x[m].w, w[c].w, v);
            }
    }
#pragma unroll
    for (int m = 0; m < BLOCK_M; ++m)
#pragma unroll
        for (int c = 0; c < WARP_COLS; ++c)
#pragma unroll
            for (int off = 16; off > 0; off /= 2) acc[m][c] += __shfl_xor_sync(0xffffffffu, acc[m][c], off);
    if (lane == 0) {
#pragma unroll
        for (int m = 0; m < BLOCK_M; ++m)
#pragma unroll
            for (int c = 0; c < WARP_COLS; ++c) store_d(g, m0 + m, n0 + c, acc[m][c]);
    }
}
#endif

TCGEMM_KERNEL(simt_skinny, skinny)
