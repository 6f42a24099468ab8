// group_rows.cuh — masked grouped GEMMs (mixture-of-experts) in the production Hopper kernel
// (hopper/04_tma_store_epilogue.cu, GROUP_ROWS=1; tcgemm.grouped_gemm).
//
// A batched GEMM whose batch entries are experts: A (E, M, K) holds each expert's tokens in its first rows, padded to
// a common M; B (E, K, N) the experts' weights; D (E, M, N). How many rows of entry z are tokens lives on the GPU (a
// router's counts, never read by the host), so the launch is the same whatever the routing and a CUDA graph
// captures it once. The kernel walks only the units that hold tokens: a small kernel before it
// (kernels/util/group_prefix.cu) turns the counts into prefix[z], the cluster rows (CTAS_M x BLOCK_M rows of tiles)
// of the entries before z that hold any of their rows, and the persistent walk numbers those units 0 ..
// prefix[E] x units_n - 1, entry by entry, each entry's units in unit_coord's grouped order. Skipping the empty units
// of the whole batched problem instead (the first version) left the CTAs with uneven shares of the remaining ones:
// a static round-robin over units of which a routing-dependent subset is empty (Mixtral's experts at 128-512 tokens
// each ran 0.58-0.79x of a loop of cuBLAS calls: 2026-11-26-h100-grouped-288aef2.json). A cluster unit is kept
// whole, because its CTAs load parts of the tile they share for each other (hopper_cluster.cuh); its rows past the
// count are computed from A's padding and stored into D's, which tcgemm.grouped_gemm documents as unspecified.
//
// GROUP_ROWS = 2, the contiguous layout (prefill and training: each expert's tokens one segment of a 2-D A, segments
// of any length): A (T, K) and D (T, N) hold every expert's rows, expert z's from row start[z] to end[z] = start[z + 1];
// B is (E, K, N) as before; the kernel sees A and D as broadcast (one batch entry), B per expert. The prefix kernel
// writes the segment bounds after the walk's prefix: ints E + 1 .. 2E + 1 hold start[0] = 0, end[0], ..., end[E - 1].
// A unit's tiles start at start[z] + their rows within the expert, at any row (TMA loads from any row). The tile
// that would reach past end[z] moves up to end there, over rows of the tile before (as the kernel's last row of
// tiles does at M), where the segment holds BLOCK_M rows; so every tile goes out through TMA as usual. Only in a
// segment shorter than a tile does a tile reach past it (its rows past end[z] are the next expert's, or zeros past T,
// feeding rows that are not stored): that one stores from registers and stops at end[z] (a TMA store would write
// over the next expert's rows). D is exact: no padding, nothing copied. (The first version stored every tile that
// reached past its segment from registers: 6-15% slower than the masked layout on the same tiles at 512-2048
// tokens per expert, 2026-11-26-h100-grouped-contiguous-c746adb.json.)
//
// GROUP_MIX: light experts spread through the walk. Cluster c takes units c, c + clusters, ... (hopper_sched.cuh), so
// the walk's order is what each wave holds. Entry by entry, a wave of a light expert's units (one or two rows of tiles:
// few tokens, so each unit streams its own slice of the expert's weight from DRAM for little work) waits on DRAM while
// the tensor cores idle, and a wave of a heavy expert's units (its weight slices shared by many row tiles through
// the L2) the other way round. The prefix kernel also writes a prefix over the light entries only and one over the
// heavy ones (group_prefix.cu; light: at most tcgemm.grouped.LIGHT_ROWS rows); unit u is light where the count of
// light units up to u, floor((u + 1) L / U), steps up (L light units of U), so every stretch of the walk holds light
// and heavy units in the proportion of the whole, and each class keeps its own entry-by-entry order.
//
// The prefix comes in the launch's `counters` argument (the scratch ints of split-K, the tail split and GPC_ORDER,
// which grouped configs do not use), written by the kernel launched just before: every read of it comes after the
// programmatic-dependent-launch wait (pdl.cuh). A unit's entry is a binary search of the prefix (log2 E loads, cached
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
                              CTAS_N == 1),
              "grouped rows: no split-K, tail split or GPC_ORDER (their scratch is the prefix's argument), EPI_OVERLAP, "
              "ping-pong or D^T; clusters along M");
#ifndef GROUP_MIX
#define GROUP_MIX 0
#endif
constexpr bool kGroupMix = GROUP_MIX != 0;
static_assert(!kGroupContiguous || kRegisterEpilogue,
              "contiguous experts: the register epilogue for the tiles that reach past a segment");

// Units of the grouped walk: the entries' cluster rows with tokens, times the unit columns.
__device__ __forceinline__ int grouped_units(const int* prefix, int batch, int units_n) {
    return __ldg(prefix + batch) * units_n;
}

// Unit u of the grouped walk -> this CTA's tile: entry z with prefix[z] <= u / units_n < prefix[z + 1] (the last such
// z: entries without rows repeat their prefix), then unit u - prefix[z] units_n of that entry's own units in
// unit_coord's order.
__device__ __forceinline__ TileCoord grouped_unit_coord(const int* prefix, int batch, int u, int units_n, int rank) {
    const int* walk = prefix;  // (GROUP_MIX: the prefix of u's class, and u its place in that class's walk)
    if constexpr (kGroupMix) {
        const int* light = prefix + (kGroupContiguous ? 2 * batch + 2 : batch + 1);
        const long long all = __ldg(prefix + batch), lit = __ldg(light + batch);  // (cluster rows)
        const int before = (int)((long long)u * lit / all), upto = (int)((long long)(u + 1) * lit / all);
        walk = upto > before ? light : light + batch + 1;
        u = upto > before ? before : u - before;
    }
    const int row = u / units_n;
    int lo = 0, hi = batch;
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (__ldg(walk + mid) <= row) lo = mid;
        else hi = mid;
    }
    const int first = __ldg(walk + lo);
    TileCoord c = unit_coord(u - first * units_n, __ldg(walk + lo + 1) - first, units_n, rank);
    c.z = lo;
    if constexpr (kGroupContiguous) {
        // Rows of the segment; a tile reaching past its end moves up to end there (over rows of the tile before it,
        // the same expert's: the same values, written again) where the segment holds a whole tile.
        const int start = __ldg(prefix + batch + 1 + lo), end = __ldg(prefix + batch + 2 + lo);
        c.m0 = end - start >= BLOCK_M ? min(start + c.m0, end - BLOCK_M) : start + c.m0;
    }
    return c;
}

// GROUP_ROWS = 2: the row after expert z's segment.
__device__ __forceinline__ int grouped_segment_end(const int* prefix, int batch, int z) {
    return __ldg(prefix + batch + 2 + z);
}
