// Hopper stage 0 — TMA loads + wgmma (sm_90a).
//
// What changes over the Ampere-style kernels (cp.async + ldmatrix + mma.sync):
//  * Loads: one thread hands each tile copy to the Tensor Memory Accelerator
//    (cp.async.bulk.tensor).  No address arithmetic, no per-thread copies, no
//    bounds checks: the TMA unit computes addresses from a tensor map,
//    zero-fills whatever lies outside the matrix and writes shared memory
//    already 128-byte swizzled.  Completion is counted in bytes on an mbarrier.
//  * Math: wgmma.mma_async lets a warpgroup (128 threads) multiply a 64 x 16
//    by 16 x BLOCK_N tile straight from shared memory — no ldmatrix, no
//    operand registers — and accumulate into registers asynchronously, so
//    the tensor cores keep working while the threads wait or issue loads.
//    One instruction does 64 x BLOCK_N x 16 MACs (mma.sync m16n8k16: 2 KMACs).
//  * Transposes are free: a column-major A or row-major B is loaded in its own
//    orientation (MN-major boxes) and wgmma reads it with the transpose bit.
//
// CTA tile BLOCK_M x BLOCK_N x BLOCK_K = 128 x 128 x 64 by default, two
// consumer warpgroups (THREADS = 256), warpgroup w computing rows
// 64w..64w+63 with m64n{BLOCK_N}k16 (BLOCK_N / 2 fp32 accumulators per thread).
// Shared memory: a ring of STAGES slots, each holding one A and one B tile.
//
// mbarrier protocol (one "full" barrier per slot, no "empty" barriers):
//   full[s]: initialised with count 1.  Tile kt goes to slot s = kt % STAGES;
//     thread 0 arrives on full[s] with expect_tx(STAGE_BYTES) and issues the
//     TMA loads of tile kt into slot s against full[s].  Each TMA box delivers
//     exactly its box bytes (out-of-bounds parts zero-filled and counted), and
//     the boxes of one stage add up to STAGE_BYTES = (BLOCK_M + BLOCK_N) *
//     BLOCK_K * 2, so the phase completes when the whole tile has landed.
//     Use u = kt / STAGES of slot s is phase u of full[s]: every thread waits
//     on full[s] with parity u & 1.
//   Slot reuse: after issuing tile kt's wgmmas, each warpgroup waits until at
//     most one group (tile kt's) is pending, i.e. tile kt-1 has been read
//     entirely; __syncthreads() then proves that both warpgroups are past
//     tile kt-1, and thread 0 refills its slot with tile kt-1+STAGES.
//   Parity aliasing cannot happen: full[s] starts phase u+1 (tile kt+STAGES)
//     only after every thread has passed the __syncthreads of iteration kt+1,
//     which follows its wait on phase u.  So no barrier is ever more than one
//     phase ahead of a waiter.
//   Every wait has its arrival: thread 0 arrives once per tile kt < ktiles
//     (prologue: tiles 0..STAGES-1; loop: tile kt-1+STAGES), every thread waits
//     once per tile kt < ktiles, and ktiles is uniform across the CTA.
//
// Epilogue: straight from the accumulator registers with store_d_run<2>
// (row/column formula in wgmma.cuh), which applies alpha/beta, C, the bounds
// and the output type.
//
// Compile-time layouts: A_LAYOUT row (K-major) or column (M-major, TRANS_A),
// B_LAYOUT column (K-major) or row (N-major, TRANS_B).  The host builds the
// tensor maps to match (tcgemm/tma.py): K-major boxes are 64 (k) x BLOCK_M|N
// rows; MN-major boxes are 64 (m|n) x BLOCK_K rows, BLOCK_M|N / 64 per tile.
#include "gemm.cuh"
#include "epilogue.cuh"
#include "mbarrier.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 64
#define STAGES 4
#define THREADS 256
#define SMEM_BYTES (STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * 2 + 2048)
#endif

#if defined(PRECISION_BF16)
constexpr bool IS_BF16 = true;
#else
constexpr bool IS_BF16 = false;  // fp16
#endif

constexpr int WG_M = 64;                           // rows per warpgroup = the wgmma M
constexpr int CONSUMERS = BLOCK_M / WG_M;          // consumer warpgroups
constexpr int MMA_K = 16;                          // k per wgmma instruction
constexpr int A_TILE = BLOCK_M * BLOCK_K * 2;      // bytes of one A tile in shared memory
constexpr int B_TILE = BLOCK_N * BLOCK_K * 2;
constexpr int STAGE_BYTES = A_TILE + B_TILE;
constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;
constexpr int A_CHUNK = 64 * BLOCK_K * 2;          // one MN-major box: 64 m x BLOCK_K k
constexpr int B_CHUNK = 64 * BLOCK_K * 2;

static_assert(sizeof(elem_a) == 2 && sizeof(elem_b) == 2, "wgmma_tma takes fp16 or bf16 inputs");
static_assert(BLOCK_K == 64, "one 128-byte swizzle row holds exactly 64 16-bit k");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * CONSUMERS, "one warpgroup per 64 rows");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "wgmma N (and MN-major boxes of 64)");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + 1024 + 8 * STAGES, "SMEM_BYTES too small");

using Mma = Wgmma<BLOCK_N, IS_BF16, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;

// Issue the TMA loads of k-tile kt into the slot at `a_dst` (A) / `b_dst` (B).
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

__device__ __forceinline__ void wgmma_tma_body(const Gemm& g, const TmaDesc* tma_a, const TmaDesc* tma_b) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Swizzled tiles need 1024-byte aligned bases; SMEM_BYTES carries the slack.
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned full = tiles + STAGES * STAGE_BYTES;  // STAGES mbarriers, 8 bytes each
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    const int tid = threadIdx.x;
    const int wg = tid / 128;
    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int za = g.batch_a ? blockIdx.z : 0;  // a broadcast operand's map has one batch entry
    const int zb = g.batch_b ? blockIdx.z : 0;
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;

    if (tid == 0) {
        tma_prefetch_desc(tma_a);
        tma_prefetch_desc(tma_b);
#pragma unroll
        for (int s = 0; s < STAGES; ++s) mbar_init(full + 8 * s, 1);
        mbar_init_fence();
    }
    __syncthreads();
    if (tid == 0) {
        for (int s = 0; s < STAGES && s < ktiles; ++s)
            load_tile(tma_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, s, m0, n0, za, zb);
    }

    float acc[BLOCK_N / 2];
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0.0f;

    int s = 0;
    unsigned phase = 0;
    for (int kt = 0; kt < ktiles; ++kt) {
        mbar_wait(full + 8 * s, phase);
        const unsigned a_base = a_slot(s) + (A_K_MAJOR ? wg * WG_M * 128 : wg * A_CHUNK);
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
        wgmma_wait<1>();  // tile kt-1 fully read by this warpgroup
        __syncthreads();  // ... and by the other one
        if (tid == 0 && kt >= 1 && kt - 1 + STAGES < ktiles) {
            const int r = s == 0 ? STAGES - 1 : s - 1;  // slot of tile kt-1
            load_tile(tma_a, tma_b, a_slot(r), b_slot(r), full + 8 * r, kt - 1 + STAGES, m0, n0, za, zb);
        }
        if (++s == STAGES) {
            s = 0;
            phase ^= 1;
        }
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);

    const int warp = (tid % 128) / 32, lane = tid % 32;
    const int row = m0 + wg * WG_M + warp * 16 + lane / 4;
    const int col = n0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j) {
        store_d_run<2>(g, row, col + 8 * j, &acc[4 * j]);
        store_d_run<2>(g, row + 8, col + 8 * j, &acc[4 * j + 2]);
    }
}

TCGEMM_TMA_KERNEL(wgmma_tma, wgmma_tma_body)
