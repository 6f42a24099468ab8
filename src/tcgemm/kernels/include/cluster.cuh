// cluster.cuh — thread-block clusters (sm_90): CTA rank, cluster-wide
// barrier, and arrivals on another CTA's mbarrier through distributed shared
// memory.
//
// A cluster is a group of CTAs (here along x of a 1-D grid, declared with
// __cluster_dims__) that the hardware schedules on SMs of one GPC at the same
// time.  Each CTA can address the others' shared memory (the shared::cluster
// window): `mapa` turns a local shared address into the address of the same
// variable in CTA `rank`.  TMA multicast and remote mbarrier arrivals build
// on that.
#pragma once
#include "mbarrier.cuh"

__device__ __forceinline__ unsigned cluster_ctarank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_id_x() {
    unsigned r;
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned cluster_count_x() {
    unsigned r;
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
    return r;
}

// Every thread of every CTA of the cluster arrives, then waits for all.
// release/acquire: shared-memory writes (mbarrier inits included) before the
// barrier are visible to all CTAs of the cluster after it.  Threads that have
// exited count as arrived.
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// The barrier after mbarrier initialisation: fence.mbarrier_init.release.cluster (mbar_init_fence, by the
// initialising thread) already makes the inits visible to the cluster, so the arrival is relaxed: no
// MEMBAR.GPU (which a release arrival costs).  Plain shared-memory stores before it are not published.
__device__ __forceinline__ void cluster_sync_after_init() {
    asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// The same barrier in two halves, for a thread with work between its arrival and its wait (the producer of
// hopper/04_tma_store_epilogue.cu: kEarlyProducer).
__device__ __forceinline__ void cluster_arrive_relaxed() {
    asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
    asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
}

// The shared::cluster address of the variable at local shared address `addr`
// in CTA `rank` of this cluster.
__device__ __forceinline__ unsigned cluster_map(unsigned addr, unsigned rank) {
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

// Arrive once on the mbarrier at shared::cluster address `bar` (possibly in
// another CTA).  Default semantics (release at CTA scope): enough to hand back
// a slot whose only readers were this warpgroup's retired wgmmas.  The
// .release.cluster form would add a MEMBAR.GPU per arrival, which also waits
// for the previous tile's epilogue stores.
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
}

// mbar_try_wait with acquire at cluster scope: for a barrier whose arrivals
// come from other CTAs (after they finished reading our shared memory).
__device__ __forceinline__ bool mbar_try_wait_cluster(unsigned bar, unsigned parity) {
    unsigned done;
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}

// mbar_wait_guarded (a watchdog fault instead of a hang) at cluster scope.
__device__ __forceinline__ void mbar_wait_cluster_guarded(unsigned bar, unsigned parity) {
    wait_with_watchdog([&] { return mbar_try_wait_cluster(bar, parity); });
}

// A TMA producer's wait for a ring slot's release (an empty barrier whose arrivals may come from the other CTAs
// of the cluster): acquire at CTA scope, as CUTLASS's and DeepGEMM's TMA pipelines wait. What the release orders
// is the consumers' reads of the slot, by wgmmas that retired before their threads arrived, ahead of the TMA writes
// this thread issues once it has seen the phase complete; no data the producer reads itself depends on it. The
// cluster-scope acquire compiles to an L1 invalidation (CCTL.IVALL) after every wait, on the one producer thread
// whose instruction latency, at narrow tiles, is what paces the whole ring (hopper/04_tma_store_epilogue.cu).
__device__ __forceinline__ void mbar_wait_slot_free(unsigned bar, unsigned parity) { mbar_wait_guarded(bar, parity); }
