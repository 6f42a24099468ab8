// hopper_cluster.cuh — the cluster side of the production Hopper kernel's producer
// (hopper/04_tma_store_epilogue.cu): which CTA of a cluster loads which part of a k-tile, and to
// which CTAs its TMA load is multicast.
//
// A cluster's CLUSTER_M CTAs take CTAS_M x CTAS_N adjacent tiles (CTA rank r: tile row r % CTAS_M,
// column r / CTAS_M of the block; hopper_config.cuh).
//  * Stacked along M (the default, stage 3's 2 x 1) they need the same B tile: each loads B_PART =
//    BLOCK_N / CTAS_M columns of it and multicasts them to the CTAs of its tile column.
//  * Side by side along N (CLUSTER_ALONG_N, as cuBLAS's 256 x 128 kernels with 1 x 2 clusters) they
//    need the same A tile: each loads A_PART = BLOCK_M / CTAS_N rows of it.
//  * As CLUSTER_M / CLUSTER_2D x CLUSTER_2D tiles (2 x 2, or 4 x 2 in clusters of 8) each tile row shares
//    A and each tile column B: a CTA loads 1 / CTAS_N of its A and 1 / CTAS_M of its B (2 x 2 at 128 x 256:
//    a quarter less traffic from the L2 than 2 x 1; 4 x 2 at 64 x 96: 56 KB a cluster and k-tile, not 160).
//  * CLUSTER_M = 1 configs load whole tiles without multicast.
// Whatever the shape, every CTA's slot s receives the whole k-tile (STAGE_BYTES) on its own full[s]
// barrier, part from its own loads and part from its peers' multicasts, at the same offsets in every
// CTA (the cluster protocol: hopper/04_tma_store_epilogue.cu).
//
// A shared MN-major tile of one 64-wide box (BLOCK_N = 64 in a cluster of 2) cannot be cut along its
// 64 contiguous columns (the box row is one 128-byte swizzle row): each CTA loads BLOCK_K / CLUSTER_M
// of its k rows instead, 128 bytes each, at the same place in every CTA's slot (MN_K_SPLIT).
#pragma once
#include "hopper_config.cuh"
#include "mbarrier.cuh"
#include "tma.cuh"

// One operand's k-tile: the whole tile (ROWS rows of m or n, plain TMA loads) or, when the cluster
// shares it, this CTA's PART rows, multicast to every CTA of the cluster at the same offset.  K-major:
// one box of BLOCK_K x rows (128-byte rows of k); MN-major: boxes of MN_BOX m or n (one 128-byte row:
// 64 16-bit, 32 tf32 values) x BLOCK_K, 8 or 4 KB each.  Either way row r of the tile starts at byte r * 128 of the slot.  An MN-major tile of
// one box shared by the cluster is split along k (MN_K_SPLIT): k row j at byte j * 128.
// `part`: this CTA's index among the CTAs that share the tile, `mask`: their bits. MULTICAST = false loads the same
// part into this CTA alone (a grouped GEMM's cluster straddling two experts loads every part of B so: load_tile).
template <bool K_MAJOR, bool SHARED, int ROWS, int PART, bool MULTICAST = true>
__device__ __forceinline__ void load_operand(unsigned dst, const TmaDesc* map, unsigned bar, int k0, int mn0,
                                             int z, int part, unsigned short mask) {
    const int first = SHARED ? part * PART : 0;  // first row this CTA loads
    constexpr int COUNT = SHARED ? PART : ROWS;
    auto load = [&](unsigned to, int c0, int c1) {
        if constexpr (SHARED && MULTICAST) tma_load_3d_multicast(to, map, bar, c0, c1, z, mask);
        else tma_load_3d(to, map, bar, c0, c1, z);
    };
    if constexpr (K_MAJOR) {
        if constexpr (SHARED) load(dst + first * 128, k0, mn0 + first);
        else tma_load_3d(dst, map, bar, k0, mn0, z);
    } else if constexpr (SHARED && MN_K_SPLIT<PART>) {
        constexpr int K_ROWS = BLOCK_K / CLUSTER_M;
        load(dst + part * K_ROWS * 128, mn0, k0 + part * K_ROWS);
    } else {
#pragma unroll
        for (int j = 0; j < COUNT / MN_BOX; ++j) {
            const int row = first + MN_BOX * j;
            load(dst + row * 128, mn0 + row, k0);
        }
    }
}

// EPI_GATED (epilogue_act.cuh): the tile's B rows v < BLOCK_N / 2 are row n0 / 2 + v of the gate_up weight's
// gate half, rows v >= BLOCK_N / 2 the same rows of its up half.  The host's map of B is (K, N / 2, 2 halves),
// so a box of GATED_BOX rows (this CTA's part of B, or a half tile, whichever is smaller) is one load at
// coordinates (k0, n0 / 2 + v % (BLOCK_N / 2), v / (BLOCK_N / 2)); rows beyond N / 2 are zero-filled.
constexpr int GATED_BOX = B_PART < BLOCK_N / 2 ? B_PART : BLOCK_N / 2;
__device__ __forceinline__ void load_gated_b(unsigned dst, const TmaDesc* map, unsigned bar, int k0, int n0, int part,
                                             unsigned short mask) {
    const int first = SHARE_B ? part * B_PART : 0;
    constexpr int COUNT = SHARE_B ? B_PART : BLOCK_N;
#pragma unroll
    for (int j = 0; j < COUNT / GATED_BOX; ++j) {
        const int v = first + GATED_BOX * j;
        const int row = n0 / 2 + v % (BLOCK_N / 2), half = v / (BLOCK_N / 2);
        if constexpr (SHARE_B) tma_load_3d_multicast(dst + v * 128, map, bar, k0, row, half, mask);
        else tma_load_3d(dst + v * 128, map, bar, k0, row, half);
    }
}

// k-tile kt of this CTA's tile: its A and B, the one the cluster shares in parts (`own_b`: B wholly from this CTA's
// loads, every part into its own slot, as where the cluster's CTAs are on different experts: group_rows.cuh).
// A_HALVES: A's second WG_M rows from row `m_half` (hopper_config.cuh: kAHalves).
__device__ __forceinline__ void load_tile(const TmaDesc* tma_a, const TmaDesc* tma_b, unsigned a_dst,
                                          unsigned b_dst, unsigned bar, int kt, int m0, int n0, int za, int zb,
                                          int rank, unsigned extra_bytes = 0, bool own_b = false, int m_half = 0) {
    const int k0 = kt * BLOCK_K;
    mbar_arrive_expect_tx(bar, STAGE_BYTES + extra_bytes);  // (extra: block_scales.cuh's copies, issued after)
    // A goes to the CTAs of this tile row (ranks rank % CTAS_M + CTAS_M j), B to those of this tile column.
    const int rm = rank % CTAS_M, rn = rank / CTAS_M;
    const unsigned short a_mask = SHARE_A ? ((1u << CLUSTER_M) - 1) / ((1u << CTAS_M) - 1) << rm : 0;
    const unsigned short b_mask = ((1u << CTAS_M) - 1) << (CTAS_M * rn);
    if constexpr (kAHalves) {
        tma_load_3d(a_dst, tma_a, bar, k0, m0, za);
        tma_load_3d(a_dst + WG_M * 128, tma_a, bar, k0, m_half, za);
    } else {
        load_operand<A_K_MAJOR, SHARE_A, BLOCK_M, A_PART>(a_dst, tma_a, bar, k0, m0, za, rn, a_mask);
    }
    if constexpr (GATED) {
        load_gated_b(b_dst, tma_b, bar, k0, n0, rm, b_mask);  // (B is one matrix: zb is 0)
    } else if (SHARE_B && own_b) {
#pragma unroll
        for (int part = 0; part < CTAS_M; ++part)
            load_operand<B_K_MAJOR, SHARE_B, BLOCK_N, B_PART, false>(b_dst, tma_b, bar, k0, n0, zb, part, 0);
    } else {
        load_operand<B_K_MAJOR, SHARE_B, BLOCK_N, B_PART>(b_dst, tma_b, bar, k0, n0, zb, rm, b_mask);
    }
}
