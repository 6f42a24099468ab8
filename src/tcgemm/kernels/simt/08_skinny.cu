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
//     reads 512 contiguous bytes of each weight row per step); A's rows come
//     through shared memory (below: each lane needs other k than its
//     neighbours, so there is no broadcast); the lanes' sums meet in a
//     butterfly of shuffles (fixed order: deterministic).
//
// The GPU fills through the batch: tcgemm.api cuts K into equal parts as one
// strided batched GEMM (fp32_k_splits) and sums the parts in order, so each
// CTA streams a slab of (K / parts) x BLOCK_N of the weight.
#include "epilogue.cuh"
#include "cp_async.cuh"

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

// A staged in shared memory.  Read straight from global (the first build), every warp loaded all BLOCK_M
// rows of A at its own 128 k per step: 16 rows x 512 bytes of A for each 4 x 512 bytes of weight, the same A again in
// each of the CTA's warps.  What the L1 misses comes from L2, and at 16 x 4096 x 4096 the CTAs' A traffic
// (up to 8 x 256 KB each) outweighed the weight (512 KB each) by four to one: the kernel ran at 0.82-0.86x of
// cuBLAS, 0.63-0.66x at 16 x 4096 x 14336 and 16 x 14336 x 4096; staged 1.00-1.24x (CUDA graphs where timed,
// 2026-11-27-h100-skinny-staged-cc311b0.json).  Here the CTA copies each A_CHUNK-deep slab of its
// rows into shared memory once (cp.async, two buffers: the next slab lands while this one is used), and the
// warps read A from there; a warp's 32 lanes read 512 contiguous bytes of a row (16-byte reads: no bank
// conflicts).  The weight stays in registers, each lane's loads issued W_AHEAD steps before their FMAs so
// that W_AHEAD x 2 KB per warp are in flight.
constexpr int A_CHUNK = 256;               // k per staged slab: 2 warp steps of 128
constexpr int CHUNK_STEPS = A_CHUNK / 128;
constexpr int W_AHEAD = 2;                 // warp steps of weight loads in flight ahead of the FMAs

// Slab `chunk` (k = k0 .. k0 + A_CHUNK - 1) of the CTA's rows of A into `buf` ([BLOCK_M][A_CHUNK] floats),
// zeros past M and K.
__device__ __forceinline__ void stage_a(const Gemm& g, int m0, int rows, int k0, bool a_vec, float* buf) {
    const u32 base = (u32)__cvta_generic_to_shared(buf);
    if (A_LAYOUT == LAYOUT_ROW && a_vec) {
        for (int i = threadIdx.x; i < BLOCK_M * A_CHUNK / 4; i += THREADS) {
            const int m = i / (A_CHUNK / 4), k = k0 + 4 * (i % (A_CHUNK / 4));
            const int left = m < rows ? min(max(g.K - k, 0), 4) : 0;
            const float* src = left > 0 ? g.A + (i64)(m0 + m) * g.lda + k : g.A;
            cp_async_16_zfill(base + 16u * i, src, 4 * left);
        }
    } else {
        for (int i = threadIdx.x; i < BLOCK_M * A_CHUNK; i += THREADS) {
            const int m = i / A_CHUNK, k = k0 + i % A_CHUNK;
            const bool in = m < rows && k < g.K;
            cp_async_4_zfill(base + 4u * i, in ? g.A + a_offset(g, m0 + m, k) : g.A, in ? 4 : 0);
        }
    }
    cp_async_commit();
}

__device__ __forceinline__ void load_weights(const Gemm& g, int n0, int k, bool vec, float4 (&w)[WARP_COLS]) {
#pragma unroll
    for (int c = 0; c < WARP_COLS; ++c)
        w[c] = n0 + c < g.N && k < g.K ? load4(g.B + (i64)(n0 + c) * g.ldb + k, g.K - k, vec)
                                       : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

__device__ __forceinline__ void skinny(const Gemm& g) {
    __shared__ __align__(16) float a_s[2][BLOCK_M][A_CHUNK];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int n0 = blockIdx.x * BLOCK_N + warp * WARP_COLS;
    const int m0 = blockIdx.y * BLOCK_M, rows = g.M - m0;
    const bool vec = VEC == 4 && g.ldb % 4 == 0;
    const bool a_vec = VEC == 4 && g.lda % 4 == 0;
    const int chunks = (g.K + A_CHUNK - 1) / A_CHUNK;
    float acc[BLOCK_M][WARP_COLS] = {};
    float4 w[W_AHEAD][WARP_COLS];  // w[s % W_AHEAD]: warp step s's weights
#pragma unroll
    for (int s = 0; s < W_AHEAD; ++s) load_weights(g, n0, 128 * s + 4 * lane, vec, w[s]);
    stage_a(g, m0, rows, 0, a_vec, &a_s[0][0][0]);
    for (int chunk = 0; chunk < chunks; ++chunk) {
        if (chunk + 1 < chunks) {
            stage_a(g, m0, rows, (chunk + 1) * A_CHUNK, a_vec, &a_s[(chunk + 1) % 2][0][0]);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();  // slab `chunk` is in for every thread
        const float(*a)[A_CHUNK] = a_s[chunk % 2];
#pragma unroll
        for (int st = 0; st < CHUNK_STEPS; ++st) {
            // (CHUNK_STEPS a multiple of W_AHEAD: the ring index is a constant)
            float4 cur[WARP_COLS];
#pragma unroll
            for (int c = 0; c < WARP_COLS; ++c) cur[c] = w[st % W_AHEAD][c];
            const int step = chunk * CHUNK_STEPS + st;
            load_weights(g, n0, 128 * (step + W_AHEAD) + 4 * lane, vec, w[st % W_AHEAD]);
#pragma unroll
            for (int m = 0; m < BLOCK_M; ++m) {
                if (m >= rows) break;  // (uniform: decode's one token does 1 / BLOCK_M of the reads and FMAs)
                const float4 x = *reinterpret_cast<const float4*>(&a[m][128 * st + 4 * lane]);
#pragma unroll
                for (int c = 0; c < WARP_COLS; ++c) {
                    float v = acc[m][c];
                    v = fmaf(x.x, cur[c].x, v);
                    v = fmaf(x.y, cur[c].y, v);
                    v = fmaf(x.z, cur[c].z, v);
                    acc[m][c] = fmaf(x.w, cur[c].w, v);
                }
            }
        }
        __syncthreads();  // every warp is done with this buffer before slab chunk + 2 overwrites it
    }
    static_assert(CHUNK_STEPS % W_AHEAD == 0, "whole weight rings per slab");
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
