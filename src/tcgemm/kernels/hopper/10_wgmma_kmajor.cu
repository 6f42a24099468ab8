// Hopper, K-major stage — warp-specialised wgmma for tf32, int8 and fp8 (sm_90a).
//
// What changes over wgmma_ws (hopper/01_warp_specialized.cu), and why:
//  * Input types.  wgmma multiplies tf32 (m64nNk8, fp32 accumulators) and s8
//    (m64nNk32, exact int32 accumulators) straight from shared memory, like
//    fp16/bf16, but without the transpose mode: both operands must be
//    K-major.  So this kernel serves A row-major and B column-major only
//    (registry: layouts=("rc",)); for the other layouts kernel="auto" makes
//    K-major copies first (tcgemm/staging.py: one read and write of the
//    operand against a GEMM that reads each element BLOCK_N / BLOCK_M times
//    over).  On the tensor cores tf32 runs at 1/2 and int8 at 2x the fp16
//    rate, so these are the fastest paths for float32 and int8 inputs.
//  * fp8 (e4m3 / e5m2, m64nNk32, fp32 accumulators; 2x the fp16 rate) works
//    the same way, plus per-tensor scales as in torch._scaled_mm: D = alpha *
//    (A scale_a) @ (B scale_b) + beta C, the scales read from device memory
//    in the epilogue (null pointers: 1).  The tensor cores add fp8 products
//    into the accumulator with a reduced-precision alignment (about 14
//    mantissa bits kept), so over a long K the rounding errors pile up; as
//    cuBLAS does without "fast accumulation", every k-tile (128 k, 4 wgmmas)
//    is accumulated into fresh registers (scale_d = 0 on its first wgmma) and
//    then added to the fp32 total with ordinary FADDs.  That needs a second
//    accumulator array, hence BLOCK_N <= 192, and a wait_group<0> per k-tile:
//    while one consumer warpgroup adds, the other keeps the tensor cores busy.
//  * Tiles sized in bytes.  A 128-byte swizzle row holds BLOCK_K = 128 / size
//    elements: 32 tf32, 128 int8 or fp8.  Every wgmma reads 32 bytes of k per
//    row (8 tf32, 32 int8/fp8), so the shared-memory layout, the TMA boxes, the
//    descriptors (+32 bytes per k step, SBO 1024) and the stage sizes are
//    byte-for-byte those of wgmma_ws's K-major path; only the instruction and
//    the accumulator type differ.
//  * tf32 rounding.  The wgmma reads the top 19 bits of each fp32 word in
//    shared memory, so copied as they are the inputs would be truncated to
//    tf32 (7.7e-4 relative error on random data at K = 4096).  The host
//    describes A and B as TFLOAT32 instead (tcgemm.tma.operand_map_type): the
//    TMA unit rounds each value to the nearest tf32 as it copies, for free,
//    and the error is cuBLAS's (2.9e-4).  It also made the GEMM cheaper: with
//    the 13 low bits zero, the operands the tensor cores read from shared
//    memory switch fewer wires, and under the board's power cap the clock
//    rose: 275 against 287 mJ per GEMM at 4096^3 (registry, config es4).
//
// Structure (unchanged from wgmma_ws): warpgroup 0 produces (one thread issues
// the TMA loads), warpgroups 1..CONSUMERS consume (64 rows each, m64nBLOCK_N),
// setmaxnreg moves registers from the producer to the consumers, grouped
// tile order for L2 reuse.
//
// mbarrier protocol (STAGES slots; k-tile kt uses slot s = kt % STAGES for the
// u = kt / STAGES -th time):
//   full[s]  (count 1): the producer thread arrives with expect_tx(STAGE_BYTES)
//     and issues the two TMA boxes of tile kt against it: A's box is BLOCK_K x
//     BLOCK_M elements = A_TILE bytes, B's BLOCK_K x BLOCK_N = B_TILE bytes,
//     out-of-bounds parts zero-filled and counted, so exactly STAGE_BYTES
//     arrive.  Consumers wait for phase u: parity u & 1.
//   empty[s] (count CONSUMERS): one thread per consumer warpgroup arrives once
//     tile kt's wgmmas have retired (wgmma.wait_group<1> in iteration kt+1, or
//     wait_group<0> after the loop for the last tile; fp8: wait_group<0> in
//     iteration kt itself, then the arrival for kt).  Before loading tile
//     kt >= STAGES into slot s the producer waits for the release of tile
//     kt - STAGES, phase u - 1: parity (u - 1) & 1.
//   No barrier runs two phases ahead of a waiter: full[s] phase u+1 needs
//   empty[s] phase u, which needs every consumer to have passed its wait on
//   phase u of full[s]; empty[s] phase u needs tile u * STAGES + s loaded,
//   which needs the producer past its wait on phase u - 1.
//   Counts match: per k-tile one expect_tx arrival on full (producer) and
//   CONSUMERS arrivals on empty, every k-tile released exactly once; ktiles is
//   uniform across the CTA.  No __syncthreads() after the role split.
#if !defined(A_LAYOUT) && !defined(B_LAYOUT)
#define A_LAYOUT 0  // the only layouts served: A row-major (K-major) ...
#define B_LAYOUT 1  // ... and B column-major (K-major)
#endif
#include "gemm.cuh"
#include "epilogue.cuh"
#include "mbarrier.cuh"
#include "tma.cuh"
#include "tma_scaled.cuh"
#include "wgmma.cuh"

#if !defined(PRECISION_INT8) && !defined(PRECISION_TF32) && !defined(PRECISION_FP8E4M3) && \
    !defined(PRECISION_FP8E5M2)
#define PRECISION_TF32 1  // compiled alone: float inputs
#endif
#if defined(PRECISION_FP8E4M3) || defined(PRECISION_FP8E5M2)
#define KMAJOR_FP8 1
constexpr bool PROMOTE = true;  // per-k-tile partial sums added to the fp32 total (see above)
#else
constexpr bool PROMOTE = false;
#endif

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 256
#define BLOCK_K (128 / (int)sizeof(ELEM_A))
#define STAGES 4
#define THREADS 384
#define SMEM_BYTES (STAGES * (BLOCK_M + BLOCK_N) * 128 + 2048)
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232
#endif

#if defined(PRECISION_INT8)
typedef int acc_t;
template <int N> using KMma = WgmmaS8<N>;
#elif defined(PRECISION_FP8E4M3)
typedef float acc_t;
template <int N> using KMma = WgmmaE4m3<N>;
#elif defined(PRECISION_FP8E5M2)
typedef float acc_t;
template <int N> using KMma = WgmmaE5m2<N>;
#else
typedef float acc_t;
template <int N> using KMma = WgmmaTf32<N>;
#endif
using Mma = KMma<BLOCK_N>;

constexpr int ROW_BYTES = 128;                         // one swizzle row: BLOCK_K elements of k
constexpr int WG_M = 64;                               // rows per consumer warpgroup = the wgmma M
constexpr int CONSUMERS = BLOCK_M / WG_M;              // consumer warpgroups (the producer is warpgroup 0)
constexpr int K_STEP_BYTES = 32;                       // k bytes per wgmma: 8 tf32 or 32 int8
constexpr int A_TILE = BLOCK_M * ROW_BYTES;            // = BLOCK_M * BLOCK_K * sizeof(elem_a)
constexpr int B_TILE = BLOCK_N * ROW_BYTES;
constexpr int STAGE_BYTES = A_TILE + B_TILE;

static_assert(A_LAYOUT == LAYOUT_ROW && B_LAYOUT == LAYOUT_COL,
              "wgmma reads tf32/int8 K-major only: A row-major, B column-major");
static_assert(sizeof(elem_a) == sizeof(elem_b), "A and B of one type");
#if defined(PRECISION_INT8) || defined(KMAJOR_FP8)
static_assert(sizeof(elem_a) == 1 && sizeof(acc_t) == 4, "8-bit in, 32-bit accumulators");
#else
static_assert(sizeof(elem_a) == 4, "tf32 reads float32 inputs");
#endif
static_assert(BLOCK_K * (int)sizeof(elem_a) == ROW_BYTES, "one 128-byte swizzle row of k per tile row");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per 64 rows");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "wgmma N, TMA box rows <= 256");
static_assert(!PROMOTE || BLOCK_N <= 192, "two accumulator arrays (2 x BLOCK_N / 2 registers) must fit");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + 1024 + 16 * STAGES, "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");

#include "setmaxnreg.cuh"

__device__ __forceinline__ void wgmma_ws_kmajor_body(const Gemm& g, const TmaDesc* tma_a, const TmaDesc* tma_b,
                                                     const float* scale_a, const float* scale_b) {
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
                const unsigned bar = full + 8 * s;
                mbar_arrive_expect_tx(bar, STAGE_BYTES);
                tma_load_3d(a_slot(s), tma_a, bar, kt * BLOCK_K, m0, za);  // box BLOCK_K (k) x BLOCK_M
                tma_load_3d(b_slot(s), tma_b, bar, kt * BLOCK_K, n0, zb);  // box BLOCK_K (k) x BLOCK_N
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

    acc_t acc[BLOCK_N / 2];
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] = 0;

    int s = 0, prev = 0;
    unsigned phase = 0;
    if constexpr (!PROMOTE) {
        for (int kt = 0; kt < ktiles; ++kt) {
            mbar_wait(full + 8 * s, phase);
            const unsigned a_base = a_slot(s) + cw * WG_M * ROW_BYTES;  // this warpgroup's 64 rows of A
            const unsigned b_base = b_slot(s);
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
                Mma::mma(acc, wgmma_desc_k_major(a_base + kk * K_STEP_BYTES),
                         wgmma_desc_k_major(b_base + kk * K_STEP_BYTES), 1);
            }
            wgmma_commit();
            wgmma_wait<1>();                                      // tile kt-1 retired
            if (kt > 0 && leader) mbar_arrive(empty + 8 * prev);  // hand its slot back
            prev = s;
            if (++s == STAGES) {
                s = 0;
                phase ^= 1;
            }
        }
        wgmma_wait<0>();
        if (leader) mbar_arrive(empty + 8 * prev);  // the last tile's slot (keeps every use released)
        wgmma_fence_accumulators(acc);
    } else {
        // fp8: k-tile partial sums in `part` (overwritten by the first wgmma of each tile), added to
        // the fp32 total once the tile's wgmmas have retired; the slot goes back right then.
        acc_t part[BLOCK_N / 2];
#pragma unroll
        for (int i = 0; i < BLOCK_N / 2; ++i) part[i] = 0;
        for (int kt = 0; kt < ktiles; ++kt) {
            mbar_wait(full + 8 * s, phase);
            const unsigned a_base = a_slot(s) + cw * WG_M * ROW_BYTES;
            const unsigned b_base = b_slot(s);
            wgmma_fence();  // orders the previous iteration's reads of `part` before the overwrite
#pragma unroll
            for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
                Mma::mma(part, wgmma_desc_k_major(a_base + kk * K_STEP_BYTES),
                         wgmma_desc_k_major(b_base + kk * K_STEP_BYTES), kk == 0 ? 0 : 1);
            }
            wgmma_commit();
            wgmma_wait<0>();                             // tile kt retired: its slot is free
            if (leader) mbar_arrive(empty + 8 * s);
            wgmma_fence_accumulators(part);
#pragma unroll
            for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] += part[i];
            if (++s == STAGES) {
                s = 0;
                phase ^= 1;
            }
        }
        (void)prev;
    }

    // Per-tensor scales (fp8): fold into the accumulators before alpha/beta.
    if constexpr (PROMOTE) {
        const float scale = (scale_a ? *scale_a : 1.0f) * (scale_b ? *scale_b : 1.0f);
        if (scale != 1.0f) {
#pragma unroll
            for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] *= scale;
        }
    }

    // Epilogue from the accumulator fragment (layout in wgmma.cuh): runs of 2 columns;
    // int accumulators take the exact int32 path of epilogue.cuh.
    const int warp = (tid % 128) / 32, lane = tid % 32;
    const int row = m0 + cw * WG_M + warp * 16 + lane / 4;
    const int col = n0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j) {
        store_d_run<2>(g, row, col + 8 * j, &acc[4 * j]);
        store_d_run<2>(g, row + 8, col + 8 * j, &acc[4 * j + 2]);
    }
}

TCGEMM_TMA_SCALED_KERNEL(wgmma_ws_kmajor, wgmma_ws_kmajor_body)
