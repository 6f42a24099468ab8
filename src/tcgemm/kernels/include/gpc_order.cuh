// gpc_order.cuh — which wave position each cluster of a persistent launch takes: the clusters of
// one GPC on the units that share an operand (the stage-4 kernel's GPC_ORDER configs).
//
// Why: the L2 request coalescer (LRC, one per L2 slice) merges read requests for the same
// sector that arrive together from different SMs, before the L2 sees them.  Nsight Compute at
// bf16 4096 x 4096 x 14336 (2026-11-24-h100-ncu-lrc-*.txt): of the sectors a cluster does not
// multicast (A, at 128 x 256 with clusters of 2 along M), cuBLAS's kernel got 43% merged, ours
// 19%, the same kernel as 256 x 128 sharing A along N 5%; the merged ones never reach the L2,
// whose requests cost energy, and under the 700 W cap energy is time.  Requests that meet are
// those of units running in step (one wave) that share the unit row, and the merges we got
// follow the clusters' GPCs: clusters 8 ids apart land on one GPC (the block scheduler deals
// clusters to the GPCs in turn), and in groups of 8 unit rows exactly those share A.  A model
// counting one request per (GPC, A row) and wave predicts 39-41% for that order, 10-12% for
// the 256 x 128 one: the measured merges are half the model's, in both.  With every GPC on
// one unit row the model gives 88%.
//
// What: the host (tcgemm.placement) finds which SMs share a GPC once per device (clusters of
// 16, 8 and 4 CTAs, one per SM, never span two) and writes tables: SM id -> GPC, and per GPC the
// wave positions its clusters take, p = j, j + R, j + 2R, ... (R unit rows per group) for one j,
// i.e. one unit row in every wave (row = u mod R in the grouped order, u = wave * clusters + p).
// A cluster's first CTA counts itself into its GPC (one atomic) and takes that GPC's next
// position, then claims it with a compare-and-swap; a cluster whose GPC is unknown, or full, or
// whose position was taken, claims the next free one from its cluster id on.  So every launch
// hands out every position exactly once whatever the placement (a GPU shared with other work, a
// wrong or empty table), and a table costs speed, never results.  (Positions per SM instead, one
// per TPC, collided whenever a cluster did not sit on one TPC, which programmatic dependent
// launches do: clusters start on whichever SMs the previous grid frees first; the scans then cost
// ~15 us per GEMM.)  The last cluster to claim clears counts and claims for the next launch, with
// a fence: that launch starts its CTAs only after every CTA of this one has claimed (they all
// claim before griddepcontrol.launch_dependents), so it may claim before griddepcontrol.wait, and
// the claim's atomics overlap the previous GEMM's last tiles.
//
// Layout of the host's buffer (ints): [0] clusters that have claimed, [GPC_CLAIMS, + clusters)
// claims, [GPC_COUNTS, + GPC_MAX) clusters counted per GPC, [GPC_OF_SM, + GPC_MAX_SMS) GPC per
// SM id (-1: unknown), [GPC_SLOTS, + GPC_MAX x GPC_MAX_SLOTS) positions per GPC (-1: none).
#pragma once
#include "cluster.cuh"

constexpr int GPC_CLAIMS = 1, GPC_MAX_CLUSTERS = 255, GPC_COUNTS = 256, GPC_MAX = 32;
constexpr int GPC_OF_SM = GPC_COUNTS + GPC_MAX, GPC_MAX_SMS = 256;
constexpr int GPC_SLOTS = GPC_OF_SM + GPC_MAX_SMS, GPC_MAX_SLOTS = 32;
constexpr int GPC_INTS = GPC_SLOTS + GPC_MAX * GPC_MAX_SLOTS;

__device__ __forceinline__ unsigned sm_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

// One thread per cluster: this cluster's wave position, claimed in `sched`.
__device__ __forceinline__ int gpc_claim_position(int* sched, int clusters) {
    int* claims = sched + GPC_CLAIMS;
    const unsigned smid = sm_id();
    const int gpc = smid < GPC_MAX_SMS ? sched[GPC_OF_SM + smid] : -1;
    int got = -1;
    if (gpc >= 0 && gpc < GPC_MAX) {
        const int i = atomicAdd(&sched[GPC_COUNTS + gpc], 1);
        const int want = i < GPC_MAX_SLOTS ? sched[GPC_SLOTS + gpc * GPC_MAX_SLOTS + i] : -1;
        if (want >= 0 && want < clusters && atomicCAS(&claims[want], 0, 1) == 0) got = want;
    }
    const int from = cluster_id_x();
    for (int i = 0; i < clusters && got < 0; ++i) {  // as many positions as clusters: one is free
        const int q = from + i < clusters ? from + i : from + i - clusters;
        if (atomicCAS(&claims[q], 0, 1) == 0) got = q;
    }
    if (got < 0) watchdog_fault();  // the buffer shared with a concurrent launch: fail, never compute twice
    __threadfence();                // this cluster's count and claim land before the count that clears them
    if (atomicAdd(&sched[0], 1) == clusters - 1) {
        for (int i = 0; i < clusters; ++i) claims[i] = 0;
        for (int g = 0; g < GPC_MAX; ++g) sched[GPC_COUNTS + g] = 0;
        sched[0] = 0;
        __threadfence();  // cleared before this CTA's griddepcontrol.launch_dependents
    }
    return got;
}

// Rank 0's thread 0, before the cluster barrier that follows the barrier inits: the cluster's wave
// position (without a buffer, sched null: the cluster id, as without GPC_ORDER) into its shared
// word `word`, which every thread of the cluster reads after that barrier (gpc_read_position).
__device__ __forceinline__ void gpc_claim_into(int* sched, unsigned word) {
    const int clusters = cluster_count_x();
    const int p = sched != nullptr && clusters <= GPC_MAX_CLUSTERS ? gpc_claim_position(sched, clusters)
                                                                   : (int)cluster_id_x();
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(word), "r"(p) : "memory");
}

__device__ __forceinline__ int gpc_read_position(unsigned word) {
    int p;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(p) : "r"(cluster_map(word, 0)) : "memory");
    return p;
}
