// Hopper stage 2 — a persistent warp-specialised kernel (sm_90a).
//
// What changes over stage 1 (wgmma_ws) and why it is faster:
//  * One CTA per SM for the whole GEMM.  The grid is (number of SMs, 1, 1)
//    (fewer when there are fewer tiles, launch.plan) and each CTA walks the
//    output tiles t = blockIdx.x, blockIdx.x + gridDim.x, ... of all batch
//    entries.  In stage 1 every tile paid a CTA launch, barrier
//    initialisation, and a pipeline fill: the first TMA loads' latency
//    (about a microsecond) with idle tensor cores, then an epilogue during
//    which nothing was loaded.
//  * The producer runs ahead across tile boundaries.  Its k-tile stream is
//    the concatenation of all its tiles' K loops, so while the consumers
//    write tile i (the epilogue), the ring already fills with the first
//    STAGES k-tiles of tile i+1: the consumers come back to full slots and
//    the next K loop starts at full speed.  This overlap is most of the gain.
//  * The tile order is grouped (GROUP_M tile rows at a time, as in stage 1) in
//    the tile index t, so the ~132 tiles in flight at any moment share A rows
//    and B columns in L2.
//  * Failing barriers fault (mbar_wait_guarded) instead of hanging the GPU.
//
// Tile 128 x 256 x 64 (two consumer warpgroups of 64 x 256, m64n256k16),
// 4 stages of 48 KB; the epilogue goes straight from the accumulator
// registers (store_d_run<2>), as in stage 1.
//
// mbarrier protocol — the same as stage 1 applied to one continuous k-tile
// stream per CTA.  Number the k-tiles a CTA processes i = 0, 1, 2, ... in
// the order (tile, kt), never restarting at a tile boundary; k-tile i uses
// slot s = i % STAGES for the u = i / STAGES -th time.  Producer and
// consumers walk the same tiles (same t sequence, same ktiles per tile), so
// both count the same i, kept as (s, phase = u & 1) which advance together and
// are NOT reset per tile.
//   full[s]  (count 1): the producer arrives with expect_tx(STAGE_BYTES) and
//     issues the TMA boxes of k-tile i (exactly STAGE_BYTES, zero-filled
//     outside the matrix).  Consumers wait for phase u: parity u & 1.
//   empty[s] (count CONSUMERS): one thread per consumer warpgroup arrives once
//     k-tile i's wgmmas have retired (at k-tile i+1 after wgmma.wait_group 1,
//     or after wait_group 0 for the last k-tile of a tile, before that tile's
//     epilogue).  Before loading k-tile i >= STAGES the producer waits for
//     phase u - 1 of empty[s]: parity (u - 1) & 1 = phase ^ 1.
//   No barrier runs two phases ahead of a waiter (full[s] phase u+1 needs
//   empty[s] phase u, which needs both consumers past phase u of full[s];
//   empty[s] phase u needs k-tile i loaded, which the producer issues after
//   its wait on phase u - 1), and every phase gets its arrivals: every k-tile
//   is loaded once and released once by each consumer warpgroup.
//   Tile boundaries therefore need no barrier at all; the last k-tile of a
//   tile is released before the epilogue, which is what lets the producer
//   fill the ring for the next tile during it.
#include "gemm.cuh"
#include "epilogue.cuh"
#include "mbarrier.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 256
#define BLOCK_K 64
#define STAGES 4
#define THREADS 384
#define SMEM_BYTES (STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 2 + 2048)
#endif
#ifndef GROUP_M
#define GROUP_M 8
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

constexpr int WG_M = 64;                   // rows per consumer warpgroup = the wgmma M
constexpr int CONSUMERS = BLOCK_M / WG_M;  // consumer warpgroups (the producer is warpgroup 0)
constexpr int MMA_K = 16;
constexpr int A_TILE = BLOCK_M * BLOCK_K * 2;
constexpr int B_TILE = BLOCK_N * BLOCK_K * 2;
constexpr int STAGE_BYTES = A_TILE + B_TILE;
constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;
constexpr int A_CHUNK = 64 * BLOCK_K * 2;  // one MN-major box: 64 m x BLOCK_K k
constexpr int B_CHUNK = 64 * BLOCK_K * 2;

static_assert(sizeof(elem_a) == 2 && sizeof(elem_b) == 2, "wgmma_persistent takes fp16 or bf16 inputs");
static_assert(BLOCK_K == 64, "one 128-byte swizzle row holds exactly 64 16-bit k");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per 64 rows");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "wgmma N (and MN-major boxes of 64)");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + 1024 + 16 * STAGES, "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");

using Mma = Wgmma<BLOCK_N, IS_BF16, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;

#include "setmaxnreg.cuh"

// The tile scheduler: tile index t -> (first row, first column, batch entry).
// Within a batch entry, GROUP_M tile rows at a time, column-major inside the
// group, so that consecutive t (the tiles running at the same moment on
// different SMs) reuse a few A rows and B columns.
struct TileCoord {
    int m0, n0, z;
};
__device__ __forceinline__ TileCoord tile_coord(int t, int tiles_m, int tiles_n) {
    const int per_batch = tiles_m * tiles_n;
    const int z = t / per_batch;
    const int r = t - z * per_batch;
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (r / per_group) * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);
    const int in_group = r - (r / per_group) * per_group;
    return {(first_m + in_group % rows) * BLOCK_M, (in_group / rows) * BLOCK_N, z};
}

__device__ __forceinline__ void load_tile(const TmaDesc* tma_a, const TmaDesc* tma_b, unsigned a_dst,
                                          unsigned b_dst, unsigned bar, int kt, int m0, int n0, int za,
                                          int zb) {
    const int k0 = kt * BLOCK_K;
    mbar_arrive_expect_tx(bar, STAGE_BYTES);
    if constexpr (A_K_MAJOR) {
        tma_load_3d(a_dst, tma_a, bar, k0, m0, za);  // box 64 (k) x BLOCK_M
    } else {
#pragma unroll
        for (int j = 0; j < BLOCK_M / 64; ++j) tma_load_3d(a_dst + j * A_CHUNK, tma_a, bar, m0 + 64 * j, k0, za);
    }
    if constexpr (B_K_MAJOR) {
        tma_load_3d(b_dst, tma_b, bar, k0, n0, zb);  // box 64 (k) x BLOCK_N
    } else {
#pragma unroll
        for (int j = 0; j < BLOCK_N / 64; ++j) tma_load_3d(b_dst + j * B_CHUNK, tma_b, bar, n0 + 64 * j, k0, zb);
    }
}

__device__ __forceinline__ void wgmma_persistent_body(const Gemm& g, int batch, const TmaDesc* tma_a,
                                                      const TmaDesc* tma_b) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;  // swizzled tiles: 1024-aligned
    const unsigned full = tiles + STAGES * STAGE_BYTES;               // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;                         // STAGES mbarriers
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    const int tiles_m = (g.M + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (g.N + BLOCK_N - 1) / BLOCK_N;
    const int total = tiles_m * tiles_n * batch;  // < 2^31: launch.plan checks
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;
    const int tid = threadIdx.x;
    const int wg = tid / 128;

    if (tid == 0) {
        tma_prefetch_desc(tma_a);
        tma_prefetch_desc(tma_b);
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, CONSUMERS);
        }
        mbar_init_fence();
    }
    __syncthreads();  // the last CTA-wide barrier: roles split below

    if (wg == 0) {
        // ---- producer warpgroup: one thread streams the k-tiles of all this CTA's tiles ----
        setmaxnreg_dec<PRODUCER_REGS>();
        if (tid == 0) {
            int s = 0;
            unsigned phase = 0;      // parity of slot s's current use u
            bool first_lap = true;   // uses u = 0 need no wait: the ring starts empty
            for (int t = blockIdx.x; t < total; t += gridDim.x) {
                const TileCoord c = tile_coord(t, tiles_m, tiles_n);
                const int za = g.batch_a ? c.z : 0;  // a broadcast operand's map has one batch entry
                const int zb = g.batch_b ? c.z : 0;
                for (int kt = 0; kt < ktiles; ++kt) {
                    if (!first_lap) mbar_wait_guarded(empty + 8 * s, phase ^ 1);  // use u-1 released
                    load_tile(tma_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, kt, c.m0, c.n0, za, zb);
                    if (++s == STAGES) {
                        s = 0;
                        phase ^= 1;
                        first_lap = false;
                    }
                }
            }
        }
        return;
    }

    // ---- consumer warpgroups 1..CONSUMERS: rows 64 (wg-1) .. 64 wg - 1 of each tile ----
    setmaxnreg_inc<CONSUMER_REGS>();
    const int cw = wg - 1;
    const bool leader = tid % 128 == 0;  // arrives on empty[] for its warpgroup
    const int warp = (tid % 128) / 32, lane = tid % 32;

    float acc[BLOCK_N / 2];
    int s = 0;
    unsigned phase = 0;
    for (int t = blockIdx.x; t < total; t += gridDim.x) {
        const TileCoord c = tile_coord(t, tiles_m, tiles_n);
#pragma unroll
        for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0.0f;

        int prev = 0;
        for (int kt = 0; kt < ktiles; ++kt) {
            mbar_wait_guarded(full + 8 * s, phase);
            const unsigned a_base = a_slot(s) + (A_K_MAJOR ? cw * WG_M * 128 : cw * A_CHUNK);
            const unsigned b_base = b_slot(s);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BLOCK_K / MMA_K; ++kk) {
                const unsigned long long da = A_K_MAJOR ? wgmma_desc_k_major(a_base + kk * 32)
                                                        : wgmma_desc_mn_major(a_base + kk * 2048, A_CHUNK);
                const unsigned long long db = B_K_MAJOR ? wgmma_desc_k_major(b_base + kk * 32)
                                                        : wgmma_desc_mn_major(b_base + kk * 2048, B_CHUNK);
                Mma::mma(acc, da, db, 1);
            }
            wgmma_commit();
            wgmma_wait<1>();                                      // k-tile before this one retired
            if (kt > 0 && leader) mbar_arrive(empty + 8 * prev);  // hand its slot back
            prev = s;
            if (++s == STAGES) {
                s = 0;
                phase ^= 1;
            }
        }
        wgmma_wait<0>();
        if (leader) mbar_arrive(empty + 8 * prev);  // the tile's last slot, before the epilogue
        wgmma_fence_operands(acc);

        // Epilogue of this tile while the producer already loads the next one.
        Gemm gz = g;  // batch entry c.z of C and D
        gz.D += c.z * g.batch_d;
        if (gz.C) gz.C += c.z * g.batch_c;
        const int row = c.m0 + cw * WG_M + warp * 16 + lane / 4;
        const int col = c.n0 + 2 * (lane % 4);
#pragma unroll
        for (int j = 0; j < BLOCK_N / 8; ++j) {
            store_d_run<2>(gz, row, col + 8 * j, &acc[4 * j]);
            store_d_run<2>(gz, row + 8, col + 8 * j, &acc[4 * j + 2]);
        }
    }
}

TCGEMM_TMA_PERSISTENT_KERNEL(wgmma_persistent, wgmma_persistent_body, )
