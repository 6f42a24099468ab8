// Hopper stage 4 — the production kernel: stage 3's clusters with the epilogue through shared memory
// and TMA stores, and the variants the registry's configs choose (sm_90a).
//
// What changes over stage 3 (wgmma_cluster) and why it is faster:
//  * In stages 1-3 the consumer warpgroups write D straight from their accumulator registers: 64
//    four-byte stores per thread per tile, each warp instruction covering 8 rows x 16 bytes
//    (half-sector writes), and the tensor cores idle until the last store has issued.  Here each
//    warpgroup writes its 64 x BLOCK_N tile into a swizzled shared buffer with stmatrix, one thread
//    issues TMA stores, and the warpgroup starts the next tile's wgmmas while the TMA unit writes whole
//    128-byte lines; the stores' edges are clipped by D's tensor map, so ragged M and N cost nothing.
//    Cost: 2 x 32 KB of staging at BLOCK_N = 256, so the ring has one stage fewer (3 x 48 KB).  A D the
//    host cannot describe with a tensor map (not 16-byte aligned) is written from registers as in
//    stage 3: the kernel gets a null map (tma.cuh, TCGEMM_TMA_STORE_PERSISTENT_KERNEL).
//  * Variants, each a constant of hopper_config.cuh chosen with `if constexpr`, each explained in the
//    header of its policy:
//      hopper_cluster.cuh   clusters along N sharing A (CLUSTER_ALONG_N), 2-D (CLUSTER_2D), no cluster
//      hopper_sched.cuh     wave snake, GPC order (gpc_order.cuh), split-K (split_k.cuh), tail split
//                           (tail_split.cuh), the next tile's coordinates in the first wgmmas' shadow,
//                           ping-pong consumers (PINGPONG: whole tiles in turn, one's epilogue under the
//                           other's main loop)
//      hopper_ktile.cuh     256-row tiles (WG_M = 128), fp8 partial sums promoted to fp32 (PROMOTE), tf32's
//                           MN-major A through registers (A_REGS)
//      block_scales.cuh     fp8 with DeepSeek-V3's block-wise scales, applied at each k-tile's promotion
//      group_rows.cuh       masked grouped GEMMs: the walk over the units of each expert's rows only
//      peer_rows.cuh        tensor-parallel GEMMs in one launch: rows from peers as they land (all-gather),
//                           row blocks counted out as they are stored (reduce-scatter)
//      hopper_epilogue.cuh  TMA store, registers, or overlapped with the next tile's first wgmmas; boxes of
//                           32-byte rows for tiles 48-144 wide (D_BOX_BYTES); D^T written transposed
//                           (D_TRANSPOSED: the host exchanged the operands, the tokens are the wgmma's N;
//                           tf32's D^T from registers), staged in its last k-tile's ring slot (D_IN_RING:
//                           the slot held until the stores have read it, so the buffer becomes a stage)
//    and all input types: fp16/bf16 (K- or MN-major), tf32, int8, fp8 (K-major; registry entry
//    wgmma_tma_store_kmajor), with 16- or 32-bit D.
//
// Cluster protocol (shown for stage 3's 2 x 1 cluster, ranks r = 0, 1; the same slot s in both CTAs
// always holds the same k-tile i, since both walk the same units with the same ktiles; other shapes
// differ only in which parts each CTA loads, hopper_cluster.cuh):
//   Slot s of CTA r holds A_r(i) (its own) and B(i) = [B half 0 | B half 1].
//   Producer of CTA r, k-tile i (slot s, use u):
//     1. waits until empty[s] of CTA r completed phase u - 1 (i >= STAGES);
//     2. arrive.expect_tx(full[s] of CTA r, STAGE_BYTES = 48 KB);
//     3. TMA A_r(i) -> own slot, completing on own full[s]            (16 KB);
//     4. TMA B half r(i), multicast to CTAs {0, 1} at the same offset,
//        completing on full[s] of each of them                      (16 KB each).
//   So full[s] of each CTA receives 16 (A) + 16 + 16 (both B halves) = 48 KB and one arrival per use.
//   Bytes from the peer may land before our own expect_tx: the tx-count goes transiently negative,
//   the phase cannot complete while our producer's arrival is pending, and it completes exactly when
//   all 48 KB of use u are in.
//   Consumers (CONSUMERS warpgroups per CTA): wait full[s] of their own CTA for phase u (parity u & 1),
//   multiply, and once k-tile i's wgmmas have retired, arrive on empty[s] of EVERY CTA of the cluster
//   (one thread per target CTA, remote arrivals through mapa).  empty[s] counts CONSUMERS * CLUSTER_M
//   arrivals per phase, so a producer that passed step 1 knows that nobody in the cluster still reads
//   slot s, in its own CTA or in a peer (where its part of the shared operand also lands).
//   No phase can be completed twice before a waiter sees it:
//     * full[s] of CTA q, use u+1, needs expect_tx from producer q after its empty[s] phase u, which
//       needs CTA q's consumers to have released use u, which they do after waiting for full[s] phase u.
//     * empty[s] of CTA q, phase u+1, needs the consumers of all CTAs to release use u+1, which needs
//       all parts of k-tile i + STAGES loaded, which needs producer q past its wait on empty[s] phase u.
//   and no arrival can belong to an earlier phase than the barrier's current one, by the same chains.
//   Start: barriers are initialised, then a cluster-wide barrier makes them visible before any CTA
//   multicasts into its peer.  End: a CTA must not exit while its peer may still arrive on its barriers
//   or write into its shared memory.  Stage 3 ends every thread with a cluster-wide barrier; here the
//   producer thread instead waits, after its last load, for the last use of every slot to be released
//   (empty[s] counts the releases of the consumers of every CTA): after that no peer arrives on this CTA's
//   barriers, and every multicast into it was awaited by its own consumers.  The barrier's release
//   arrival cost a MEMBAR.GPU behind the tile's TMA stores: at 2048 x 768 x 64 (one k-tile per CTA) the
//   CTAs were active 10.3k cycles against cuBLAS's 4.6k, a quarter of the stall samples at the barrier.
#include "hopper_config.cuh"
#include "hopper_cluster.cuh"
#include "hopper_sched.cuh"
#include "hopper_ktile.cuh"
#include "hopper_epilogue.cuh"
#include "block_scales.cuh"
#include "group_rows.cuh"
#include "peer_rows.cuh"
#include "mbarrier.cuh"
#include "cluster.cuh"
#include "pdl.cuh"
#include "tma.cuh"
#include "cta_trace.cuh"

#include "setmaxnreg.cuh"

// D_IN_RING's slot goes back after the transposed epilogue only: no variant may leave the tile another way.
static_assert(!kDInRing || (!kGroupRows && !kPeerRows && !GATED && !OVERLAP && !ROW_SCALES && !kTailSplit),
              "D_IN_RING: a plain D^T tile (no grouped rows, peer rows, gating, overlap, row scales or tail split)");

// The producer's first unit before the start barrier and the wait for the grid before (kEarlyProducer).  Its
// thread worked out the walk and the first unit's coordinates (~200 dependent instructions: divisions, the first
// reads of the parameters) only after both, ~0.7 us of every CTA between griddepcontrol.wait and its first TMA
// load, with the barriers' init (~0.2 us) before them (H200 and H100, every config timed:
// benchmarks/results/2026-11-27-h100-cta-timeline-ab-owners-7e89147.json).  Where nothing of that reads global
// memory, the producer warpgroup takes its registers' cut and arrives on the start barrier at once, another of its
// threads initialises the barriers, and the producer thread waits for the start barrier and the grid before only
// at its first load; so the work runs beside the init and, under programmatic dependent launch, beside the grid
// before.  Not with GPC_ORDER (the position is counted out before the barrier), grouped rows or peer rows (their
// walks read global memory).
#ifndef EARLY_PRODUCER
#define EARLY_PRODUCER 1  // 0: the producer's first unit after both waits, as before (for an A/B)
#endif
constexpr bool kEarlyProducer = EARLY_PRODUCER != 0 && !kGpcOrder && !kGroupRows && !kPeerRows;

// tma_d: D's tensor map (16-bit D, or 32-bit with EPI_32BIT, that the host could describe), else null: D
// from registers.  workspace, counters: split-K / tail-split partial tiles and per-tile arrival counts,
// GPC_ORDER's tables (null when the config has none), or (GROUP_ROWS) each batch entry's rows (group_rows.cuh);
// with PEER_ROWS, workspace is the PeerRows block (peer_rows.cuh).
// scale_a, scale_b: fp8's scales, per tensor, (ROW_SCALES) per row of A and per column of B, or (BLOCK_SCALES) per
// 1 x 128 group of A and 128 x 128 block of B.
__device__ __forceinline__ void wgmma_tma_store_body(const Gemm& g, int batch, const TmaDesc* tma_a,
                                                     const TmaDesc* tma_b, const TmaDesc* tma_d = nullptr,
                                                     float* workspace = nullptr, int* counters = nullptr,
                                                     const float* scale_a = nullptr, const float* scale_b = nullptr) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Identical offsets in every CTA of the cluster (same kernel, same layout): multicast relies on it.
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned d_bufs = tiles + STAGES * STAGE_BYTES;  // CONSUMERS D staging buffers (D_IN_RING: DT_EXTRA), 1024-aligned
    const unsigned scale_slots = d_bufs + D_STAGING;  // BLOCK_SCALES: STAGES slots of k-tile scales
    const unsigned full = scale_slots + STAGES * SCALE_SLOT;  // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;            // STAGES mbarriers, then CONSUMERS ints (TAIL_SPLIT)
    const unsigned full_bars = full, empty_bars = empty, scale_base = scale_slots;  // (the producer's copies)
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    const int tiles_m = (g.M + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (g.N + BLOCK_N - 1) / BLOCK_N;
    const int units_m = (tiles_m + CTAS_M - 1) / CTAS_M;
    const int units_n = (tiles_n + CTAS_N - 1) / CTAS_N;
    // Work units (hopper_sched.cuh): (cluster tile unit, k range); the SPLIT_K ranges of a tile are consecutive.
    // (GROUP_ROWS: the units with tokens, read from the prefix after the PDL wait below: group_rows.cuh)
    int units = units_m * units_n * batch * kSplitK;  // < 2^31: launch.plan checks
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;
    const int kt_per = (ktiles + kSplitK - 1) / kSplitK;  // k-tiles per range (the last may have fewer, or none)
    auto k_range = [&](int u, int& kt0, int& kt1) { split_k_range(u, ktiles, kt_per, kt0, kt1); };
    const PeerRows* peer = kPeerRows ? reinterpret_cast<const PeerRows*>(workspace) : nullptr;
    auto coord = [&](int u, int rank) {
        if constexpr (kPeerWalk) return peer_unit_coord(u, units_m, units_n, rank, peer);
        return kGroupRows ? grouped_unit_coord(counters, batch, u, units_n, rank)
                          : unit_coord(u / kSplitK, units_m, units_n, rank);
    };
    // The last, partial row of tiles computes the rows [M - BLOCK_M, M) instead, overlapping the row above
    // (whose values it writes again, the same bits), so that its A boxes lie wholly inside A: at 300 rows
    // the 128 x 128 tiles took 38.1 us against 27.7 at 512 (docs/findings.md, "Partial row tiles"). Not
    // where C is a whole matrix: it may be D itself, which the row above has already overwritten. Tiles
    // below the matrix (a cluster's second CTA) load and store the same rows; without the shift they load
    // the last row's and store nothing. An M-major A's boxes start at the first row along their inner
    // dimension, which TMA wants at a multiple of 16 bytes (an unaligned start faulted): there only where
    // M - BLOCK_M is such a multiple.
    // (A function of the arguments, worked out where used: held across the consumer loop it cost a register
    // that 128 x 256 tiles with a 32-bit D spilled for.)
    auto tile_row = [&](const TileCoord& c, bool load) {
        if constexpr (kGroupContiguous) return c.m0;  // (an expert's rows: no shift into the segment before)
        constexpr int ROW_ALIGN = 16 / (int)sizeof(elem_a);
        const bool shift = g.M >= BLOCK_M && (A_K_MAJOR || (g.M - BLOCK_M) % ROW_ALIGN == 0) &&
                           (g.beta == 0.0f || g.c_row == 0);
        return shift ? min(c.m0, g.M - BLOCK_M) : load ? min(c.m0, (tiles_m - 1) * BLOCK_M) : c.m0;
    };
    // A_HALVES (hopper_config.cuh): where WG_M < M < BLOCK_M the second consumer computes the rows [M - WG_M, M),
    // overlapping the first's (the same bits written twice, as with tile_row's shift, and under the same condition
    // on C); its rows are then those of a tile BLOCK_M - M rows above: the lift, subtracted from its tile row
    // wherever its rows are placed (the producer's second box, the C staging, the epilogue's TileCoord).
    auto half_lift = [&](int cw) {
        constexpr bool ON = kAHalves && !kGroupRows && !kPeerRows && !kBlockScales && !kDTransposed;
        return ON && cw == 1 && g.M > WG_M && g.M < BLOCK_M && (g.beta == 0.0f || g.c_row == 0) ? BLOCK_M - g.M : 0;
    };
    auto consumer_row = [&](const TileCoord& c, int cw) {  // the first row consumer cw computes of tile c
        return tile_row(c, false) - half_lift(cw) + consumer_row0(cw);
    };
    const int rank = cluster_ctarank();
    const int tid = threadIdx.x;
    const int wg = tid / 128;
    if (kTrace && tid == 0) trace_entry();  // (cta_trace.cuh: measurement builds only)
    // This cluster's place in every wave: its id, or with GPC_ORDER the position rank 0 counts out in the
    // barrier block below (gpc_order.cuh: before the wait is safe), read by each role after setmaxnreg
    // from rank 0's shared word (nothing live across the role split: see UnitWalk).
    const unsigned position_word = empty + 8 * STAGES + 4 * CONSUMERS;
    auto wave_position = [&] { return kGpcOrder ? gpc_read_position(position_word) : (int)cluster_id_x(); };

    auto init_barriers = [&] {
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, SLOT_READERS * CLUSTER_M);
        }
        mbar_init_fence();
    };
    // ---- producer: one thread streams this CTA's k-tiles (and its parts of the shared operand) ----
    auto produce = [&] {
        const UnitWalk walk(units, ktiles, split_workspace(workspace) != nullptr, wave_position());
        // This one thread's instruction latency paces the ring at narrow tiles (fp8 at 128 x 4096 x 7168: ~80
        // instructions a k-tile, ~250 ns). The ring's base goes through an empty asm so that ptxas keeps it in
        // a register: otherwise it rebuilt it from the cluster's shared window (S2UR SR_CgaCtaId and four
        // dependent uniform ops) twice every k-tile. Slot and barrier addresses are offsets from it.
        unsigned base = tiles;
        asm volatile("" : "+r"(base));
        auto a_slot = [&](int s) { return base + s * STAGE_BYTES; };
        auto b_slot = [&](int s) { return base + s * STAGE_BYTES + A_TILE; };
        const unsigned full = base + (full_bars - tiles), empty = base + (empty_bars - tiles);
        const unsigned scale_slots = base + (scale_base - tiles);
        int s = 0;
        unsigned phase = 0;     // parity of slot s's current use u
        bool first_lap = true;  // uses u = 0 need no wait: the rings start empty
        bool backwards = false;  // WAVE_SNAKE: this unit's k-tiles from the last to the first
        unsigned landed = 0;     // PEER_ROWS = 1: ranks whose rows this producer has seen land
        for (int u = walk.first; u < units; u = walk.next(u), backwards = kWaveSnake && !backwards) {
            const TileCoord c = coord(u, rank);
            // A tile below (or right of) the matrix computes nothing that is stored: any rows (columns)
            // will do, and its loads still bring the peers their parts of the shared operand.
            const int m_load = tile_row(c, true);
            const int n_load = min(c.n0, (tiles_n - 1) * BLOCK_N);
            int m_a = m_load;  // (PEER_ROWS = 1: A's row in the map it comes from)
            const TmaDesc* src_a = kPeerGather ? peer_a_source(peer, tma_a, m_a, landed) : tma_a;
            const int za = g.batch_a ? c.z : 0;  // a broadcast operand's map has one batch entry
            const int zb = g.batch_b ? c.z : 0;
            int kt0, kt1;
            k_range(u, kt0, kt1);
            walk.range(u, kt0, kt1);
            BlockScaleSource scales{};  // (block_scales.cuh)
            if constexpr (kBlockScales)
                scales = block_scale_source(scale_a, scale_b, g.M, g.N, g.K, m_load, n_load, za, zb);
            CPrefetch c_rows{0ull, 0u};
            if constexpr (kCMatrix && !kDTransposed) c_rows = c_prefetch_begin(g, tile_row(c, false), c.n0, c.z);
            for (int kt = kt0; kt < kt1; ++kt) {
                if (!first_lap) {
                    mbar_wait_slot_free(empty + 8 * s, phase ^ 1);  // use u-1 released (cluster.cuh)
                } else if (kEarlyProducer && s == 0) {  // the first load: every CTA's barriers, the grid before
                    cluster_wait();
                    if constexpr (kTrace) trace_at(TRACE_INIT_DONE);
                    grid_dependency_wait();
                    if constexpr (kTrace) trace_at(TRACE_DEP_DONE);
                }
                load_tile(src_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, backwards ? kt0 + kt1 - 1 - kt : kt,
                          m_a, n_load, za, zb, rank, kBlockScales ? block_scale_bytes(scales) : 0,
                          kGroupRows && c.own_b, m_a + WG_M - half_lift(1));
                if constexpr (kBlockScales) load_block_scales(scale_slots + s * SCALE_SLOT, full + 8 * s, scales, kt);
                if (kTrace && first_lap && s == 0) trace_at(TRACE_FIRST_LOAD);
                // (hopper_epilogue.cuh; TAIL_SPLIT's producer spilled with it: those hint C after the last load)
                if constexpr (kCMatrix && !kDTransposed && !kTailSplit) c_prefetch_step(g, c_rows, C_ROWS_PER_KTILE);
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                    first_lap = false;
                }
            }
            // (the rows a tile of few k-tiles left; a transposed tile reads C otherwise)
            if constexpr (kCMatrix && !kDTransposed) c_prefetch_step(g, c_rows, BLOCK_M);
        }
        if (kGpcOrder && rank == 0) gpc_count_out(counters);
        if constexpr (kTrace) trace_at(TRACE_LAST_LOAD);
        grid_dependents_launch();  // every load issued: the next GEMM may start its prologue
        // Tail: wait until every slot's last use is released by the consumers of every CTA of the cluster.
        // Then no peer arrives on this CTA's barriers any more, and every multicast into it has been
        // consumed (its own consumers waited for each), so the CTA may exit without a cluster barrier.
        for (int i = 0; i < STAGES; ++i) {
            if (!first_lap) mbar_wait_slot_free(empty + 8 * s, phase ^ 1);
            if (++s == STAGES) {
                s = 0;
                phase ^= 1;
                first_lap = false;
            }
        }
        if constexpr (kTrace) trace_at(TRACE_TAIL_DONE);
    };
    if constexpr (kEarlyProducer) {
        if (wg == 0) {
            setmaxnreg_dec<PRODUCER_REGS>();
            if (tid == 32) init_barriers();  // (beside the producer thread's first unit)
            cluster_arrive_relaxed();  // (the init's fence.mbarrier_init published it: a relaxed arrival)
            if (tid == 0) {
                tma_prefetch_desc(tma_a);
                tma_prefetch_desc(tma_b);
                produce();  // (waits for the start barrier and the grid before at its first load)
            }
            return;
        }
    }
    if (!kEarlyProducer && tid == 0) {
        if (kGpcOrder && rank == 0) gpc_position_into(counters, position_word);
        tma_prefetch_desc(tma_a);
        tma_prefetch_desc(tma_b);
        init_barriers();
    }
    // Every CTA's barriers exist before anyone multicasts into them: fence.mbarrier_init orders the inits, so
    // the arrival is relaxed (a release arrival costs a MEMBAR.GPU); GPC_ORDER's position word is a plain store,
    // published by a release arrival.
    if constexpr (kGpcOrder)
        cluster_sync();
    else
        cluster_sync_after_init();
    if (kTrace && tid == 0) trace_at(TRACE_INIT_DONE);
    // Programmatic dependent launch (pdl.cuh): all of the above may overlap the previous GEMM's last
    // tiles; nothing below (loads of A and B, scales, C, D, split-K scratch) may.
    grid_dependency_wait();
    if (kTrace && tid == 0) trace_at(TRACE_DEP_DONE);
    if constexpr (kPeerQueue) grid_dependents_launch();  // the queue's sum may be placed now (peer_rows.cuh)
    if constexpr (kGroupRows) units = grouped_units(counters, batch, units_n);

    if (wg == 0) {  // (kEarlyProducer: returned above)
        setmaxnreg_dec<PRODUCER_REGS>();
        if (tid == 0) produce();
        return;
    }
    {
        // ---- consumer warpgroups 1..CONSUMERS: rows WG_M (wg-1) .. WG_M wg - 1 of each tile (PINGPONG: all rows of every other tile) ----
        setmaxnreg_inc<CONSUMER_REGS>();
        const UnitWalk walk(units, ktiles, split_workspace(workspace) != nullptr, wave_position());
        const int cw = __shfl_sync(0xffffffffu, wg - 1, 0);  // warp-uniform to the compiler: descriptors in uniform registers
        const int wg_tid = tid % 128;
        // Thread q < CLUSTER_M of the warpgroup releases slots in CTA q of the cluster.
        const bool releaser = wg_tid < CLUSTER_M;
        const unsigned target = releaser ? wg_tid : 0;
        const int warp = wg_tid / 32, lane = tid % 32;

        // fp8: per-tensor scales (device pointers, null = 1), applied to each finished tile.
        const float scale = PROMOTE && !ROW_SCALES && !kBlockScales ? (scale_a ? *scale_a : 1.0f) * (scale_b ? *scale_b : 1.0f)
                                                                     : 1.0f;
        acc_t acc[M_ATOMS * ATOM_ACC];
        acc_t part[ATOM_ACC];  // fp8's per-k-tile partial sums (unused otherwise: optimised away)
        unsigned a_frag[2][A_REG_HALF][4];  // A_REGS: A's fragments, a register set per half k-tile (else unused)
        int s = 0;
        unsigned phase = 0;
        // COORD_SHADOW: the next tile's coordinates worked out while the first k-tile's wgmmas run
        // (hopper_sched.cuh).  The accumulators are still zeroed here: leaving them to the first wgmma's
        // scale_d = 0 kept the epilogue's values live up to it, and most 128 x 256 configs spilled.
        TileCoord next = coord(walk.first, rank);
        auto in_wgmma_shadow = [&](int u, int kt, int kt0) {
            if (COORD_SHADOW && kt == kt0) next = coord(walk.next(u), rank);
        };
        bool pre_issued = false;  // EPI_OVERLAP: this tile's first k-tile went out in the last one's epilogue
        // A whole C whose first parts are copied to shared memory (hopper_epilogue.cuh; D through TMA stores only)
        const bool c_stage = tma_d != nullptr && c_stageable(g);
        // EPI_OVERLAP never zeroes the accumulators (a tile's first wgmmas overwrite them): with K = 0 (no
        // wgmma at all; tcgemm.gemm computes D = beta C itself and never launches) there is nothing to store.
        if (OVERLAP && ktiles == 0) watchdog_fault();
        int turn = 0;  // PINGPONG: units of this CTA's walk so far; consumer cw takes those with turn % 2 == cw
        // PEER_ROWS = 2: the row block of this warpgroup's stored tiles not yet counted and their rows, counted once
        // the walk leaves the block (peer_rows.cuh: one system-scope release per block, not per tile), -1 none;
        // D through TMA stores only (one thread issues them: it counts).
        int pending_block = -1, pending_rows = 0;
        unsigned pending_entry = 0;  // PEER_ROWS = 3: the queue entry of the tile before, appended as a block is counted
        if ((kPeerSignal || kPeerQueue) && tma_d == nullptr) watchdog_fault();
        const bool split_owned = kSplitKOwners && units <= (int)cluster_count_x();  // (hopper_sched.cuh: split_k_complete)
        const bool tracer = kTrace && cw == 0 && wg_tid == 0;  // (cta_trace.cuh)
        int traced_units = 0, traced_ktiles = 0;
        for (int u = walk.first; u < units; u = walk.next(u)) {
            if constexpr (kPingpong) {
                const int t = turn++;
                if ((t & 1) != cw) {  // the other consumer's tile: step over its k-tiles in the ring
                    int kt0, kt1;
                    k_range(u, kt0, kt1);
                    walk.range(u, kt0, kt1);
                    const int past = s + max(kt1 - kt0, 0);
                    phase ^= (past / STAGES) & 1;
                    s = past % STAGES;
                    continue;
                }
                if (t > 0) pingpong_wait_turn(cw);  // the other's main loop of the unit before has issued
            }
            const TileCoord c = COORD_SHADOW ? next : coord(u, rank);
            if constexpr (!OVERLAP) {  // (EPI_OVERLAP: the first k-tile's wgmmas overwrite them, scale_d = 0)
#pragma unroll
                for (int i = 0; i < M_ATOMS * ATOM_ACC; ++i) acc[i] = 0;
            }
            if constexpr (PROMOTE) {
                // The wgmma asm reads `part` ("+f") even where scale_d = 0 overwrites it: zeroing it
                // here ends its old values' lifetime, so it holds no registers during the epilogue.
#pragma unroll
                for (int i = 0; i < BLOCK_N / 2; ++i) part[i] = 0;
            }

            // PROMOTE_NEXT staggers the consumers' groups, so a row's bits depend on which consumer sums it.
            // Rows that two tiles compute (the last, shifted row of tiles and the row above it: tile_row) must
            // come out the same from both, or D depends on which store lands last: no stagger there (with it,
            // fp8 and 3xTF32 at 1000 x 2048 gave other bits from call to call,
            // 2026-11-26-h100-diag-repeat-partial-rows-*.txt).
            const int group_offset = c.m0 + 2 * BLOCK_M > g.M ? 0 : cw * (PROMOTE_EVERY / CONSUMERS);
            int prev = pre_issued ? (s + STAGES - 1) % STAGES : 0, kt0, kt1;
            k_range(u, kt0, kt1);
            walk.range(u, kt0, kt1);
            const int kt_first = kt0 + (pre_issued ? 1 : 0);  // the first k-tile this loop issues
            for (int kt = kt_first; kt < kt1; ++kt) {
                mbar_wait_guarded(full + 8 * s, phase);
                if (tracer && traced_ktiles++ == 0) trace_at(TRACE_FIRST_DATA);
                const unsigned a_base = a_slot(s) + consumer_row0(cw) * ROW_BYTES;  // (m64 blocks 8 KB apart)
                const unsigned b_base = b_slot(s);
                if constexpr (PROMOTE_NEXT) {
                    // `part` sums a group of PROMOTE_EVERY k-tiles (the second consumer's first group is
                    // half as long, but for group_offset), added to the total once this k-tile's data is here;
                    // in between the loop runs like the 16-bit one (wait for the previous k-tile, release its slot).
                    const unsigned j = kt - kt0;
                    const bool group_start = j == 0 || (j + group_offset) % PROMOTE_EVERY == 0;
                    if (j > 0 && group_start) {
                        wgmma_wait<0>();  // the previous group retired: its last slot goes back
                        if (releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                        promote(acc, part);
                    }
                    wgmma_fence();  // (also orders the adds' reads of `part` before its overwrite)
                    mma_ktile(part, a_base, b_base, group_start ? 0 : 1);
                    wgmma_commit();
                    in_wgmma_shadow(u, kt, kt_first);
                    if constexpr (ROW_SCALES) {  // (hopper_epilogue.cuh: stage_row_scales)
                        if (kt == max(kt_first, kt1 - ROW_SCALES_LEAD))
                            stage_row_scales(d_bufs + cw * D_BUF, consumer_row(c, cw), c.n0, g.M, g.N,
                                             scale_a, scale_b, 1 + cw);
                    }
                    if (!group_start) {
                        wgmma_wait<1>();  // the k-tile before this one retired
                        if (releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                    }
                } else if constexpr (PROMOTE_EACH) {
                    // Every k-tile: wait for it at once, release its slot, add its partial sums. With WG_M = 128
                    // the consumer's two m64 blocks take turns on `part` (one array of partial sums, as DeepGEMM's
                    // 256-row tiles do): block 0's wgmmas, wait, add; then block 1's; the slot goes back after
                    // the last. While one consumer waits and adds, the other's wgmmas keep the tensor cores busy.
                    BlockScaleFactors f;  // (block_scales.cuh: read where the data wait ends, before the fence)
                    if constexpr (kBlockScales)
                        f = read_block_scales(scale_slots + s * SCALE_SLOT, cw, warp, lane, tile_row(c, true) & 3, kt);
#pragma unroll
                    for (int a = 0; a < M_ATOMS; ++a) {
                        wgmma_fence();  // (also orders the last adds' reads of `part` before its overwrite)
                        mma_ktile_atom(part, a_base + a * A_CHUNK, b_base, 0);
                        wgmma_commit();
                        if (a == 0) {
                            in_wgmma_shadow(u, kt, kt_first);
                            if constexpr (ROW_SCALES) {  // (hopper_epilogue.cuh: stage_row_scales)
                                if (kt == max(kt_first, kt1 - ROW_SCALES_LEAD))
                                    stage_row_scales(d_bufs + cw * D_BUF, consumer_row(c, cw), c.n0,
                                                     g.M, g.N, scale_a, scale_b, 1 + cw);
                            }
                        }
                        wgmma_wait<0>();
                        if (a == M_ATOMS - 1 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * s, target));
                        if constexpr (kBlockScales)
                            promote_block_scaled(acc, part, f, a);
                        else
                            promote(acc, part, a);
                    }
                } else if constexpr (kARegs) {
                    // A's fragments through registers, the k-tile in two halves from two register sets
                    // (hopper_ktile.cuh): each wait leaves the half just issued queued.
                    mma_half_regs<0>(acc, a_base, b_base, a_frag[0]);
                    wgmma_commit();
                    wgmma_wait<1>();  // the k-tile before retired: its slot goes back, set 1 is free
                    if (kt > kt0 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                    mma_half_regs<1>(acc, a_base, b_base, a_frag[1]);
                    wgmma_commit();
                    in_wgmma_shadow(u, kt, kt_first);
                    wgmma_wait<1>();  // this k-tile's first half retired: set 0 is free for the next
                } else {
                    wgmma_fence();
                    if constexpr (OVERLAP) {  // the two column halves, as in the epilogue (one wgmma shape throughout)
                        mma_ktile_half<0>(acc, a_base, b_base, kt == kt0 ? 0 : 1);
                        mma_ktile_half<1>(acc, a_base, b_base, kt == kt0 ? 0 : 1);
                    } else {
                        mma_ktile(acc, a_base, b_base, 1);
                    }
                    wgmma_commit();
                    in_wgmma_shadow(u, kt, kt_first);
                    if constexpr (kStageC) {  // (hopper_epilogue.cuh: stage_c_tile; kt == max(kt_first, kt1 - LEAD))
                        if (c_stage && (kt1 - kt == C_STAGE_LEAD || (kt == kt_first && kt1 - kt < C_STAGE_LEAD)))
                            stage_c_tile(g, d_bufs + cw * D_BUF, consumer_row(c, cw), c.n0, c.z, 1 + cw);
                    }
                    wgmma_wait<1>();  // the k-tile before this one retired
                    if (kt > kt0 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                }
                prev = s;
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            if constexpr (kPingpong) {
                if (walk.next(u) < units) pingpong_pass_turn(cw);
            }
            wgmma_wait<0>();  // the last k-tile (p1: already retired, and its slot released, in the loop)
            if (tracer) {
                trace_at(TRACE_LOOP_END);
                ++traced_units;
            }
            if (kt1 <= kt_first) in_wgmma_shadow(u, kt0, kt0);  // no k-tiles (K = 0, an empty split-K range, or only the pre-issued one)
            pre_issued = false;
            if (!PROMOTE_EACH && !kDInRing && kt1 > kt0 && releaser)
                mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));  // last slot
            // D_IN_RING (hopper_epilogue.cuh: DtRing): the last slot is kept for D^T, released after its stores read it
            const unsigned held = kDInRing ? cluster_map(empty + 8 * prev, target) : 0u;
            if constexpr (kDInRing) {
                if (kt1 <= kt0) watchdog_fault();  // (K > 0, no split-K: every unit has k-tiles)
                dt_ring_consumers_sync();
            }
            if constexpr (PROMOTE_NEXT) promote(acc, part);  // the last group's partial sums
            wgmma_fence_accumulators(acc);
            // A tail tile's part or a split-K range (hopper_sched.cuh): the warpgroup that completes the tile writes D.
            if constexpr (kTailSplit) {
                if (u >= walk.tail.dp) {  // (tail_split.cuh)
                    volatile int* flag = reinterpret_cast<volatile int*>(smem_raw + (empty + 8 * STAGES - smem_u32(smem_raw)));
                    int* tail_counters = kGpcOrder ? counters + GPC_INTS : counters;  // (after GPC_ORDER's)
                    if (!tail_reduce<CONSUMERS>(acc, split_workspace(workspace), tail_counters, (u - walk.tail.dp) * CLUSTER_M + rank,
                                                walk.tail.owner ? 0 : 1, cw, 1 + cw, flag + cw))
                        continue;
                }
            }
            if (!split_k_complete(acc, c, u, units_m, tiles_n, cw, workspace, counters, split_owned)) continue;
            const TileCoord cd = {tile_row(c, false) - half_lift(cw), c.n0, c.z};  // the rows it computed
            if constexpr (kPeerSignal) {  // the tiles before, the last one's stores given a main loop's time to land
                const int block = c.m0 < g.M ? c.m0 / __ldg(&peer->seg_rows) : -1;
                if (block != pending_block || !kPeerCountBatch) {
                    if (wg_tid == 0) peer_count_rows(peer, pending_block, pending_rows);
                    pending_block = block;
                    pending_rows = 0;
                }
                pending_rows += block >= 0 ? WG_M : 0;
            }
            if constexpr (kPeerQueue) {
                if (wg_tid == 0) peer_queue_tile(peer, pending_entry);
                pending_entry =
                    c.m0 < g.M && c.n0 < g.N ? peer_queue_entry(peer, cd.m0 + consumer_row0(cw), cd.n0) : 0u;
            }

            // Epilogue of this tile while the producers already load the next one (hopper_epilogue.cuh).
            Gemm gz = g;
            to_tile(gz, cd, acc, scale);
            if constexpr (kStageC) {
                if (c_stage && kt1 <= kt_first)  // (a unit without k-tiles in its loop staged nothing)
                    stage_c_tile(g, d_bufs + cw * D_BUF, cd.m0 + consumer_row0(cw), cd.n0, c.z, 1 + cw);
            }
            if constexpr (ROW_SCALES) {
                if (kt1 <= kt_first)  // (a unit without k-tiles staged nothing)
                    stage_row_scales(d_bufs + cw * D_BUF, cd.m0 + consumer_row0(cw), cd.n0, g.M, g.N, scale_a, scale_b, 1 + cw);
                scale_rows_cols(acc, d_bufs + cw * D_BUF, 1 + cw);
            }
            if constexpr (kGroupContiguous) {  // a tile reaching past its expert's rows: from registers, cut there
                const int end = grouped_segment_end(counters, batch, c.z);
                if (cd.m0 + consumer_row0(cw) + WG_M > end) {
                    gz.M = min(gz.M, end);
                    if constexpr (D_STAGED && !kDTransposed && !GATED) {
                        if (tma_d != nullptr && g.beta == 0.0f) {  // (D's map: its rows are 16-byte aligned)
                            store_tile_staged_clipped(gz, acc, d_bufs + cw * D_BUF, cd, cw, end);
                            continue;
                        }
                    }
                    store_tile_registers(gz, acc, cd, cw, warp, lane);
                    continue;
                }
            }
            if constexpr (GATED) {  // act(gate) * up: BLOCK_N / 2 columns of the N / 2 of D (hopper_epilogue.cuh)
                gate_tile(acc);
                gz.N = g.N / 2;
                const int z = g.batch_d ? c.z : 0, m_wg = cd.m0 + consumer_row0(cw), n_out = c.n0 / 2;
                const unsigned buf = d_bufs + cw * D_BUF;
                if constexpr (OVERLAP) {
                    // The next tile's first k-tile: half 0 on the gate half of the accumulators, free now, before
                    // any store; the stores (from the up half) run beside it; then half 1.
                    const int nu = walk.next(u);
                    int nk0 = 0, nk1 = 0;
                    if (nu < units) {
                        k_range(nu, nk0, nk1);
                        walk.range(nu, nk0, nk1);
                    }
                    if (nk1 > nk0) {
                        mbar_wait_guarded(full + 8 * s, phase);
                        wgmma_fence();
                        mma_ktile_half<0>(acc, a_slot(s) + cw * A_CHUNK, b_slot(s), 0);
                        wgmma_commit();
                    }
                    store_gated_staged(gz, acc, buf, tma_d, m_wg, n_out, z, cw);
                    if (nk1 > nk0) {
                        wgmma_fence();
                        mma_ktile_half<1>(acc, a_slot(s) + cw * A_CHUNK, b_slot(s), 0);
                        wgmma_commit();
                        if (++s == STAGES) {
                            s = 0;
                            phase ^= 1;
                        }
                        pre_issued = true;
                    }
                } else if (D_STAGED && tma_d != nullptr) {
                    store_gated_staged(gz, acc, buf, tma_d, m_wg, n_out, z, cw);
                } else if constexpr (kRegisterEpilogue) {
                    store_gated_registers(gz, acc, m_wg, n_out, warp, lane);
                } else {
                    watchdog_fault();
                }
                continue;
            }
            if constexpr (OVERLAP) {
                // The tile in two column halves, the next tile's first k-tile issued after each (if it has
                // any); D through TMA only (tma_d is there); C none, a bias row or (16-bit C) any matrix, read
                // element by element from L2 (c_prefetch_step): a residual or a partial sum to add.
                const bool bias_row = kBiasOverlap && c_is_bias_row(gz);
                if (g.beta == 0.0f || bias_row || kAnyOverlap) {
                    const bool any_c = g.beta != 0.0f && !bias_row;
                    const int nu = walk.next(u);
                    int nk0 = 0, nk1 = 0;
                    if (nu < units) {
                        k_range(nu, nk0, nk1);
                        walk.range(nu, nk0, nk1);
                    }
                    const unsigned buf = d_bufs + cw * D_BUF;
                    const int z = g.batch_d ? c.z : 0, m_wg = cd.m0 + consumer_row0(cw);
                    if (kStageC && kAnyOverlap && any_c && c_stage)
                        epilogue_tma_store<D_PARTS, EPI_BUFS, 0, D_PARTS / 2, kStagedRead>(gz, acc, buf, tma_d, m_wg, c.n0, z,
                                                                                         1 + cw);
                    else if (kAnyOverlap && any_c)
                        epilogue_tma_store<D_PARTS, EPI_BUFS, 0, D_PARTS / 2, CRead::Any>(gz, acc, buf, tma_d, m_wg, c.n0, z, 1 + cw);
                    else
                        epilogue_tma_store<D_PARTS, EPI_BUFS, 0, D_PARTS / 2, kOverlapRead>(gz, acc, buf, tma_d, m_wg, c.n0, z, 1 + cw);
                    if (nk1 > nk0) {  // the next tile's first k-tile, columns [0, BLOCK_N / 2)
                        mbar_wait_guarded(full + 8 * s, phase);
                        wgmma_fence();
                        mma_ktile_half<0>(acc, a_slot(s) + cw * A_CHUNK, b_slot(s), 0);
                        wgmma_commit();
                    }
                    if (kStageC && kAnyOverlap && any_c && c_stage)
                        epilogue_tma_store<D_PARTS, EPI_BUFS, D_PARTS / 2, D_PARTS, kStagedRead>(gz, acc, buf, tma_d, m_wg,
                                                                                               c.n0, z, 1 + cw);
                    else if (kAnyOverlap && any_c)
                        epilogue_tma_store<D_PARTS, EPI_BUFS, D_PARTS / 2, D_PARTS, CRead::Any>(gz, acc, buf, tma_d, m_wg, c.n0,
                                                                                           z, 1 + cw);
                    else
                        epilogue_tma_store<D_PARTS, EPI_BUFS, D_PARTS / 2, D_PARTS, kOverlapRead>(gz, acc, buf, tma_d, m_wg,
                                                                                            c.n0, z, 1 + cw);
                    if (nk1 > nk0) {  // and columns [BLOCK_N / 2, BLOCK_N)
                        wgmma_fence();
                        mma_ktile_half<1>(acc, a_slot(s) + cw * A_CHUNK, b_slot(s), 0);
                        wgmma_commit();
                        if (++s == STAGES) {
                            s = 0;
                            phase ^= 1;
                        }
                        pre_issued = true;
                    }
                    continue;
                }
            }
            if constexpr (kDTransposed) {  // 16-bit D: the host launches these with D's map only; tf32: registers
                if constexpr (sizeof(elem_d) == 2 && kDInRing) {
                    epilogue_tma_store_transposed(gz, acc, DtRing{a_slot(prev), d_bufs, cw * (BLOCK_N / 8)}, tma_d,
                                                  cd.m0 + consumer_row0(cw), cd.n0, g.batch_d ? c.z : 0, 1 + cw);
                    if (releaser) mbar_arrive_cluster(held);
                } else if constexpr (sizeof(elem_d) == 2)
                    epilogue_tma_store_transposed(gz, acc, DtBuffer{d_bufs + cw * D_BUF}, tma_d, cd.m0 + consumer_row0(cw),
                                                  cd.n0, g.batch_d ? c.z : 0, 1 + cw);
                else
                    store_tile_registers_transposed(gz, acc, cd, cw, warp, lane);
                continue;
            }
            if constexpr (D_STAGED && !kDTransposed) {
                if (tma_d != nullptr) {  // stmatrix -> shared -> TMA store, overlapping the next tile
                    store_tile_staged(gz, g, acc, d_bufs + cw * D_BUF, tma_d, cd, cw, c_stage);
                    continue;
                }
            }
            if constexpr (!kRegisterEpilogue) {  // (the host never launches these without D's map)
                watchdog_fault();
                continue;
            }
            store_tile_registers(gz, acc, cd, cw, warp, lane);
        }
        // EPI_OVERLAP leaves no wgmma in flight after its last tile, but ptxas cannot know that: without this
        // wait here it put one at the loop's back-edge (C7517), draining the pre-issued k-tile every tile.
        if constexpr (OVERLAP) wgmma_wait<0>();
        // The last tile's stores have read shared memory before it goes (their global writes complete with the
        // grid). No cluster barrier: the producer's tail wait above keeps the CTA until no peer touches it.
        if (wg_tid == 0) {
            if constexpr (kPeerSignal) peer_count_rows(peer, pending_block, pending_rows);
            if constexpr (kPeerQueue) peer_queue_tile(peer, pending_entry);
            tma_store_wait_read<0>();
        }
        if (tracer) {
            trace_at(TRACE_EPI_END);
            trace_exit(traced_units, traced_ktiles);
        }
    }
}

TCGEMM_TMA_STORE_PERSISTENT_KERNEL(wgmma_tma_store, wgmma_tma_store_body, __cluster_dims__(CLUSTER_M, 1, 1))
