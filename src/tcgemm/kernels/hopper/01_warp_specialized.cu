// Hopper stage 1 — warp specialisation: a producer warpgroup feeds two
// consumer warpgroups through full/empty mbarriers (sm_90a).
//
// What changes over stage 0 (wgmma_tma) and why it is faster:
//  * Roles.  Warpgroup 0 only loads (one elected thread issues the TMA
//    copies), warpgroups 1 and 2 only multiply.  In stage 0 thread 0 both
//    computed and loaded, and a __syncthreads() per k-tile told it a slot was
//    free, stalling both consumers once per tile.  Here slot hand-back is an
//    mbarrier arrive: nobody waits for anybody except for data.
//  * Registers.  The producer needs a handful of registers, the consumers a
//    64 x BLOCK_N fp32 accumulator each (128 registers at BLOCK_N = 256).
//    setmaxnreg moves registers between them at run time: the producer drops
//    to 40, the consumers rise to 232 (128 x 40 + 256 x 232 <= 64K).
//  * Bigger tile.  128 x 256 x 64 (m64n256k16 per consumer) halves the shared
//    memory traffic per MAC of B compared with 128 x 128 and keeps the tensor
//    cores busier per issued instruction; 4 stages of 48 KB fit in 227 KB.
//  * Grouped rasterisation: consecutive CTAs walk GROUP_M tile rows at a time,
//    so the A rows and B columns that concurrently running CTAs read overlap
//    in L2.
//
// mbarrier protocol (STAGES slots; k-tile kt of the CTA's tile uses slot
// s = kt % STAGES for the u = kt / STAGES -th time):
//   full[s]  (count 1): the producer thread arrives with expect_tx(STAGE_BYTES)
//     and issues the TMA boxes of tile kt against it; the boxes deliver
//     exactly STAGE_BYTES (out-of-bounds parts zero-filled and counted).
//     Consumers wait for phase u: parity u & 1.
//   empty[s] (count CONSUMERS = 2): after tile kt's wgmmas have retired
//     (wgmma.wait_group: at iteration kt+1 for tile kt, after the loop for
//     the last tile) one thread of each consumer warpgroup arrives.  Use u of
//     a slot completes phase u.  Before loading tile kt >= STAGES into slot s
//     the producer waits for phase u - 1 (the release of tile kt - STAGES):
//     parity (u - 1) & 1.  The first STAGES loads need no wait.
//   No barrier can run two phases ahead of a waiter: full[s] phase u+1 needs
//   empty[s] phase u, which needs both consumers to have consumed phase u of
//   full[s]; empty[s] phase u needs tile u * STAGES + s loaded, which needs the
//   producer to have passed its wait on phase u - 1.
//   Counts match: per k-tile, one expect_tx arrival on full (producer) and two
//   arrivals on empty (one per consumer warpgroup), every k-tile released
//   exactly once; ktiles is uniform across the CTA.  No __syncthreads() after
//   the role split (the producer warpgroup may finish first).
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

constexpr int WG_M = 64;                           // rows per consumer warpgroup = the wgmma M
constexpr int CONSUMERS = BLOCK_M / WG_M;          // consumer warpgroups (the producer is warpgroup 0)
constexpr int MMA_K = 16;
constexpr int A_TILE = BLOCK_M * BLOCK_K * 2;
constexpr int B_TILE = BLOCK_N * BLOCK_K * 2;
constexpr int STAGE_BYTES = A_TILE + B_TILE;
constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;
constexpr int A_CHUNK = 64 * BLOCK_K * 2;          // one MN-major box: 64 m x BLOCK_K k
constexpr int B_CHUNK = 64 * BLOCK_K * 2;

static_assert(sizeof(elem_a) == 2 && sizeof(elem_b) == 2, "wgmma_ws takes fp16 or bf16 inputs");
static_assert(BLOCK_K == 64, "one 128-byte swizzle row holds exactly 64 16-bit k");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per 64 rows");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "wgmma N (and MN-major boxes of 64)");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + 1024 + 16 * STAGES, "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");

using Mma = Wgmma<BLOCK_N, IS_BF16, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;

#include "setmaxnreg.cuh"

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

__device__ __forceinline__ void wgmma_ws_body(const Gemm& g, const TmaDesc* tma_a, const TmaDesc* tma_b) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;  // swizzled tiles: 1024-aligned
    const unsigned full = tiles + STAGES * STAGE_BYTES;               // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;                         // STAGES mbarriers
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    // Grouped tile order: CTA id -> (tile row, tile column), GROUP_M tile rows at a time.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (id / per_group) * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);
    const int m0 = (first_m + (id % per_group) % rows) * BLOCK_M;
    const int n0 = ((id % per_group) / rows) * BLOCK_N;

    const int tid = threadIdx.x;
    const int wg = tid / 128;
    const int za = g.batch_a ? blockIdx.z : 0;  // a broadcast operand's map has one batch entry
    const int zb = g.batch_b ? blockIdx.z : 0;
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;

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
        // ---- producer warpgroup: one thread streams k-tiles into the ring ----
        setmaxnreg_dec<PRODUCER_REGS>();
        if (tid == 0) {
            int s = 0;
            unsigned phase = 0;  // parity of the slot's current use u
            for (int kt = 0; kt < ktiles; ++kt) {
                if (kt >= STAGES) mbar_wait(empty + 8 * s, phase ^ 1);  // use u-1 released
                load_tile(tma_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, kt, m0, n0, za, zb);
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
        }
        return;
    }

    // ---- consumer warpgroups 1..CONSUMERS: rows 64 (wg-1) .. 64 wg - 1 of the tile ----
    setmaxnreg_inc<CONSUMER_REGS>();
    const int cw = wg - 1;
    const bool leader = tid % 128 == 0;  // arrives on empty[] for its warpgroup

    float acc[BLOCK_N / 2];
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0.0f;

    int s = 0, prev = 0;
    unsigned phase = 0;
    for (int kt = 0; kt < ktiles; ++kt) {
        mbar_wait(full + 8 * s, phase);
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
        wgmma_wait<1>();                                   // tile kt-1 retired
        if (kt > 0 && leader) mbar_arrive(empty + 8 * prev);  // hand its slot back
        prev = s;
        if (++s == STAGES) {
            s = 0;
            phase ^= 1;
        }
    }
    wgmma_wait<0>();
    if (leader) mbar_arrive(empty + 8 * prev);  // the last tile's slot (keeps every use released)
    wgmma_fence_operands(acc);

    const int warp = (tid % 128) / 32, lane = tid % 32;
    const int row = m0 + cw * WG_M + warp * 16 + lane / 4;
    const int col = n0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j) {
        store_d_run<2>(g, row, col + 8 * j, &acc[4 * j]);
        store_d_run<2>(g, row + 8, col + 8 * j, &acc[4 * j + 2]);
    }
}

TCGEMM_TMA_KERNEL(wgmma_ws, wgmma_ws_body)
