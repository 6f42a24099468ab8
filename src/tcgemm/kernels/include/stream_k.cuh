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
// first tile of its run, slot 1: the last) and counts its arrival on the tile's counter.  The one that
// arrives last adds all the contributors' partials up in CTA order — never in arrival order — so the
// sum is bitwise the same on every run, on any stream, beside any other work; it then resets the
// counter to 0 for the next launch and writes D.  Nobody waits for anybody: a CTA that is not last
// simply moves on, so the scheme cannot deadlock, even when not every CTA is resident.  (Ordering: a
// release atomic after the slot stores, an acquire before the loads; see stream_k_fixup.)  A slot keeps
// the threads' register layout
// (split_k.cuh: store_partial / add_partial), so every access is a coalesced float4.
//
// (Tried in the production kernel too, for compute-bound shapes whose tiles fill the SMs badly: slower there,
// docs/findings.md, "Stream-K and split-K in the production kernel".)
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
// Memory ordering without a fence per thread (tail_split.cuh's argument): the warpgroup's slot stores, a
// named barrier, one thread's acq_rel atomic at GPU scope (release is cumulative: it publishes what the
// barrier ordered before it); the last arriver's atomic acquires the others' releases, then the barrier,
// then the slot loads through L2.  (Until 7ef788e a __threadfence() in every thread, MEMBAR.SC.GPU: it cost
// the tail split ~4-6 us per part under the TMA traffic.  A variant in which the first contributor, coming
// last, added the others to its own registers without storing them spilled the 128-token configs: removed.)
//
// The last arriver's sum is latency-bound (one L2 round trip per contributor if done one by one: a
// tile of ~40 contributors cost ~15 us), so it loads CHUNK contributors' slots at once and adds them in
// CTA order as they come: the same additions in the same order, a round trip per CHUNK.
//
// With CONSUMERS warpgroups a CTA (consumer cw holding its own rows of the tile), each does its own fixup of its
// part: a slot holds the whole tile, consumer cw's part 128 NACC floats into it, and each has its own counter per
// tile (counters[tile * CONSUMERS + cw]), named barrier and flag.
template <int NACC, int CONSUMERS = 1>
__device__ __forceinline__ bool stream_k_fixup(float (&acc)[NACC], const StreamK& sk, int cta, int tile,
                                               bool first_of_run, float* workspace, int* counters, int bar_id,
                                               volatile int* flag, int cw = 0) {
    const int wg_tid = threadIdx.x % 128;
    constexpr int SLOT_FLOATS = 128 * NACC * CONSUMERS;
    constexpr int CHUNK = NACC >= 32 ? 1 : 32 / NACC;  // slots in flight: <= 32 floats of registers a thread
    workspace += 128 * NACC * cw;
    auto slot_ptr = [&](int slot) {
        return reinterpret_cast<const float4*>(workspace + (long long)slot * SLOT_FLOATS) + wg_tid;
    };
    store_partial(reinterpret_cast<float4*>(workspace + (long long)stream_k_slot(cta, first_of_run) * SLOT_FLOATS) +
                      wg_tid, acc);
    warpgroup_bar_sync(bar_id);
    const long long tile_begin = (long long)tile * sk.ktiles;
    const int first = sk.cta_of(tile_begin);
    const int last = sk.cta_of(tile_begin + sk.ktiles - 1);
    if (wg_tid == 0) {
        int* counter = counters + (long long)tile * CONSUMERS + cw;
        const bool done = arrive_acq_rel(counter) == last - first;
        if (done) *counter = 0;  // every contributor is in: ready for the next launch
        *flag = done;
    }
    warpgroup_bar_sync(bar_id);
    if (!*flag) return false;
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
