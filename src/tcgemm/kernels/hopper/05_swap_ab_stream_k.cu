// Hopper stage 5 — decode: the weight as wgmma's A, the few tokens as its N, the weight's k-tiles
// shared out evenly over the SMs (sm_90a).
//
// The problem.  At decode a linear layer multiplies M = 1..16 tokens (A, M x K) by a weight W (N x K,
// i.e. B = W^T, "rc").  Every weight byte is used M times, so the GEMM is a stream of the weight
// through the SMs: its floor is W's bytes over HBM bandwidth (Llama-3-8B's down projection, 117 MB:
// ~40 us).  Stages 1-4 put the tokens on wgmma's M side, whose atom is 64 rows, so at M = 1 63/64 of
// each wgmma is padding — harmless, the tensor cores idle anyway — but the tile grid is the real
// cost: N / BLOCK_N tiles (32 for N = 4096) for 132 SMs, and split-K rounds unevenly (tcgemm.tune:
// 33-84 % of the copy bandwidth where cuBLAS reaches 59-96 %).
//
// What this stage does instead:
//  * Swap A and B inside the kernel: compute D^T (N x M) = W (N x K) . A^T.  The weight tile
//    (BLOCK_N = 64 rows, or 128) is wgmma's A, in m64 atoms; the token tile (BLOCK_M = 8..64 rows of
//    A) is wgmma's N, the narrow widths of wgmma_ops.cuh.  Both are K-major in shared memory (W's rows
//    and A's rows each hold K contiguously), so the TMA boxes, the 128-byte swizzle and the
//    descriptors are those of every other Hopper stage; only the roles change.  (A 16-bit weight stored
//    K x N, B row-major, is MN-major instead: see W_K_MAJOR.)  A tile holds BLOCK_N
//    output features x BLOCK_M tokens, so the same N makes the same tiles whatever M is.
//  * Big stages: KSUB boxes along k per stage, so that each weight row is read 512 bytes or 1 KB at a
//    time rather than 128 (128-byte pieces of thousands of rows at once keep reopening DRAM rows), and
//    one CTA per SM with the deepest ring that fits (the registry's measurements).
//  * The host's grid (tcgemm.schedule.stream_k_shape) splits the k-tiles evenly: whole tiles, or s
//    CTAs per tile, where that fills half the SMs, else stream-K over all of them; partial tiles are
//    summed in a fixed order (stream_k.cuh).  The kernel only sees its contiguous run of k-tiles.
//  * The weight does not depend on the GEMM before, only A does: the first ring's worth of this CTA's
//    weight is hinted into L2 before the programmatic-dependent-launch wait (pdl.cuh, tma.cuh), so it
//    is on its way while the GEMM before drains.
//  * The epilogue writes D transposed from the accumulators (register i of lane l in warp w holds
//    feature 16 w + l / 4 + 8 ((i / 2) % 2), token 8 (i / 4) + 2 (l % 4) + i % 2): eight lanes write
//    eight adjacent features of one token, 16 bytes.  D is M x N, a fraction of W's bytes, so its
//    scattered stores cost little next to the stream; C, alpha and beta as everywhere (epilogue.cuh).
//
// fp32 inputs (3xTF32, SPLIT3): an fp32 weight streams at fp32's bytes, and the tensor cores give fp32's
// accuracy through three tf32 products (include/tf32_split.cuh): D = W_hi' X_lo + W_lo X_hi' + W_hi X_hi.  The
// weight is split in registers: wgmma takes A from registers, so each consumer thread loads its fragment of the
// raw fp32 tile (mma.m16n8k8's A fragment of its warp's 16 rows, from the swizzled tile as TMA wrote it, K- or
// MN-major), splits it and issues three wgmmas from the parts (mma_stage_split3).  The tokens, wgmma's B, must
// come from shared memory, so warps 1-3 of the producer warpgroup split each stage's token tile there into three
// planes (hi over the raw tile, hi', lo) and hand the stage to the consumers on a third barrier, split[s].  No
// copy of either operand leaves the SM.  The tensor cores' adds into an accumulator are not rounded to nearest,
// so over a long K their error would grow past fp32's: each box of k's products go into fresh registers that are
// then added to the fp32 total with FADDs.  Two consumer warpgroups, an m64 atom of the 128-row weight tile each.
// tf32 with the weight stored K x N (MN-major) takes the same register path (W_REGS) with one part and no split:
// wgmma's tf32 descriptors are K-major only, and TMA's TFLOAT32 map has rounded the weight as it copied it.
//
// Roles: warpgroup 0 is the producer (one thread issues the TMA loads of W's and A's k-tiles into a
// ring of STAGES slots; full[s] completes when all the stage's boxes are in), warpgroup 1 the consumer
// (SPLIT3: warpgroups 1 and 2; each waits on full[s], multiplies its rows of the tile, and arrives once on
// empty[s], whose count is the consumers', as soon as the wgmmas reading the slot have retired).  The ring is
// stage 1's protocol (01_warp_specialized.cu), without clusters.  SPLIT3's split[s] (count 3, one arrival per
// splitter warp) completes once per use of slot s, after full[s]'s phase of that use and before its release.
#include "gemm.cuh"
#include "wgmma.cuh"
#include "mbarrier.cuh"
#include "pdl.cuh"
#include "tma.cuh"
#include "epilogue.cuh"
#include "stream_k.cuh"
#include "tf32_split.cuh"
#include "ldmatrix.cuh"

#ifndef BLOCK_M
#define BLOCK_M 16   // tokens per tile: wgmma N
#define BLOCK_N 128  // weight rows per tile: m64 atoms of wgmma A
#define BLOCK_K 64
#define STAGES 6
#define THREADS 256
#define SMEM_BYTES (1024 + STAGES * (BLOCK_N + BLOCK_M) * 128 + 16 * STAGES + 16)
#endif
#ifndef KSUB
#define KSUB 1  // TMA boxes along k per stage: a stage reads KSUB x 128 contiguous bytes of each weight row
#endif
#ifndef L2_PREFETCH
#define L2_PREFETCH 0  // k-tiles of the weight hinted into L2 before the wait for the grid before (pdl.cuh)
#endif

// The weight (B = W^T) K-major (W row-major, as torch.nn.Linear stores it: "rc"), or MN-major for a
// 16-bit B stored row-major (K x N, "rr"): wgmma reads a transposed 16-bit A from shared memory, so the
// weight then arrives in boxes of 64 output features x BLOCK_K k (128-byte rows along N) instead of
// BLOCK_N features x BLOCK_K k, and only its descriptors change. The tokens are always K-major (A row-major).
constexpr bool W_K_MAJOR = B_LAYOUT == LAYOUT_COL;
static_assert(A_LAYOUT == LAYOUT_ROW, "the tokens K-major (A row-major)");
#if defined(PRECISION_TF32)
using Mma = WgmmaTf32<BLOCK_M>;  // (an MN-major weight from registers: W_REGS)
#elif defined(PRECISION_FP32)
using Mma = WgmmaTf32<BLOCK_M>;  // (3xTF32: the weight's parts from registers, any layout)
#elif defined(PRECISION_FP8E4M3)
using Mma = WgmmaE4m3<BLOCK_M>;
#elif defined(PRECISION_FP8E5M2)
using Mma = WgmmaE5m2<BLOCK_M>;
#elif defined(PRECISION_BF16)
using Mma = Wgmma<BLOCK_M, true, W_K_MAJOR ? 0 : 1, 0>;
#else
using Mma = Wgmma<BLOCK_M, false, W_K_MAJOR ? 0 : 1, 0>;
#endif

#if defined(PRECISION_FP32)
constexpr bool SPLIT3 = true;  // fp32 as 3xTF32, the operands split on chip (see above)
#else
constexpr bool SPLIT3 = false;
#endif
// The weight's A fragments from registers: fp32 (3xTF32) in either layout, and tf32 stored K x N, which wgmma
// cannot read from shared memory (tf32 descriptors are K-major only).  The consumer threads load their
// fragments from the tile as TMA wrote it (load_w_fragment), so no copy of the weight is made; TMA's TFLOAT32
// map has already rounded a tf32 weight, so its fragments go to the tensor cores as loaded.
#if defined(PRECISION_TF32)
constexpr bool W_REGS = SPLIT3 || !W_K_MAJOR;
#else
constexpr bool W_REGS = SPLIT3;
#endif
// fp8: wgmma adds fp8 products into its accumulators at reduced precision, so a long K's sum drifts (the
// production kernel promotes its k-tiles' sums to fp32 for the same reason, PROMOTE in hopper_config.cuh): each
// stage's products (KSUB boxes of 128 k) go into fresh chain registers (scale_d 0 at each chain's first box),
// added to the tile's fp32 total with FADDs once the stage's wgmmas retire, after the slot is released.  The
// scales (tma_scaled.cuh) multiply the finished sums at the store: one float each per tensor, or (SCALE_ROWWISE)
// scale_a per token and scale_b per weight row.
constexpr bool FP8 = sizeof(elem_a) == 1;
#ifndef SCALE_ROWWISE
#define SCALE_ROWWISE 0
#endif
constexpr bool ROW_SCALES = SCALE_ROWWISE != 0;
static_assert(!FP8 || W_K_MAJOR, "fp8: both operands K-major (wgmma has no transposed fp8 operand)");
static_assert(!ROW_SCALES || FP8, "row-wise scales: fp8");
constexpr int W_PARTS = SPLIT3 ? 3 : 1;  // wgmmas per weight fragment: hi' X_lo, lo X_hi', hi X_hi; or W X
constexpr int X_PLANES = SPLIT3 ? 3 : 1;  // token tiles per box in a stage: the raw (or hi) tile, then hi' and lo
constexpr int SPLITTER_WARPS = 3;         // SPLIT3: warps 1-3 of the producer warpgroup split the token tiles

constexpr int CONSUMERS = THREADS / 128 - 1;  // consumer warpgroups (W_REGS: one or two, an m64 atom or two each)
constexpr int ATOMS = BLOCK_N / 64;           // m64 atoms of the weight tile per k step
constexpr int WG_ATOMS = ATOMS / CONSUMERS;   // ... of one consumer: rows [64 WG_ATOMS cw, 64 WG_ATOMS (cw + 1))
constexpr int ATOM_ACC = BLOCK_M / 2;         // accumulators per thread of one m64 x BLOCK_M wgmma
constexpr int NACC = WG_ATOMS * ATOM_ACC;     // a consumer thread's accumulators
// Independent accumulator chains, the stage's boxes dealt out in turn and summed after a tile's run: a
// sum of thousands of k in one fp32 chain drifts more than cuBLAS's (16 x 4096 x 14336, fp32 out, H200:
// 7.9e-6 against 3.8e-6 relative), and at 8-16 tokens the extra accumulators are a few registers.
// (SPLIT3 promotes each box of k's partial sums to an fp32 total instead: one chain.  So does the one-part
// register path, whose tf32 inputs carry 2^-11 relative error each, far above a chain's drift.)
constexpr int CHAINS = W_REGS ? 1 : NACC <= 8 ? (KSUB >= 4 ? 4 : KSUB) : NACC <= 16 ? (KSUB >= 2 ? 2 : 1) : 1;
static_assert(KSUB % CHAINS == 0, "whole rounds of boxes per chain");
constexpr int ROW_BYTES = 128;             // one swizzle row: BLOCK_K elements of k
constexpr int K_STEPS = ROW_BYTES / 32;    // every wgmma reads 32 bytes of k per row
constexpr int W_BOX = BLOCK_N * ROW_BYTES;   // BLOCK_K of k for every weight row of the tile
constexpr int X_BOX = BLOCK_M * ROW_BYTES;   // 8-row swizzle atoms of 1024 bytes: boxes stay 1024-aligned
constexpr int W_ATOM = 64 * ROW_BYTES;       // one m64 atom of the weight: 64 rows of k (K-major), 64 k rows (MN-major)
constexpr int W_STEP = W_K_MAJOR ? 32 : 16 * ROW_BYTES;  // a wgmma's 16 k: 32 bytes along a row, or 16 rows
// An MN-major weight arrives in TMA boxes one 128-byte row of features wide (64 16-bit, 32 fp32) and BLOCK_K k deep.
constexpr int MN_BOX_N = ROW_BYTES / (int)sizeof(elem_b);
constexpr int MN_BOX_BYTES = BLOCK_K * ROW_BYTES;
constexpr int W_LOADS = W_K_MAJOR ? 1 : BLOCK_N / MN_BOX_N;  // TMA boxes per BLOCK_K of the weight tile
constexpr int W_TILE = KSUB * W_BOX;
constexpr int X_TILE = KSUB * X_BOX;
constexpr int LOAD_BYTES = W_TILE + X_TILE;                // what the TMA unit writes into a stage
constexpr int STAGE_BYTES = W_TILE + X_PLANES * X_TILE;
constexpr int STAGE_K = KSUB * BLOCK_K;      // k of one stage: the stream-K k-tile

static_assert(BLOCK_K * sizeof(elem_a) == ROW_BYTES, "one 128-byte swizzle row of k per tile row");
static_assert(BLOCK_N % 64 == 0 && BLOCK_N <= 256, "weight rows in m64 atoms");
static_assert(BLOCK_M % 8 == 0 && BLOCK_M <= 128, "wgmma N: 8 to 128 tokens (at most 128 registers a thread)");
static_assert(THREADS == 256 || (W_REGS && THREADS == 384), "a producer warpgroup, one consumer (W_REGS: or two)");
static_assert(ATOMS % CONSUMERS == 0, "whole atoms per consumer");
// (With 384 threads ptxas compiles every role within 168 registers a thread, setmaxnreg or not: 128-token tiles
// (64 accumulators, 64 + 64 stage sums, fragments) spilled.  The configs keep a consumer within that.)
static_assert(SMEM_BYTES >= 1024 + STAGES * STAGE_BYTES + 8 * (SPLIT3 ? 3 : 2) * STAGES + 4 * CONSUMERS,
              "SMEM_BYTES too small");
static_assert(!SPLIT3 || (sizeof(elem_a) == 4 && BLOCK_K == 32), "3xTF32: fp32 inputs, 32 k per 128-byte row");
static_assert(W_K_MAJOR || BLOCK_N % MN_BOX_N == 0, "whole MN-major boxes per weight tile");
static_assert(KSUB >= 1 && KSUB <= 8, "boxes per stage");

struct SwapTile {
    int z, m0, n0;  // batch entry, first token, first weight row (output feature)
};

// Tile t, tokens fastest: at M > BLOCK_M the CTAs side by side read the same weight rows (L2 hits).
__device__ __forceinline__ SwapTile swap_tile(int t, int tiles_m, int tiles_n) {
    const int per_z = tiles_m * tiles_n;
    const int z = t / per_z, r = t % per_z;
    return {z, (r % tiles_m) * BLOCK_M, (r / tiles_m) * BLOCK_N};
}

// D[m][n] for the accumulators of one tile: feature n along the registers' rows, token m along columns.
__device__ __forceinline__ void store_transposed(const Gemm& g, const float (&acc)[NACC], const SwapTile& c, int cw,
                                                 const float* scale_a, const float* scale_b) {
    Gemm gz = g;
    gz.D += (i64)c.z * g.batch_d;
    if (g.C) gz.C += (i64)c.z * g.batch_c;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
#pragma unroll
    for (int a = 0; a < WG_ATOMS; ++a)
#pragma unroll
        for (int i = 0; i < ATOM_ACC; ++i) {
            const int n = c.n0 + 64 * (cw * WG_ATOMS + a) + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
            const int m = c.m0 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
            float v = acc[a * ATOM_ACC + i];
            if constexpr (ROW_SCALES) {  // (2-D problems only; a null vector is all ones: a number went into alpha)
                if (m < g.M && n < g.N)
                    v *= (scale_a ? __ldg(scale_a + m) : 1.0f) * (scale_b ? __ldg(scale_b + n) : 1.0f);
            } else if constexpr (FP8) {
                v *= (scale_a ? __ldg(scale_a) : 1.0f) * (scale_b ? __ldg(scale_b) : 1.0f);
            }
            store_d(gz, m, n, v);
        }
}

// W_REGS: the A fragment of one m64 atom's k step of 8 (kl0 = 8 kk) in one BLOCK_K box of the weight tile at `w`, as
// TMA wrote it: mma.m16n8k8's (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of the warp's 16 rows (g = lane / 4,
// t = lane % 4).  K-major: row r at 128 r, its 16-byte chunks swizzled by r % 8, so the four 8 x 4 blocks are
// ldmatrix's four 8 x 16-byte matrices (ldmatrix.cuh: any element size), one instruction, each in one wavefront.
// MN-major: boxes of 32 rows (features) x 32 k, 4 KB each, k row kl at 128 kl, chunks swizzled by kl % 8; four
// 32-bit loads, the 4 k rows of a load pairing up on 2 x 4 banks (two wavefronts), as in the tf32 A_REGS path
// (hopper_ktile.cuh).
__device__ __forceinline__ void load_w_fragment(unsigned (&f)[4], unsigned w, int row0, int kl0) {
    const int lane = threadIdx.x % 32;
    if constexpr (W_K_MAJOR) {
        const int r = row0 + lane % 8 + 8 * ((lane / 8) % 2), chunk = kl0 / 4 + lane / 16;
        ldmatrix4<false>(f, w + r * 128 + ((chunk ^ (r & 7)) << 4));
    } else {
        const int g = lane / 4, t = lane % 4;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int r = row0 + g + 8 * (q & 1), kl = kl0 + t + 4 * (q >> 1);
            f[q] = lds_b32(w + (r >> 5) * 4096 + kl * 128 + ((((r & 31) >> 2) ^ (kl & 7)) << 4) + (r & 3) * 4);
        }
    }
}

// W_REGS: one stage's products added to `total`, the weight's fragments loaded from the tile into registers.
// The k steps go out in groups of SPLIT_STEPS (4: a box of k): the group's fragments loaded (and split), one fence,
// its W_PARTS x SPLIT_STEPS wgmmas per atom, one commit; the next group's loads wait for it (wgmma reads A registers
// asynchronously).  Measured against a group per k step with two register sets (each step's loads under the last
// step's wgmmas) and against two steps a group: within 3% at 16-128 tokens
// (2026-11-27-h100-explore-fp32dec-probes-01865bf.json); two steps a group keep the 64-token 3xTF32 tile within 168
// registers.  One part (tf32) accumulates into `total` directly, as the shared-memory path does.
// SPLIT3 adds a box of k (32) at a time: the box's products go into fresh registers, `part` (W_hi X_hi) and
// `cross` (the two small terms), which are then added to the total with FADDs, rounded to nearest.  The tensor
// cores add into an accumulator without rounding to nearest, each add losing up to an ulp of the sum so far: kept
// apart, the big sum takes a third of the adds, and the small terms' losses are ulps of small numbers.  (One
// accumulator for all three, promoted per stage of two boxes: 4.7e-7 relative error against cuBLAS's 2.2e-7 at
// 17 x 1000 x 2048; part and cross apart, per stage: 2.1e-7 against 1.2e-7 at 5 x 1000 x 2048.)
// (A template, so that builds of the other precisions, whose Mma has no register form, leave it uninstantiated.)
#ifndef SPLIT_STEPS
#define SPLIT_STEPS 4
#endif
template <bool ON = W_REGS>
__device__ __forceinline__ void mma_stage_regs(float (&total)[NACC], unsigned w, unsigned x, int cw) {
    if constexpr (ON) {
        using TfMma = WgmmaTf32<ON ? BLOCK_M : 0>;
        static_assert(K_STEPS % SPLIT_STEPS == 0, "whole groups per box");
        const int row0 = 16 * ((threadIdx.x % 128) / 32);  // the warp's 16 rows of each atom
        unsigned frag[SPLIT_STEPS][WG_ATOMS][W_PARTS][4];  // [step][atom][hi', lo, hi or W][fragment register]
        const unsigned x16 = smem_units(x);
        float part[SPLIT3 ? NACC : 1], cross[SPLIT3 ? NACC : 1];
#pragma unroll
        for (int j = 0; j < KSUB; ++j) {
#pragma unroll
            for (int k0 = 0; k0 < K_STEPS; k0 += SPLIT_STEPS) {
                // the group before has read the fragment registers (SPLIT3 waited at the end of its box)
                if (k0 > 0 || (!SPLIT3 && j > 0)) wgmma_wait<0>();
#pragma unroll
                for (int u = 0; u < SPLIT_STEPS; ++u)
#pragma unroll
                    for (int a = 0; a < WG_ATOMS; ++a) {
                        const int row = 64 * (cw * WG_ATOMS + a) + row0;
                        if constexpr (SPLIT3) {
                            unsigned raw[4];
                            load_w_fragment(raw, w + j * W_BOX, row, 8 * (k0 + u));
#pragma unroll
                            for (int q = 0; q < 4; ++q)
                                split_tf32_rounded(raw[q], frag[u][a][2][q], frag[u][a][0][q], frag[u][a][1][q]);
                        } else {
                            load_w_fragment(frag[u][a][0], w + j * W_BOX, row, 8 * (k0 + u));
                        }
                    }
                wgmma_fence();  // the fragments written, before the wgmmas read them
#pragma unroll
                for (int u = 0; u < SPLIT_STEPS; ++u) {
                    const int kk = k0 + u, first = kk == 0 ? 0 : 1;  // (scale_d 0: a SPLIT3 box starts fresh sums)
                    const unsigned xb = x16 + (j * X_BOX + 32 * kk) / 16;  // this k step's 32 bytes of the hi plane
#pragma unroll
                    for (int a = 0; a < WG_ATOMS; ++a) {
                        if constexpr (SPLIT3) {
                            auto& d = *reinterpret_cast<float(*)[ATOM_ACC]>(part + a * ATOM_ACC);
                            auto& e = *reinterpret_cast<float(*)[ATOM_ACC]>(cross + a * ATOM_ACC);
                            TfMma::mma_rs(e, frag[u][a][0], wgmma_desc_k_major_units(xb + 2 * X_TILE / 16), first);
                            TfMma::mma_rs(e, frag[u][a][1], wgmma_desc_k_major_units(xb + X_TILE / 16), 1);
                            TfMma::mma_rs(d, frag[u][a][2], wgmma_desc_k_major_units(xb), first);
                        } else {
                            auto& d = *reinterpret_cast<float(*)[ATOM_ACC]>(total + a * ATOM_ACC);
                            TfMma::mma_rs(d, frag[u][a][0], wgmma_desc_k_major_units(xb), 1);
                        }
                    }
                }
                wgmma_commit();
            }
            if constexpr (SPLIT3) {
                wgmma_wait<0>();  // the box's sums complete (and the fragment registers free)
                wgmma_fence_accumulators(part);
                wgmma_fence_accumulators(cross);
#pragma unroll
                for (int i = 0; i < NACC; ++i) total[i] += part[i] + cross[i];
            }
        }
    }
}

// The chains' sums, pairwise ((c0 + c1) + (c2 + c3)), into acc (ADD: added to it).
template <bool ADD>
__device__ __forceinline__ void add_chains(float (&acc)[NACC], float (&chain)[CHAINS][NACC]) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) wgmma_fence_accumulators(chain[c]);
#pragma unroll
    for (int i = 0; i < NACC; ++i) {
        float sum[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) sum[c] = chain[c][i];
#pragma unroll
        for (int w = 1; w < CHAINS; w *= 2)
#pragma unroll
            for (int c = 0; c + w < CHAINS; c += 2 * w) sum[c] += sum[c + w];
        acc[i] = ADD ? acc[i] + sum[0] : sum[0];
    }
}

__device__ __forceinline__ void swap_ab_body(const Gemm& g, int batch, const TmaDesc* tma_x, const TmaDesc* tma_w,
                                             const TmaDesc* /*tma_d: unused, D is written transposed*/,
                                             float* workspace, int* counters, const float* scale_a,
                                             const float* scale_b) {
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned ring = (smem_u32(smem_raw) + 1023u) & ~1023u;
    const unsigned full = ring + STAGES * STAGE_BYTES;  // STAGES mbarriers
    const unsigned empty = full + 8 * STAGES;           // STAGES mbarriers
    const unsigned split = empty + 8 * STAGES;          // SPLIT3: STAGES mbarriers (token tiles split); then the flag
    volatile int* flag = reinterpret_cast<volatile int*>(
            smem_raw + (empty + 8 * STAGES * (SPLIT3 ? 2 : 1) - smem_u32(smem_raw)));
    auto w_slot = [&](int s) { return ring + s * STAGE_BYTES; };
    auto x_slot = [&](int s) { return ring + s * STAGE_BYTES + W_TILE; };

    const int tiles_m = (g.M + BLOCK_M - 1) / BLOCK_M;
    const int tiles_n = (g.N + BLOCK_N - 1) / BLOCK_N;
    const int ktiles = (g.K + STAGE_K - 1) / STAGE_K;
    const StreamK sk{(long long)tiles_m * tiles_n * batch * ktiles, (int)gridDim.x, ktiles};
    const int cta = blockIdx.x;
    const long long run_begin = sk.begin(cta), run_end = sk.begin(cta + 1);
    const int tid = threadIdx.x;

    if (tid == 0) {
        tma_prefetch_desc(tma_x);
        tma_prefetch_desc(tma_w);
        if constexpr (L2_PREFETCH > 0) {
            // The weight does not depend on the GEMM before (only A does), so its first k-tiles can be on
            // their way while that GEMM finishes: into L2 only, which stays coherent (tma.cuh).
            int t = (int)(run_begin / ktiles), kt = (int)(run_begin % ktiles);
            const long long n = min((long long)L2_PREFETCH, run_end - run_begin);
            for (long long i = 0; i < n; ++i) {
                const SwapTile c = swap_tile(t, tiles_m, tiles_n);
#pragma unroll
                for (int j = 0; j < KSUB; ++j)
#pragma unroll
                    for (int b = 0; b < W_LOADS; ++b)
                        if constexpr (W_K_MAJOR)
                            tma_prefetch_l2_3d(tma_w, kt * STAGE_K + j * BLOCK_K, c.n0, g.batch_b ? c.z : 0);
                        else
                            tma_prefetch_l2_3d(tma_w, c.n0 + MN_BOX_N * b, kt * STAGE_K + j * BLOCK_K,
                                               g.batch_b ? c.z : 0);
                if (++kt == ktiles) {
                    kt = 0;
                    ++t;
                }
            }
        }
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, CONSUMERS);
            if constexpr (SPLIT3) mbar_init(split + 8 * s, SPLITTER_WARPS);
        }
        mbar_init_fence();
    }
    __syncthreads();
    grid_dependency_wait();  // (pdl.cuh) nothing above touched global memory

    if (tid / 128 == 0) {
        // ---- producer: one thread streams this CTA's run of k-tiles ----
        if (tid == 0) {
            int t = (int)(run_begin / ktiles), kt = (int)(run_begin % ktiles);
            SwapTile c = swap_tile(t, tiles_m, tiles_n);
            int s = 0;
            unsigned phase = 0;
            bool first_lap = true;
            for (long long x = run_begin; x < run_end; ++x) {
                if (!first_lap) mbar_wait_guarded(empty + 8 * s, phase ^ 1);  // use u - 1 released
                mbar_arrive_expect_tx(full + 8 * s, LOAD_BYTES);
#pragma unroll
                for (int j = 0; j < KSUB; ++j)  // (boxes wholly past K are zero-filled: they count their bytes)
#pragma unroll
                    for (int b = 0; b < W_LOADS; ++b)
                        if constexpr (W_K_MAJOR)
                            tma_load_3d(w_slot(s) + j * W_BOX, tma_w, full + 8 * s, kt * STAGE_K + j * BLOCK_K, c.n0,
                                        g.batch_b ? c.z : 0);
                        else  // (coordinates: n, then k)
                            tma_load_3d(w_slot(s) + j * W_BOX + b * MN_BOX_BYTES, tma_w, full + 8 * s,
                                        c.n0 + MN_BOX_N * b, kt * STAGE_K + j * BLOCK_K, g.batch_b ? c.z : 0);
#pragma unroll
                for (int j = 0; j < KSUB; ++j)
                    tma_load_3d(x_slot(s) + j * X_BOX, tma_x, full + 8 * s, kt * STAGE_K + j * BLOCK_K, c.m0,
                                g.batch_a ? c.z : 0);
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                    first_lap = false;
                }
                if (++kt == ktiles) {
                    kt = 0;
                    c = swap_tile(++t, tiles_m, tiles_n);
                }
            }
            grid_dependents_launch();  // every load issued: the next GEMM may start its prologue
        } else if (SPLIT3 && tid >= 32) {
            // ---- SPLIT3: warps 1-3 split each stage's token tile into its three planes ----
            // split[s] completes once per use of slot s, after full[s]'s phase of that use (the splitters wait
            // for it) and before the consumer's release of the slot (it waits for split[s]), so it runs neither
            // ahead of nor behind full[s] by a phase.
            int s = 0;
            unsigned phase = 0;
            for (long long x = run_begin; x < run_end; ++x) {
                mbar_wait_guarded(full + 8 * s, phase);
                split_tf32_tile(x_slot(s), X_TILE, X_TILE, tid - 32, 32 * SPLITTER_WARPS);
                fence_proxy_async();  // the planes written by threads, before the wgmmas read them
                __syncwarp();
                if (tid % 32 == 0) mbar_arrive(split + 8 * s);
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
        }
        return;
    }

    // ---- consumer warpgroup(s): each tile of the run, then D or the fixup ----
    const int wg_tid = tid % 128, cw = CONSUMERS == 1 ? 0 : tid / 128 - 1;
    float acc[NACC], chain[CHAINS][NACC];
    int s = 0;
    unsigned phase = 0;
    long long x = run_begin;
    int t = (int)(x / ktiles), kt0 = (int)(x % ktiles);
    while (x < run_end) {
        const int kt1 = (int)min((long long)ktiles, kt0 + (run_end - x));
#pragma unroll
        for (int c = 0; c < CHAINS; ++c)
#pragma unroll
            for (int i = 0; i < NACC; ++i) chain[c][i] = 0.0f;
        if constexpr (FP8)
#pragma unroll
            for (int i = 0; i < NACC; ++i) acc[i] = 0.0f;
        for (int kt = kt0; kt < kt1; ++kt) {
            mbar_wait_guarded(full + 8 * s, phase);
            if constexpr (W_REGS) {
                if constexpr (SPLIT3) mbar_wait_guarded(split + 8 * s, phase);  // (the weight: full[s], above)
                mma_stage_regs(chain[0], w_slot(s), x_slot(s), cw);
            } else {
                wgmma_fence();
#pragma unroll
                for (int j = 0; j < KSUB; ++j)
#pragma unroll
                    for (int a = 0; a < ATOMS; ++a)
#pragma unroll
                        for (int k = 0; k < K_STEPS; ++k)
                            Mma::mma(*reinterpret_cast<float(*)[ATOM_ACC]>(chain[j % CHAINS] + a * ATOM_ACC),
                                     W_K_MAJOR ? wgmma_desc_k_major(w_slot(s) + j * W_BOX + a * W_ATOM + W_STEP * k)
                                               : wgmma_desc_mn_major(w_slot(s) + j * W_BOX + a * W_ATOM + W_STEP * k,
                                                                     W_ATOM),
                                     wgmma_desc_k_major(x_slot(s) + j * X_BOX + 32 * k),
                                     FP8 ? (j >= CHAINS || k > 0) : 1);  // (fp8: each stage's chains start fresh)
                wgmma_commit();
            }
            // The slot goes back as soon as its wgmmas retire, not one k-tile later as in the compute-bound
            // stages: the tensor cores are nearly idle here, and with a ring of 3 big stages the lag would
            // keep a third of it out of the loads.
            wgmma_wait<0>();
            if (wg_tid == 0) mbar_arrive(empty + 8 * s);
            if (++s == STAGES) {
                s = 0;
                phase ^= 1;
            }
            if constexpr (FP8) add_chains<true>(acc, chain);  // (the stage's sums, promoted)
        }
        if constexpr (!FP8) add_chains<false>(acc, chain);
        const bool whole = kt0 == 0 && kt1 == ktiles;
        if (whole || stream_k_fixup<NACC, CONSUMERS>(acc, sk, cta, t, x == run_begin, workspace, counters, 1 + cw,
                                                      flag + cw, cw))
            store_transposed(g, acc, swap_tile(t, tiles_m, tiles_n), cw, scale_a, scale_b);
        x += kt1 - kt0;
        ++t;
        kt0 = 0;
    }
}

TCGEMM_TMA_STORE_PERSISTENT_KERNEL(swap_ab_stream_k, swap_ab_body, )
