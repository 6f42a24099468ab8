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
// per-tensor promotion costs an add.
//
// Where the scales come from: each ring slot has a scale slot beside it (SCALE_SLOT bytes, between the D
// staging buffers and the barriers): the k-tile's BLOCK_M values of scale_a for the tile's rows, then the
// scale_b values of the (one or two) 128-column blocks the tile's columns fall in. The producer warp copies them
// with cp.async (4 bytes a copy; rows outside A and blocks outside B read as zeros, so the values they multiply,
// which are never stored, stay finite) and each lane's `cp.async.mbarrier.arrive.noinc` counts on the slot's full
// barrier, which therefore expects 32 arrivals more than the TMA producer's one: a consumer that waited for the
// slot's data sees its scales too. The consumer reads its two rows' scales from shared memory after the k-tile's
// wgmmas retired and before it releases the slot. Loading them into registers from global memory would cost their
// latency at the next wgmma.fence, which waits for the thread's loads in flight (hopper_epilogue.cuh,
// stage_row_scales); the producer's copies cost the consumers nothing but a shared load.
//
// Layouts the kernel reads (the host copies other layouts into these, tcgemm.api): scale_a M-major, element
// (m, kb) at kb * M + m (a (M, ceil(K / 128)) tensor with strides (1, M): what tcgemm.quantize_fp8(x, group=128)
// returns), so that the 32 lanes' copies of one k-block are consecutive; scale_b row-major, (nb, kb) at
// nb * ceil(K / 128) + kb.
#pragma once
#include "hopper_config.cuh"
#include "cp_async.cuh"

#ifndef BLOCK_SCALES
#define BLOCK_SCALES 0
#endif
constexpr bool kBlockScales = BLOCK_SCALES != 0;
constexpr int SCALE_BLOCK = 128;  // k (and n) per scale: DeepSeek-V3's blocks
// 128-column blocks a tile's columns can meet: one where BLOCK_N divides 128 (tiles never straddle), else two.
constexpr int B_SCALE_SPAN = SCALE_BLOCK % BLOCK_N == 0 ? 1 : 2;
constexpr int SCALE_SLOT = kBlockScales ? BLOCK_M * 4 + 16 : 0;  // bytes per ring slot: scale_a rows, scale_b blocks
constexpr int SCALE_COPIERS = kBlockScales ? 32 : 0;  // producer lanes that copy scales (arrivals per slot use)
static_assert(!kBlockScales || (PROMOTE_EACH && BLOCK_K * ELEM_BYTES == SCALE_BLOCK && M_ATOMS == 1 && !kPingpong &&
                                !kDTransposed && !GATED && !ROW_SCALES && (SCALE_BLOCK % BLOCK_N == 0 || BLOCK_N == 192) &&
                                BLOCK_M % 32 == 0),
              "block-wise scales: fp8 promoted every k-tile (128 deep), m64 consumers, D not transposed, tiles that "
              "meet at most two 128-column blocks (BLOCK_N divides 128, or 192: tiles start at n0 % 128 = 0 or 64)");

// Producer lane `lane` (of 32): k-tile kt's scales of the tile at rows m0, columns n0 into `slot`, completing
// on `full` (cp.async.mbarrier.arrive.noinc: an arrival when this lane's copies have landed).
__device__ __forceinline__ void load_block_scales(unsigned slot, unsigned full, const float* scale_a,
                                                  const float* scale_b, int M, int N, int K, int kt, int m0, int n0,
                                                  int lane) {
    const int kblocks = (K + SCALE_BLOCK - 1) / SCALE_BLOCK;
    const float* sa = scale_a + (long long)kt * M;
#pragma unroll
    for (int r = lane; r < BLOCK_M; r += 32) {
        const int m = m0 + r;
        cp_async_4_zfill(slot + 4 * r, m < M ? sa + m : scale_a, m < M ? 4 : 0);
    }
    if (lane < B_SCALE_SPAN) {
        const int nb = n0 / SCALE_BLOCK + lane;
        const bool in = nb * SCALE_BLOCK < N;
        cp_async_4_zfill(slot + 4 * (BLOCK_M + lane), in ? scale_b + (long long)nb * kblocks + kt : scale_b, in ? 4 : 0);
    }
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(full) : "memory");
}

// The factors of this thread's accumulators for one k-tile: rows r0 and r0 + 8 of the consumer's (wgmma layout:
// hopper_epilogue.cuh, scale_rows_cols), times the scale_b of the column block before (f[0], f[1]) and after
// (f[2], f[3]) the tile's 128-column boundary.
struct BlockScaleFactors {
    float f[4];
};
__device__ __forceinline__ BlockScaleFactors read_block_scales(unsigned slot, int cw, int warp, int lane) {
    const int r0 = consumer_row0(cw) + 16 * warp + lane / 4;
    float a0, a1, b0, b1 = 0.0f;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(a0) : "r"(slot + 4 * r0));
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(a1) : "r"(slot + 4 * (r0 + 8)));
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(b0) : "r"(slot + 4 * BLOCK_M));
    if constexpr (B_SCALE_SPAN > 1) asm volatile("ld.shared.f32 %0, [%1];" : "=f"(b1) : "r"(slot + 4 * BLOCK_M + 4));
    return {{a0 * b0, a1 * b0, a0 * b1, a1 * b1}};
}

// acc += part * factor. `split`: the first 8-column group of the tile in the second 128-column block
// ((128 - n0 % 128) / 8; groups are 8 columns, and a tile's columns start at a multiple of 8).
template <int NACC>
__device__ __forceinline__ void promote_block_scaled(acc_t (&acc)[NACC], acc_t (&part)[ATOM_ACC],
                                                     const BlockScaleFactors& s, int split) {
    wgmma_fence_accumulators(part);
#pragma unroll
    for (int i = 0; i < ATOM_ACC; ++i) {
        const int hi = (i >> 1) & 1;  // row r0 + 8
        const float f = B_SCALE_SPAN > 1 && i / 4 >= split ? s.f[2 + hi] : s.f[hi];
        acc[i] = fmaf(part[i], f, acc[i]);
    }
}

static_assert(SMEM_BYTES >= STAGES * (STAGE_BYTES + SCALE_SLOT) + CONSUMERS * D_BUF + 1024 + 16 * STAGES + 4 * CONSUMERS + 4,
              "SMEM_BYTES too small for the scale slots (tcgemm.launch sizes block-scale builds)");
