// split_k.cuh — deterministic split-K for the persistent Hopper kernels.
//
// Why: a skinny problem (M = 16 or 128 rows, N = 4096) has few output tiles —
// 32 tiles of 128 x 128 for 132 SMs — so most of the GPU idles while each
// CTA walks all of K.  Splitting K into SPLIT_K ranges makes SPLIT_K work
// units per tile, each accumulating a partial tile over its k-tiles.
//
// Reduction, two ways, each in a fixed order (so results are bitwise reproducible).  The default
// (split_k_owned, below): range w owns consumer w's rows and adds the other ranges' partials into them.
// With SPLIT_K_OWNERS=0 (the first form, kept to measure against): every
// consumer warpgroup writes its fp32 partial (64 rows x BLOCK_N) to its own
// workspace slice, fences, and one of its threads counts the arrival on the
// tile's counter.  The warpgroup that arrives last for a tile reads all
// SPLIT_K slices back in split order 0, 1, ..., adds them up in registers,
// resets the counter to 0 for the next launch, and runs the ordinary
// epilogue; the others are done with the tile.  Threads keep their register
// layout: element i of thread t sits at float (i / 4) * 512 + 4 t + i % 4 of
// the slice, so each float4 store of a warpgroup covers 2 KB contiguously.
//
// Memory ordering (tail_split.cuh's): slice stores -> named barrier -> one
// thread's acq_rel atomic at GPU scope (release is cumulative: it publishes
// what the barrier ordered before it).  The last arriver's atomic acquires
// every earlier arrival's release; after the barrier its warpgroup reads
// (through L2, ld.global.cg) complete slices.  (Until 7ef788e a
// __threadfence() in every writing thread and in the reader: MEMBAR.SC.GPU,
// which cost the tail split ~4-6 us per part under the TMA traffic.)
#pragma once
#include "epilogue_tma.cuh"

// One thread's arrival on a tile's counter, an acq_rel atomic at GPU scope (the ordering above; tail_split.cuh and
// stream_k.cuh count the same way): the count before this arrival.
__device__ __forceinline__ int arrive_acq_rel(int* counter) {
    int before;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
    return before;
}

// A counter read with acquire at GPU scope (the reader's side of the orderings above).
__device__ __forceinline__ int load_acquire(const int* counter) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
    return v;
}

// Slice of (tile, split, consumer warpgroup) in the workspace, in floats.
template <int NACC>
__device__ __forceinline__ float* split_k_slice(float* workspace, int tile, int split, int splits, int consumers,
                                                int cw) {
    return workspace + (((i64)tile * splits + split) * consumers + cw) * (128 * NACC);
}

// A warpgroup's partial tile to its slice, and a slice added to its registers, in the layout above
// (tail_split.cuh; split_k_reduce keeps its own loops, which its measured builds were compiled from).
template <int NACC>
__device__ __forceinline__ void store_partial(float4* slice, const float (&acc)[NACC]) {
#pragma unroll
    for (int j = 0; j < NACC / 4; ++j)
        slice[128 * j] = make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
}
template <int NACC>
__device__ __forceinline__ void add_partial(float (&acc)[NACC], const float4* slice) {
#pragma unroll
    for (int j = 0; j < NACC / 4; ++j) {
        const float4 v = __ldcg(slice + 128 * j);
        acc[4 * j] += v.x;
        acc[4 * j + 1] += v.y;
        acc[4 * j + 2] += v.z;
        acc[4 * j + 3] += v.w;
    }
}

// Owned rows (SPLIT_K_OWNERS, hopper_sched.cuh: split_k_complete): the rows of consumer warpgroup w belong to k range
// w.  There warpgroup w waits for the other ranges' partials of its rows, adds them and writes the rows; in every
// other range's CTA, warpgroup w hands its partial over (a slice, then a release on the rows' counter) and is done.
// With two consumers and two ranges each range's CTA stores half of the tile; a tile's reduction moves SPLITS - 1
// slices out and back per warpgroup's rows where split_k_reduce moves SPLITS out and back, all of them read by the
// range that finishes last (measured at 512 x 1280 x 8192, 128 x 80 tiles in two ranges: that epilogue took
// 2.4-2.9 us of a 23.6 us call, 1.4 us owned; benchmarks/results/2026-11-27-h100-cta-timeline-ab-pairs-62b8387.json).
// Only owners wait, and only for warpgroups that wait for nothing (a partial follows its own main loop, which the
// consumers of a CTA share): no cycle of waits; the kernel takes this path in single-wave launches only
// (hopper_sched.cuh: split_k_complete says why).  The sum is the owner's partial plus
// the others in range order, a fixed order per tile: the same bits on every call (with two ranges p0 + p1 = p1 + p0,
// split_k_reduce's bits too, but for the sign of a zero sum of two negative zeros).
template <int SPLITS, int CONSUMERS_, int NACC>
__device__ __forceinline__ bool split_k_owned(float (&acc)[NACC], float* workspace, int* counters, int tile, int split,
                                              int cw, int bar_id) {
    static_assert(SPLITS >= CONSUMERS_, "every consumer's rows need a range to own them");
    const int wg_tid = threadIdx.x % 128;
    int* count = counters + tile * CONSUMERS_ + cw;  // partials of these rows handed over so far
    if (split != cw) {  // not the owner of these rows: hand them over
        store_partial(reinterpret_cast<float4*>(split_k_slice<NACC>(workspace, tile, split, SPLITS, CONSUMERS_, cw)) +
                          wg_tid, acc);
        warpgroup_bar_sync(bar_id);
        if (wg_tid == 0) asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(count) : "memory");
        return false;
    }
    if (wg_tid == 0) {
        wait_with_watchdog([&] { return load_acquire(count) == SPLITS - 1; });
        *count = 0;  // every partial is in and read by this warpgroup alone: ready for the next launch
    }
    warpgroup_bar_sync(bar_id);
#pragma unroll 1
    for (int s = 0; s < SPLITS; ++s)
        if (s != split)
            add_partial(acc, reinterpret_cast<const float4*>(split_k_slice<NACC>(workspace, tile, s, SPLITS, CONSUMERS_,
                                                                                 cw)) + wg_tid);
    return true;
}

// Returns true when this warpgroup holds the tile's complete sum in `acc` and must write D.
template <int SPLITS, int CONSUMERS_, int NACC>
__device__ __forceinline__ bool split_k_reduce(float (&acc)[NACC], float* workspace, int* counters, int tile,
                                               int split, int cw, int bar_id, volatile int* flag) {
    const int wg_tid = threadIdx.x % 128;
    float* mine = split_k_slice<NACC>(workspace, tile, split, SPLITS, CONSUMERS_, cw) + 4 * wg_tid;
#pragma unroll
    for (int j = 0; j < NACC / 4; ++j)
        __stcg(reinterpret_cast<float4*>(mine + 512 * j), make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2],
                                                                      acc[4 * j + 3]));
    warpgroup_bar_sync(bar_id);
    if (wg_tid == 0) {
        int* counter = counters + tile * CONSUMERS_ + cw;
        const bool last = arrive_acq_rel(counter) == SPLITS - 1;
        if (last) *counter = 0;  // every arrival for this tile is in: ready for the next launch
        *flag = last;
    }
    warpgroup_bar_sync(bar_id);
    if (!*flag) return false;
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;  // ((0 + p0) + p1) + ...: p0 exactly, then in split order
#pragma unroll 1
    for (int s = 0; s < SPLITS; ++s) {
        const float* part = split_k_slice<NACC>(workspace, tile, s, SPLITS, CONSUMERS_, cw) + 4 * wg_tid;
#pragma unroll
        for (int j = 0; j < NACC / 4; ++j) {
            const float4 v = __ldcg(reinterpret_cast<const float4*>(part + 512 * j));
            acc[4 * j] += v.x;
            acc[4 * j + 1] += v.y;
            acc[4 * j + 2] += v.z;
            acc[4 * j + 3] += v.w;
        }
    }
    return true;
}

