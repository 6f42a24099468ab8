// hopper_ktile.cuh — the wgmmas of one k-tile for a consumer warpgroup of the production Hopper
// kernel (hopper/04_tma_store_epilogue.cu), and how fp8's partial sums are promoted.
//
// WG_M = 128 (configs "w128", e.g. a 256 x 128 CTA tile): each consumer issues two m64 wgmmas per k
// step with the same B descriptor, back to back, on 64 x BLOCK_N accumulators each (fp8, promoted every k-tile:
// the two m64 blocks one after the other into one partial-sum array, mma_ktile_atom; 04_tma_store_epilogue.cu).  The point is
// shared-memory bandwidth: a wgmma reads its A (64 x 16) and B (BLOCK_N x 16) from shared memory,
// and the TMA unit writes every tile there too; per multiply-add a 128 x 256 tile of m64n256 wgmmas
// needs as many bytes as the 128 bytes / clock an SM's shared memory delivers at the tensor rate.
//
// fp8 partial sums (PROMOTE): the tensor cores add fp8 products into the accumulators with about 14
// mantissa bits kept, so over a long K the errors pile up.  As cuBLAS does without "fast
// accumulation", each PROMOTE_EVERY k-tiles' wgmmas (128 k each) accumulate into fresh registers
// `part` (scale_d = 0 on the first), which are added to the fp32 total once they retire: with 16-bit
// D every 4 k-tiles = 512 k by default (on random data with bf16 D every k-tile gives _scaled_mm's
// error exactly, every 4 an error 1.8% larger, for 2-8% more speed; config p1 promotes every k-tile).
// fp32 D keeps what bf16 rounding hides: every 4 k-tiles gave 2.7x _scaled_mm's error (3.39e-4
// against 1.26e-4), every k-tile exactly its error, so fp32 D promotes every k-tile by default.
// tf32 products of fp32 operands (3xTF32, tcgemm/emulation.py): the tensor cores' adds into the
// accumulators are not rounded to nearest, and on a K of thousands their error grows with K where fp32's
// rounded adds grow as its square root (3xTF32 at 4096 x 4096 x 14336, one accumulator: 1e-4 against
// cuBLAS's fp32 2e-6).  Configs with PROMOTE_PARTIALS=1 keep each group's sum short and add the groups
// with rounded fp32 adds, as fp8 does.
// Where the adds go: waiting for a group's wgmmas to retire empties this warpgroup's queue on the
// tensor cores, so the other consumer must have work queued meanwhile.  Groups of several k-tiles
// (PROMOTE_NEXT) are added at the start of the next group, after its first k-tile's data has arrived,
// and the two consumers' groups are offset by half a group: one drains while the other is mid-group
// with two k-tiles queued (with both in step they drained together).  Every k-tile (PROMOTE_EACH,
// p1), the adds come right after the k-tile, before the next data wait, which hides them: placed
// after that wait as above they ran 0.72-0.84x of p1's speed.  `part` is a second accumulator array
// (BLOCK_N <= 192: 2 x 96 registers).  The per-tensor scales (torch._scaled_mm's scale_a, scale_b,
// device pointers, null = 1) multiply the total before alpha/beta (hopper_epilogue.cuh).
#pragma once
#include "hopper_config.cuh"
#include "ldmatrix.cuh"  // (lds_b32)

// Accumulators of m64 block `a` of a consumer's WG_M rows.
template <typename Acc, int NACC>
__device__ __forceinline__ Acc (&atom(Acc (&d)[NACC], int a))[ATOM_ACC] {
    return *reinterpret_cast<Acc(*)[ATOM_ACC]>(&d[a * ATOM_ACC]);
}

// The wgmmas of one k-tile (128 bytes of k: 4 k steps, M_ATOMS each) for a consumer warpgroup
// whose A rows start at a_base (64-row blocks 8 KB apart in both A layouts); scale_first = 0
// overwrites d instead of adding.  ATOMS = 1 (mma_ktile_atom): one m64 block's, its rows at a_base.
template <int ATOMS = M_ATOMS, typename Acc, int NACC>
__device__ __forceinline__ void mma_ktile(Acc (&d)[NACC], unsigned a_base, unsigned b_base, int scale_first) {
    static_assert(NACC == ATOMS * ATOM_ACC, "one accumulator array per m64 block");
    const unsigned a16 = smem_units(a_base), b16 = smem_units(b_base);  // descriptors in 16-byte units: adds only
#pragma unroll
    for (int kk = 0; kk < ROW_BYTES / K_STEP_BYTES; ++kk) {
        const unsigned long long db = B_K_MAJOR ? wgmma_desc_k_major_units(b16 + kk * K_STEP_BYTES / 16)
                                                : wgmma_desc_mn_major_units(b16 + kk * MN_STEP_BYTES / 16, B_CHUNK);
#pragma unroll
        for (int a = 0; a < ATOMS; ++a) {
            const unsigned a_atom = a16 + a * A_CHUNK / 16;
            const unsigned long long da = A_K_MAJOR ? wgmma_desc_k_major_units(a_atom + kk * K_STEP_BYTES / 16)
                                                    : wgmma_desc_mn_major_units(a_atom + kk * MN_STEP_BYTES / 16, A_CHUNK);
            Mma::mma(atom(d, a), da, db, kk == 0 ? scale_first : 1);
        }
    }
}

// A_REGS: tf32 with an MN-major A (rows of A contiguous along m: B of a row-major x @ w, computed as
// D^T = B^T A^T; the host's transposed problem).  wgmma reads tf32 from shared memory K-major only, but
// takes A from registers in any case, so each thread loads its fragment itself: per m64 x k8 step the
// mma.m16n8k8 fragment of its warp's 16 rows, a[0..3] = A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4)
// (g = lane / 4, t = lane % 4), from the tile as TMA wrote it: boxes of 32 m x 32 k, 4 KB each, k row j
// at byte 128 j, its 16-byte chunks swizzled by j % 8.  Across a warp one load reads 8 consecutive m of
// 4 k rows: the swizzle spreads the 4 rows over 4 chunk pairs, two of them in the same 8 banks (two
// wavefronts a load; unswizzled all four rows would share one chunk pair: four).  Instead of a copy of B
// that transposes it (at 4096^3 62 us of 444), 16 KB of shared-memory loads a k-tile.
// The registers are read by the wgmmas asynchronously: a k-tile goes out in two halves of two k steps, each
// from its own register set, and the loop (04_tma_store_epilogue.cu) waits for the half before the one it
// reloads, so the warpgroup always has wgmmas queued while it loads.  Measured at 4096^3 (B row-major
// against the same tiles with B K-major, 384 us): one set, each k-tile retired before the next reloaded it,
// 440 us (2026-11-26-h100-explore-tf32-rT-60b4a88.json); two sets for whole k-tiles in turn, two k-tiles an
// iteration, 493 us (...-rT-2set-5539dc8.json).
__device__ __forceinline__ unsigned a_regs_offset(int r, int kl) {  // A(r, kl) in a consumer's 64-row block
    return (r >> 5) * 4096 + kl * 128 + ((((r & 31) >> 2) ^ (kl & 7)) << 4) + (r & 3) * 4;
}
constexpr int A_REG_HALF = ROW_BYTES / K_STEP_BYTES / 2;  // k8 steps in half a tf32 k-tile
// Half H of a k-tile's wgmmas, A's fragments loaded into `a` first.  (k step kk's offsets are kk's 0 plus
// 1024 kk: 8 k rows of 128 bytes, the swizzle's phase unchanged.)
template <int H, typename Acc, int NACC>
__device__ __forceinline__ void mma_half_regs(Acc (&d)[NACC], unsigned a_base, unsigned b_base,
                                              unsigned (&a)[A_REG_HALF][4]) {
    static_assert(NACC == ATOM_ACC, "one m64 block per consumer");
    const int lane = threadIdx.x % 32, r = 16 * ((threadIdx.x % 128) / 32) + lane / 4, t = lane % 4;
    const unsigned o00 = a_base + a_regs_offset(r, t), o10 = a_base + a_regs_offset(r + 8, t);
    const unsigned o01 = a_base + a_regs_offset(r, t + 4), o11 = a_base + a_regs_offset(r + 8, t + 4);
#pragma unroll
    for (int j = 0; j < A_REG_HALF; ++j) {
        const unsigned kk = H * A_REG_HALF + j;
        a[j][0] = lds_b32(o00 + 1024 * kk);
        a[j][1] = lds_b32(o10 + 1024 * kk);
        a[j][2] = lds_b32(o01 + 1024 * kk);
        a[j][3] = lds_b32(o11 + 1024 * kk);
    }
    wgmma_fence();  // the fragments written, before the wgmmas read them
    const unsigned b16 = smem_units(b_base);
#pragma unroll
    for (int j = 0; j < A_REG_HALF; ++j) {
        const int kk = H * A_REG_HALF + j;
        Mma::mma_rs(d, a[j], wgmma_desc_k_major_units(b16 + kk * K_STEP_BYTES / 16), 1);
    }
}

// EPI_OVERLAP: the wgmmas of one k-tile on tile columns [H BLOCK_N / 2, (H + 1) BLOCK_N / 2), into
// that half of a consumer's accumulators (the first ATOM_ACC / 2 registers hold columns 0 .. BLOCK_N / 2
// - 1 in the wgmma fragment layout, whatever N).  B's rows (K-major) or 64-column boxes (MN-major) of
// that half start BLOCK_N / 2 * 128 bytes into the slot either way.
template <int H, typename Acc, int NACC>
__device__ __forceinline__ void mma_ktile_half(Acc (&d)[NACC], unsigned a_base, unsigned b_base, int scale_first) {
    // (built, never run, by configs other than EPI_OVERLAP's 128 x 256: hopper_config.cuh checks those)
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

template <typename Acc>
__device__ __forceinline__ void mma_ktile_atom(Acc (&d)[ATOM_ACC], unsigned a_base, unsigned b_base, int scale_first) {
    mma_ktile<1>(d, a_base, b_base, scale_first);
}

// PROMOTE: retired partial sums `part` added to the total (with WG_M = 128: to m64 block `a`'s part of it).
template <typename Acc, int NACC>
__device__ __forceinline__ void promote(Acc (&acc)[NACC], Acc (&part)[ATOM_ACC], int a = 0) {
    wgmma_fence_accumulators(part);
#pragma unroll
    for (int i = 0; i < ATOM_ACC; ++i) acc[a * ATOM_ACC + i] += part[i];
}
