// cta_trace.cuh — a timeline of each CTA of the production Hopper kernel, for measurement only.
//
// Why: at the narrow, short shapes of issue 27 (300 x 768 x 3072, 300 x 6144 x 4096, 512 x 1280 x 8192) tcgemm's
// tiles run 10-20% longer than cuBLAS's of the same geometry, with the same bytes from DRAM and L2, and Nsight
// Compute counts ~3k more cycles per SM with no warp resident at all (docs/findings.md). Where in a CTA's life the
// time goes — waiting to be placed, the prologue, the wait for the grid before (PDL), the first k-tile's arrival,
// the main loop, the epilogue, the drain — is what this records.
//
// TRACE_PTR (a define the host lays over the build, e.g. TCGEMM_DEFINES=TRACE_PTR=0x7f..., as
// benchmarks/probes/cta_timeline.py does) is the device address of TRACE_WORDS 64-bit words per CTA, indexed by
// blockIdx.x; 0 (the default) compiles every trace point away, so the builds tcgemm ships are unchanged.
// Words: %globaltimer (ns, comparable across SMs) at entry and exit, clock64 (this SM's cycles) at the points
// between, %smid, and the number of units consumer 0 finished. Each point is written once per launch by one thread;
// a launch overwrites the last one's words.
#pragma once
#include "mbarrier.cuh"  // global_timer_ns

#ifndef TRACE_PTR
#define TRACE_PTR 0
#endif
constexpr unsigned long long kTracePtr = TRACE_PTR;
constexpr bool kTrace = kTracePtr != 0;
constexpr int TRACE_WORDS = 16;

enum TracePoint : int {
    TRACE_SMID = 0,
    TRACE_GT_ENTRY,        // globaltimer, thread 0, first instruction
    TRACE_ENTRY,           // clock64, thread 0, first instruction
    TRACE_INIT_DONE,       // after the barriers' init and the cluster's start barrier
    TRACE_DEP_DONE,        // after griddepcontrol.wait (the grid before has completed)
    TRACE_FIRST_LOAD,      // producer: first k-tile's loads issued
    TRACE_LAST_LOAD,       // producer: last k-tile's loads issued
    TRACE_TAIL_DONE,       // producer: every slot's last use released
    TRACE_FIRST_DATA,      // consumer 0: the first k-tile's full barrier completed
    TRACE_LOOP_END,        // consumer 0: its last unit's wgmmas retired
    TRACE_EPI_END,         // consumer 0: its last stores have read shared memory
    TRACE_GT_EXIT,         // globaltimer, consumer 0, at its end
    TRACE_EXIT,            // clock64, consumer 0, at its end
    TRACE_UNITS,           // units consumer 0 ran to the epilogue
    TRACE_KTILES,          // k-tiles consumer 0 waited for
};

__device__ __forceinline__ unsigned long long trace_clock() { return clock64(); }
__device__ __forceinline__ void trace_put(int point, unsigned long long value) {
    if constexpr (kTrace)
        reinterpret_cast<volatile unsigned long long*>(kTracePtr)[(unsigned long long)blockIdx.x * TRACE_WORDS + point] =
            value;
}
// The clock at `point`.
__device__ __forceinline__ void trace_at(int point) {
    if constexpr (kTrace) trace_put(point, trace_clock());
}
// Thread 0's first words: where it runs and when it started.
__device__ __forceinline__ void trace_entry() {
    if constexpr (kTrace) {
        unsigned smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        trace_put(TRACE_GT_ENTRY, global_timer_ns());
        trace_put(TRACE_ENTRY, trace_clock());
        trace_put(TRACE_SMID, smid);
    }
}
__device__ __forceinline__ void trace_exit(int units, int ktiles) {
    if constexpr (kTrace) {
        trace_put(TRACE_EXIT, trace_clock());
        trace_put(TRACE_GT_EXIT, global_timer_ns());
        trace_put(TRACE_UNITS, units);
        trace_put(TRACE_KTILES, ktiles);
    }
}
