// hopper_sched.cuh — the tile scheduler of the production Hopper kernel (hopper/04_tma_store_epilogue.cu):
// which work units a cluster takes, in which order, and which tile and k-tiles a unit is.
//
// Units.  A persistent CTA walks work units until none is left.  A unit is a cluster tile, the
// CTAS_M x CTAS_N adjacent output tiles the cluster's CTAs compute together (hopper_cluster.cuh),
// over a grid of units_m x units_n units per batch entry, ceil(tiles_m / CTAS_M) x ceil(tiles_n /
// CTAS_N); with SPLIT_K (split_k.cuh) a tile's SPLIT_K k ranges are consecutive units.  Cluster c
// takes units c, c + clusters, c + 2 clusters, ...: the clusters walk in step, one wave of
// `clusters` units after another.  When the number of tile rows is odd, a CTA of the last unit row
// computes a tile below the matrix: its loads are clamped to the last tile row (any rows will do:
// rows of A only affect the same rows of D), its stores are all cut off by the bounds check, but it
// still loads and multicasts its part of the shared operand for its peers.
//
// Order (unit_coord).  Units are ordered as stage 2 orders tiles: GROUP_UNITS unit rows at a time,
// column by column inside a group, so that a wave's units share few rows of A and columns of B.
//
// WAVE_SNAKE: the DRAM reads between waves.  Each wave walks k from 0 to K; a wave's operands (tf32
// at 4096^3: 2048 rows of A and 2112 columns of B, 16 KB per k) outgrow the L2 long before its last
// k-tile, so the next wave, starting again at k = 0, finds none of what it shares with this one
// still there.  With WAVE_SNAKE, odd groups walk their columns right to left (a wave that crosses
// into the next group keeps the same B columns), and every other wave of a CTA (its odd-numbered
// units) walks k from K down to 0: it starts on the k-tiles the wave before has just read, still in
// the L2.  An LRU model of the L2 (tools/l2_order_model.py) put the DRAM reads of tf32 4096^3 at 267
// MB instead of 298 and bf16 4096^3 (groups of 16 tile rows) at 110 instead of 149; Nsight Compute
// measured 278 against 298 and 124 against 187 (groups of 8, the config before).  Under the power
// cap those bytes are energy, and the clock follows.  Only the producer needs the order: a consumer
// sums its slots in whatever order they come (fp32 sums, so the bits differ from the forward order's,
// and stay the same from call to call: the order is a function of the launch).
//
// PINGPONG: who in the CTA takes a unit.  Cooperative (the default), both consumer warpgroups work on
// every unit, each its WG_M rows, and both read every ring slot; between tiles the tensor cores wait
// for the epilogue and the next tile's start (Nsight at 512 x 28672 x 4096: the tensor pipe busy 91%
// of active cycles against cuBLAS's 97%).  With PINGPONG each consumer owns whole tiles (WG_M =
// BLOCK_M) and the two take the CTA's units in turn: consumer 0 the first, third, ..., consumer 1 the
// second, fourth, ...  The producer loads the units in walk order as before, so a unit's slots are read
// by one consumer (empty barriers count SLOT_READERS = 1 arrival per CTA of the cluster) and the other
// steps its ring position over them.  Turns: a consumer starts a unit's main loop only once the other has
// issued all of its previous unit's (turn barriers, named barriers 3 and 4 of both warpgroups: one
// bar.arrive, one bar.sync).  Beyond putting the main loops one after the other on the tensor cores,
// this is what makes the ring's waits sound: a wait on a slot's full barrier tells phases apart by
// parity only, so a consumer that had stepped over a whole unit (dozens of laps of the ring) while the
// producer was still laps behind would take an older phase of the same parity for its k-tile (without
// the turns the GPU tests faulted from the first shape with two units per CTA).  After the turn, every
// k-tile before the unit's first has been waited for by one consumer or the other, so each slot's
// barrier is at most one phase behind the k-tile awaited.  Each consumer's epilogue runs under the
// other's main loop.  An earlier ping-pong of 64 x 256 tiles (commit 92aae3d) lost 27% at 4096^3: a
// 64-row tile makes the TMA unit write 40 KB into shared memory per 1M multiply-adds; a 128 x 128 tile
// (WG_M = 128, two m64 wgmmas on one B) 32 KB, against 24 KB for the cooperative 128 x 256.
//
// GPC_ORDER: a cluster's place in every wave is not its id but a position counted out per GPC, so
// that the clusters of one GPC share a unit row (gpc_order.cuh).  TAIL_SPLIT: the last partial
// wave's units are cut along k between their owners and the clusters that would idle (tail_split.cuh).
//
// The next tile's coordinates (COORD_SHADOW, hopper_config.cuh).  Between tiles the tensor cores wait
// for a consumer's epilogue and whatever precedes the next tile's first wgmma, so nothing else goes
// there: the next tile's coordinates (three divisions, ~120 instructions) are worked out while the
// first k-tile's wgmmas run.  bf16 at 4096x14336x4096: 98.6-100.2% of cuBLAS against 95.9-98.6% in
// four A/B runs; 4096^3 and fp16 within the runs' spread (2026-11-23-h100-ab-tile-shadow-*.json).  Not
// for fp8 (PROMOTE), where no gain showed: in the shadow of its first k-tile (a group's start, no
// wgmma wait after it) 0.95x against 0.96x at 4096^3; of its second, 98.0 / 98.3% against 97.3 /
// 97.1% in one run, 96.3 / 96.6% against 97.0 / 97.2% (the old build) in the next; with PROMOTE_EACH
// ptxas moved the slot release behind the adds, 0.80x against 0.92x.
#pragma once
#include "hopper_config.cuh"
#include "cluster.cuh"
#include "gpc_order.cuh"
#include "tail_split.cuh"  // (and split_k.cuh)

// PINGPONG's turns (above): consumer cw waits for its turn before a unit's main loop; the other passes it
// once its own main loop has issued (only where a next unit exists, so no arrival is left unmatched).
constexpr int TURN_BAR = 3;  // (named barrier 0 is __syncthreads, 1 + cw each consumer's own: epilogue_tma.cuh)
__device__ __forceinline__ void pingpong_wait_turn(int cw) {
    asm volatile("bar.sync %0, 256;" ::"r"(TURN_BAR + cw) : "memory");
}
__device__ __forceinline__ void pingpong_pass_turn(int cw) {
    asm volatile("bar.arrive %0, 256;" ::"r"(TURN_BAR + 1 - cw) : "memory");
}

struct TileCoord {
    int m0, n0, z;  // first row and column of this CTA's tile, batch entry
    // A grouped GEMM's cluster straddling two entries (group_rows.cuh): each CTA loads its whole B tile itself.
    bool own_b = false;
};

// Unit u -> this CTA's tile: CTA `rank` takes tile row CTAS_M um + rank % CTAS_M, column CTAS_N un +
// rank / CTAS_M of unit (um, un).
__device__ __forceinline__ TileCoord unit_coord(int u, int units_m, int units_n, int rank) {
    const int per_batch = units_m * units_n;
    const int z = u / per_batch;
    const int r = u - z * per_batch;
    const int per_group = GROUP_UNITS * units_n;
    const int first = (r / per_group) * GROUP_UNITS;
    const int rows = min(units_m - first, GROUP_UNITS);
    const int in_group = r - (r / per_group) * per_group;
    const int um = first + in_group % rows;
    const int un = kWaveSnake && (first / GROUP_UNITS) % 2 ? units_n - 1 - in_group / rows : in_group / rows;
    return {(um * CTAS_M + rank % CTAS_M) * BLOCK_M, (un * CTAS_N + rank / CTAS_M) * BLOCK_N, z};
}

// SPLIT_K: the k-tiles [kt0, kt1) of unit u, its tile's range u % SPLIT_K of kt_per k-tiles each.
__device__ __forceinline__ void split_k_range(int u, int ktiles, int kt_per, int& kt0, int& kt1) {
    kt0 = min(ktiles, (u % kSplitK) * kt_per);
    kt1 = min(ktiles, kt0 + kt_per);
}

// This cluster's walk over the units: the first, the one after u, and the k-tiles of u (the last partial
// wave's units in two k parts with TAIL_SPLIT; off without a workspace).  Each role builds its own after
// setmaxnreg: built once above the role split, its values stayed live across it, and NVRTC 13.5 kept two
// of them on the stack in the producer's 40 registers (s4b2t with fp32 D).
struct UnitWalk {
    int units, ktiles, cluster, clusters, first;
    TailSplit tail;
    __device__ __forceinline__ UnitWalk(int units_, int ktiles_, bool split, int position)
        : units(units_), ktiles(ktiles_), cluster(position), clusters(cluster_count_x()) {
        tail = tail_split<kTailParts>(units, ktiles, clusters, cluster, kTailSplit && split);
        first = !kTailSplit || cluster < tail.dp ? cluster : next(cluster - clusters);
    }
    __device__ __forceinline__ int next(int u) const {
        return kTailSplit ? tail_next_unit(tail, u, units, clusters, cluster) : u + clusters;
    }
    __device__ __forceinline__ void range(int u, int& kt0, int& kt1) const {  // (within k_range's)
        if (kTailSplit && u >= tail.dp) {
            kt0 = tail.owner ? 0 : tail.split;
            kt1 = tail.owner ? tail.split : ktiles;
        }
    }
};

// SPLIT_K: a consumer warpgroup's sums of a unit that is one k range of its tile meet the other ranges'
// in the workspace (split_k.cuh).  Returns whether this warpgroup now holds the whole tile and writes D.
// (A tail tile's two parts meet likewise, in the kernel: tail_split.cuh.)
// `owned` (split_k_owned's rows, else the last range sums the tile): only where the launch has one unit per
// cluster at most.  An owner waits for the partials of its tile's other ranges, which are the next and previous
// units of the walk; in one wave those are clusters placed beside it in grid order, so a launch whose CTAs are
// only partly resident (another kernel holding SMs) still has whole tiles that finish and free their SMs.  Over
// several waves the last clusters' units meet the first clusters' next ones, and two such launches sharing the
// GPU could each hold SMs waiting for CTAs of its own that are not placed: there the reduction that waits for
// nothing (split_k_reduce) runs.  Both leave the counters at zero, so the launches of one problem may take either.
template <typename Acc, int NACC>
__device__ __forceinline__ bool split_k_complete(Acc (&acc)[NACC], const TileCoord& c, int u, int units_m,
                                                 int tiles_n, int cw, float* workspace, int* counters, bool owned) {
    if constexpr (kSplitK > 1) {
        const int tile = (c.z * units_m * CLUSTER_M + c.m0 / BLOCK_M) * tiles_n + c.n0 / BLOCK_N;
        if constexpr (kSplitKOwners) {  // (split_k.cuh: split_k_owned)
            if (owned) return split_k_owned<kSplitK, CONSUMERS>(acc, workspace, counters, tile, u % kSplitK, cw, 1 + cw);
        }
        __shared__ int last_flag[CONSUMERS];
        return split_k_reduce<kSplitK, CONSUMERS>(acc, workspace, counters, tile, u % kSplitK, cw, 1 + cw,
                                                  &last_flag[cw]);
    }
    return true;
}
