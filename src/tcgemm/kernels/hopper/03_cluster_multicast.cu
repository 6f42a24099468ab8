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
//  * Variants (registry configs, same protocol): CLUSTER_ALONG_N lays the
//    cluster's CTAs side by side along N, sharing A instead of B (each CTA
//    loads BLOCK_M / CLUSTER_M rows of A and multicasts them); CLUSTER_2D makes
//    a cluster of 4 a 2 x 2 block of tiles sharing A along N and B along M
//    (launch.persistent_grid: KernelSpec.cluster_shape); WG_M = 128 gives
//    each consumer two m64 wgmmas per k step (a 256-row tile); TAIL_SPLIT
//    (stage 4) cuts the last partial wave's units along k between their
//    owners and the clusters that would idle (include/tail_split.cuh);
//    WAVE_SNAKE walks every other wave backwards in k (see unit_coord);
//    GPC_ORDER (stage 4) puts the clusters of one GPC on one unit row of
//    each wave, where the L2's request coalescer merges their A reads
//    (include/gpc_order.cuh).
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
//   there, and every remote arrival precedes the arriving thread's barrier).
#include "gemm.cuh"
#include "epilogue.cuh"
#include "mbarrier.cuh"
#include "cluster.cuh"
#include "pdl.cuh"
#include "tma.cuh"
#include "wgmma.cuh"
#include "wgmma_kmajor.cuh"
#include "tail_split.cuh"  // (and split_k.cuh)
#include "gpc_order.cuh"
#ifndef TMA_STORE_EPILOGUE
#define TMA_STORE_EPILOGUE 0  // stage 4 (04_tma_store_epilogue.cu) sets it
#endif
#if TMA_STORE_EPILOGUE
#include "epilogue_tma.cuh"
#endif
#ifndef SPLIT_K
#define SPLIT_K 1  // k ranges per tile (stage 4 configs for skinny problems; split_k.cuh)
#endif
#ifndef TAIL_SPLIT
#define TAIL_SPLIT 0  // 1: the last partial wave's tiles cut along k, idle clusters taking the second parts (tail_split.cuh)
#endif

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
#ifndef CLUSTER_ALONG_N
#define CLUSTER_ALONG_N 0  // 1: the cluster's CTAs sit side by side along N and share the A tile instead
#endif
#ifndef CLUSTER_2D
#define CLUSTER_2D 0  // 1: a cluster of 4 CTAs as 2 x 2 tiles, sharing A along N and B along M
#endif
#ifndef A_BOX_M
#define A_BOX_M (BLOCK_M / (CLUSTER_ALONG_N ? CLUSTER_M : 1))  // rows of the host's K-major A box
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
#define WAVE_SNAKE 0  // 1: consecutive waves share an operand and meet in k (see unit_coord and the producer)
#endif
#ifndef GPC_ORDER
#define GPC_ORDER 0  // 1: wave positions counted out per GPC (gpc_order.cuh) in the host's `counters` buffer
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232
#endif

constexpr int A_K_MAJOR = A_LAYOUT == LAYOUT_ROW;
constexpr int B_K_MAJOR = B_LAYOUT == LAYOUT_COL;

// Input types.  fp16/bf16 operands may be K- or MN-major (wgmma.cuh).  tf32,
// int8 and fp8 have no transpose mode: both operands K-major
// (wgmma_kmajor.cuh; registry: wgmma_tma_store_kmajor, layouts "rc", for tf32,
// int8 and fp8; their 32-bit D is staged for TMA stores with EPI_32BIT).  Every wgmma
// reads 32 bytes of k per row, so the shared-memory rows of 128 bytes, the
// TMA boxes and the K-major descriptors (+32 bytes per step) are the same
// bytes for every type; BLOCK_K = 128 / element size.
//  * fp8 partial sums: the tensor cores add fp8 products into the
//    accumulators with about 14 mantissa bits kept, so over a long K the
//    errors pile up.  As cuBLAS does without "fast accumulation", each
//    PROMOTE_EVERY k-tiles' wgmmas (128 k each) accumulate into fresh
//    registers `part` (scale_d = 0 on the first), which are added to the fp32
//    total once they retire: with 16-bit D every 4 k-tiles = 512 k by default
//    (on random data with bf16 D every k-tile gives _scaled_mm's error
//    exactly, every 4 an error 1.8% larger, for 2-8% more speed; config p1
//    promotes every k-tile).  fp32 D keeps what bf16 rounding hides: every 4
//    k-tiles gave 2.7x _scaled_mm's error (3.39e-4 against 1.26e-4), every
//    k-tile exactly its error, so fp32 D promotes every k-tile by default.
//    Where the adds go: waiting for a group's wgmmas to retire empties this
//    warpgroup's queue on the tensor cores, so the other consumer must have
//    work queued meanwhile.  Groups of several k-tiles (PROMOTE_NEXT) are added
//    at the start of the next group, after its first k-tile's data has
//    arrived, and the two consumers' groups are offset by half a group: one
//    drains while the other is mid-group with two k-tiles queued (with both in
//    step they drained together).  Every k-tile (p1), the adds come right
//    after the k-tile, before the next data wait, which hides them: placed
//    after that wait as above they ran 0.72-0.84x of p1's speed.  `part` is a
//    second accumulator array (BLOCK_N <= 192: 2 x 96 registers).  The
//    per-tensor scales (torch._scaled_mm's scale_a, scale_b, device pointers,
//    null = 1) multiply the total before alpha/beta.
#if defined(PRECISION_FP16) || defined(PRECISION_BF16) || \
    !(defined(PRECISION_TF32) || defined(PRECISION_INT8) || defined(PRECISION_FP8E4M3) || defined(PRECISION_FP8E5M2))
typedef float acc_t;
#if defined(PRECISION_BF16)
using Mma = Wgmma<BLOCK_N, true, A_K_MAJOR ? 0 : 1, B_K_MAJOR ? 0 : 1>;
// EPI_OVERLAP's half-width wgmma (a valid shape in every build: the others compile, never run, its uses)
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
#ifndef PROMOTE_EVERY
#define PROMOTE_EVERY (sizeof(elem_d) == 4 ? 1 : 4)  // fp8: k-tiles per partial sum (see above)
#endif
#if defined(PRECISION_FP8E4M3) || defined(PRECISION_FP8E5M2)
constexpr bool PROMOTE = true;
#else
constexpr bool PROMOTE = false;
#endif
constexpr bool PROMOTE_NEXT = PROMOTE && PROMOTE_EVERY > 1;  // groups added at the next group's start
constexpr bool PROMOTE_EACH = PROMOTE && PROMOTE_EVERY == 1;  // p1: added right after each k-tile
// Consumers work out their next tile's coordinates while the first k-tile's wgmmas run (see the
// consumer loop), else at the top of each tile.  Not with 32-bit D: held in registers through the
// tile, the coordinates made its register-path epilogue spill (fp32 D of 16-bit inputs; tf32 and int8
// were not measured with it).
constexpr bool COORD_SHADOW = !PROMOTE && sizeof(elem_d) == 2;
#if defined(PRECISION_INT8)
constexpr bool INT_ACC = true;
#else
constexpr bool INT_ACC = false;
#endif

constexpr int ELEM_BYTES = sizeof(elem_a);
#ifndef WG_M
#define WG_M 64  // rows per consumer warpgroup: one wgmma (M = 64) per k step, or two (WG_M = 128)
#endif
// WG_M = 128 (configs "w128", e.g. a 256 x 128 CTA tile): each consumer issues two m64 wgmmas per k
// step with the same B descriptor, back to back, on 64 x BLOCK_N accumulators each.  The point is
// shared-memory bandwidth: a wgmma reads its A (64 x 16) and B (BLOCK_N x 16) from shared memory,
// and the TMA unit writes every tile there too; per multiply-add a 128 x 256 tile of m64n256 wgmmas
// needs as many bytes as the 128 bytes / clock an SM's shared memory delivers at the tensor rate.
constexpr int M_ATOMS = WG_M / 64;         // m64 wgmmas per k step of a consumer
constexpr int ATOM_ACC = BLOCK_N / 2;      // accumulators per thread of one m64 x BLOCK_N wgmma
constexpr int CONSUMERS = BLOCK_M / WG_M;  // consumer warpgroups (the producer is warpgroup 0)
constexpr int ROW_BYTES = 128;             // one swizzle row: BLOCK_K elements of k
constexpr int K_STEP_BYTES = 32;           // k bytes per wgmma (16 fp16, 8 tf32, 32 int8/fp8)
constexpr int A_TILE = BLOCK_M * ROW_BYTES;
constexpr int B_TILE = BLOCK_N * ROW_BYTES;
constexpr int STAGE_BYTES = A_TILE + B_TILE;  // what lands in EACH CTA per k-tile
constexpr int A_CHUNK = 64 * ROW_BYTES;  // one MN-major box (16-bit only): 64 m x BLOCK_K k
constexpr int B_CHUNK = 64 * ROW_BYTES;
constexpr int MN_STEP_BYTES = K_STEP_BYTES / ELEM_BYTES * ROW_BYTES;  // MN-major: k rows per wgmma
// Which operand the cluster shares.  Its CLUSTER_M CTAs take CTAS_M x CTAS_N adjacent tiles (CTA rank
// r: tile row r % CTAS_M, column r / CTAS_M of the block).  Stacked along M (the default) they need the
// same B tile: each loads B_PART columns of it and multicasts them.  Side by side along N
// (CLUSTER_ALONG_N, as cuBLAS's 256 x 128 kernels with 1 x 2 clusters) they need the same A tile: each
// loads A_PART rows.  As 2 x 2 (CLUSTER_2D) each tile row shares A and each tile column B, and a CTA
// loads half of its A and half of its B: a quarter less traffic from the L2 than 2 x 1 at 128 x 256.
constexpr bool ALONG_N = CLUSTER_ALONG_N;
constexpr int CTAS_N = CLUSTER_2D ? 2 : ALONG_N ? CLUSTER_M : 1;  // tile columns of a cluster block
constexpr int CTAS_M = CLUSTER_M / CTAS_N;                         // tile rows
constexpr bool SHARE_A = CTAS_N > 1, SHARE_B = CTAS_M > 1;
constexpr int A_PART = BLOCK_M / CTAS_N;  // rows of A each CTA loads for its tile row of the cluster
constexpr int B_PART = BLOCK_N / CTAS_M;  // columns of B each CTA loads for its tile column
// A shared MN-major tile of one 64-wide box (BLOCK_N = 64 in a cluster of 2) cannot be cut along its
// 64 contiguous columns (the box row is one 128-byte swizzle row): each CTA loads BLOCK_K / CLUSTER_M
// of its k rows instead, 128 bytes each, at the same place in every CTA's slot.
template <int PART>
constexpr bool MN_K_SPLIT = PART * CLUSTER_M == 64 && CLUSTER_M > 1 && !CLUSTER_2D;
constexpr int GROUP_UNITS = GROUP_M / CTAS_M;  // unit rows per group
// Stage 4: a D staging buffer per consumer warpgroup (64 x BLOCK_N 16-bit), between the ring and the barriers.
#ifndef EPI_PARTS
#define EPI_PARTS 1  // column parts the staged epilogue goes through (a buffer of BLOCK_N / EPI_PARTS columns)
#endif
#ifndef EPI_32BIT
#define EPI_32BIT 0  // 1: fp32 / s32 D through the same buffer too (twice the column parts); else from registers
#endif
constexpr bool D_STAGED = TMA_STORE_EPILOGUE && (sizeof(elem_d) == 2 || EPI_32BIT);
#ifndef D_FROM_REGISTERS
#define D_FROM_REGISTERS 1  // 0: no register-path epilogue; the host launches it only with D's tensor map
#endif
#ifndef EPI_BUFS
#define EPI_BUFS 1  // 2: the parts alternate between two buffers, so writing one overlaps the TMA reading the other
#endif
#ifndef EPI_OVERLAP
#define EPI_OVERLAP 0  // 1: the next tile's first k-tile issued in two column halves between the epilogue's halves
#endif
// EPI_OVERLAP: the tensor cores idle from a tile's last wgmma to the next tile's first; the epilogue
// sits there (bf16 with D not written at all ran 102-104% of cuBLAS against 98-100%). So the
// epilogue stores the columns [0, BLOCK_N / 2) of the tile, then issues the next tile's first k-tile
// on that half of the accumulators (m64 x BLOCK_N / 2 wgmmas, scale_d = 0: they overwrite what was
// just stored), stores the other half while those run, and issues the first k-tile's other half.
// The next tile's full-width wgmmas wait for both halves to retire first (different shapes on the
// same registers are not ordered by wgmma.fence alone).
constexpr bool OVERLAP = EPI_OVERLAP;
// staging bytes of one m64 block (16-bit columns)
constexpr int ATOM_BUF = 64 * (BLOCK_N / EPI_PARTS) * 2 * EPI_BUFS;
constexpr int D_BUF = D_STAGED ? M_ATOMS * ATOM_BUF : 0;  // per consumer
constexpr int D_PARTS = EPI_PARTS * (int)sizeof(elem_d) / 2;  // column parts of a 32-bit D: twice as many

static_assert(sizeof(elem_a) == sizeof(elem_b), "A and B of one type");
static_assert(BLOCK_K * ELEM_BYTES == ROW_BYTES, "one 128-byte swizzle row of k per tile row");
static_assert(ELEM_BYTES == 2 || (A_K_MAJOR && B_K_MAJOR), "wgmma reads tf32/int8/fp8 K-major only");
static_assert(BLOCK_M % WG_M == 0 && THREADS == 128 * (CONSUMERS + 1), "producer + one consumer per WG_M rows");
static_assert(M_ATOMS == 1 || (M_ATOMS == 2 && SPLIT_K == 1 && !PROMOTE), "WG_M = 128: 16-bit, tf32, int8; no split-K");
static_assert(BLOCK_N % 64 == 0 || (B_K_MAJOR && BLOCK_N % 8 == 0), "wgmma N (and MN-major boxes of 64)");
static_assert(BLOCK_N <= 256 && (!PROMOTE || BLOCK_N <= 192), "wgmma N; fp8: two accumulator arrays");
static_assert(CLUSTER_M >= 1 && CLUSTER_M <= 32 && (B_PART % (B_K_MAJOR ? 8 : 64) == 0 || MN_K_SPLIT<B_PART>),
              "each CTA loads whole 64-column boxes (MN-major) or 8-row swizzle atoms (K-major) of B");
static_assert(B_BOX_K == (MN_K_SPLIT<B_PART> ? BLOCK_K / CLUSTER_M : BLOCK_K) &&
              A_BOX_K == (MN_K_SPLIT<A_PART> ? BLOCK_K / CLUSTER_M : BLOCK_K),
              "the host's MN-major boxes: BLOCK_K rows of k, or this CTA's share of them when split along k");
static_assert(SPLIT_K == 1 || !INT_ACC, "split-K sums fp32 partial tiles");
static_assert(B_BOX_N == B_PART, "the host's K-major B box (B_BOX_N rows) is one CTA's part of B");
static_assert(A_BOX_M == A_PART && (A_PART % (A_K_MAJOR ? 8 : 64) == 0 || MN_K_SPLIT<A_PART>),
              "the host's K-major A box (A_BOX_M rows) is one CTA's part of A: 8-row atoms or 64-row boxes");
static_assert(CTAS_N == 1 || SPLIT_K == 1, "split-K's tile numbering assumes clusters along M");
static_assert(!CLUSTER_2D || (CLUSTER_M == 4 && !ALONG_N), "2-D clusters: 2 x 2 CTAs");
static_assert(GROUP_M % CTAS_M == 0, "groups of whole cluster units");
static_assert(SPLIT_K == 1 || TMA_STORE_EPILOGUE, "split-K lives in the stage-4 kernel (workspace arguments)");
static_assert(!GPC_ORDER || (TMA_STORE_EPILOGUE && SPLIT_K == 1), "GPC_ORDER: stage 4 (the counters argument)");
static_assert(!TAIL_SPLIT || (TMA_STORE_EPILOGUE && SPLIT_K == 1 && !INT_ACC),
              "the tail split: stage 4 (workspace arguments), fp32 partial sums, not with split-K");
static_assert(STAGES >= 2, "slot hand-back lags one k-tile behind");
static_assert(D_FROM_REGISTERS || D_STAGED, "a config without the register-path epilogue stages its D");
static_assert(!OVERLAP || (TMA_STORE_EPILOGUE && D_STAGED && !D_FROM_REGISTERS && !PROMOTE && ELEM_BYTES == 2 &&
                           M_ATOMS == 1 && SPLIT_K == 1 && BLOCK_N == 256 && D_PARTS % 2 == 0),
              "EPI_OVERLAP: 16-bit inputs, 128 x 256 tiles of one m64 block per consumer, D through TMA only");
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES + CONSUMERS * D_BUF + 1024 + 16 * STAGES + 4 * CONSUMERS + 4,
              "SMEM_BYTES too small");
static_assert(PRODUCER_REGS * 128 + CONSUMER_REGS * 128 * CONSUMERS <= 65536, "register file");


template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

// The cluster scheduler: unit index u -> (first row of this CTA's tile, first
// column, batch entry), for CTA `rank` of the cluster.  Units are ordered as
// stage 2 orders tiles (GROUP_UNITS unit rows at a time), over a grid of
// units_m x units_n units, ceil(tiles_m / CTAS_M) x ceil(tiles_n / CTAS_N):
// CTA r takes tile row CTAS_M um + r % CTAS_M, column CTAS_N un + r / CTAS_M.
//
// WAVE_SNAKE: the DRAM reads between waves.  The clusters walk their units
// in step, one wave of `clusters` units after another, each wave through k
// from 0 to K; a wave's operands (tf32 at 4096^3: 2048 rows of A and 2112
// columns of B, 16 KB per k) outgrow the L2 long before its last k-tile,
// so the next wave, starting again at k = 0, finds none of what it shares
// with this one still there.  With WAVE_SNAKE, odd groups walk their columns
// right to left (a wave that crosses into the next group keeps the same B
// columns), and every other wave of a CTA (its odd-numbered units) walks k
// from K down to 0: it starts on the k-tiles the wave before has just read,
// still in the L2.  An LRU model of the L2 (tools/l2_order_model.py) put
// the DRAM reads of tf32 4096^3 at 267 MB instead of 298 and bf16 4096^3
// (groups of 16 tile rows) at 110 instead of 149; Nsight Compute measured
// 278 against 298 and 124 against 187 (groups of 8, the config before).
// Under the power cap those bytes are energy, and the clock follows.  Only the
// producer needs the order: a consumer sums its slots in whatever order they
// come (fp32 sums, so the bits differ from the forward order's, and stay the
// same from call to call: the order is a function of the launch).
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
    const int un = WAVE_SNAKE && (first / GROUP_UNITS) % 2 ? units_n - 1 - in_group / rows : in_group / rows;
    return {(um * CTAS_M + rank % CTAS_M) * BLOCK_M, (un * CTAS_N + rank / CTAS_M) * BLOCK_N, z};
}

// Accumulators of m64 block `a` of a consumer's WG_M rows.
template <typename Acc, int NACC>
__device__ __forceinline__ Acc (&atom(Acc (&d)[NACC], int a))[ATOM_ACC] {
    return *reinterpret_cast<Acc(*)[ATOM_ACC]>(&d[a * ATOM_ACC]);
}

// The wgmmas of one k-tile (128 bytes of k: 4 k steps, M_ATOMS each) for a consumer warpgroup
// whose A rows start at a_base (64-row blocks 8 KB apart in both A layouts); scale_first = 0
// overwrites d instead of adding.
template <typename Acc, int NACC>
__device__ __forceinline__ void mma_ktile(Acc (&d)[NACC], unsigned a_base, unsigned b_base, int scale_first) {
    static_assert(NACC == M_ATOMS * ATOM_ACC, "one accumulator array per m64 block");
    const unsigned a16 = smem_units(a_base), b16 = smem_units(b_base);  // descriptors in 16-byte units: adds only
#pragma unroll
    for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
        const unsigned long long db = B_K_MAJOR ? wgmma_desc_k_major_units(b16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(b16 + kk * MN_STEP_BYTES / 16, B_CHUNK);
#pragma unroll
        for (int a = 0; a < M_ATOMS; ++a) {
            const unsigned a_atom = a16 + a * A_CHUNK / 16;
            const unsigned long long da = A_K_MAJOR ? wgmma_desc_k_major_units(a_atom + kk * K_STEP_BYTES / 16)
                                                    : wgmma_desc_mn_major_units(a_atom + kk * MN_STEP_BYTES / 16, A_CHUNK);
            Mma::mma(atom(d, a), da, db, kk == 0 ? scale_first : 1);
        }
    }
}

// EPI_OVERLAP: the wgmmas of one k-tile on tile columns [H BLOCK_N / 2, (H + 1) BLOCK_N / 2), into
// that half of a consumer's accumulators (the first ATOM_ACC / 2 registers hold columns 0 .. BLOCK_N / 2
// - 1 in the wgmma fragment layout, whatever N).  B's rows (K-major) or 64-column boxes (MN-major) of
// that half start BLOCK_N / 2 * 128 bytes into the slot either way.
template <int H, typename Acc, int NACC>
__device__ __forceinline__ void mma_ktile_half(Acc (&d)[NACC], unsigned a_base, unsigned b_base, int scale_first) {
    // (built, never run, by configs other than EPI_OVERLAP's 128 x 256: the static_assert above checks those)
    constexpr int HALF_N = BLOCK_N == 256 ? 128 : 64;  // (MmaHalf's N)
    auto& half = *reinterpret_cast<Acc(*)[HALF_N / 2]>(&d[H * ATOM_ACC / 2]);
    const unsigned a16 = smem_units(a_base), b16 = smem_units(b_base + H * (BLOCK_N / 2) * ROW_BYTES);
#pragma unroll
    for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
        const unsigned long long db = B_K_MAJOR ? wgmma_desc_k_major_units(b16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(b16 + kk * MN_STEP_BYTES / 16, B_CHUNK);
        const unsigned long long da = A_K_MAJOR ? wgmma_desc_k_major_units(a16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(a16 + kk * MN_STEP_BYTES / 16, A_CHUNK);
        MmaHalf::mma(half, da, db, kk == 0 ? scale_first : 1);
    }
}

// One operand's k-tile: the whole tile (ROWS rows of m or n, plain TMA loads) or, when the cluster
// shares it, this CTA's PART rows, multicast to every CTA of the cluster at the same offset.  K-major:
// one box of BLOCK_K x rows (128-byte rows of k); MN-major (16-bit only): boxes of 64 m or n x BLOCK_K,
// 8 KB each.  Either way row r of the tile starts at byte r * 128 of the slot.  An MN-major tile of
// one box shared by the cluster is split along k (MN_K_SPLIT): k row j at byte j * 128.
// `part`: this CTA's index among the CTAs that share the tile, `mask`: their bits.
template <bool K_MAJOR, bool SHARED, int ROWS, int PART>
__device__ __forceinline__ void load_operand(unsigned dst, const TmaDesc* map, unsigned bar, int k0, int mn0,
                                             int z, int part, unsigned short mask) {
    const int first = SHARED ? part * PART : 0;  // first row this CTA loads
    constexpr int COUNT = SHARED ? PART : ROWS;
    if constexpr (K_MAJOR) {
        if constexpr (SHARED) tma_load_3d_multicast(dst + first * 128, map, bar, k0, mn0 + first, z, mask);
        else tma_load_3d(dst, map, bar, k0, mn0, z);
    } else if constexpr (SHARED && MN_K_SPLIT<PART>) {
        constexpr int K_ROWS = BLOCK_K / CLUSTER_M;
        tma_load_3d_multicast(dst + part * K_ROWS * 128, map, bar, mn0, k0 + part * K_ROWS, z, mask);
    } else {
#pragma unroll
        for (int j = 0; j < COUNT / 64; ++j) {
            const int row = first + 64 * j;
            if constexpr (SHARED) tma_load_3d_multicast(dst + row * 128, map, bar, mn0 + row, k0, z, mask);
            else tma_load_3d(dst + row * 128, map, bar, mn0 + row, k0, z);
        }
    }
}

// k-tile kt of this CTA's tile: its A and B, the one the cluster shares in parts.
__device__ __forceinline__ void load_tile(const TmaDesc* tma_a, const TmaDesc* tma_b, unsigned a_dst,
                                          unsigned b_dst, unsigned bar, int kt, int m0, int n0, int za, int zb,
                                          int rank) {
    const int k0 = kt * BLOCK_K;
    mbar_arrive_expect_tx(bar, STAGE_BYTES);
    // A goes to the CTAs of this tile row (ranks rank % CTAS_M + CTAS_M j), B to those of this tile column.
    const int rm = rank % CTAS_M, rn = rank / CTAS_M;
    const unsigned short a_mask = SHARE_A ? ((1u << CLUSTER_M) - 1) / ((1u << CTAS_M) - 1) << rm : 0;
    const unsigned short b_mask = ((1u << CTAS_M) - 1) << (CTAS_M * rn);
    load_operand<A_K_MAJOR, SHARE_A, BLOCK_M, A_PART>(a_dst, tma_a, bar, k0, m0, za, rn, a_mask);
    load_operand<B_K_MAJOR, SHARE_B, BLOCK_N, B_PART>(b_dst, tma_b, bar, k0, n0, zb, rm, b_mask);
}

// This cluster's walk over the units: the first, the one after u, and the k-tiles of u (the last partial
// wave's units in two k parts with TAIL_SPLIT, tail_split.cuh; off without a workspace).  Each role builds
// its own after setmaxnreg: built once above the role split, its values stayed live across it, and NVRTC
// 13.5 kept two of them on the stack in the producer's 40 registers (s4b2t with fp32 D).
struct UnitWalk {
    int units, ktiles, cluster, clusters, first;
    TailSplit tail;
    __device__ __forceinline__ UnitWalk(int units_, int ktiles_, bool split, int position)
        : units(units_), ktiles(ktiles_), cluster(position), clusters(cluster_count_x()) {
        tail = tail_split(units, ktiles, clusters, cluster, TAIL_SPLIT && split);
        first = !TAIL_SPLIT || cluster < tail.dp ? cluster : next(cluster - clusters);
    }
    __device__ __forceinline__ int next(int u) const {
        return TAIL_SPLIT ? tail_next_unit(tail, u, units, clusters, cluster) : u + clusters;
    }
    __device__ __forceinline__ void range(int u, int& kt0, int& kt1) const {  // (within k_range's)
        if (TAIL_SPLIT && u >= tail.dp) {
            kt0 = tail.owner ? 0 : tail.split;
            kt1 = tail.owner ? tail.split : ktiles;
        }
    }
};

// tma_d: D's tensor map (stage 4, 16-bit D the host could describe), else null: D from registers.
// workspace, counters: split-K (SPLIT_K > 1) partial tiles and per-tile arrival counts.
__device__ __forceinline__ void wgmma_cluster_body(const Gemm& g, int batch, const TmaDesc* tma_a,
                                                   const TmaDesc* tma_b, const TmaDesc* tma_d = nullptr,
                                                   float* workspace = nullptr, int* counters = nullptr,
                                                   const float* scale_a = nullptr, const float* scale_b = nullptr) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // Identical offsets in every CTA of the cluster (same kernel, same layout): multicast relies on it.
    const unsigned tiles = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned d_bufs = tiles + STAGES * STAGE_BYTES;  // CONSUMERS D staging buffers (stage 4), 1024-aligned
    const unsigned full = d_bufs + CONSUMERS * D_BUF;      // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;            // STAGES mbarriers, then CONSUMERS ints (TAIL_SPLIT)
    auto a_slot = [&](int s) { return tiles + s * STAGE_BYTES; };
    auto b_slot = [&](int s) { return tiles + s * STAGE_BYTES + A_TILE; };

    const int tiles_m = (g.M + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (g.N + BLOCK_N - 1) / BLOCK_N;
    const int units_m = (tiles_m + CTAS_M - 1) / CTAS_M;
    const int units_n = (tiles_n + CTAS_N - 1) / CTAS_N;
    // Work units: (cluster tile unit, k range); the SPLIT_K ranges of a tile are consecutive units.
    const int units = units_m * units_n * batch * SPLIT_K;  // < 2^31: launch.plan checks
    const int ktiles = (g.K + BLOCK_K - 1) / BLOCK_K;
    const int kt_per = (ktiles + SPLIT_K - 1) / SPLIT_K;  // k-tiles per range (the last may have fewer, or none)
    auto k_range = [&](int u, int& kt0, int& kt1) {
        kt0 = min(ktiles, (u % SPLIT_K) * kt_per);
        kt1 = min(ktiles, kt0 + kt_per);
    };
    const int rank = cluster_ctarank();
    const int tid = threadIdx.x;
    const int wg = tid / 128;
    // This cluster's place in every wave: its id, or with GPC_ORDER the position rank 0 counts out in the
    // barrier block below (gpc_order.cuh: before the wait is safe), read by each role after setmaxnreg
    // from rank 0's shared word (nothing live across the role split: see UnitWalk).
    const unsigned position_word = empty + 8 * STAGES + 4 * CONSUMERS;
    auto wave_position = [&] { return GPC_ORDER ? gpc_read_position(position_word) : (int)cluster_id_x(); };

    if (tid == 0) {
        if (GPC_ORDER && rank == 0) gpc_position_into(counters, position_word);
        tma_prefetch_desc(tma_a);
        tma_prefetch_desc(tma_b);
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, CONSUMERS * CLUSTER_M);
        }
        mbar_init_fence();
    }
    cluster_sync();  // both CTAs' barriers exist before anyone multicasts into them (and the position is set)
    // Programmatic dependent launch (pdl.cuh): all of the above may overlap the previous GEMM's last
    // tiles; nothing below (loads of A and B, scales, C, D, split-K scratch) may.
    grid_dependency_wait();

    if (wg == 0) {
        // ---- producer warpgroup: one thread streams this CTA's k-tiles (and half of B for both) ----
        setmaxnreg_dec<PRODUCER_REGS>();
        if (tid == 0) {
            const UnitWalk walk(units, ktiles, workspace != nullptr, wave_position());
            int s = 0;
            unsigned phase = 0;     // parity of slot s's current use u
            bool first_lap = true;  // uses u = 0 need no wait: the rings start empty
            bool backwards = false;  // WAVE_SNAKE: this unit's k-tiles from the last to the first
            for (int u = walk.first; u < units; u = walk.next(u), backwards = WAVE_SNAKE && !backwards) {
                const TileCoord c = unit_coord(u / SPLIT_K, units_m, units_n, rank);
                // A tile below (or right of) the matrix computes nothing that is stored: any rows (columns)
                // will do, and its loads still bring the peers their parts of the shared operand.
                const int m_load = min(c.m0, (tiles_m - 1) * BLOCK_M);
                const int n_load = min(c.n0, (tiles_n - 1) * BLOCK_N);
                const int za = g.batch_a ? c.z : 0;  // a broadcast operand's map has one batch entry
                const int zb = g.batch_b ? c.z : 0;
                int kt0, kt1;
                k_range(u, kt0, kt1);
                walk.range(u, kt0, kt1);
                for (int kt = kt0; kt < kt1; ++kt) {
                    if (!first_lap) mbar_wait_cluster_guarded(empty + 8 * s, phase ^ 1);  // use u-1 released
                    load_tile(tma_a, tma_b, a_slot(s), b_slot(s), full + 8 * s, backwards ? kt0 + kt1 - 1 - kt : kt,
                              m_load, n_load, za, zb, rank);
                    if (++s == STAGES) {
                        s = 0;
                        phase ^= 1;
                        first_lap = false;
                    }
                }
            }
            if (GPC_ORDER && rank == 0) gpc_count_out(counters);
            grid_dependents_launch();  // every load issued: the next GEMM may start its prologue
        }
        cluster_sync();  // nobody exits while the peer may still touch its shared memory
        return;
    }
    {
        // ---- consumer warpgroups 1..CONSUMERS: rows 64 (wg-1) .. 64 wg - 1 of each tile ----
        setmaxnreg_inc<CONSUMER_REGS>();
        const UnitWalk walk(units, ktiles, workspace != nullptr, wave_position());
        const int cw = __shfl_sync(0xffffffffu, wg - 1, 0);  // warp-uniform to the compiler: descriptors in uniform registers
        const int wg_tid = tid % 128;
        // Thread q < CLUSTER_M of the warpgroup releases slots in CTA q of the cluster.
        const bool releaser = wg_tid < CLUSTER_M;
        const unsigned target = releaser ? wg_tid : 0;
        const int warp = wg_tid / 32, lane = tid % 32;

        // fp8: per-tensor scales (device pointers, null = 1), applied to each finished tile.
        const float scale = PROMOTE ? (scale_a ? *scale_a : 1.0f) * (scale_b ? *scale_b : 1.0f) : 1.0f;
        acc_t acc[M_ATOMS * ATOM_ACC];
        acc_t part[ATOM_ACC];  // fp8's per-k-tile partial sums (unused otherwise: optimised away)
        int s = 0;
        unsigned phase = 0;
        // Between tiles the tensor cores wait for this warpgroup's epilogue and whatever precedes the next
        // tile's first wgmma, so nothing else goes there: the next tile's coordinates (three divisions,
        // ~120 instructions) are worked out while the first k-tile's wgmmas run. bf16 at 4096x14336x4096:
        // 98.6-100.2% of cuBLAS against 95.9-98.6% in four A/B runs; 4096^3 and fp16 within the runs'
        // spread (2026-11-23-h100-ab-tile-shadow-*.json). Not for fp8 (PROMOTE), where no gain showed: in
        // the shadow of its first k-tile (a group's start, no wgmma wait after it) 0.95x against 0.96x at
        // 4096^3; of its second, 98.0 / 98.3% against 97.3 / 97.1% in one run, 96.3 / 96.6% against
        // 97.0 / 97.2% (the old build) in the next; with PROMOTE_EACH ptxas moved the slot release behind
        // the adds, 0.80x against 0.92x. The accumulators are still zeroed here: leaving them to the first
        // wgmma's scale_d = 0 kept the epilogue's values live up to it, and most 128 x 256 configs spilled.
        TileCoord next = unit_coord(walk.first / SPLIT_K, units_m, units_n, rank);
        auto in_wgmma_shadow = [&](int u, int kt, int kt0) {
            if (COORD_SHADOW && kt == kt0) next = unit_coord(walk.next(u) / SPLIT_K, units_m, units_n, rank);
        };
        bool pre_issued = false;  // EPI_OVERLAP: this tile's first k-tile went out in the last one's epilogue
        // EPI_OVERLAP never zeroes the accumulators (a tile's first wgmmas overwrite them): with K = 0 (no
        // wgmma at all; tcgemm.gemm computes D = beta C itself and never launches) there is nothing to store.
        if (OVERLAP && ktiles == 0) watchdog_fault();
        for (int u = walk.first; u < units; u = walk.next(u)) {
            const TileCoord c = COORD_SHADOW ? next : unit_coord(u / SPLIT_K, units_m, units_n, rank);
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

            int prev = pre_issued ? (s + STAGES - 1) % STAGES : 0, kt0, kt1;
            k_range(u, kt0, kt1);
            walk.range(u, kt0, kt1);
            const int kt_first = kt0 + (pre_issued ? 1 : 0);  // the first k-tile this loop issues
            for (int kt = kt_first; kt < kt1; ++kt) {
                mbar_wait_guarded(full + 8 * s, phase);
                const unsigned a_base = a_slot(s) + cw * M_ATOMS * A_CHUNK;  // = cw * WG_M rows of 128 bytes
                const unsigned b_base = b_slot(s);
                if constexpr (PROMOTE_NEXT) {
                    // `part` sums a group of PROMOTE_EVERY k-tiles (the second consumer's first group is
                    // half as long), added to the total once this k-tile's data is here; in between the
                    // loop runs like the 16-bit one (wait for the previous k-tile, release its slot).
                    const unsigned j = kt - kt0;
                    const bool group_start = j == 0 || (j + cw * (PROMOTE_EVERY / CONSUMERS)) % PROMOTE_EVERY == 0;
                    if (j > 0 && group_start) {
                        wgmma_wait<0>();  // the previous group retired: its last slot goes back
                        if (releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                        wgmma_fence_accumulators(part);
#pragma unroll
                        for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] += part[i];
                    }
                    wgmma_fence();  // (also orders the adds' reads of `part` before its overwrite)
                    mma_ktile(part, a_base, b_base, group_start ? 0 : 1);
                    wgmma_commit();
                    in_wgmma_shadow(u, kt, kt_first);
                    if (!group_start) {
                        wgmma_wait<1>();  // the k-tile before this one retired
                        if (releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                    }
                } else if constexpr (PROMOTE_EACH) {
                    // Every k-tile: wait for it at once, release its slot, add its partial sums.
                    wgmma_fence();  // (also orders the last adds' reads of `part` before its overwrite)
                    mma_ktile(part, a_base, b_base, 0);
                    wgmma_commit();
                    in_wgmma_shadow(u, kt, kt_first);
                    wgmma_wait<0>();
                    if (releaser) mbar_arrive_cluster(cluster_map(empty + 8 * s, target));
                    wgmma_fence_accumulators(part);
#pragma unroll
                    for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] += part[i];
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
                    wgmma_wait<1>();  // the k-tile before this one retired
                    if (kt > kt0 && releaser) mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));
                }
                prev = s;
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            wgmma_wait<0>();  // the last k-tile (p1: already retired, and its slot released, in the loop)
            if (kt1 <= kt_first) in_wgmma_shadow(u, kt0, kt0);  // no k-tiles (K = 0, an empty split-K range, or only the pre-issued one)
            pre_issued = false;
            if (!PROMOTE_EACH && kt1 > kt0 && releaser)
                mbar_arrive_cluster(cluster_map(empty + 8 * prev, target));  // last slot
            if constexpr (PROMOTE_NEXT) {  // the last group's partial sums
                wgmma_fence_accumulators(part);
#pragma unroll
                for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] += part[i];
            }
            wgmma_fence_accumulators(acc);
#if TAIL_SPLIT
            if (u >= walk.tail.dp) {  // one of the two parts of a tail tile; the warpgroup that completes it writes D
                volatile int* flag = reinterpret_cast<volatile int*>(smem_raw + (empty + 8 * STAGES - smem_u32(smem_raw)));
                int* tail_counters = GPC_ORDER ? counters + GPC_INTS : counters;  // (after GPC_ORDER's)
                if (!tail_reduce<CONSUMERS>(acc, workspace, tail_counters, (u - walk.tail.dp) * CLUSTER_M + rank,
                                            walk.tail.owner ? 0 : 1, cw, 1 + cw, flag + cw))
                    continue;
            }
#endif
#if SPLIT_K > 1
            {  // this unit's partial tile; the warpgroup that completes the tile goes on to write D
                __shared__ int last_flag[CONSUMERS];
                const int tile = (c.z * units_m * CLUSTER_M + c.m0 / BLOCK_M) * tiles_n + c.n0 / BLOCK_N;
                if (!split_k_reduce<SPLIT_K, CONSUMERS>(acc, workspace, counters, tile, u % SPLIT_K, cw, 1 + cw,
                                                        &last_flag[cw]))
                    continue;
            }
#endif

            // Epilogue of this tile while the producers already load the next one.
            Gemm gz = g;  // batch entry c.z of C and D
            // fp8's scales ride on alpha (one multiply per value in the epilogue), except with p1: there
            // this build ran 83-84% of _scaled_mm against 92-93% with the multiply below, same process
            // (2026-11-23-h100-ab-fp8-p1-fold-e652c2c.json; p4 98.2% folded). Its main loop's SASS is
            // the same instructions either way: p1's speed moves with code placement we do not control.
            if constexpr (PROMOTE_NEXT) gz.alpha *= scale;
            if constexpr (PROMOTE_EACH) {
                if (scale != 1.0f) {
#pragma unroll
                    for (int i = 0; i < BLOCK_N / 2; ++i) acc[i] *= scale;
                }
            }
            gz.D += c.z * g.batch_d;
            if (gz.C) gz.C += c.z * g.batch_c;
#if TMA_STORE_EPILOGUE
            if (OVERLAP && g.beta == 0.0f) {  // (tma_d is there: these configs write D through TMA only)
                // Not with beta != 0: the blend's registers beside the halves in flight serialized every wgmma.
                const int nu = walk.next(u);
                int nk0 = 0, nk1 = 0;
                if (nu < units) {
                    k_range(nu, nk0, nk1);
                    walk.range(nu, nk0, nk1);
                }
                const unsigned buf = d_bufs + cw * D_BUF;
                const int z = g.batch_d ? c.z : 0, m_wg = c.m0 + cw * WG_M;
                epilogue_tma_store<D_PARTS, EPI_BUFS, 0, D_PARTS / 2, false>(gz, acc, buf, tma_d, m_wg, c.n0, z, 1 + cw);
                if (nk1 > nk0) {  // the next tile's first k-tile, columns [0, BLOCK_N / 2)
                    mbar_wait_guarded(full + 8 * s, phase);
                    wgmma_fence();
                    mma_ktile_half<0>(acc, a_slot(s) + cw * A_CHUNK, b_slot(s), 0);
                    wgmma_commit();
                }
                epilogue_tma_store<D_PARTS, EPI_BUFS, D_PARTS / 2, D_PARTS, false>(gz, acc, buf, tma_d, m_wg, c.n0, z,
                                                                                    1 + cw);
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
            if constexpr (D_STAGED) {
                if (tma_d != nullptr) {  // stage 4: stmatrix -> shared -> TMA store, overlapping the next tile
#pragma unroll
                    for (int a = 0; a < M_ATOMS; ++a)
                        epilogue_tma_store<D_PARTS, EPI_BUFS>(gz, atom(acc, a), d_bufs + cw * D_BUF + a * ATOM_BUF,
                                                              tma_d, c.m0 + cw * WG_M + 64 * a, c.n0,
                                                              g.batch_d ? c.z : 0, 1 + cw);
                    continue;
                }
            }
#endif
            if constexpr (!D_FROM_REGISTERS) {
                // Configs whose register-path epilogue does not fit their registers (fp8 at 128 x 192: 96
                // accumulators and the path's hoisted addresses spilled) store D through TMA only: the
                // host (dispatch.select) never runs them without D's map; fail loudly should it happen.
                watchdog_fault();
                continue;
            }
            const int col = c.n0 + 2 * (lane % 4);
#pragma unroll
            for (int a = 0; a < M_ATOMS; ++a) {
                const int row = c.m0 + cw * WG_M + 64 * a + warp * 16 + lane / 4;
#pragma unroll
                for (int j = 0; j < BLOCK_N / 8; ++j) {
                    store_d_run<2>(gz, row, col + 8 * j, &acc[a * ATOM_ACC + 4 * j]);
                    store_d_run<2>(gz, row + 8, col + 8 * j, &acc[a * ATOM_ACC + 4 * j + 2]);
                    asm volatile("" ::: "memory");  // keep ptxas from hoisting all 64 stores' addresses (s32 D spilled)
                }
            }
        }
        // EPI_OVERLAP leaves no wgmma in flight after its last tile, but ptxas cannot know that: without this
        // wait here it put one at the loop's back-edge (C7517), draining the pre-issued k-tile every tile.
        if constexpr (OVERLAP) wgmma_wait<0>();
#if TMA_STORE_EPILOGUE
        if (wg_tid == 0) tma_store_wait<0>();  // the last tile's stores complete before shared memory goes
#endif
        cluster_sync();  // (the producer warpgroup's matching barrier is above)
    }
}

#if TMA_STORE_EPILOGUE
TCGEMM_TMA_STORE_PERSISTENT_KERNEL(wgmma_tma_store, wgmma_cluster_body, __cluster_dims__(CLUSTER_M, 1, 1))
#else
TCGEMM_TMA_PERSISTENT_KERNEL(wgmma_cluster, wgmma_cluster_body, __cluster_dims__(CLUSTER_M, 1, 1))
#endif
