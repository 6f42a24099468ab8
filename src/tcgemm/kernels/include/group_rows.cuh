// group_rows.cuh — grouped GEMMs (mixture-of-experts), masked or contiguous, in the production Hopper kernel
// (hopper/04_tma_store_epilogue.cu, GROUP_ROWS = 1 or 2; tcgemm.grouped_gemm).
//
// A batched GEMM whose batch entries are experts: A (E, M, K) holds each expert's tokens in its first rows, padded to
// a common M; B (E, K, N) the experts' weights; D (E, M, N). How many rows of entry z are tokens lives on the GPU (a
// router's counts, never read by the host), so the launch is the same whatever the routing and a CUDA graph
// captures it once. The kernel walks only the tiles that hold tokens, in one of two walks; a small kernel before it
// (kernels/util/group_prefix.cu) turns the counts into prefix sums for both and picks one:
//  * by entry: prefix of each entry's cluster rows (CTAS_M x BLOCK_M rows), the walk numbering them entry by entry,
//    each entry's units in unit_coord's grouped order. A cluster never straddles two entries, so its CTAs always
//    share B (each loads a part and multicasts it: hopper_cluster.cuh), but an entry's last cluster row holds up to
//    CTAS_M - 1 tiles past its tokens: at 128 tokens per expert and clusters of two, 1.33x (Mixtral) to 1.48x
//    (DeepSeek-V3) the row tiles the tokens need.
//  * in pairs: prefix of each entry's row tiles (BLOCK_M rows), R in all; those R row tiles, entry after entry, are
//    the rows of one tall problem of units_n tile columns, walked as any other (unit_coord's groups): a cluster's CTAs
//    take CTAS_M consecutive row tiles (the last cluster row's missing ones repeat the last tile: the same values
//    written twice), whichever entries they belong to. Where those are one entry's the CTAs share its B tile; where
//    the cluster straddles two, each CTA loads the whole B tile of its own (TileCoord::own_b) into the same slot
//    offsets, so the ring's barriers and byte counts do not change. No tile past an entry's tokens, but B read twice
//    by a straddling cluster.
// Timed against each other in one process (2026-11-27-h100-grouped-walk-ab-*-{9eefc9e,7a1c424}.json): fp8 (128 x 128
// tiles) pairs 1.19-1.27x at 128 tokens per expert, 1.08-1.14x at 512, 1.01-1.02x at 2048; bf16 (128 x 256) 1.03-1.11x
// at Mixtral's 512 and DeepSeek-V3's down projection, 0.96-0.98x at DeepSeek-V3's gate_up (K = 7168) and Mixtral's
// down at 128. So the prefix kernel takes pairs wherever the walk by entry would compute tiles past the tokens
// (tcgemm.grouped.WALK forces either). Skipping the empty units of the whole batched problem (the first version)
// left the CTAs uneven shares of the rest: a static round-robin over units of which a routing-dependent subset is
// empty (Mixtral's experts at 128-512 tokens each ran 0.58-0.79x of a loop of cuBLAS calls:
// 2026-11-26-h100-grouped-288aef2.json). A tile's rows past the count are computed from A's padding and stored into
// D's, which tcgemm.grouped_gemm documents as unspecified.
//
// GROUP_ROWS = 2, the contiguous layout (prefill and training: each expert's tokens one segment of a 2-D A, segments
// of any length): A (T, K) and D (T, N) hold every expert's rows, expert z's from row start[z] to end[z] = start[z + 1];
// B is (E, K, N) as before; the kernel sees A and D as broadcast (one batch entry), B per expert. The prefix kernel
// writes the segment bounds after the row tiles' prefix: ints E + 1 .. 2E + 1 hold start[0] = 0, end[0], ...,
// end[E - 1].
// A unit's tiles start at start[z] + their rows within the expert, at any row (TMA loads from any row). The tile
// that would reach past end[z] moves up to end there, over rows of the tile before (as the kernel's last row of
// tiles does at M), where the segment holds BLOCK_M rows; so every tile goes out through TMA as usual. Only in a
// segment shorter than a tile does a tile reach past it (its rows past end[z] are the next expert's, or zeros past T,
// feeding rows that are not stored): that one stages its rows as the others do, then writes those above end[z] with
// 16-byte stores (epilogue_tma.cuh, CLIP; a TMA store would write over the next expert's rows; from registers they
// cost the contiguous layout 15-18% at DeepSeek-V3's shapes: docs/findings.md). D is exact: no padding, nothing
// copied. (The first version stored every tile that reached past its segment from registers: 6-15% slower than the
// masked layout on the same tiles at 512-2048 tokens per expert, 2026-11-26-h100-grouped-contiguous-c746adb.json.)
//
// The prefix comes in the launch's `counters` argument (the scratch ints of split-K, the tail split and GPC_ORDER,
// which grouped configs do not use), written by the kernel launched just before: every read of it comes after the
// programmatic-dependent-launch wait (pdl.cuh). A tile's entry is a binary search of the prefix (log2 E loads, cached
// in L1), once per unit and role.
#pragma once
#include "hopper_config.cuh"
#include "hopper_sched.cuh"

#ifndef GROUP_ROWS
#define GROUP_ROWS 0
#endif
constexpr bool kGroupRows = GROUP_ROWS != 0;
constexpr bool kGroupContiguous = GROUP_ROWS == 2;
static_assert(!kGroupRows || (SPLIT_K == 1 && !TAIL_SPLIT && !GPC_ORDER && !OVERLAP && !kPingpong && !kDTransposed &&
                              CTAS_N == 1 && !GATED),
              "grouped rows: no split-K, tail split or GPC_ORDER (their scratch is the prefix's argument), EPI_OVERLAP, "
              "ping-pong, D^T or a gated B; clusters along M");
static_assert(!kGroupContiguous || kRegisterEpilogue,
              "contiguous experts: the register epilogue for the tiles that reach past a segment");

// The prefix kernel's arrays (group_prefix.cu): row tiles per entry, and cluster rows per entry after the bounds.
__device__ __forceinline__ const int* grouped_cluster_rows(const int* prefix, int batch) {
    return prefix + (kGroupContiguous ? 2 * batch + 2 : batch + 1);
}
// Which walk this launch takes: 1 in pairs of row tiles, 0 by entry (always by entry with clusters of one CTA, where
// the two are the same walk).
__device__ __forceinline__ bool grouped_walk_pairs(const int* prefix, int batch) {
    return CTAS_M > 1 && __ldg(grouped_cluster_rows(prefix, batch) + batch + 1) != 0;
}

// Units of the grouped walk: cluster rows times the unit columns.
__device__ __forceinline__ int grouped_units(const int* prefix, int batch, int units_n) {
    const int rows = grouped_walk_pairs(prefix, batch) ? (__ldg(prefix + batch) + CTAS_M - 1) / CTAS_M
                                                       : __ldg(grouped_cluster_rows(prefix, batch) + batch);
    return rows * units_n;
}

// The entry z of row `row` of a prefix p: p[z] <= row < p[z + 1] (the last such z: entries without rows repeat their
// prefix).
__device__ __forceinline__ int grouped_entry(const int* p, int batch, int row) {
    int lo = 0, hi = batch;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (__ldg(p + mid) <= row) lo = mid;
        else hi = mid;
    }
    return lo;
}

// Unit u of the grouped walk -> this CTA's tile.
__device__ __forceinline__ TileCoord grouped_unit_coord(const int* prefix, int batch, int u, int units_n, int rank) {
    TileCoord c;
    if (grouped_walk_pairs(prefix, batch)) {
        // unit_coord's place of u in the R / CTAS_M x units_n grid, the row tile CTAS_M um + rank of it (the last one
        // where that is past R), its entry and its rows there.
        const int tiles = __ldg(prefix + batch);
        c = unit_coord(u, (tiles + CTAS_M - 1) / CTAS_M, units_n, rank);  // (m0: row tile t times BLOCK_M)
        const int t0 = c.m0 / BLOCK_M - rank % CTAS_M;  // the cluster's first row tile
        const int t = min(t0 + rank % CTAS_M, tiles - 1);
        const int z0 = grouped_entry(prefix, batch, t0);
        const int next = __ldg(prefix + z0 + 1);  // (the first row tile past entry z0)
        // Every CTA of the cluster works this out alike: they share B where all their tiles are entry z0's.
        c.own_b = min(t0 + CTAS_M - 1, tiles - 1) >= next;
        c.z = t < next ? z0 : grouped_entry(prefix, batch, t);
        c.m0 = (t - __ldg(prefix + c.z)) * BLOCK_M;  // (rows within the entry)
    } else {
        // Entry z's cluster rows, then unit u's place among them in unit_coord's order.
        const int* rows = grouped_cluster_rows(prefix, batch);
        const int z = grouped_entry(rows, batch, u / units_n), first = __ldg(rows + z);
        c = unit_coord(u - first * units_n, __ldg(rows + z + 1) - first, units_n, rank);
        c.z = z;
    }
    if constexpr (kGroupContiguous) {
        // Rows of the segment; a tile reaching past its end moves up to end there (over rows of the tile before it,
        // the same expert's: the same values, written again) where the segment holds a whole tile.
        const int start = __ldg(prefix + batch + 1 + c.z), end = __ldg(prefix + batch + 2 + c.z);
        c.m0 = end - start >= BLOCK_M ? min(start + c.m0, end - BLOCK_M) : start + c.m0;
    }
    return c;
}

// GROUP_ROWS = 2: the row after expert z's segment.
__device__ __forceinline__ int grouped_segment_end(const int* prefix, int batch, int z) {
    return __ldg(prefix + batch + 2 + z);
}
