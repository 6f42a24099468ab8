// block_scales.cuh — fp8 with DeepSeek-V3's block-wise scales in the production Hopper kernel
// (hopper/04_tma_store_epilogue.cu, BLOCK_SCALES=1).
//
//   D[m, n] = alpha * sum_kb scale_a[m, kb] * scale_b[n / 128, kb] * sum_{k in block kb} A8[m, k] B8[k, n]
//
// scale_a holds one float per row of A and 128-deep k-block (an activation quantized in 1 x 128 groups),
// scale_b one per 128 x 128 block of the weight (N / 128 rows of K / 128). A k-tile of fp8 is 128 deep
// (BLOCK_K = 128 bytes of k): one k-block. So each k-tile's wgmmas sum into the fresh registers `part`
// (PROMOTE_EACH: fp8's promotion, hopper_ktile.cuh), and the promotion adds part * scale_a[row] *
// scale_b[column block] to the fp32 total: the scales cost one multiply-add a value a k-tile, where the
// per-tensor promotion costs an add. Tiles are at most 128 wide and divide 128, so a tile's columns share one
// scale_b a k-tile (128 x 192 tiles, which straddle two blocks, ran 0.72-0.81x of torch._scaled_mm's block-wise
// mode where 128 x 128 ran 0.95-0.99x: 2026-11-26-h100-explore-block-configs-d2fc147.txt; they are not built).
//
// Where the scales come from: each ring slot has a scale slot beside it (SCALE_SLOT bytes, between the D
// staging buffers and the barriers): the k-tile's scale_a values of the tile's rows, then the scale_b value of the
// 128-column block the tile's columns fall in. The producer thread copies them with bulk copies
// (cp.async.bulk: the TMA unit, no tensor map) after the k-tile's TMA loads, completing on the slot's full
// barrier, whose arrival expected their bytes with the tiles' (one barrier operation), so a consumer that waited
// for the slot's data has its scales too. The consumer reads its rows' scales from shared memory right after that
// wait, before the wgmma fence, and applies them once the k-tile's wgmmas retired.
// Measured at 4096^3 and 4096 x 7168 x 16384, bf16 out, against torch._scaled_mm's block-wise mode in the same
// process (CUDA graphs; 2026-11-26-h100-explore-block-scales-{cost-bd631e9,merged-81b7d9e,read-at-81b7d9e}.txt):
//  * where the reads go: before the fence 0.93-0.97x; right after the wgmmas' commit 0.74-0.81x; after the wgmma
//    wait 0.79-0.93x (their latency then sits in the drain, while this warpgroup's tensor-core queue is empty;
//    before the fence the other warpgroup's queued wgmmas cover it);
//  * the copies: 32 producer lanes copying 4 bytes each with cp.async, arriving through cp.async.mbarrier.arrive,
//    cost 10-20% (143.8 us against 128.0 without them); bulk copies under the tiles' expect_tx cost 1-3%. At 64-128
//    rows, though, where the one producer thread's instruction latency paces the ring, their address arithmetic
//    cost ~25% (docs/findings.md, "the producer thread's loop"): a unit's sources are worked out once
//    (block_scale_source), and the loop issues the copies from them.
// Loads into registers from global memory would cost their latency at the next wgmma.fence, which waits for the
// thread's loads in flight (hopper_epilogue.cuh, stage_row_scales).
//
// Bulk copies want 16-byte aligned sources and sizes, hence the layouts the kernel reads (the host copies other
// layouts into these, tcgemm.scales): scale_a M-major with its rows padded to 4, element (m, kb) at kb * M4 + m
// (M4 = M rounded up to a multiple of 4: a (M, ceil(K / 128)) tensor with strides (1, M4), DeepGEMM's layout and
// what tcgemm.quantize_fp8(x, group=128) returns); scale_b row-major with rows of KB4 = ceil(K / 128) rounded up
// to 4, (nb, kb) at nb * KB4 + kb. A tile's scale_a copy starts at its first row rounded down to 4 (the last row of
// tiles starts at M - BLOCK_M: tile_row) and runs BLOCK_M + 4 values or to the end of the padded row; the scale_b
// copy is the 4 values of the k-tile's aligned quad. Values past M are never copied: what the slot holds there
// multiplies rows the stores clip.
#pragma once
#include "hopper_config.cuh"

#ifndef BLOCK_SCALES
#define BLOCK_SCALES 0
#endif
constexpr bool kBlockScales = BLOCK_SCALES != 0;
constexpr int SCALE_BLOCK = 128;  // k (and n) per scale: DeepSeek-V3's blocks
constexpr int A_SCALE_BYTES = (BLOCK_M + 4) * 4;  // a tile's scale_a values from its first row rounded down to 4
constexpr int SCALE_SLOT = kBlockScales ? A_SCALE_BYTES + 16 : 0;  // bytes per ring slot: then a quad of scale_b
static_assert(!kBlockScales || (PROMOTE_EACH && BLOCK_K * ELEM_BYTES == SCALE_BLOCK && !kPingpong &&
                                !kWaveSnake &&
                                !kDTransposed && !GATED && !ROW_SCALES && SCALE_BLOCK % BLOCK_N == 0 &&
                                BLOCK_M % 32 == 0),
              "block-wise scales: fp8 promoted every k-tile (128 deep, in order), cooperative consumers, D not "
              "transposed, tiles within one 128-column block (BLOCK_N divides 128)");

__device__ __forceinline__ void bulk_copy_to_shared(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
// Where a unit's scales come from (the producer works it out once per unit: its loop's instruction latency paces the
// ring at narrow tiles): the tile whose loads start at row m0, column n0, of batch entry za of scale_a and zb of
// scale_b (experts of a grouped GEMM, group_rows.cuh: each entry's scales follow the last's, KB x M4 of scale_a and
// NB x KB4 of scale_b; the contiguous layout has one scale_a over all T rows, za = 0, and zb the tile's expert).
struct BlockScaleSource {
    const float* a;  // k-tile 0's scale_a values, from row m0 rounded down to 4; k-tile kt's are kt * m4 further
    const float* b;  // this column block's row of scale_b
    long long m4;
    unsigned a_bytes;  // what one k-tile's copies bring: scale_a's, then scale_b's quad (16)
};
__device__ __forceinline__ BlockScaleSource block_scale_source(const float* scale_a, const float* scale_b, int M,
                                                               int N, int K, int m0, int n0, int za, int zb) {
    const int kblocks = (K + SCALE_BLOCK - 1) / SCALE_BLOCK, nblocks = (N + SCALE_BLOCK - 1) / SCALE_BLOCK;
    // A tile wholly below the matrix (a cluster's second CTA past the last rows, or past T in a grouped GEMM's
    // contiguous layout, whose row tiles start at each segment) stores nothing: any rows' scales will do, and it
    // copies those of the last rows (from m0 itself the copy would start past the padded row and run backwards).
    const int m4 = (M + 3) & ~3, kb4 = (kblocks + 3) & ~3, m_al = min(m0, M - 1) & ~3;
    return {scale_a + (long long)za * kblocks * m4 + m_al, scale_b + ((long long)zb * nblocks + n0 / SCALE_BLOCK) * kb4,
            m4, 4u * min(BLOCK_M + 4, m4 - m_al)};
}
// Bytes the k-tile's scale copies bring (load_block_scales), for the TMA producer's arrive.expect_tx.
__device__ __forceinline__ unsigned block_scale_bytes(const BlockScaleSource& src) { return src.a_bytes + 16u; }

// The producer thread, after load_tile (whose arrival expected these bytes too): k-tile kt's scales into `slot`.
__device__ __forceinline__ void load_block_scales(unsigned slot, unsigned full, const BlockScaleSource& src, int kt) {
    bulk_copy_to_shared(slot, src.a + kt * src.m4, src.a_bytes, full);
    bulk_copy_to_shared(slot + A_SCALE_BYTES, src.b + (kt & ~3), 16, full);
}

// The factors of this thread's accumulators for k-tile kt: rows r0 and r0 + 8 of each m64 block of the consumer's
// (wgmma layout: hopper_epilogue.cuh, scale_rows_cols) times the tile's scale_b. `shift`: the tile's first loaded
// row modulo 4 (the copy started below it).
struct BlockScaleFactors {
    float f[2 * M_ATOMS];  // block a: f[2 a] (row r0 + 64 a), f[2 a + 1] (row r0 + 64 a + 8)
};
__device__ __forceinline__ BlockScaleFactors read_block_scales(unsigned slot, int cw, int warp, int lane, int shift,
                                                               int kt) {
    const int r0 = shift + consumer_row0(cw) + 16 * warp + lane / 4;
    float b;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(b) : "r"(slot + A_SCALE_BYTES + 4 * (kt & 3)));
    BlockScaleFactors f;
#pragma unroll
    for (int i = 0; i < 2 * M_ATOMS; ++i) {
        asm volatile("ld.shared.f32 %0, [%1];" : "=f"(f.f[i]) : "r"(slot + 4 * (r0 + 64 * (i / 2) + 8 * (i % 2))));
        f.f[i] *= b;
    }
    return f;
}

// acc (m64 block a of it) += part * factor of the value's row.
template <int NACC>
__device__ __forceinline__ void promote_block_scaled(acc_t (&acc)[NACC], acc_t (&part)[ATOM_ACC],
                                                     const BlockScaleFactors& s, int a = 0) {
    wgmma_fence_accumulators(part);
#pragma unroll
    for (int i = 0; i < ATOM_ACC; ++i)  // (row r0 + 8: i % 4 >= 2)
        acc[a * ATOM_ACC + i] = fmaf(part[i], s.f[2 * a + ((i >> 1) & 1)], acc[a * ATOM_ACC + i]);
}

static_assert(SCALE_SLOT % 16 == 0, "bulk copies land at 16-byte aligned addresses");
static_assert(SMEM_BYTES >= STAGES * (STAGE_BYTES + SCALE_SLOT) + D_STAGING + 1024 + 16 * STAGES + 4 * CONSUMERS + 4,
              "SMEM_BYTES too small for the scale slots (tcgemm.launch sizes block-scale builds)");
