// group_rows.cuh — masked grouped GEMMs (mixture-of-experts) in the production Hopper kernel
// (hopper/04_tma_store_epilogue.cu, GROUP_ROWS=1; tcgemm.grouped_gemm).
//
// A batched GEMM whose batch entries are experts: A (E, M, K) holds each expert's tokens in its first rows, padded to
// a common M; B (E, K, N) the experts' weights; D (E, M, N). How many rows of entry z are tokens lives on the GPU
// (group_rows[z], int32: a router's counts, never read by the host), so the launch is the same whatever the routing
// and a CUDA graph captures it once. The persistent walk visits every unit of the batched problem and skips, in the
// producer and in the consumers alike, those whose cluster's first tile row starts at or beyond its entry's count:
// no loads, no wgmmas, no stores. A cluster unit is kept or skipped whole, because its CTAs load parts of the tile
// they share for each other (hopper_cluster.cuh); a kept unit's rows past the count are computed from A's padding
// and stored into D's, which tcgemm.grouped_gemm documents as unspecified.
//
// The counts come in the launch's `counters` argument (the scratch ints of split-K, the tail split and GPC_ORDER,
// which grouped configs do not use). Each role reads its unit's count with a plain load when it reaches the unit; in a
// consumer the load's latency falls before the tile's first wgmma (the fence waits for it), once a tile.
#pragma once
#include "hopper_config.cuh"
#include "hopper_sched.cuh"

#ifndef GROUP_ROWS
#define GROUP_ROWS 0
#endif
constexpr bool kGroupRows = GROUP_ROWS != 0;
static_assert(!kGroupRows || (SPLIT_K == 1 && !TAIL_SPLIT && !GPC_ORDER && !OVERLAP && !kPingpong && !kDTransposed &&
                              CTAS_N == 1),
              "grouped rows: no split-K, tail split or GPC_ORDER (their scratch is the counts' argument), EPI_OVERLAP, "
              "ping-pong or D^T; clusters along M");

// Whether the unit whose CTA `rank` has tile c is skipped: its cluster's first tile row at or past entry c.z's count.
__device__ __forceinline__ bool group_unit_skipped(const int* group_rows, const TileCoord& c, int rank) {
    if constexpr (!kGroupRows) return false;
    return c.m0 - (rank % CTAS_M) * BLOCK_M >= __ldg(group_rows + c.z);
}
