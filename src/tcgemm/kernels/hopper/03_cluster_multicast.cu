// Hopper stage 3 — 2-CTA clusters with TMA multicast of the shared B tile (sm_90a).
//
// What changes over stage 2 (wgmma_persistent) and why it is faster:
//  * L2 -> SM traffic.  A 128 x 256 x 64 k-tile is 16 KB of A and 32 KB of B
//    for 2 M MACs; at the tensor cores' rate (1024 MACs / clock / SM for
//    16-bit inputs) an SM must receive 48 bytes every clock, all 132 SMs
//    together ~11 TB/s: beyond what the L2 delivers, so stage 2 waits for
//    data.  Here two CTAs (a cluster, on two SMs of one GPC) compute the two
//    vertically adjacent tiles (m, n) and (m + 1, n), which need the same B
//    k-tile.  Each CTA loads its own A and HALF of B, and the B half goes to
//    both CTAs' shared memory with one multicast TMA load (one L2 read).  Per
//    CTA and k-tile: 16 KB A + 16 KB B = 32 KB instead of 48 KB (-33 %).
//  * The rest is stage 2: persistent CTAs, the producer running ahead across
//    tiles, two consumer warpgroups of 64 x 256, epilogue from registers.
//    The persistent loop walks cluster work units: unit (pm, n, z) = tile rows
//    2 pm and 2 pm + 1 of tile column n in batch entry z; CTA rank r of the
//    cluster takes tile row 2 pm + r.  When the number of tile rows is odd,
//    rank 1 of the last unit row computes a tile below the matrix: its loads
//    are clamped to the last tile row (any rows will do: rows of A only affect
//    the same rows of D) and its stores are all cut off by the bounds check,
//    but it still loads and multicasts its half of B for rank 0.
//
// Cluster protocol (CLUSTER_M = 2 CTAs, ranks r = 0, 1; the same slot s in
// both CTAs always holds the same k-tile i, since both walk the same units
// with the same ktiles):
//   Slot s of CTA r holds A_r(i) (its own) and B(i) = [B half 0 | B half 1].
//   Producer of CTA r, k-tile i (slot s, use u):
//     1. waits until empty[s] of CTA r completed phase u - 1 (i >= STAGES);
//     2. arrive.expect_tx(full[s] of CTA r, STAGE_BYTES = 48 KB);
//     3. TMA A_r(i) -> own slot, completing on own full[s]            (16 KB);
//     4. TMA B half r(i), multicast to CTAs {0, 1} at the same offset,
//        completing on full[s] of each of them                      (16 KB each).
//   So full[s] of each CTA receives 16 (A) + 16 + 16 (both B halves) = 48 KB
//   and one arrival per use.  Bytes from the peer may land before our own
//   expect_tx: the tx-count goes transiently negative, the phase cannot
//   complete while our producer's arrival is pending, and it completes exactly
//   when all 48 KB of use u are in.
//   Consumers (2 warpgroups per CTA): wait full[s] of their own CTA for phase
//   u (parity u & 1), multiply, and once k-tile i's wgmmas have retired,
//   arrive on empty[s] of BOTH CTAs (one thread per target CTA, remote
//   arrivals through mapa).  empty[s] counts CONSUMERS * CLUSTER_M = 4
//   arrivals per phase, so a producer that passed step 1 knows that nobody in
//   the cluster still reads slot s, in its own CTA (A, B) or in the peer
//   (where its B half also lands).
//   No phase can be completed twice before a waiter sees it:
//     * full[s] of CTA q, use u+1, needs expect_tx from producer q after its
//       empty[s] phase u, which needs CTA q's consumers to have released use
//       u, which they do after waiting for full[s] phase u.
//     * empty[s] of CTA q, phase u+1, needs the consumers of both CTAs to
//       release use u+1, which needs both halves of B(i + STAGES) loaded,
//       which needs producer q past its wait on empty[s] phase u.
//   and no arrival can belong to an earlier phase than the barrier's current
//   one, by the same chains.
//   Start: barriers are initialised, then a cluster-wide barrier makes them
//   visible before any CTA multicasts into its peer.  End: a CTA must not
//   exit while its peer may still arrive on its barriers or write into its
//   shared memory, so all threads end with a cluster-wide barrier (every TMA
//   write into a CTA is awaited by that CTA's own consumers before they get
//
// Stage 4 (04_tma_store_epilogue.cu) runs this protocol for every cluster shape, tile order and
// epilogue, with those policies in headers of their own (include/hopper_*.cuh); this file keeps its
// own copy of the 2 x 1 case, so that it reads alone.  A few index expressions keep the general form
// the measured builds were compiled from (rank / CLUSTER_M, the clamp of n, the k range), marked
// "(general form)": with them this file compiles to the same instructions as before the split
// (tools/sass_diff.py).
#include "gemm.cuh"
#include "epilogue.cuh"
#include "mbarrier.cuh"
#include "cluster.cuh"
#include "pdl.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 256
#define BLOCK_K 64
#define STAGES 4
#define THREADS 384
#define CLUSTER_M 2
#define B_BOX_N (BLOCK_N / CLUSTER_M)
#define SMEM_BYTES (STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 2 + 2048)
#endif
#ifndef GROUP_M
#define GROUP_M 8  // tile rows per group of the tile order (a multiple of CLUSTER_M)
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232
#endif

#if defined(PRECISION_BF16)
constexpr bool IS_BF16 = true;
#else
constexpr bool IS_BF16 = false;  // fp16
#endif

constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;
constexpr int WG_M = 64;                   // rows per consumer warpgroup = the wgmma M
constexpr int CONSUMERS = BLOCK_M / WG_M;  // consumer warpgroups (the producer is warpgroup 0)
constexpr int ACC = BLOCK_N / 2;           // accumulators per thread of one m64 x BLOCK_N wgmma
constexpr int ROW_BYTES = 128;             // one swizzle row: BLOCK_K = 64 16-bit k
constexpr int K_STEP_BYTES = 32;           // k bytes per wgmma (16 fp16)
constexpr int MN_STEP_BYTES = K_STEP_BYTES / 2 * ROW_BYTES;  // MN-major: 16 k rows per wgmma
constexpr int A_TILE = BLOCK_M * ROW_BYTES;
constexpr int B_TILE = BLOCK_N * ROW_BYTES;
constexpr int STAGE_BYTES = A_TILE + B_TILE;  // what lands in EACH CTA per k-tile
constexpr int A_CHUNK = 64 * ROW_BYTES;       // one MN-major box: 64 m x BLOCK_K k
constexpr int B_CHUNK = 64 * ROW_BYTES;
constexpr int B_PART = BLOCK_N / CLUSTER_M;  // columns of B each CTA loads and multicasts
constexpr int GROUP_UNITS = GROUP_M / CLUSTER_M;  // unit rows per group
// Consumers work out their next tile's coordinates while the first k-tile's wgmmas run (see the
// consumer loop); not with fp32 D, whose register-path epilogue then spilled.
constexpr bool COORD_SHADOW = sizeof(elem_d) == 2;

static_assert(sizeof(elem_a) == 2 && sizeof(elem_b) == 2, "wgmma_cluster takes fp16 or bf16 inputs");
static_assert(BLOCK_K * 2 == ROW_BYTES, "one 128-byte swizzle row of k per tile row");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per 64 rows");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "wgmma N (and MN-major boxes of 64)");
static_assert(CLUSTER_M == 2 && B_BOX_N == B_PART && B_PART % 64 == 0,
              "two CTAs, each loading whole 64-column boxes (the host's B box: B_BOX_N rows) of B");
static_assert(GROUP_M % CLUSTER_M == 0, "groups of whole cluster units");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + 1024 + 16 * STAGES, "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");

using Mma = Wgmma<BLOCK_N, IS_BF16, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;

#include "setmaxnreg.cuh"

// The cluster scheduler: unit index u -> (first row of this CTA's tile, first column, batch entry),
// for CTA `rank` of the cluster.  Units are ordered as stage 2 orders tiles (GROUP_UNITS unit rows at
// a time, column-major inside a group), over a grid of units_m x units_n units, ceil(tiles_m / 2) x
// tiles_n: CTA r takes tile row 2 um + r of tile column un.
struct TileCoord {
    int m0, n0, z;
};
__device__ __forceinline__ TileCoord unit_coord(int u, int units_m, int units_n, int rank) {
    const int per_batch = units_m * units_n;
    const int z = u / per_batch;
    const int r = u - z * per_batch;
    const int per_group = GROUP_UNITS * units_n;
    const int first = (r / per_group) * GROUP_UNITS;
    const int rows = min(units_m - first, GROUP_UNITS);
    const int in_group = r - (r / per_group) * per_group;
    const int um = first + in_group % rows;
    const int un = in_group / rows;
    return {(um * CLUSTER_M + rank % CLUSTER_M) * BLOCK_M, (un + rank / CLUSTER_M) * BLOCK_N, z};  // (general form)
}

// The wgmmas of one k-tile (128 bytes of k: 4 k steps) for a consumer warpgroup whose A rows start
// at a_base.  Descriptors in 16-byte units, so that each step is an add.
__device__ __forceinline__ void mma_ktile(float (&d)[ACC], unsigned a_base, unsigned b_base) {
    const unsigned a16 = smem_units(a_base), b16 = smem_units(b_base);
#pragma unroll
    for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
        const unsigned long long db = B_K_MAJOR ? wgmma_desc_k_major_units(b16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(b16 + kk * MN_STEP_BYTES / 16, B_CHUNK);
        const unsigned long long da = A_K_MAJOR ? wgmma_desc_k_major_units(a16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(a16 + kk * MN_STEP_BYTES / 16, A_CHUNK);
        Mma::mma(d, da, db, 1);
    }
}

// k-tile kt of this CTA's tile: all of its A (own slot), and its half of B, multicast to both CTAs
// at the same offset (steps 2-4 of the protocol).  K-major: one box of BLOCK_K x rows; MN-major:
// boxes of 64 m or n x BLOCK_K.  Either way row r of the tile starts at byte r * 128 of the slot.
__device__ __forceinline__ void load_tile(const TmaDesc* tma_a, const TmaDesc* tma_b, unsigned a_dst,
                                          unsigned b_dst, unsigned bar, int kt, int m0, int n0, int za, int zb,
                                          int rank) {
    const int k0 = kt * BLOCK_K;
    mbar_arrive_expect_tx(bar, STAGE_BYTES);
    const int half = rank % CLUSTER_M;
    const unsigned short mask = ((1u << CLUSTER_M) - 1) << (CLUSTER_M * (rank / CLUSTER_M));  // both CTAs (general form)
    if constexpr (A_K_MAJOR) {
        tma_load_3d(a_dst, tma_a, bar, k0, m0, za);
    } else {
#pragma unroll
        for (int j = 0; j < BLOCK_M / 64; ++j) tma_load_3d(a_dst + 64 * j * 128, tma_a, bar, m0 + 64 * j, k0, za);
    }
    const int first = half * B_PART;  // first row of B this CTA loads
    if constexpr (B_K_MAJOR) {
        tma_load_3d_multicast(b_dst + first * 128, tma_b, bar, k0, n0 + first, zb, mask);
    } else {
#pragma unroll
        for (int j = 0; j < B_PART / 64; ++j) {
            const int row = first + 64 * j;
            tma_load_3d_multicast(b_dst + row * 128, tma_b, bar, n0 + row, k0, zb, mask);
        }
    }
}

__device__ __forceinline__ void wgmma_cluster_body(const Gemm& g, int batch, const TmaDesc* tma_a,
                                                   const TmaDesc* tma_b) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Identical offsets in both CTAs of the cluster (same kernel, same layout): multicast relies on it.
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned full = tiles + STAGES * STAGE_BYTES;  // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;            // STAGES mbarriers
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    const int tiles_m = (g.M + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (g.N + BLOCK_N - 1) / BLOCK_N;
    const int units_m = (tiles_m + CLUSTER_M - 1) / CLUSTER_M;
    const int units_n = tiles_n;
    const int units = units_m * units_n * batch;  // < 2^31: launch.plan checks
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;
    auto k_range = [&](int& kt0, int& kt1) {  // a unit's k-tiles: all of them (general form)
        kt0 = min(ktiles, 0);
        kt1 = min(ktiles, kt0 + ktiles);
    };
    const int rank = cluster_ctarank();
    const int tid = threadIdx.x;
    const int wg = tid / 128;

    if (tid == 0) {
        tma_prefetch_desc(tma_a);
        tma_prefetch_desc(tma_b);
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, CONSUMERS * CLUSTER_M);
        }
        mbar_init_fence();
    }
    cluster_sync();  // both CTAs' barriers exist before anyone multicasts into them
    // Programmatic dependent launch (pdl.cuh): all of the above may overlap the previous GEMM's last
    // tiles; nothing below (loads of A and B, C, D) may.
    grid_dependency_wait();

    if (wg == 0) {
        // ---- producer warpgroup: one thread streams this CTA's k-tiles (and half of B for both) ----
        setmaxnreg_dec<PRODUCER_REGS>();
        if (tid == 0) {
            const int first = cluster_id_x(), clusters = cluster_count_x();
            int s = 0;
            unsigned phase = 0;     // parity of slot s's current use u
            bool first_lap = true;  // uses u = 0 need no wait: the rings start empty
            for (int u = first; u < units; u += clusters) {
                const TileCoord c = unit_coord(u, units_m, units_n, rank);
                // A tile below the matrix computes nothing that is stored: any rows will do, and its
                // loads still bring the peer its half of B.
                const int m_load = min(c.m0, (tiles_m - 1) * BLOCK_M);
                const int n_load = min(c.n0, (tiles_n - 1) * BLOCK_N);  // (general form)
                const int za = g.batch_a ? c.z : 0;  // a broadcast operand's map has one batch entry
                const int zb = g.batch_b ? c.z : 0;
                int kt0, kt1;
                k_range(kt0, kt1);
                for (int kt = kt0; kt < kt1; ++kt) {
                    if (!first_lap) mbar_wait_cluster_guarded(empty + 8 * s, phase ^ 1);  // use u-1 released
                    load_tile(tma_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, kt, m_load, n_load, za, zb, rank);
                    if (++s == STAGES) {
                        s = 0;
                        phase ^= 1;
                        first_lap = false;
                    }
                }
            }
            grid_dependents_launch();  // every load issued: the next GEMM may start its prologue
        }
        cluster_sync();  // nobody exits while the peer may still touch its shared memory
        return;
    }
    {
        // ---- consumer warpgroups 1..CONSUMERS: rows 64 (wg-1) .. 64 wg - 1 of each tile ----
        setmaxnreg_inc<CONSUMER_REGS>();
        const int first = cluster_id_x(), clusters = cluster_count_x();
        const int cw = __shfl_sync(0xffffffffu, wg - 1, 0);  // warp-uniform to the compiler: descriptors in uniform registers
        const int wg_tid = tid % 128;
        // Thread q < CLUSTER_M of the warpgroup releases slots in CTA q of the cluster.
        const bool releaser = wg_tid < CLUSTER_M;
        const unsigned target = releaser ? wg_tid : 0;
        const int warp = wg_tid / 32, lane = tid % 32;

        float acc[ACC];
        int s = 0;
        unsigned phase = 0;
        // Between tiles the tensor cores wait for this warpgroup's epilogue and whatever precedes the next
        // tile's first wgmma, so the next tile's coordinates (three divisions, ~120 instructions) are
        // worked out while the first k-tile's wgmmas run (COORD_SHADOW).
        TileCoord next = unit_coord(first, units_m, units_n, rank);
        auto in_wgmma_shadow = [&](int u, int kt, int kt0) {
            if (COORD_SHADOW && kt == kt0) next = unit_coord(u + clusters, units_m, units_n, rank);
        };
        for (int u = first; u < units; u += clusters) {
            const TileCoord c = COORD_SHADOW ? next : unit_coord(u, units_m, units_n, rank);
#pragma unroll
            for (int i = 0; i < ACC; ++i) acc[i] = 0;

            int prev = 0, kt0, kt1;
            k_range(kt0, kt1);
            for (int kt = kt0; kt < kt1; ++kt) {
                mbar_wait_guarded(full + 8 * s, phase);
                wgmma_fence();
                mma_ktile(acc, a_slot(s) + cw * A_CHUNK, b_slot(s));  // (A_CHUNK = 64 rows of 128 bytes)
                wgmma_commit();
                in_wgmma_shadow(u, kt, kt0);
                wgmma_wait<1>();  // the k-tile before this one retired: release its slot in both CTAs
                if (kt > kt0 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                prev = s;
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();
            if (kt1 <= kt0) in_wgmma_shadow(u, kt0, kt0);  // no k-tiles (K = 0)
            if (kt1 > kt0 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));  // last slot
            wgmma_fence_operands(acc);

            // Epilogue of this tile while the producers already load the next one.
            Gemm gz = g;  // batch entry c.z of C and D
            gz.D += c.z * g.batch_d;
            if (gz.C) gz.C += c.z * g.batch_c;
            const int col = c.n0 + 2 * (lane % 4);
            const int row = c.m0 + cw * WG_M + warp * 16 + lane / 4;
#pragma unroll
            for (int j = 0; j < BLOCK_N / 8; ++j) {
                store_d_run<2>(gz, row, col + 8 * j, &acc[4 * j]);
                store_d_run<2>(gz, row + 8, col + 8 * j, &acc[4 * j + 2]);
                asm volatile("" ::: "memory");  // keep ptxas from hoisting all 64 stores' addresses (spills)
            }
        }
        cluster_sync();  // (the producer warpgroup's matching barrier is above)
    }
}

TCGEMM_TMA_PERSISTENT_KERNEL(wgmma_cluster, wgmma_cluster_body, __cluster_dims__(CLUSTER_M, 1, 1))
