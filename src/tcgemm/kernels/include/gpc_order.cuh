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
// 16, 8 and 4 CTAs, one per SM, never span two) and writes a table: SM id -> preferred wave
// position, the TPCs of one GPC on positions p = j, j + R, j + 2R, ... (R unit rows per group),
// i.e. on one unit row in every wave (row = (u mod R) in the grouped order, u = wave * clusters
// + p).  Each cluster's first CTA claims its preferred position with an atomic compare-and-swap,
// or the next free one: every launch hands out every position exactly once whatever the
// placement (a GPU shared with other work, clusters not on whole TPCs, no table), so a wrong
// table costs speed, never results.  The last cluster to claim clears the claims for the next
// launch, which claims only after griddepcontrol.wait (the previous grid complete).
//
// Layout of the host's buffer (ints): [0] clusters that have claimed, [1, 1 + clusters) claims,
// [GPC_TABLE, GPC_TABLE + GPC_MAX_SMS) preferred positions (-1: none); GPC_INTS in all.
#pragma once
#include "cluster.cuh"

constexpr int GPC_TABLE = 256, GPC_MAX_SMS = 256, GPC_INTS = GPC_TABLE + GPC_MAX_SMS;

__device__ __forceinline__ unsigned sm_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

// One thread per cluster: this cluster's wave position, claimed in `sched`.
__device__ __forceinline__ int gpc_claim_position(int* sched, int clusters) {
    const unsigned smid = sm_id();
    int want = smid < GPC_MAX_SMS ? sched[GPC_TABLE + smid] : -1;
    if (want < 0 || want >= clusters) want = cluster_id_x();
    int* claims = sched + 1;
    int got = -1;
    for (int i = 0; i < clusters && got < 0; ++i) {  // as many positions as clusters: one is free
        const int q = want + i < clusters ? want + i : want + i - clusters;
        if (atomicCAS(&claims[q], 0, 1) == 0) got = q;
    }
    if (got < 0) watchdog_fault();  // the buffer shared with a concurrent launch: fail, never compute twice
    __threadfence();                // the claim lands before the count that lets the last claimer clear it
    if (atomicAdd(&sched[0], 1) == clusters - 1) {
        for (int i = 0; i < clusters; ++i) claims[i] = 0;
        sched[0] = 0;
    }
    return got;
}

// Every thread of the cluster: rank 0's thread 0 claims the cluster's wave position (without a
// buffer, sched null: the cluster id, as without GPC_ORDER) and writes it into the shared word
// `word` of each CTA; the cluster barrier publishes it to gpc_read_position.
__device__ __forceinline__ void gpc_publish_position(int* sched, unsigned word, int cluster_size) {
    if (threadIdx.x == 0 && cluster_ctarank() == 0) {
        const int clusters = cluster_count_x();
        const int p = sched != nullptr && clusters < GPC_TABLE ? gpc_claim_position(sched, clusters) : (int)cluster_id_x();
        for (int r = 0; r < cluster_size; ++r)
            asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(cluster_map(word, r)), "r"(p) : "memory");
    }
    cluster_sync();
}

__device__ __forceinline__ int gpc_read_position(unsigned word) {
    int p;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(p) : "r"(word) : "memory");
    return p;
}
