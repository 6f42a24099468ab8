// stream_k.cuh — stream-K: every CTA gets an equal share of the k-tiles, whatever the tile count,
// and partial tiles are summed in a fixed order (hopper/05_swap_ab_stream_k.cu).
//
// Why: a decode GEMM has a handful of output tiles (Llama-3-70B's tensor-parallel qkv, N = 1280:
// 10 tiles of 128 weight rows) and a long K.  Split-K rounds badly — 10 tiles x 13 splits = 130
// units for 132 SMs, but 32 tiles x 4 = 128 and 48 tiles x 3 = 144 (a second wave for 12 units).
// Stream-K flattens the work into T = tiles x ktiles k-tiles, tile-major, and gives CTA c of G the
// contiguous run [c T / G, (c + 1) T / G): every CTA streams the same number of weight bytes to
// within one k-tile.  A run may start or end inside a tile; that tile's sum is then split between
// the CTAs whose runs cover it (its *contributors*, consecutive CTAs).
//
// Fixup, deterministic: a contributor writes its fp32 partial to its own workspace slot (slot 0: the
// first tile of its run, slot 1: the last), fences, and counts its arrival on the tile's counter.
// The one that arrives last adds all the contributors' slots up in CTA order — never in arrival
// order — so the sum is bitwise the same on every run, on any stream, beside any other work; it then
// resets the counter to 0 for the next launch and writes D.  Nobody waits for anybody: a CTA that is
// not last simply moves on, so the scheme cannot deadlock, even when not every CTA is resident.
// The ordering argument is split_k.cuh's (slot stores -> __threadfence -> barrier -> atomicAdd by one
// thread; the last arriver fences and reads through L2).  A slot keeps the threads' register layout
// (split_k.cuh: store_partial / add_partial), so every access is a coalesced float4.
//
// The production kernel (hopper/04_tma_store_epilogue.cu, STREAM_K_RUNS configs) walks the same runs with
// clusters in place of CTAs and whole cluster units in place of tiles (hopper_sched.cuh, UnitWalk), where
// the waves of whole tiles round badly and the operands stay in the L2: GPT-2's K = 768 layers at 2048
// tokens make 72 cluster units of 128 x 256 for 66 clusters, two rounds for 1.09 rounds of work. Its
// fixup (stream_k_runs_reduce below) orders memory as the tail split does (tail_split.cuh: one release
// per warpgroup instead of a fence per thread, which cost microseconds per part there), and the tile's
// first contributor, which reaches the tile last (at the end of its run), keeps its sums in registers.
#pragma once
#include "split_k.cuh"

struct StreamK {
    long long total;  // T = tiles x ktiles
    int ctas;         // G (<= T: the host never launches a CTA without work)
    int ktiles;

    __device__ __forceinline__ long long begin(int cta) const { return (long long)cta * total / ctas; }
    // The CTA whose run holds k-tile x: the largest c with floor(c T / G) <= x.
    __device__ __forceinline__ int cta_of(long long x) const { return (int)(((x + 1) * ctas - 1) / total); }
};

// The workspace slot of CTA c's partial sum of a tile: 2c for the first tile of its run, 2c + 1 for the last.
// (Every contributor after a tile's first starts its run inside the tile: the tile is its first.)
__device__ __forceinline__ int stream_k_slot(int cta, bool first_of_run) { return 2 * cta + (first_of_run ? 0 : 1); }

// After a warpgroup has summed k-tiles [kt0, kt1) of `tile` into `acc` (fewer than all of them): true
// when it now holds the tile's complete sum and must write D, false when another contributor will.
// `first_of_run`: the tile is the first of this CTA's run.
//
// The last arriver's sum is latency-bound (one L2 round trip per contributor if done one by one: a
// tile of ~40 contributors cost ~15 us), so it loads CHUNK contributors' slots at once and adds them in
// CTA order as they come: the same additions in the same order, a round trip per CHUNK.
template <int NACC>
__device__ __forceinline__ bool stream_k_fixup(float (&acc)[NACC], const StreamK& sk, int cta, int tile,
                                               bool first_of_run, float* workspace, int* counters, int bar_id,
                                               volatile int* flag) {
    const int wg_tid = threadIdx.x % 128;
    constexpr int SLOT_FLOATS = 128 * NACC;
    constexpr int CHUNK = NACC >= 32 ? 1 : 32 / NACC;  // slots in flight: <= 32 floats of registers a thread
    auto slot_ptr = [&](int slot) {
        return reinterpret_cast<const float4*>(workspace + (long long)slot * SLOT_FLOATS) + wg_tid;
    };
    store_partial(reinterpret_cast<float4*>(workspace + (long long)stream_k_slot(cta, first_of_run) * SLOT_FLOATS) +
                      wg_tid, acc);
    __threadfence();
    warpgroup_bar_sync(bar_id);
    const long long tile_begin = (long long)tile * sk.ktiles;
    const int first = sk.cta_of(tile_begin);
    const int last = sk.cta_of(tile_begin + sk.ktiles - 1);
    if (wg_tid == 0) {
        const bool done = atomicAdd(counters + tile, 1) == last - first;
        if (done) counters[tile] = 0;  // every contributor is in: ready for the next launch
        *flag = done;
    }
    warpgroup_bar_sync(bar_id);
    if (!*flag) return false;
    __threadfence();
    const int first_slot = stream_k_slot(first, sk.begin(first) == tile_begin);
#pragma unroll
    for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;  // ((0 + p_first) + ...) in CTA order
#pragma unroll 1
    for (int c0 = first; c0 <= last; c0 += CHUNK) {
        float4 part[CHUNK][NACC / 4];
#pragma unroll
        for (int u = 0; u < CHUNK; ++u)
            if (c0 + u <= last) {
                const float4* src = slot_ptr(c0 + u == first ? first_slot : stream_k_slot(c0 + u, true));
#pragma unroll
                for (int j = 0; j < NACC / 4; ++j) part[u][j] = __ldcg(src + 128 * j);
            }
#pragma unroll
        for (int u = 0; u < CHUNK; ++u)
            if (c0 + u <= last) {
#pragma unroll
                for (int j = 0; j < NACC / 4; ++j) {
                    acc[4 * j] += part[u][j].x;
                    acc[4 * j + 1] += part[u][j].y;
                    acc[4 * j + 2] += part[u][j].z;
                    acc[4 * j + 3] += part[u][j].w;
                }
            }
    }
    return true;
}

// ---- STREAM_K_RUNS (hopper/04_tma_store_epilogue.cu): the fixup of a cluster unit cut between runs ----
//
// Contributors of unit u: clusters first = cta_of(u K) .. last = cta_of(u K + K - 1) (K = k-tiles per unit),
// in order of their k ranges. Each CTA of a cluster sums its own tile of the unit; slot 2c holds the partial
// of cluster c's first unit, 2c + 1 of its last (a run that is not one unit's interior has at most these
// two partial units), one slice per CTA rank and consumer warpgroup.
//
// Protocol (per CTA tile and consumer warpgroup; a counter counts the contributors that left a slice):
//   * the first contributor looks first: if all n - 1 others have arrived, it adds their slices to its
//     registers in order and writes D, leaving no slice and no arrival;
//   * otherwise (and every other contributor) it stores its slice, then one thread arrives (acq_rel);
//     the arrival that finds n - 1 before it finishes the tile: into registers goes the first
//     contributor's sums (its own registers when it is the first, else the first's slice), then every
//     later contributor's slice in order.
// The sum is ((p_first + p_first+1) + ...) + p_last whoever finishes, so the bits are the same on every
// run; nobody waits, so no schedule of clusters can hang. The finisher resets the counter for the next launch.
template <int CONSUMERS_, typename Acc, int NACC>
__device__ __forceinline__ bool stream_k_runs_reduce(Acc (&acc)[NACC], const StreamK& sk, int unit, int cluster,
                                                     bool first_of_run, int rank, int cluster_ctas, int cw,
                                                     float* workspace, int* counters, int bar_id, volatile int* flag) {
    static_assert(sizeof(Acc) == 4 && (Acc)0.5f != 0, "fp32 partial sums");
    const int wg_tid = threadIdx.x % 128;
    const long long unit_begin = (long long)unit * sk.ktiles;
    const int first = sk.cta_of(unit_begin), last = sk.cta_of(unit_begin + sk.ktiles - 1);
    const int n = last - first + 1;
    auto slice = [&](int slot) {
        return reinterpret_cast<float4*>(workspace + (((long long)slot * cluster_ctas + rank) * CONSUMERS_ + cw) *
                                                         (128 * NACC)) + wg_tid;
    };
    int* counter = counters + ((long long)unit * cluster_ctas + rank) * CONSUMERS_ + cw;
    const bool is_first = cluster == first;
    if (is_first) {
        if (wg_tid == 0) {
            int seen;
            asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
            *flag = seen;
        }
        warpgroup_bar_sync(bar_id);
    }
    if (!is_first || *flag != n - 1) {
        store_partial(slice(stream_k_slot(cluster, first_of_run)), acc);
        warpgroup_bar_sync(bar_id);  // (also: every thread has read *flag above before it changes)
        if (wg_tid == 0) {
            int before;
            asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
            *flag = before;
        }
        warpgroup_bar_sync(bar_id);
        if (*flag != n - 1) return false;
    }
    if (wg_tid == 0) *counter = 0;  // every contributor is in: ready for the next launch
    if (!is_first) load_partial(acc, slice(stream_k_slot(first, sk.begin(first) / sk.ktiles == unit)));
#pragma unroll 1
    for (int c = first + 1; c <= last; ++c) add_partial(acc, slice(stream_k_slot(c, true)));
    return true;
}
