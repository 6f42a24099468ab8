// gpc_order.cuh — which wave position each cluster of a persistent launch takes: the clusters of
// one GPC on the units that share an operand (the stage-4 kernel's GPC_ORDER configs).
//
// Why: the L2 request coalescer (LRC, one per L2 slice) merges read requests for the same
// sector that arrive together from different SMs, before the L2 sees them.  Nsight Compute at
// bf16 4096 x 4096 x 14336 (2026-11-24-h100-ncu-lrc-coalescing.txt): of the sectors a cluster does not
// multicast (A, at 128 x 256 with clusters of 2 along M), cuBLAS's kernel got 43% merged, ours
// 19%, the same kernel as 256 x 128 sharing A along N 5%; the merged ones never reach the L2,
// whose requests cost energy, and under the 700 W cap energy is time.  Requests that meet are
// those of units running in step (one wave) that share the unit row, and the merges we got
// follow the clusters' GPCs: clusters 8 ids apart land on one GPC (the block scheduler deals
// clusters to the GPCs in turn), and in groups of 8 unit rows exactly those share A.  A model
// counting one request per (GPC, A row) and wave (tools/gpc_coalescing_model.py) predicts 38-42%
// for that order (measured 19%) and 5% for the 256 x 128 one (measured 5%); with every GPC on one
// unit row, 86%, and GPC_ORDER measured 57%: the L2 then sees 7% fewer read requests than
// cuBLAS's, 21% fewer than before.
//
// What: the host (tcgemm.placement) finds which SMs share a GPC once per device (clusters of
// 16, 8 and 4 CTAs, one per SM, never span two) and writes tables: SM id -> GPC, and per GPC a
// list of the wave positions its clusters take, p = j, j + R, j + 2R, ... (R unit rows per group)
// for one j, i.e. one unit row in every wave (row = u mod R in the grouped order, u = wave *
// clusters + p); the lists hold every position 0 .. SMs / 2 - 1 once.  A cluster's first CTA
// counts itself into its GPC (one atomic add) and takes the list entry its count names.  A
// cluster whose GPC is unknown or whose list is used up (a launch whose clusters are not all
// resident at once, on a GPU shared with other work) or names a position past this launch's
// clusters counts itself into the GPCs in turn until an entry fits.  Each entry goes to exactly
// one count, so every launch hands out every position at most once, and each cluster finds one
// (as many positions below `clusters` as clusters): a table costs speed, never results.  (Claims
// by compare-and-swap, each SM preferring one position per TPC, collided whenever a cluster did not
// sit on one TPC, which programmatic dependent launches do: their clusters start on whichever SMs
// the previous grid frees first.  The scans past taken positions cost ~15 us per GEMM, and the
// chain of five atomics of the next try ~5 us: 2.6% at 4096^3.)  After its last load the
// counting thread counts the cluster done; the last clears the counts, with a fence, before its
// griddepcontrol.launch_dependents: the next launch starts only after that, so it may count
// itself in before griddepcontrol.wait, while the previous GEMM's last tiles still run.
//
// Layout of the host's buffer (ints): [0] clusters done, [1] positions in the lists,
// [GPC_COUNTS, + GPC_MAX) counts per GPC, [GPC_OF_SM, + GPC_MAX_SMS) GPC per SM id (-1: unknown),
// [GPC_SLOTS, + GPC_MAX x GPC_MAX_SLOTS) the lists, -1 after each list's end.
#pragma once
#include "cluster.cuh"

constexpr int GPC_COUNTS = 8, GPC_MAX = 32, GPC_OF_SM = GPC_COUNTS + GPC_MAX, GPC_MAX_SMS = 256;
constexpr int GPC_SLOTS = GPC_OF_SM + GPC_MAX_SMS, GPC_MAX_SLOTS = 32;
constexpr int GPC_INTS = GPC_SLOTS + GPC_MAX * GPC_MAX_SLOTS;

__device__ __forceinline__ unsigned sm_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

// One thread per cluster: this cluster's wave position, counted in `sched`.
__device__ __forceinline__ int gpc_count_in(int* sched, int clusters) {
    const unsigned smid = sm_id();
    const int gpc = smid < GPC_MAX_SMS ? sched[GPC_OF_SM + smid] : -1;
    int got = -1;
    if (gpc >= 0 && gpc < GPC_MAX) {
        // The GPC's list, loaded while the count is on its way (four 16-byte loads of eight beside it).
        const int4* row = reinterpret_cast<const int4*>(sched + GPC_SLOTS + gpc * GPC_MAX_SLOTS);
        int4 part[GPC_MAX_SLOTS / 4];
#pragma unroll
        for (int j = 0; j < GPC_MAX_SLOTS / 4; ++j) part[j] = row[j];
        const int i = atomicAdd(&sched[GPC_COUNTS + gpc], 1);
        int p = -1;
#pragma unroll
        for (int j = 0; j < GPC_MAX_SLOTS / 4; ++j) {
            p = i == 4 * j ? part[j].x : i == 4 * j + 1 ? part[j].y : i == 4 * j + 2 ? part[j].z
                : i == 4 * j + 3 ? part[j].w : p;
        }
        if (p >= 0 && p < clusters) got = p;
    }
    for (int t = 0; got < 0 && t < GPC_MAX * GPC_MAX_SLOTS; ++t) {  // every GPC in turn, one entry each
        const int g = t % GPC_MAX;
        const int i = atomicAdd(&sched[GPC_COUNTS + g], 1);
        const int p = i < GPC_MAX_SLOTS ? sched[GPC_SLOTS + g * GPC_MAX_SLOTS + i] : -1;
        if (p >= 0 && p < clusters) got = p;
    }
    if (got < 0) watchdog_fault();  // (the buffer shared with a concurrent launch): fail, never compute twice
    return got;
}

// Rank 0's thread 0, before the cluster barrier that follows the barrier inits: the cluster's wave
// position (without a buffer, sched null, or a launch of more clusters than the lists have
// positions: the cluster id, as without GPC_ORDER) into its shared word `word`, which every thread
// of the cluster reads after that barrier (gpc_read_position).
__device__ __forceinline__ void gpc_position_into(int* sched, unsigned word) {
    const int clusters = cluster_count_x();
    const bool counted = sched != nullptr && clusters <= sched[1];
    const int p = counted ? gpc_count_in(sched, clusters) : (int)cluster_id_x();
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(word), "r"(p) : "memory");
}

__device__ __forceinline__ int gpc_read_position(unsigned word) {
    int p;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(p) : "r"(cluster_map(word, 0)) : "memory");
    return p;
}

// The same thread, after its last load: this cluster is done counting; the last one clears the
// counts for the next launch (before this CTA's griddepcontrol.launch_dependents).
__device__ __forceinline__ void gpc_count_out(int* sched) {
    const int clusters = cluster_count_x();
    if (sched == nullptr || clusters > sched[1]) return;
    __threadfence();  // this cluster's counts land before the count that clears them
    if (atomicAdd(&sched[0], 1) == clusters - 1) {
        for (int g = 0; g < GPC_MAX; ++g) sched[GPC_COUNTS + g] = 0;
        sched[0] = 0;
        __threadfence();
    }
}
