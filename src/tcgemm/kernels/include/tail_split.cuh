// tail_split.cuh — the last, partial wave of a persistent launch, cut along k
// so that no cluster idles through it (the stage-4 kernel's TAIL_SPLIT configs).
//
// Why: C clusters take U units (cluster tiles) in turns, so when U is not a
// multiple of C the last turn leaves H = C - rem clusters idle (rem = U mod C)
// for a whole unit's time.  4096^3 at 128 x 256 is 256 units on 66 clusters:
// 3 full turns and 58 units, 8 clusters idle in the fourth, 3 % of the run
// (4096 x 14336 x 4096: 896 units, 28 idle in the 14th, 3 %).
//
// What: each of the rem last units is cut along k at `split`.  The rem
// "owner" clusters (id < rem) each compute the first part [0, split) of one of
// them, in step with each other as in the full turns (the same k-tile at the
// same time, which keeps the L2 serving neighbours' shared rows and columns);
// the H "helper" clusters compute the second parts [split, ktiles), helper h
// those of units h, h + H, ... : P = ceil(rem / H) parts each.
//
// When: a part costs a helper about OVERHEAD k-tiles beyond its own (the
// pipeline drained and refilled, 64 KB per warpgroup to the workspace and
// back), measured 4-7 us per part on an H100 (128 x 256 bf16, 4096^3, where
// P = 8: the split made it 15% slower; 2026-11-23-h100-ab-tail-split-*.json).
// So the split is made only for P <= MAX_PARTS (the config's TAIL_PARTS, 2
// unless named), with split = ktiles - part where part = (ktiles - P
// OVERHEAD) / (P + 1) balances P (part + OVERHEAD) against the owners'
// ktiles - part.  4096 x 14336 x 4096 (896 units, 38 in the last turn, P =
// 2): owners 46 k-tiles of 64, helpers two parts of 18.  At long K a part's
// overhead is a small share of it, and P = 4 still pays: 4096 x 8192 x 14336
// (the reduce-scatter's block GEMM at 8192 tokens on two ranks: 512 units, 50
// in the last turn, 16 helpers) owners 183 k-tiles of 224, helpers four parts
// of 41, where without the split the 16 idle clusters wait a whole unit.
// (A stream-K tail that laid every k-tile of the last waves end to end and
// cut them into C equal ranges was measured slower still: 66 clusters at 66
// different k offsets share nothing through the L2.)
//
// The two parts of a tile meet in the workspace: a part whose partner has
// already finished (its arrival is on the counter) adds the partner's slice
// to its registers and writes D; otherwise it writes its own slice and
// arrives, and whichever arrives second adds the other's slice.  Nothing
// ever waits for another cluster, so no schedule of clusters can hang.  The
// sum is p0 + p1 = p1 + p0 exactly: results do not depend on who finishes
// first, and every launch of one problem on one GPU gives the same bits.
#pragma once
#include "split_k.cuh"  // warpgroup_bar_sync, the partial-tile slices

struct TailSplit {
    int dp;       // units handed out whole, a multiple of the cluster count (all of them when off)
    int helpers;  // clusters without a tail unit of their own
    int split;    // first k-tile of a tail unit's second part
    bool owner;   // this cluster computes the first part of tail unit `id`
};

template <int MAX_PARTS>  // second parts per helper at most (see above)
__device__ __forceinline__ TailSplit tail_split(int units, int ktiles, int clusters, int id, bool enabled) {
    constexpr int OVERHEAD = 4, MIN_PART = 4;  // k-tiles (see above)
    if (!enabled || units <= clusters) return {units, 0, ktiles, false};
    const int rem = units % clusters, helpers = clusters - rem;
    const int parts = (rem + helpers - 1) / helpers;
    const int part = (ktiles - parts * OVERHEAD) / (parts + 1);
    if (rem == 0 || parts > MAX_PARTS || part < MIN_PART) return {units, 0, ktiles, false};
    return {units - rem, helpers, ktiles - part, id < rem};
}

// The unit after u for cluster `id` (>= units: none left).
__device__ __forceinline__ int tail_next_unit(const TailSplit& t, int u, int units, int clusters, int id) {
    if (u >= t.dp) return t.owner ? units : u + t.helpers;
    const int n = u + clusters;
    if (n < t.dp || t.dp == units) return n;
    return t.dp + (t.owner ? id : id - (clusters - t.helpers));
}

// Workspace slice of (tail tile, part, consumer warpgroup) in floats: two parts per tile.
template <int NACC>
__device__ __forceinline__ float4* tail_slice(float* workspace, int tile, int part, int consumers, int cw) {
    return reinterpret_cast<float4*>(workspace + (((i64)tile * 2 + part) * consumers + cw) * (128 * NACC));
}

// Part `part` (0: k-tiles [0, split), 1: the rest) of tail tile `tile` is in `acc`.  Returns true
// when `acc` now holds the whole sum and this warpgroup must write D.
//
// Memory ordering without a fence per thread: the warpgroup's slice stores, a named barrier, then one
// thread's acq_rel atomic at GPU scope (release is cumulative: it publishes what the barrier ordered
// before it); a reader's acquiring load or atomic, then the barrier, then the slice loads (through
// the L2).  A __threadfence() in every thread instead (MEMBAR.SC.GPU, as split_k_reduce has) cost
// ~4-6 us per part under the TMA traffic: the split then lost 15% at 4096^3.
// (Acc: a template parameter so that a kernel may name the call in an `if constexpr` branch that its
// s32-accumulator builds discard; only float sums are supported.)
template <int CONSUMERS_, typename Acc, int NACC>
__device__ __forceinline__ bool tail_reduce(Acc (&acc)[NACC], float* workspace, int* counters, int tile,
                                            int part, int cw, int bar_id, volatile int* flag) {
    static_assert(sizeof(Acc) == 4 && (Acc)0.5f != 0, "fp32 partial sums");
    const int wg_tid = threadIdx.x % 128;
    int* counter = counters + tile * CONSUMERS_ + cw;
    if (wg_tid == 0) {
        *flag = load_acquire(counter);
    }
    warpgroup_bar_sync(bar_id);
    if (!*flag) {  // the partner is still at work: leave this part for it
        store_partial(tail_slice<NACC>(workspace, tile, part, CONSUMERS_, cw) + wg_tid, acc);
        warpgroup_bar_sync(bar_id);
        if (wg_tid == 0) {
            *flag = arrive_acq_rel(counter);  // 1: the partner arrived meanwhile
        }
        warpgroup_bar_sync(bar_id);
        if (!*flag) return false;
    }
    if (wg_tid == 0) *counter = 0;  // both parts are in: ready for the next launch
    add_partial(acc, tail_slice<NACC>(workspace, tile, part ^ 1, CONSUMERS_, cw) + wg_tid);
    return true;
}
