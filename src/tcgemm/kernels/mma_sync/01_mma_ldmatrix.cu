// mma_sync stage 1 — fragments through ldmatrix.
//
// Stage 0 spends one 32-bit shared load per fragment register: for a 64 x 32
// warp tile and one MMA_K step, 16 A + 8 B loads, each a separate instruction
// with its own address.  ldmatrix.x4 loads four 8x8 16-bit matrices — a whole
// 16 x MMA_K A fragment, or the B fragments of two n8 tiles — in one
// instruction, delivered directly in fragment order (ldmatrix.cuh): 4x fewer
// shared-load instructions and address computations, the same bytes moved.
//
// Which ldmatrix, per operand layout in shared memory:
//   K-major ([m][k] / [n][k]), any precision: plain ldmatrix.  Lane l of a
//     matrix receives word l%4 of row l/4, which is the fragment word for f16
//     pairs, a single tf32 and an s8 quadruple alike.
//   MN-major 16-bit ([k][m] / [k][n]): ldmatrix.trans, which transposes 8x8
//     blocks of 16-bit elements on the way into registers.
//   MN-major tf32 / s8: .trans would transpose 16-bit halves of the 32-bit
//     or 4 x 8-bit words, not elements.  The copy transposes instead: those
//     operands are written K-major into shared memory (smem_copy.cuh,
//     DST_K_MAJOR), and plain ldmatrix applies.
// Shared rows carry 16 bytes of padding: the 8 rows one matrix reads then
// start at 8 different 16-byte bank groups (row pitch of 80 bytes: 5r mod 8;
// of 2*BLOCK + 16 bytes with BLOCK a multiple of 64: r mod 8).
#include "epilogue.cuh"
#include "ldmatrix.cuh"
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
constexpr int MT = WARP_M / MMA_M, NT = WARP_N / MMA_N;
constexpr int WARPS_N = BLOCK_N / WARP_N;
static_assert((BLOCK_M / WARP_M) * WARPS_N * 32 == THREADS, "one warp per warp tile");
static_assert(WARP_M % MMA_M == 0 && WARP_N % MMA_N == 0 && BLOCK_K % MMA_K == 0, "whole MMA tiles");

// Shared layout of each operand: K-major unless it is a 16-bit MN-major source.
constexpr bool A_KMAJOR = A_LAYOUT == LAYOUT_ROW || E != 2;
constexpr bool B_KMAJOR = B_LAYOUT == LAYOUT_COL || E != 2;
constexpr int A_LD = A_KMAJOR ? BLOCK_K + 16 / E : BLOCK_M + 16 / E;  // pitch in elements
constexpr int B_LD = B_KMAJOR ? BLOCK_K + 16 / E : BLOCK_N + 16 / E;
constexpr int A_ROWS = A_KMAJOR ? BLOCK_M : BLOCK_K, B_ROWS = B_KMAJOR ? BLOCK_N : BLOCK_K;
constexpr int CHUNK = 16 / E;  // elements per 16-byte ldmatrix row

__device__ __forceinline__ void mma_ldmatrix(const Gemm& g) {
    __shared__ __align__(16) raw_t As[A_ROWS * A_LD];
    __shared__ __align__(16) raw_t Bs[B_ROWS * B_LD];
    const raw_t* A = reinterpret_cast<const raw_t*>(g.A);
    const raw_t* B = reinterpret_cast<const raw_t*>(g.B);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int wm = (warp / WARPS_N) * WARP_M, wn = (warp % WARPS_N) * WARP_N;

    // This lane's ldmatrix row address, relative to the fragment corner (ldmatrix.cuh's table).
    const int q = lane / 8, r8 = lane % 8;
    const int a_lane = A_KMAJOR ? (r8 + 8 * (q % 2)) * A_LD + (q / 2) * CHUNK   // [m][k]
                                : (r8 + 8 * (q / 2)) * A_LD + (q % 2) * 8;      // [k][m], .trans
    const int b_lane = B_KMAJOR ? (r8 + 8 * (q / 2)) * B_LD + (q % 2) * CHUNK   // [n][k]
                                : (r8 + 8 * (q % 2)) * B_LD + (q / 2) * 8;      // [k][n], .trans
    const u32 a_base = cvta_shared(As) + a_lane * E, b_base = cvta_shared(Bs) + b_lane * E;

    acc_t acc[MT][NT][4] = {};
    for (int k0 = 0; k0 < g.K; k0 += BLOCK_K) {
        copy_tile<BLOCK_M, BLOCK_K, A_LAYOUT == LAYOUT_ROW, A_KMAJOR, A_LD, THREADS>(As, A, g.lda, m0, g.M, k0, g.K);
        copy_tile<BLOCK_N, BLOCK_K, B_LAYOUT == LAYOUT_COL, B_KMAJOR, B_LD, THREADS>(Bs, B, g.ldb, n0, g.N, k0, g.K);
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BLOCK_K; kk += MMA_K) {
            u32 a[MT][4], b[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) {
                const int m = wm + i * MMA_M;  // fragment corner (m, kk)
                ldmatrix4<!A_KMAJOR>(a[i], a_base + E * (A_KMAJOR ? m * A_LD + kk : kk * A_LD + m));
                prepare_fragment(a[i]);
            }
#pragma unroll
            for (int j = 0; j + 1 < NT; j += 2) {  // two n8 tiles per x4
                const int n = wn + j * MMA_N;
                u32 r[4];
                ldmatrix4<!B_KMAJOR>(r, b_base + E * (B_KMAJOR ? n * B_LD + kk : kk * B_LD + n));
                b[j][0] = r[0]; b[j][1] = r[1]; b[j + 1][0] = r[2]; b[j + 1][1] = r[3];
            }
            if constexpr (NT % 2 == 1) {  // a last single n8 tile: x2 (lanes 0-15 give the addresses)
                const int n = wn + (NT - 1) * MMA_N;
                ldmatrix2<!B_KMAJOR>(b[NT - 1], b_base + E * (B_KMAJOR ? n * B_LD + kk : kk * B_LD + n));
            }
#pragma unroll
            for (int j = 0; j < NT; ++j) prepare_fragment(b[j]);
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
    }
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

TCGEMM_KERNEL(mma_ldmatrix, mma_ldmatrix)
