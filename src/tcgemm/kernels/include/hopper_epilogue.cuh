// hopper_epilogue.cuh — a consumer warpgroup's finished tile to D in the production Hopper kernel
// (hopper/04_tma_store_epilogue.cu): three ways, chosen per config and launch.
//
//  * Through shared memory and TMA stores (D_STAGED: 16-bit D, or 32-bit D with EPI_32BIT; the host
//    passes D's tensor map): stmatrix into a swizzled buffer per warpgroup, one thread issues the TMA
//    stores, and the warpgroup goes on to its next tile while the TMA unit writes whole 128-byte lines
//    (epilogue_tma.cuh has the details).  The buffer costs shared memory (2 x 32 KB at BLOCK_N = 256:
//    one ring stage fewer); EPI_PARTS stages a tile in column parts through a smaller buffer, EPI_BUFS
//    = 2 alternates two of them.
//  * From registers (stage 3's epilogue; D the host cannot describe with a tensor map, i.e. not
//    16-byte aligned, or a 32-bit D without EPI_32BIT): bounds-checked vector stores (epilogue.cuh).
//    Configs whose register path does not fit their registers (fp8 at 128 x 192: 96 accumulators and
//    the path's hoisted addresses spilled) are built without it (D_FROM_REGISTERS = 0): the host
//    (dispatch.select) never runs them without D's map, and they fail loudly should it happen.
//  * Overlapped with the next tile's first wgmmas (EPI_OVERLAP, beta = 0): the tensor cores idle from
//    a tile's last wgmma to the next tile's first, and the epilogue sits there (bf16 with D not written
//    at all ran 102-104% of cuBLAS against 98-100%).  So the epilogue stores the columns [0, BLOCK_N / 2)
//    of the tile, then issues the next tile's first k-tile on that half of the accumulators (m64 x
//    BLOCK_N / 2 wgmmas, scale_d = 0: they overwrite what was just stored), stores the other half while
//    those run, and issues the first k-tile's other half.  The next tile's main loop then runs on the
//    two column halves too (one wgmma shape throughout: different shapes on the same registers are not
//    ordered by wgmma.fence alone, and ptxas serialized every wgmma).  Not with beta != 0: the blend's
//    registers beside the halves in flight serialized every wgmma; a bias row (C_ROW in
//    epilogue_tma.cuh: a few registers and shuffles) does not, and overlaps.  The sequence (epilogue_tma_store's
//    parts [0, D_PARTS / 2), half 0 of the next k-tile, the other parts, half 1) is written out in the
//    kernel's consumer loop, which owns the ring's slot and phase; mma_ktile_half is in hopper_ktile.cuh.
//
// fp8's row-wise scales (ROW_SCALES) multiply each finished fp32 sum by scale_a[m] scale_b[n] before the store
// (scale_rows_cols): constant along K, they commute with the promoted partial sums, so they go once a tile.
// fp8's per-tensor scales ride on alpha (one multiply per value in the epilogue), except with p1
// (PROMOTE_EACH): there this build ran 83-84% of _scaled_mm against 92-93% with the multiply of the
// accumulators, same process (2026-11-23-h100-ab-fp8-p1-fold-e652c2c.json; p4 98.2% folded).  Its main
// loop's SASS is the same instructions either way: p1's speed moves with code placement we do not control.
#pragma once
#include "hopper_config.cuh"
#include "hopper_ktile.cuh"
#include "hopper_sched.cuh"
#include "epilogue.cuh"
#include "epilogue_tma.cuh"
#include "cp_async.cuh"

// EPI_OVERLAP with beta != 0: a bias row of a 16-bit C (C_ROW: a few registers) overlaps like beta = 0; any
// other C, and a 32-bit one (its C_ROW spilled), is stored after the tile's wgmmas as without EPI_OVERLAP.
constexpr bool kBiasOverlap = OVERLAP && sizeof(elem_c) == 2;
constexpr CRead kOverlapRead = kBiasOverlap ? CRead::Row : CRead::None;
// A whole-matrix C too (16-bit, not transposed): without it a GEMM that adds a residual or a partial sum lost the
// overlap and paid its C reads on top (4-5% of 2048 x 8192 x 14336 with the L2 prefetch, 10% without).
constexpr bool kAnyOverlap = kBiasOverlap && !kDTransposed;

// D_IN_RING: a 16-bit D^T tile staged in the ring slot of its last k-tile, so that the D^T staging buffer (38 KB at
// 128 x 152) becomes a sixth stage.  A consumer's tile is BLOCK_N / 8 blocks of 8 tokens x 128 bytes; the CTA's
// blocks, consumer by consumer, fill the slot and the rest (128 x 152: 3 of 38) a buffer of their own (DT_EXTRA).
// Protocol, on top of the ring's (04_tma_store_epilogue.cu):
//   1. a consumer keeps the last k-tile's slot instead of releasing it, and the CTA's consumers meet at a named
//      barrier (dt_ring_consumers_sync) once their wgmmas are retired: the slot is then read by no wgmma;
//   2. each stages its blocks (stmatrix: the generic proxy, after the async proxy's loads and wgmma reads, which
//      the barrier and wgmma.wait ordered); fence.proxy.async; the first BLOCK_N / 8 lanes of warp 0 each store
//      one 8-token box and wait until the TMA unit has *read* it (wait_group.read 0), then __syncwarp;
//   3. only then does the warpgroup release the slot (its usual arrival on empty[slot] of every CTA of the
//      cluster), so neither this CTA's producer nor a peer's multicast writes the slot before the reads are done.
// The producer loads the next tile into the other STAGES - 1 slots meanwhile.  The overflow buffer needs no wait at
// the next tile: the reads were awaited in step 2.  (Not with the tail split: a part that writes no D would have
// to release the slot on its own way out.)
struct DtRing {
    unsigned slot, extra;
    int first;  // this warpgroup's first block among the CTA's
    __device__ __forceinline__ unsigned at(int b) const {
        b += first;
        return b < DT_SLOT_BLOCKS ? slot + b * 1024 : extra + (b - DT_SLOT_BLOCKS) * 1024;
    }
    __device__ __forceinline__ void store(const TmaDesc* tma_d, int m_wg, int n0, int z, int n_end) const {
        const int lane = threadIdx.x % 128;  // (warp 0 of the warpgroup: BLOCK_N / 8 <= 32 boxes)
        if (lane < BLOCK_N / 8 && n0 + 8 * lane < n_end) {  // (boxes wholly past the tokens: nothing to write)
            tma_store_3d(tma_d, at(lane), m_wg, n0 + 8 * lane, z);
            tma_store_commit();
            tma_store_wait_read<0>();
        }
        if (lane < 32) __syncwarp();
    }
};
constexpr int DT_RING_BAR = 6;  // named barrier of the CTA's consumers (1 + cw: each warpgroup's; 3, 4: PINGPONG's)
__device__ __forceinline__ void dt_ring_consumers_sync() {
    asm volatile("bar.sync %0, %1;" ::"r"(DT_RING_BAR), "r"(128 * CONSUMERS) : "memory");
}

// The GEMM arguments of tile c's epilogue (gz: a copy of the kernel's): batch entry c.z of C and D,
// fp8's scales applied.
template <int NACC>
__device__ __forceinline__ void to_tile(Gemm& gz, const TileCoord& c, acc_t (&acc)[NACC], float scale) {
    if constexpr (PROMOTE_NEXT) gz.alpha *= scale;
    if constexpr (PROMOTE_EACH) {
        if (scale != 1.0f) {
#pragma unroll
            for (int i = 0; i < NACC; ++i) acc[i] *= scale;
        }
    }
    gz.D += c.z * gz.batch_d;
    if (gz.C) gz.C += c.z * gz.batch_c;
}

// fp8's row-wise scales of one consumer's tile: scale_a of its WG_M rows, scale_b of the tile's BLOCK_N columns.
// Read into registers they cost their latency wherever they were issued: the next wgmma.fence (WARPGROUP.ARRIVE)
// waits for the thread's loads in flight.  At the epilogue they cost 1.5 us a 128 x 128 tile (row-wise 0.93-0.95x
// _scaled_mm at 4096^3 and 2048 x 6144 x 4096 where per-tensor ran 1.02-1.10x; 1.01-1.05x without the loads:
// 2026-11-26-h100-explore-fp8-rowwise-loads-bb56bed.txt); at the main loop's start 0.96-0.99x; after the first
// k-tile's wgmmas 0.99x but 32 bytes of spills (…-explore-fp8-rowwise-placement-2e0b408.txt).  So the consumer
// copies them with cp.async, which writes no register, into its D staging buffer a few k-tiles before the end of its
// main loop (stage_row_scales: the buffer is free then, the previous tile's TMA stores having long read it) and
// reads them from shared memory at the epilogue (scale_rows_cols), before the store writes D over them.
// Outside the matrix the copies fill zeros (the store clips those values anyway); a null vector is all ones (the
// host folded a number scale into alpha), stored as such, so that the epilogue reads every factor from shared memory
// without a choice per value (with one, the compiler set up all BLOCK_N column factors at once).
constexpr int ROW_SCALE_FLOATS = WG_M + BLOCK_N;
// The copies go out ROW_SCALES_LEAD k-tiles before the unit's last (or at its first, if it has fewer): 4 ran ahead of
// 1 and 8 at 4096^3 and 2048 x 6144 x 4096, 115-118 us against 117-122 and 87 against 88-90, two rounds of one
// process (2026-11-26-h100-explore-fp8-rowwise-lead-f1817df.txt); the previous tile's stores are done by then.
constexpr int ROW_SCALES_LEAD = 4;
static_assert(!ROW_SCALES || (D_STAGED && ROW_SCALE_FLOATS * 4 <= D_BUF), "row-wise scales stage in D's buffer");

__device__ __forceinline__ void stage_row_scales(unsigned buf, int m_wg, int n0, int M, int N, const float* scale_a,
                                                 const float* scale_b, int bar_id) {
    const int t = threadIdx.x % 128;
    if (t == 0) tma_store_wait_read<0>();  // (the previous tile's stores: issued a main loop ago)
    warpgroup_bar_sync(bar_id);
#pragma unroll
    for (int i = t; i < ROW_SCALE_FLOATS; i += 128) {
        const bool row = i < WG_M;
        const float* v = row ? scale_a : scale_b;
        const int at = row ? m_wg + i : n0 + i - WG_M;
        if (v != nullptr)
            cp_async_4_zfill(buf + 4 * i, v + (at < (row ? M : N) ? at : 0), at < (row ? M : N) ? 4 : 0);
        else
            asm volatile("st.shared.f32 [%0], %1;" ::"r"(buf + 4 * i), "f"(1.0f) : "memory");
    }
    cp_async_commit();
}

__device__ __forceinline__ float lds_f32(unsigned addr) {
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr));  // (volatile: after the barrier)
    return v;
}

// Each finished sum times its row's and column's scale.  In the wgmma accumulator layout register j of m64 block a
// holds row 64 a + 16 warp + lane / 4 (+ 8 for j % 4 >= 2) of the consumer's rows and column 8 (j / 4) +
// 2 (lane % 4) + j % 2 of the tile: two scale_a values a block, two scale_b values per 8 columns.
template <int NACC>
__device__ __forceinline__ void scale_rows_cols(acc_t (&acc)[NACC], unsigned buf, int bar_id) {
    cp_async_wait<0>();
    warpgroup_bar_sync(bar_id);  // every thread's copies have landed
    // (Columns outer: each column pair's scales are read once for all m64 blocks and die at once; with the blocks
    // outer the compiler kept all BLOCK_N of them live across both blocks, and 256 x 128 fp8 tiles with a 32-bit D
    // spilled.)
    const int wg_tid = threadIdx.x % 128, warp = wg_tid / 32, lane = wg_tid % 32;
    float rs[2 * M_ATOMS];
#pragma unroll
    for (int i = 0; i < 2 * M_ATOMS; ++i) rs[i] = lds_f32(buf + 4 * (64 * (i / 2) + 16 * warp + lane / 4 + 8 * (i % 2)));
#pragma unroll
    for (int jb = 0; jb < ATOM_ACC / 4; ++jb) {
        const int col = WG_M + 8 * jb + 2 * (lane % 4);
        const float c0 = lds_f32(buf + 4 * col), c1 = lds_f32(buf + 4 * (col + 1));
#pragma unroll
        for (int a = 0; a < M_ATOMS; ++a) {
            acc_t* v = &acc[a * ATOM_ACC + 4 * jb];
            if constexpr (M_ATOMS == 1) {
                v[0] *= rs[2 * a] * c0;
                v[1] *= rs[2 * a] * c1;
                v[2] *= rs[2 * a + 1] * c0;
                v[3] *= rs[2 * a + 1] * c1;
            } else {  // (two multiplies, no products held: with them 256 x 128 tiles with a 32-bit D spilled)
                v[0] = v[0] * rs[2 * a] * c0;
                v[1] = v[1] * rs[2 * a] * c1;
                v[2] = v[2] * rs[2 * a + 1] * c0;
                v[3] = v[3] * rs[2 * a + 1] * c1;
            }
        }
    }
}

// A general C (a whole matrix: a residual, a partial sum, a gradient to accumulate into) is read element by
// element in the epilogue, one part of the tile after another, each part waiting on HBM (~1.5 us; a 128 x 256
// tile computes in ~125 us at K = 14336, and those waits cost 5-10% of a GEMM that adds a C). So the producer
// hints the tile's C rows (row-major C, the 16-byte aligned inside of each row) into L2 while the k-tiles
// stream, and the epilogue's reads hit L2. A row is one bulk prefetch, and the TMA unit takes them in order
// with the k-tile loads: issued as one burst of BLOCK_M after the tile's last load, they held the next tile's
// first k-tile back, the consumers' overlapped epilogue waited for it (85 polls of its full barrier on average,
// Nsight Compute's source view), and C cost 8% at 4096 x 8192 x 14336 where cuBLAS's addmm pays 1%
// (2026-11-27-h100-ncu-c-cost-99268fc.txt, ...-ncu-stalls-c-3b7ed3b.txt). Now each k-tile's loads are followed
// by the prefetch of C_ROWS_PER_KTILE rows (the tile's rows spread over its first k-tiles; the
// rest after its last, where it has fewer: c_prefetch_begin, c_prefetch_step). Nsight at fixed clocks: C costs
// 3.0% there (...-ncu-c-cost-105a93e.txt); same process against cuBLAS (...-explore-c-prefetch-105a93e-r*.json):
// +2.8-4.5% at K = 14336 against addmm's +2.1-4.1%, but still +7.4-10% at 4096 x 8192 x 7168 (addmm +5%) and
// +11-14% at 4096^3 (+8%).
constexpr int C_ROWS_PER_KTILE = 4;

// The C rows of one tile still to hint into L2: the next row's address, and the bytes of a row (high half) with the
// rows left (low half; none: no C, a C that is not row-major, or a tile below the matrix).  Three registers: the
// producer runs on PRODUCER_REGS (five, with the stride and the bytes apart, spilled GPC_ORDER's producer), and the
// row stride is read from the kernel's parameters at each step.
struct CPrefetch {
    unsigned long long next;
    unsigned bytes_left;
};

__device__ __forceinline__ CPrefetch c_prefetch_begin(const Gemm& g, int m0, int n0, int z) {
    CPrefetch p{0ull, 0u};
    if (!kCMatrix || g.beta == 0.0f || g.C == nullptr || g.c_col != 1 || g.c_row == 0 || m0 >= g.M || n0 >= g.N) return p;
    p.next = reinterpret_cast<unsigned long long>(g.C + (i64)z * g.batch_c + (i64)m0 * g.c_row + n0);
    const unsigned bytes = (unsigned)(min(BLOCK_N, g.N - n0) * (int)sizeof(elem_c));  // (at most 1 KB)
    p.bytes_left = bytes << 16 | (unsigned)min(BLOCK_M, g.M - m0);
    return p;
}

// The next `rows` of them (all that are left with rows = BLOCK_M).
__device__ __forceinline__ void c_prefetch_step(const Gemm& g, CPrefetch& p, int rows) {
    const unsigned long long stride = (unsigned long long)g.c_row * sizeof(elem_c);
#pragma unroll 1  // (unrolled 16 deep, the last BLOCK_M step alone held more registers than the producer has)
    for (int i = 0; i < rows && (p.bytes_left & 0xffffu) != 0; ++i, --p.bytes_left, p.next += stride) {
        const unsigned long long a = (p.next + 15) & ~15ull, b = (p.next + (p.bytes_left >> 16)) & ~15ull;
        if (b > a) bulk_prefetch_l2(reinterpret_cast<const void*>(a), (unsigned)(b - a));
    }
}

// A whole-matrix C staged in shared memory.  Read from L2 in the epilogue (above), each part of the tile still
// waits one L2 round trip for its C: a 128 x 256 tile stored in four parts, two before the next tile's first
// wgmmas and two after, waits twice while the tensor cores idle, and C cost 4-7% of 2048-4096 x 8192 x 14336
// (2026-11-26-h100-explore-c-epilogue-b99a1d8.json; cuBLAS's addmm 2-5%).  So C_STAGE_LEAD k-tiles before
// the end of its main loop (when the previous tile's stores have long read the buffers) the consumer copies
// the C of the parts its buffers hold, EPI_BUFS of them, with cp.async straight into those buffers in D's
// swizzled layout, and the epilogue takes those parts' C with ldmatrix (epilogue_tma.cuh, CRead::Staged).
// The later parts (those the same buffers take in turn) read C from L2 as before.  16-bit C and D, C
// row-major with 16-byte aligned rows; not gated, transposed or promoting configs, nor TAIL_SPLIT's (128 x 256
// with EPI_OVERLAP spilled 8 bytes with it: those read C from L2).  Against C read from L2 (a 4-byte aligned C),
// same config and process, two rounds: +0.7-1.9% against +3.1-3.7% at 4096 x 8192 x 14336, +4.0-4.2% against
// +9.1-9.7% at 2048 x 8192 x 14336, +6.5-7.2% against +7.6-9.0% at 4096 x 8192 x 7168, +8.3-10.9% against
// +11.3-13.1% at 4096^3 (cuBLAS's addmm +1.7-8.3%; 2026-11-27-h100-explore-c-staged-79af308-r*.json).  Staged
// while the burst of L2 hints above still held the next tile's loads back, it gained nothing (...-b2aad37.json).
// Only in builds for a whole C (C_MATRIX, hopper_config.cuh; A/B of the trees, 2026-11-27-h100-ab-c-matrix-*.json).
constexpr bool kStageC = kCMatrix && D_STAGED && !kDTransposed && sizeof(elem_d) == 2 && sizeof(elem_c) == 2 &&
                         ELEM_BYTES == 2 && !PROMOTE && !kARegs && !GATED && !kTailSplit;
constexpr int C_STAGE_LEAD = 4;  // k-tiles before the unit's last (ROW_SCALES_LEAD's reasoning)
constexpr int C_STAGED_PARTS = EPI_BUFS < D_PARTS ? EPI_BUFS : D_PARTS;
// The read mode of call sites where C is staged (Any where kStageC is false: that code is never reached, and the
// Staged mode's 16-bit-only epilogue is not instantiated).
constexpr CRead kStagedRead = kStageC ? CRead::Staged : CRead::Any;

// Whether a launch's C is one that stage_c_tile copies (not a bias row: that has C_ROW).
__device__ __forceinline__ bool c_stageable(const Gemm& g) {
    return kStageC && g.beta != 0.0f && g.C != nullptr && g.c_col == 1 && g.c_row != 0 && g.c_row % 8 == 0 &&
           g.batch_c % 8 == 0 && (reinterpret_cast<unsigned long long>(g.C) & 15) == 0;
}

// C rows m_wg .. (M_ATOMS 64 rows), columns n0 .. of the first C_STAGED_PARTS parts, batch entry z, into this
// consumer's staging buffers `d_buf`: 16-byte chunk j of row r of a box at chunk j ^ d_box_xor(r), as stmatrix
// puts D there; zeros outside C (the TMA store clips those values).  One cp.async group.
__device__ __forceinline__ void stage_c_tile(const Gemm& g, unsigned d_buf, int m_wg, int n0, int z, int bar_id) {
    constexpr int PART_COLS = BLOCK_N / D_PARTS, CHUNKS = PART_COLS / 8, BOX_CHUNKS = D_BOX_BYTES / 16;
    constexpr unsigned PART_BYTES = 64 * PART_COLS * 2, BOX_SIZE = 64 * D_BOX_BYTES;
    const int t = threadIdx.x % 128;
    cp_async_wait<0>();  // (a staging no epilogue consumed, a split-K range's: done before its buffer is rewritten)
    if (t == 0) tma_store_wait_read<0>();  // the previous tile's stores have read the buffers
    warpgroup_bar_sync(bar_id);
    const elem_c* c = g.C + (i64)z * g.batch_c;
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a)
#pragma unroll
        for (int part = 0; part < C_STAGED_PARTS; ++part) {
            const unsigned part_buf = d_buf + a * ATOM_BUF + part * PART_BYTES;
#pragma unroll 1
            for (int i = t; i < 64 * CHUNKS; i += 128) {  // (not unrolled: it runs beside the live accumulators)
                const int r = i / CHUNKS, j = i % CHUNKS;
                const int m = m_wg + 64 * a + r, n = n0 + part * PART_COLS + 8 * j;
                const int bytes = m < g.M && n < g.N ? 2 * min(8, g.N - n) : 0;
                const unsigned dst = part_buf + (j / BOX_CHUNKS) * BOX_SIZE + r * D_BOX_BYTES +
                                     (((j % BOX_CHUNKS) ^ d_box_xor(r)) << 4);
                cp_async_16_zfill(dst, bytes ? c + (i64)m * g.c_row + n : g.C, bytes);
            }
        }
    cp_async_commit();
}

// EPI_GATED (epilogue_act.cuh): each m64 block's up half of the accumulators becomes act(gate) * up, the
// tile's BLOCK_N / 2 output columns (alpha = 1, beta = 0: the host checks).  The gate half is free after
// this, so EPI_OVERLAP may issue the next tile's first wgmmas on it at once.
template <int NACC>
__device__ __forceinline__ void gate_tile(acc_t (&acc)[NACC]) {
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a)
#pragma unroll
        for (int j = 0; j < ATOM_ACC / 2; ++j) {
            const float gate = acc[a * ATOM_ACC + j], up = acc[a * ATOM_ACC + ATOM_ACC / 2 + j];
            acc[a * ATOM_ACC + ATOM_ACC / 2 + j] = activate<ACTIVATION>(gate) * up;
        }
}

// The up half of m64 block a's accumulators: where gate_tile left the gated values.
template <int NACC>
__device__ __forceinline__ acc_t (&gated_half(acc_t (&acc)[NACC], int a))[ATOM_ACC / 2] {
    return *reinterpret_cast<acc_t(*)[ATOM_ACC / 2]>(&acc[a * ATOM_ACC + ATOM_ACC / 2]);
}

// The gated tile's BLOCK_N / 2 columns (gz.N: the output's columns, n_out: the tile's first) through the staging
// buffer and TMA stores, in GATED_PARTS parts of 64 columns.
template <int NACC>
__device__ __forceinline__ void store_gated_staged(const Gemm& gz, acc_t (&acc)[NACC], unsigned d_buf,
                                                   const TmaDesc* tma_d, int m_wg, int n_out, int z, int cw) {
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a)
        epilogue_tma_store<GATED_PARTS, GATED_BUFS, 0, GATED_PARTS, CRead::None>(gz, gated_half(acc, a), d_buf + a * ATOM_BUF,
                                                                             tma_d, m_wg + 64 * a, n_out, z, 1 + cw);
}

// The gated tile from registers (D not 16-byte aligned: an odd number of output columns).
template <int NACC>
__device__ __forceinline__ void store_gated_registers(const Gemm& gz, const acc_t (&acc)[NACC], int m_wg, int n_out,
                                                      int warp, int lane) {
    const int col = n_out + 2 * (lane % 4);
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a) {
        const int row = m_wg + 64 * a + warp * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < BLOCK_N / 16; ++j) {
            store_d_run<2>(gz, row, col + 8 * j, &acc[a * ATOM_ACC + ATOM_ACC / 2 + 4 * j]);
            store_d_run<2>(gz, row + 8, col + 8 * j, &acc[a * ATOM_ACC + ATOM_ACC / 2 + 4 * j + 2]);
            asm volatile("" ::: "memory");
        }
    }
}

// Staged: consumer cw's rows of tile c (consumer_row0), one m64 block at a time, through its buffer `d_buf`.
// c_staged: stage_c_tile copied the tile's C (c_stageable).
template <int NACC>
__device__ __forceinline__ void store_tile_staged(const Gemm& gz, const Gemm& g, acc_t (&acc)[NACC], unsigned d_buf,
                                                  const TmaDesc* tma_d, const TileCoord& c, int cw, bool c_staged) {
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a) {
        const int m_wg = c.m0 + consumer_row0(cw) + 64 * a, z = g.batch_d ? c.z : 0;
        if constexpr (kStageC) {
            if (c_staged) {
                epilogue_tma_store<D_PARTS, EPI_BUFS, 0, D_PARTS, CRead::Staged>(gz, atom(acc, a), d_buf + a * ATOM_BUF,
                                                                                 tma_d, m_wg, c.n0, z, 1 + cw);
                continue;
            }
        }
        epilogue_tma_store<D_PARTS, EPI_BUFS>(gz, atom(acc, a), d_buf + a * ATOM_BUF, tma_d, m_wg, c.n0, z, 1 + cw);
    }
}

// Staged, rows m_end and below left alone (a grouped GEMM's tile reaching past its expert's segment:
// group_rows.cuh): 16-byte stores from the staging buffer instead of TMA stores (epilogue_tma.cuh, CLIP).
template <int NACC>
__device__ __forceinline__ void store_tile_staged_clipped(const Gemm& gz, acc_t (&acc)[NACC], unsigned d_buf,
                                                          const TileCoord& c, int cw, int m_end) {
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a)
        epilogue_tma_store_as<D_PARTS, EPI_BUFS, CRead::None, true, 0, D_PARTS, true>(
            gz, atom(acc, a), d_buf + a * ATOM_BUF, nullptr, c.m0 + consumer_row0(cw) + 64 * a, c.n0, 0, 1 + cw, m_end);
}

// From registers: thread (warp, lane) of consumer cw holds rows warp * 16 + lane / 4 (+ 8) of each m64
// block, column pairs 2 (lane % 4) + 8 j.
template <int NACC>
__device__ __forceinline__ void store_tile_registers(const Gemm& gz, const acc_t (&acc)[NACC], const TileCoord& c,
                                                     int cw, int warp, int lane) {
    const int col = c.n0 + 2 * (lane % 4);
#pragma unroll
    for (int a = 0; a < M_ATOMS; ++a) {
        const int row = c.m0 + consumer_row0(cw) + 64 * a + warp * 16 + lane / 4;
#pragma unroll
        for (int j = 0; j < BLOCK_N / 8; ++j) {
            store_d_run<2>(gz, row, col + 8 * j, &acc[a * ATOM_ACC + 4 * j]);
            store_d_run<2>(gz, row + 8, col + 8 * j, &acc[a * ATOM_ACC + 4 * j + 2]);
            asm volatile("" ::: "memory");  // keep ptxas from hoisting all 64 stores' addresses (s32 D spilled)
        }
    }
}

// D^T from registers (D_TRANSPOSED with a 32-bit D: tf32's A_REGS configs, x @ w with w row-major): the tile
// is of D^T = B^T A^T, its element (row, col) is D's (col, row).  For each register a warp writes 8
// consecutive rows of the tile (32 bytes of one row of D, a whole sector) in 4 rows of D.  C (beta != 0) is
// read at the transposed problem's strides (problem.transposed_store exchanged them).
template <int NACC>
__device__ __forceinline__ void store_tile_registers_transposed(const Gemm& gz, const acc_t (&acc)[NACC],
                                                                const TileCoord& c, int cw, int warp, int lane) {
    static_assert(NACC == ATOM_ACC, "one m64 block per consumer");
    const int col = c.n0 + 2 * (lane % 4);
    const int row = c.m0 + consumer_row0(cw) + warp * 16 + lane / 4;
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const int r = row + 8 * h, n = col + 8 * j + i;
                if (r < gz.M && n < gz.N) gz.D[(i64)n * gz.ldd + r] = to_d(epilogue_value(gz, r, n, acc[4 * j + 2 * h + i]));
            }
}
