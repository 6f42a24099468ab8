// wmma stage 0 — tensor cores, operands straight from global memory.
//
// The first step from CUDA cores to tensor cores: each warp owns one
// MMA_M x MMA_N (16 x 16) tile of D and walks K in MMA_K steps, loading a
// 16 x MMA_K fragment of A and an MMA_K x 16 fragment of B and issuing one
// warp-wide mma_sync (HMMA / IMMA) for 16*16*MMA_K multiply-adds — work that
// took the SIMT kernels 4096 (or 2048) FFMAs.  No data is shared between
// warps: every fragment comes from global memory (L1/L2 catch the reuse),
// so the kernel is bound by load latency and bandwidth, not by the tensor
// cores; stage 1 fixes that with shared-memory tiles.
//
// A column-major A or B is simply loaded as a col_major fragment (see
// wmma.cuh): no transposing copy for any of the four layouts.
//
// wmma can only load a fragment whose pointer is 32-byte aligned, whose
// leading dimension is a multiple of 16 bytes and whose 16 x MMA_K block
// lies wholly inside the matrix.  Interior tiles of a well-aligned matrix
// meet that and go direct; the others (ragged M/N/K edges, odd lda/ldb,
// offset views) are first copied into a small per-warp shared buffer with
// zeros outside the matrix — the zero padding the slides use at the edges —
// and loaded from there.  The test depends only on the warp's tile, so the
// branch is uniform across the warp.
#include "epilogue.cuh"
#include "wmma.cuh"

#ifndef BLOCK_M
#define BLOCK_M 32
#define BLOCK_N 64
#define THREADS 256
#endif

constexpr int WARPS_N = BLOCK_N / MMA_N;
constexpr int WARPS = THREADS / 32;
static_assert((BLOCK_M / MMA_M) * WARPS_N == WARPS, "one warp per 16 x 16 tile of D");

constexpr bool A_ROW = A_LAYOUT == LAYOUT_ROW, B_ROW = B_LAYOUT == LAYOUT_ROW;
// The padded copies keep the operand's own layout, packed: their leading
// dimension is the block's contiguous extent (16 or 8 elements, >= 16 bytes).
constexpr int A_PAD_LD = A_ROW ? MMA_K : MMA_M;
constexpr int B_PAD_LD = B_ROW ? MMA_N : MMA_K;
static_assert(A_PAD_LD % WMMA_LD_STEP == 0 && B_PAD_LD % WMMA_LD_STEP == 0, "wmma leading dimension rule");

// Copy the ROWS x COLS block at src (element (r, c) at r*ld + c when ROW,
// else c*ld + r) into dst in the same layout, packed, zero outside
// rows_left x cols_left.  Lanes walk the contiguous direction: coalesced.
template <int ROWS, int COLS, bool ROW>
__device__ __forceinline__ void pad_block(elem_a* dst, const elem_a* src, i64 ld, int rows_left, int cols_left,
                                          int lane) {
    constexpr int FAST = ROW ? COLS : ROWS;
    const elem_bits* s = reinterpret_cast<const elem_bits*>(src);
    elem_bits* d = reinterpret_cast<elem_bits*>(dst);
#pragma unroll
    for (int i = lane; i < ROWS * COLS; i += 32) {
        const int slow = i / FAST, fast = i % FAST;
        const int r = ROW ? slow : fast, c = ROW ? fast : slow;
        d[i] = (r < rows_left && c < cols_left) ? s[(i64)slow * ld + fast] : elem_bits(0);
    }
}

// Can wmma read this block in place?  (ld_ok: the leading dimension rule, tested once.)
__device__ __forceinline__ bool direct_ok(const void* p, bool ld_ok, bool inside) {
    return ld_ok && inside && (reinterpret_cast<unsigned long long>(p) % 32) == 0;
}

__device__ __forceinline__ void wmma_naive_body(const Gemm& g) {
    __shared__ __align__(128) elem_a a_pad[WARPS][MMA_M * MMA_K];
    __shared__ __align__(128) elem_b b_pad[WARPS][MMA_K * MMA_N];
    __shared__ __align__(128) acc_t d_tile[WARPS][MMA_M * MMA_N];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BLOCK_M + (warp / WARPS_N) * MMA_M;
    const int n0 = blockIdx.x * BLOCK_N + (warp % WARPS_N) * MMA_N;
    if (m0 >= g.M || n0 >= g.N) return;  // whole warp; no CTA barrier below

    const bool lda_ok = g.lda % WMMA_LD_STEP == 0 && g.lda < (1ll << 31);
    const bool ldb_ok = g.ldb % WMMA_LD_STEP == 0 && g.ldb < (1ll << 31);
    const bool a_rows_in = m0 + MMA_M <= g.M, b_cols_in = n0 + MMA_N <= g.N;

    frag_acc acc;
    wm::fill_fragment(acc, acc_t(0));
    frag_a a;
    frag_b b;
    for (int k0 = 0; k0 < g.K; k0 += MMA_K) {
        const bool k_in = k0 + MMA_K <= g.K;
        const elem_a* pa = g.A + a_offset(g, m0, k0);
        const elem_b* pb = g.B + b_offset(g, k0, n0);
        if (direct_ok(pa, lda_ok, a_rows_in && k_in)) {
            wm::load_matrix_sync(a, pa, (unsigned)g.lda);
        } else {
            __syncwarp();  // the previous step's fragment load of a_pad is done
            pad_block<MMA_M, MMA_K, A_ROW>(a_pad[warp], pa, g.lda, g.M - m0, g.K - k0, lane);
            __syncwarp();
            wm::load_matrix_sync(a, a_pad[warp], A_PAD_LD);
        }
        if (direct_ok(pb, ldb_ok, b_cols_in && k_in)) {
            wm::load_matrix_sync(b, pb, (unsigned)g.ldb);
        } else {
            __syncwarp();
            pad_block<MMA_K, MMA_N, B_ROW>(b_pad[warp], pb, g.ldb, g.K - k0, g.N - n0, lane);
            __syncwarp();
            wm::load_matrix_sync(b, b_pad[warp], B_PAD_LD);
        }
        to_mma_input(a);
        to_mma_input(b);
        wm::mma_sync(acc, a, b, acc);
    }

    // The accumulator's lane layout is opaque: let wmma lay it out row-major
    // in shared memory, then each lane writes 8 consecutive columns of a row.
    wm::store_matrix_sync(d_tile[warp], acc, MMA_N, wm::mem_row_major);
    __syncwarp();
    const int r = lane / 2, c = (lane % 2) * 8;
    alignas(16) acc_t v[8];
    load_acc4(v, &d_tile[warp][r * MMA_N + c]);
    load_acc4(v + 4, &d_tile[warp][r * MMA_N + c + 4]);
    store_d_run<4>(g, m0 + r, n0 + c, v);
    store_d_run<4>(g, m0 + r, n0 + c + 4, v + 4);
}

TCGEMM_KERNEL(wmma_naive, wmma_naive_body)
