// mma_sync stage 0 — tensor cores through mma.sync, fragments loaded by hand.
//
// The SIMT ladder's warp tile (simt/07) ends with each thread doing scalar
// FMAs.  Here the same CTA tile / warp tile split feeds the tensor cores: one
// mma.sync makes a whole warp compute a 16 x 8 x MMA_K product (m16n8k16 for
// f16/bf16, m16n8k8 for tf32, m16n8k32 for s8; see mma.cuh), 8-32x the
// arithmetic of a warp-wide FFMA per issue.  The price is that each lane must
// hold exactly the A and B elements the instruction expects.  This stage
// loads them explicitly: every fragment register is one 32-bit shared load at
// the (row, k) that the PTX fragment figure assigns to (lane, register) —
// a_frag_row/a_frag_col/b_frag_row/b_frag_col of mma.cuh, the formulas of
// src/tcgemm/fragments.py.  A register's elements are consecutive in k for
// every precision, so shared memory holds both operands K-major
// (As[m][k], Bs[n][k]); MN-major sources are transposed by the copy.
//
// Shared rows are BLOCK_K elements + 16 bytes of padding: with 64-byte rows
// that is a 20-word pitch, so the warp's 8 rows (g) x 4 words (t) of a fragment
// register hit 8 x 4 different banks (20g mod 32 = 0,20,8,28,16,4,24,12).
// The copy is synchronous (load, barrier, compute, barrier): later stages fix that.
#include "epilogue.cuh"
#include "mma.cuh"
#include "smem_copy.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 32
#define WARP_M 64
#define WARP_N 32
#define THREADS 256
#endif

constexpr int E = sizeof(elem_a);
constexpr int MT = WARP_M / MMA_M, NT = WARP_N / MMA_N;  // MMA tiles per warp tile
constexpr int WARPS_N = BLOCK_N / WARP_N;
constexpr int LDK = BLOCK_K + 16 / E;  // shared row pitch in elements (16 bytes of padding)
static_assert((BLOCK_M / WARP_M) * WARPS_N * 32 == THREADS, "one warp per warp tile");
static_assert(WARP_M % MMA_M == 0 && WARP_N % MMA_N == 0 && BLOCK_K % MMA_K == 0, "whole MMA tiles");

__device__ __forceinline__ u32 lds32(const raw_t* p) { return *reinterpret_cast<const u32*>(p); }

__device__ __forceinline__ void mma_fragments(const Gemm& g) {
    __shared__ __align__(16) raw_t As[BLOCK_M * LDK];  // As[m][k]
    __shared__ __align__(16) raw_t Bs[BLOCK_N * LDK];  // Bs[n][k]
    const raw_t* A = reinterpret_cast<const raw_t*>(g.A);
    const raw_t* B = reinterpret_cast<const raw_t*>(g.B);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int wm = (warp / WARPS_N) * WARP_M, wn = (warp % WARPS_N) * WARP_N;

    acc_t acc[MT][NT][4] = {};
    for (int k0 = 0; k0 < g.K; k0 += BLOCK_K) {
        copy_tile<BLOCK_M, BLOCK_K, A_LAYOUT == LAYOUT_ROW, true, LDK, THREADS>(As, A, g.lda, m0, g.M, k0, g.K);
        copy_tile<BLOCK_N, BLOCK_K, B_LAYOUT == LAYOUT_COL, true, LDK, THREADS>(Bs, B, g.ldb, n0, g.N, k0, g.K);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BLOCK_K; kk += MMA_K) {
            u32 a[MT][4], b[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {
#pragma unroll
                for (int r = 0; r < 4; ++r)
                    a[i][r] = lds32(&As[(wm + i * MMA_M + a_frag_row(lane, r)) * LDK + kk + a_frag_col(lane, r)]);
                prepare_fragment(a[i]);
            }
#pragma unroll
            for (int j = 0; j < NT; ++j) {
#pragma unroll
                for (int r = 0; r < 2; ++r)
                    b[j][r] = lds32(&Bs[(wn + j * MMA_N + b_frag_col(lane, r)) * LDK + kk + b_frag_row(lane, r)]);
                prepare_fragment(b[j]);
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
    }
    // Accumulator pairs (c0, c1) and (c2, c3) are two adjacent columns of rows g and g + 8.
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            const int row = m0 + wm + i * MMA_M + c_frag_row(lane, 0);
            const int col = n0 + wn + j * MMA_N + c_frag_col(lane, 0);
            store_d_run<2>(g, row, col, &acc[i][j][0]);
            store_d_run<2>(g, row + 8, col, &acc[i][j][2]);
        }
}

TCGEMM_KERNEL(mma_fragments, mma_fragments)
