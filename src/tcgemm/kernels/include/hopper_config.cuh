// hopper_config.cuh — every knob of the production Hopper kernel (hopper/04_tma_store_epilogue.cu):
// the defaults of the defines the host passes (tcgemm.launch._defines: a registry config's params,
// the layouts, the precision's PRECISION_* and ELEM_* types), the constants derived from them, and
// the checks that a combination is one the kernel supports.  The variants are plain constants here
// (kSplitK, kTailSplit, ...); the kernel and its policy headers choose with `if constexpr`:
//   hopper_sched.cuh    the tile scheduler: unit order (groups, wave snake, GPC order), split-K, tail split
//   hopper_cluster.cuh  which CTA of a cluster loads what, multicast masks (along M, along N, 2 x 2)
//   hopper_ktile.cuh    the wgmmas of one k-tile (WG_M = 128, EPI_OVERLAP's halves), fp8 promotion
//   hopper_epilogue.cuh D from registers, through TMA stores, or overlapped with the next tile's wgmmas
#pragma once
#include "gemm.cuh"
#include "epilogue_act.cuh"
#include "wgmma.cuh"

// ---- the host's defines (defaults: the 128 x 256 x 64 bf16/fp16 config) ----
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
#ifndef SPLIT_K
#define SPLIT_K 1  // k ranges per tile (configs for skinny problems; split_k.cuh)
#endif
#ifndef SPLIT_K_OWNERS
#define SPLIT_K_OWNERS 1  // split-K: range w sums and writes consumer w's rows (split_k.cuh); 0: the last range, all
#endif
#ifndef TAIL_SPLIT
#define TAIL_SPLIT 0  // 1: the last partial wave's tiles cut along k, idle clusters taking the second parts (tail_split.cuh)
#endif
#ifndef TAIL_PARTS
#define TAIL_PARTS 2  // TAIL_SPLIT: the most second parts one idle cluster takes (tail_split.cuh says when more pay)
#endif
#ifndef CLUSTER_ALONG_N
#define CLUSTER_ALONG_N 0  // 1: the cluster's CTAs sit side by side along N and share the A tile instead
#endif
#ifndef CLUSTER_2D
#define CLUSTER_2D 0  // 2 or 4: the cluster's tile columns; CLUSTER_M / CLUSTER_2D tile rows share B, the columns A
#endif
#ifndef A_HALVES
#define A_HALVES 0  // A's K-major tile in one box per consumer, WG_M rows each (see kAHalves)
#endif
#ifndef A_BOX_M
#define A_BOX_M (A_HALVES ? WG_M : BLOCK_M / (CLUSTER_ALONG_N ? CLUSTER_M : 1))  // rows of the host's K-major A box
#endif
#ifndef B_BOX_K
#define B_BOX_K BLOCK_K  // k rows of the host's MN-major B box (fewer: the cluster splits B's 64 columns along k)
#endif
#ifndef A_BOX_K
#define A_BOX_K BLOCK_K  // likewise for an MN-major A shared along N
#endif
#ifndef GROUP_M
#define GROUP_M 8  // tile rows per group of the tile order (a multiple of CLUSTER_M)
#endif
#ifndef WAVE_SNAKE
#define WAVE_SNAKE 0  // 1: consecutive waves share an operand and meet in k (hopper_sched.cuh)
#endif
#ifndef GPC_ORDER
#define GPC_ORDER 0  // 1: wave positions counted out per GPC (gpc_order.cuh) in the host's `counters` buffer
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232
#endif
#ifndef WG_M
#define WG_M 64  // rows per consumer warpgroup: one wgmma (M = 64) per k step, or two (WG_M = 128; hopper_ktile.cuh)
#endif
#ifndef D_TRANSPOSED
#define D_TRANSPOSED 0  // 1: the tile is of D^T (the host swapped the operands) and goes out transposed into D
#endif
#ifndef D_IN_RING
#define D_IN_RING 0  // 1: a D^T tile staged in its last k-tile's ring slot (hopper_epilogue.cuh: DtRing)
#endif
#ifndef EPI_PARTS
#define EPI_PARTS 1  // column parts the staged epilogue goes through (a buffer of BLOCK_N / EPI_PARTS columns)
#endif
#ifndef D_BOX_BYTES
#define D_BOX_BYTES 128  // bytes per row of a staged D box: 128, or 64 / 32 for tiles of 96 or 144 columns (epilogue_tma.cuh)
#endif
#ifndef EPI_32BIT
#define EPI_32BIT 0  // 1: fp32 / s32 D through the same buffer too (twice the column parts); else from registers
#endif
#ifndef D_FROM_REGISTERS
#define D_FROM_REGISTERS 1  // 0: no register-path epilogue; the host launches it only with D's tensor map
#endif
#ifndef EPI_BUFS
#define EPI_BUFS 1  // 2: the parts alternate between two buffers, so writing one overlaps the TMA reading the other
#endif
#ifndef EPI_OVERLAP
#define EPI_OVERLAP 0  // 1: the next tile's first k-tile issued in two column halves between the epilogue's halves
#endif
#ifndef PINGPONG
#define PINGPONG 0  // 1: two consumer warpgroups each own whole tiles, in turn (hopper_sched.cuh: the ping-pong schedule)
#endif
#ifndef A_REGS
#define A_REGS 0  // 1: A's fragments from shared memory into registers, then wgmma (tf32 with an MN-major A; hopper_ktile.cuh)
#endif
#ifndef PROMOTE_EVERY
#define PROMOTE_EVERY (sizeof(elem_d) == 4 ? 1 : 4)  // fp8: k-tiles per partial sum (hopper_ktile.cuh)
#endif

constexpr bool defined_tf32() {
#if defined(PRECISION_TF32)
    return true;
#else
    return false;
#endif
}

// ---- the variants, as constants ----
constexpr int kSplitK = SPLIT_K;
constexpr bool kTailSplit = TAIL_SPLIT != 0;
constexpr int kTailParts = TAIL_PARTS;
constexpr bool kWaveSnake = WAVE_SNAKE != 0;
constexpr bool kGpcOrder = GPC_ORDER != 0;
constexpr bool kRegisterEpilogue = D_FROM_REGISTERS != 0;
constexpr bool OVERLAP = EPI_OVERLAP;  // hopper_epilogue.cuh
constexpr bool kDTransposed = D_TRANSPOSED != 0;  // epilogue_tma.cuh: epilogue_tma_store_transposed
constexpr bool kDInRing = D_IN_RING != 0;
constexpr bool kARegs = A_REGS != 0;
constexpr bool kPingpong = PINGPONG != 0;

constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;

// Input types.  fp16/bf16 operands may be K- or MN-major (wgmma.cuh).  tf32, int8 and fp8 have no
// transpose mode: both operands K-major (wgmma_ops.cuh; registry: wgmma_tma_store_kmajor, layouts
// "rc"; their 32-bit D is staged for TMA stores with EPI_32BIT), except that tf32's A may be MN-major
// through registers (A_REGS, hopper_ktile.cuh: the transposed problem of B row-major, D^T from registers).  Every wgmma reads 32 bytes of k per
// row, so the shared-memory rows of 128 bytes, the TMA boxes and the K-major descriptors (+32 bytes
// per step) are the same bytes for every type; BLOCK_K = 128 / element size.  MmaHalf: EPI_OVERLAP's
// half-width wgmma (a valid shape in every build: the others compile, never run, its uses).
#if defined(PRECISION_FP16) || defined(PRECISION_BF16) || \
    !(defined(PRECISION_TF32) || defined(PRECISION_INT8) || defined(PRECISION_FP8E4M3) || defined(PRECISION_FP8E5M2))
typedef float acc_t;
#if defined(PRECISION_BF16)
using Mma = Wgmma<BLOCK_N, true, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;
using MmaHalf = Wgmma<(BLOCK_N == 256 ? 128 : 64), true, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;
#else
using Mma = Wgmma<BLOCK_N, false, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;
using MmaHalf = Wgmma<(BLOCK_N == 256 ? 128 : 64), false, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;
#endif
#elif defined(PRECISION_INT8)
typedef int acc_t;  // exact s32 sums
using Mma = WgmmaS8<BLOCK_N>;
using MmaHalf = WgmmaS8<(BLOCK_N == 256 ? 128 : 64)>;  // (EPI_OVERLAP is 16-bit only)
#elif defined(PRECISION_TF32)
typedef float acc_t;  // fp32 bit patterns truncated to tf32 by the tensor cores (10_wgmma_kmajor.cu)
using Mma = WgmmaTf32<BLOCK_N>;
using MmaHalf = WgmmaTf32<(BLOCK_N == 256 ? 128 : 64)>;  // (EPI_OVERLAP is 16-bit only)
#elif defined(PRECISION_FP8E4M3)
typedef float acc_t;
using Mma = WgmmaE4m3<BLOCK_N>;
using MmaHalf = WgmmaE4m3<(BLOCK_N == 256 ? 128 : 64)>;  // (EPI_OVERLAP is 16-bit only)
#else
typedef float acc_t;
using Mma = WgmmaE5m2<BLOCK_N>;
using MmaHalf = WgmmaE5m2<(BLOCK_N == 256 ? 128 : 64)>;  // (EPI_OVERLAP is 16-bit only)
#endif
// Partial sums promoted to an fp32 total every PROMOTE_EVERY k-tiles (hopper_ktile.cuh): fp8 always; tf32 where a
// config asks (PROMOTE_PARTIALS=1: the 3xTF32 GEMMs of fp32 products, tcgemm/emulation.py).
#ifndef PROMOTE_PARTIALS
#if defined(PRECISION_FP8E4M3) || defined(PRECISION_FP8E5M2)
#define PROMOTE_PARTIALS 1
#else
#define PROMOTE_PARTIALS 0
#endif
#endif
constexpr bool PROMOTE = PROMOTE_PARTIALS != 0;
// fp8's scales (tma_scaled.cuh's scale_a, scale_b): one float per tensor (0), or row-wise (1, SCALE_ROWWISE): scale_a
// one per row of A (M floats), scale_b one per column of B (N floats), as torch._scaled_mm's row-wise mode.
#ifndef SCALE_ROWWISE
#define SCALE_ROWWISE 0
#endif
constexpr bool ROW_SCALES = SCALE_ROWWISE != 0;
// 1: the launch adds a whole row-major C (a residual, a partial sum), and the build carries the code for one: the
// producer's L2 hints of its rows and, for 16-bit C, its staging in shared memory (hopper_epilogue.cuh: CPrefetch,
// kStageC).  The host sets it only then (launch.adds_c_matrix): launches without such a C (none, a bias row) run a
// build without that code, which cost them ~0.2 us each when it was there unused (GPT-2's 4-10 us GEMMs 2-5%).
#ifndef C_MATRIX
#define C_MATRIX 0
#endif
constexpr bool kCMatrix = C_MATRIX != 0;
constexpr bool PROMOTE_NEXT = PROMOTE && PROMOTE_EVERY > 1;  // groups added at the next group's start
constexpr bool PROMOTE_EACH = PROMOTE && PROMOTE_EVERY == 1;  // p1: added right after each k-tile
// Consumers work out their next tile's coordinates while the first k-tile's wgmmas run (hopper_sched.cuh),
// else at the top of each tile.  Not with 32-bit D: held in registers through the tile, the coordinates
// made its register-path epilogue spill (fp32 D of 16-bit inputs; tf32 and int8 were not measured with it).
constexpr bool COORD_SHADOW = !PROMOTE && sizeof(elem_d) == 2 && !kPingpong;
#if defined(PRECISION_INT8)
constexpr bool INT_ACC = true;
#else
constexpr bool INT_ACC = false;
#endif

// ---- tiles, slots and warpgroups ----
constexpr int ELEM_BYTES = sizeof(elem_a);
constexpr int M_ATOMS = WG_M / 64;         // m64 wgmmas per k step of a consumer
constexpr int ATOM_ACC = BLOCK_N / 2;      // accumulators per thread of one m64 x BLOCK_N wgmma
// Consumer warpgroups (the producer is warpgroup 0): one per WG_M rows of each tile, all on every tile
// (cooperative), or two that take whole tiles in turn (PINGPONG: WG_M = BLOCK_M).
constexpr int CONSUMERS = kPingpong ? 2 : BLOCK_M / WG_M;
constexpr int SLOT_READERS = kPingpong ? 1 : CONSUMERS;
constexpr bool kSplitKOwners = SPLIT_K_OWNERS != 0 && kSplitK > 1 && kSplitK >= CONSUMERS && !kPingpong;  // consumer warpgroups of a CTA that read each ring slot
constexpr int ROW_BYTES = 128;             // one swizzle row: BLOCK_K elements of k
constexpr int K_STEP_BYTES = 32;           // k bytes per wgmma (16 fp16, 8 tf32, 32 int8/fp8)
constexpr int A_TILE = BLOCK_M * ROW_BYTES;
constexpr int B_TILE = BLOCK_N * ROW_BYTES;
constexpr int STAGE_BYTES = A_TILE + B_TILE;  // what lands in EACH CTA per k-tile
constexpr int MN_BOX = ROW_BYTES / ELEM_BYTES;  // m or n of one MN-major box: one 128-byte swizzle row (64 16-bit, 32 tf32)
constexpr int A_CHUNK = 64 * ROW_BYTES;  // 64 rows of an MN-major A (16-bit: one box; tf32: two) x BLOCK_K k
constexpr int B_CHUNK = 64 * ROW_BYTES;
constexpr int MN_STEP_BYTES = K_STEP_BYTES / ELEM_BYTES * ROW_BYTES;  // MN-major: k rows per wgmma

// ---- the cluster's shape (hopper_cluster.cuh) ----
constexpr bool ALONG_N = CLUSTER_ALONG_N;
constexpr int CTAS_N = CLUSTER_2D ? CLUSTER_2D : ALONG_N ? CLUSTER_M : 1;  // tile columns of a cluster block
constexpr int CTAS_M = CLUSTER_M / CTAS_N;                         // tile rows
constexpr bool SHARE_A = CTAS_N > 1, SHARE_B = CTAS_M > 1;
constexpr int A_PART = BLOCK_M / CTAS_N;  // rows of A each CTA loads for its tile row of the cluster
constexpr int B_PART = BLOCK_N / CTAS_M;  // columns of B each CTA loads for its tile column
// A shared MN-major tile of one 64-wide box cannot be cut along its 64 contiguous columns: split along k.
// (16-bit only: the one MN-major operand shared by a cluster; tf32's MN-major A (A_REGS) is not shared.)
template <int PART>
constexpr bool MN_K_SPLIT = ELEM_BYTES == 2 && PART * CLUSTER_M == MN_BOX && CLUSTER_M > 1 && !CLUSTER_2D;
constexpr int GROUP_UNITS = GROUP_M / CTAS_M;  // unit rows per group (hopper_sched.cuh)

// ---- D staging (hopper_epilogue.cuh): a buffer per consumer warpgroup, between the ring and the barriers ----
// (A D^T of 32 bits, D_TRANSPOSED with A_REGS, goes out from registers: never staged)
constexpr bool D_STAGED = sizeof(elem_d) == 2 || (EPI_32BIT && !kDTransposed);
// (D_TRANSPOSED: BLOCK_N rows of 64 16-bit features, one part)
constexpr int ATOM_BUF = kDTransposed ? BLOCK_N * 128 : 64 * (BLOCK_N / EPI_PARTS) * 2 * EPI_BUFS;  // staging bytes of one m64 block
constexpr int D_BUF = D_STAGED && !kDInRing ? M_ATOMS * ATOM_BUF : 0;  // per consumer
// D_IN_RING (hopper_epilogue.cuh: DtRing): the CTA's D^T tile, CONSUMERS x BLOCK_N / 8 blocks of 8 tokens x 128
// bytes, lies in the ring slot of the tile's last k-tile; the blocks the slot cannot hold in a buffer of their own.
constexpr int DT_BLOCKS = CONSUMERS * BLOCK_N / 8;
constexpr int DT_SLOT_BLOCKS = STAGE_BYTES / 1024;
constexpr int DT_EXTRA = kDInRing && DT_BLOCKS > DT_SLOT_BLOCKS ? (DT_BLOCKS - DT_SLOT_BLOCKS) * 1024 : 0;
constexpr int D_STAGING = kDInRing ? DT_EXTRA : CONSUMERS * D_BUF;  // bytes between the ring and the scale slots
constexpr int D_PARTS = EPI_PARTS * (int)sizeof(elem_d) / 2;       // column parts of a 32-bit D: twice as many

static_assert(sizeof(elem_a) == sizeof(elem_b), "A and B of one type");
static_assert(BLOCK_K * ELEM_BYTES == ROW_BYTES, "one 128-byte swizzle row of k per tile row");
static_assert(ELEM_BYTES == 2 || (B_K_MAJOR && (A_K_MAJOR || kARegs)),
              "wgmma reads tf32/int8/fp8 K-major only (tf32's A may come MN-major through registers: A_REGS)");
static_assert(!kARegs || (defined_tf32() && !A_K_MAJOR && M_ATOMS == 1 && !PROMOTE && !TAIL_SPLIT && !EPI_OVERLAP &&
                          CTAS_N == 1),
              "A_REGS: tf32 with an MN-major A, m64 blocks, no promotion, tail split, EPI_OVERLAP or shared A");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per WG_M rows");
static_assert(!kPingpong || (WG_M == BLOCK_M && SPLIT_K == 1 && !TAIL_SPLIT && !EPI_OVERLAP && !PROMOTE && !A_REGS &&
                             !D_TRANSPOSED),
              "PINGPONG: each consumer a whole tile (WG_M = BLOCK_M); no split-K, tail split, EPI_OVERLAP, promotion, "
              "A_REGS or D^T");
static_assert(M_ATOMS == 1 || (M_ATOMS == 2 && SPLIT_K == 1 && !TAIL_SPLIT && (!PROMOTE || PROMOTE_EACH)),
              "WG_M = 128: no split-K or tail split; promoted sums (fp8) every k-tile, one m64 block at a time");
static_assert(BLOCK_N % MN_BOX == 0 || (B_K_MAJOR && BLOCK_N % 8 == 0), "wgmma N (and whole MN-major boxes)");
static_assert(BLOCK_N <= 256 && (!PROMOTE || BLOCK_N <= 192), "wgmma N; fp8: two accumulator arrays");
static_assert(CLUSTER_M >= 1 && CLUSTER_M <= 32 && (B_PART % (B_K_MAJOR ? 8 : MN_BOX) == 0 || MN_K_SPLIT<B_PART>),
              "each CTA loads whole boxes (MN-major) or 8-row swizzle atoms (K-major) of B");
static_assert(B_BOX_K == (MN_K_SPLIT<B_PART> ? BLOCK_K / CLUSTER_M : BLOCK_K) &&
              A_BOX_K == (MN_K_SPLIT<A_PART> ? BLOCK_K / CLUSTER_M : BLOCK_K),
              "the host's MN-major boxes: BLOCK_K rows of k, or this CTA's share of them when split along k");
static_assert(SPLIT_K == 1 || !INT_ACC, "split-K sums fp32 partial tiles");
static_assert(B_BOX_N == B_PART, "the host's K-major B box (B_BOX_N rows) is one CTA's part of B");
// A_HALVES: each consumer's WG_M rows of A arrive in a box of their own, so that where the matrix is shorter than the
// tile but taller than one consumer's rows (WG_M < M < BLOCK_M: no whole-tile shift possible) the second consumer
// can take the rows [M - WG_M, M) (hopper/04_tma_store_epilogue.cu: half_lift) instead of BLOCK_M - M rows that TMA
// fills with zeros, which cost: 128 x 64 tiles ran 1.35-1.64x their 128-row time at 72-96 rows (dispatch.OOB_ROW_COST).
// One more TMA instruction a k-tile for the producer.
constexpr bool kAHalves = A_HALVES != 0;
static_assert(!kAHalves || (A_K_MAJOR && CTAS_N == 1 && !kPingpong && WG_M == 64 && CONSUMERS == 2),
              "A_HALVES: a K-major A, not shared in a cluster, two cooperative consumers of 64 rows");
static_assert(A_BOX_M == (kAHalves ? WG_M : A_PART) && (A_PART % (A_K_MAJOR ? 8 : MN_BOX) == 0 || MN_K_SPLIT<A_PART>),
              "the host's K-major A box (A_BOX_M rows) is one CTA's part of A: 8-row atoms or whole MN-major boxes");
static_assert(CTAS_N == 1 || SPLIT_K == 1, "split-K's tile numbering assumes clusters along M");
static_assert(!CLUSTER_2D || ((CLUSTER_2D == 2 || CLUSTER_2D == 4) && CLUSTER_M % CLUSTER_2D == 0 &&
                               CLUSTER_M / CLUSTER_2D >= 2 && CLUSTER_M <= 8 && !ALONG_N),
              "2-D clusters: 2 or 4 tile columns, 2 or more tile rows, at most 8 CTAs (the portable cluster size)");
static_assert(GROUP_M % CTAS_M == 0, "groups of whole cluster units");
static_assert(!GPC_ORDER || SPLIT_K == 1, "GPC_ORDER: not with split-K (the counters buffer)");
static_assert(!TAIL_SPLIT || (SPLIT_K == 1 && !INT_ACC), "the tail split: fp32 partial sums, not with split-K");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(D_FROM_REGISTERS || D_STAGED, "a config without the register-path epilogue stages its D");
static_assert(!D_TRANSPOSED || (M_ATOMS == 1 && !OVERLAP && B_K_MAJOR && BLOCK_N <= 256 &&
                                (ELEM_BYTES == 2 ? !D_FROM_REGISTERS && EPI_PARTS == 1 && SPLIT_K == 1
                                                 : kARegs && D_FROM_REGISTERS)),
              "D_TRANSPOSED: m64 blocks, no EPI_OVERLAP, B K-major (any multiple of 8); 16-bit inputs "
              "through TMA stores only, without split-K; tf32 (A_REGS) from registers");
static_assert(!OVERLAP || (D_STAGED && !D_FROM_REGISTERS && !PROMOTE && ELEM_BYTES == 2 && M_ATOMS == 1 &&
                           SPLIT_K == 1 && BLOCK_N == 256 && D_PARTS % 2 == 0),
              "EPI_OVERLAP: 16-bit inputs, 128 x 256 tiles of one m64 block per consumer, D through TMA only");
// EPI_ACT / EPI_GATED (epilogue_act.cuh): float sums; a gated tile reads its B K-major in two halves
// (hopper_cluster.cuh), is not transposed, and stores its BLOCK_N / 2 columns in GATED_PARTS parts through the
// same staging buffer: whole boxes and 16-column steps per part, parts of at most 64 columns where that works
// (tcgemm.registry.TileConfig.gated_parts says the same on the host); GATED_BUFS = 2 where the buffer holds two.
constexpr int GATED_COLS = BLOCK_N / 2;
constexpr int gated_part_ok(int p) {
    return p > 0 && GATED_COLS % p == 0 && (GATED_COLS / p) % (D_BOX_BYTES / 2) == 0 && (GATED_COLS / p) % 16 == 0 &&
           GATED_COLS / p <= BLOCK_N / EPI_PARTS * EPI_BUFS;
}
constexpr int gated_parts() {
    for (int p = 1; p <= 8; p *= 2)
        if (gated_part_ok(p) && GATED_COLS / p <= 64) return p;
    for (int p = 1; p <= 8; p *= 2)
        if (gated_part_ok(p)) return p;
    return 0;
}
constexpr int GATED_PARTS = gated_parts() > 0 ? gated_parts() : 1;
constexpr int GATED_BUFS = GATED_PARTS % 2 == 0 && 2 * (GATED_COLS / GATED_PARTS) <= BLOCK_N / EPI_PARTS * EPI_BUFS ? 2 : 1;
static_assert(ACTIVATION == Act::None || !INT_ACC, "an activation of float sums (not int8's s32)");
static_assert(!ROW_SCALES || (PROMOTE && !kDTransposed && !GATED), "row-wise scales: fp8 (promoted sums), D not transposed");
static_assert(!GATED || (B_K_MAJOR && !kDTransposed && !PROMOTE && sizeof(elem_d) == 2 && gated_parts() > 0),
              "EPI_GATED: 16-bit D from a K-major B, not transposed or fp8, its BLOCK_N / 2 columns in whole boxes");
static_assert(!kDInRing || (kDTransposed && sizeof(elem_d) == 2 && !kPingpong && SPLIT_K == 1),
              "D_IN_RING: a 16-bit D^T (TMA stores of 8-token boxes), cooperative consumers, no split-K");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + D_STAGING + 1024 + 16 * STAGES + 4 * CONSUMERS + 4,
              "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");

// First row, within a tile, of consumer cw's rows: its WG_M-row block (cooperative), or row 0 (PINGPONG: the
// whole tile).
__device__ __forceinline__ int consumer_row0(int cw) { return kPingpong ? 0 : cw * WG_M; }
