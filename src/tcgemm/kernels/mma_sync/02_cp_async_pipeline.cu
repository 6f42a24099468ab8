// mma_sync stage 2 — multistage cp.async pipeline, swizzled shared memory.
//
// Stage 1 still copies tiles through registers and waits for them: load,
// barrier, compute, barrier, with the global latency (~1 us) in the open.
// Here:
//   * cp.async (cp_async.cuh) copies global -> shared without registers and
//     without blocking; tiles are issued STAGES - 1 K steps ahead into a ring
//     of STAGES shared buffers, so while the tensor cores work on tile t the
//     copies of tiles t+1 .. t+STAGES-1 are in flight.  One barrier per tile.
//   * shared tiles keep the source layout (cp.async moves 16-byte chunks, it
//     cannot transpose) and are XOR-swizzled (swizzle.cuh) instead of padded:
//     cp.async stores and ldmatrix reads are both conflict-free, and rows stay
//     dense and 16-byte aligned.
//   * bigger warp tiles (64 x 64: 4 x 8 MMAs per MMA_K step, each A fragment
//     used 8 times and each B fragment 4 times from registers), fully
//     unrolled, and a 128 x 256 CTA tile for 8 warps, 1 CTA per SM, with a
//     128-byte K tile (64 f16, 32 tf32, 128 s8): 4 MMA_K steps per barrier.
//   * nothing but MMAs on the critical path (see "the K loop" below): the
//     fragments of the next MMA_K step — across tile boundaries too — are
//     loaded while the current one multiplies; the tile's one barrier comes
//     at its last step, when every warp still has a step of MMAs queued; and
//     the copies cost one cp.async and an address add each, because a
//     thread's chunk positions, swizzle and bounds are fixed for the whole
//     K loop and computed once (TileCopy).  With only 2 warps per scheduler
//     (the 64 x 64 accumulators take 128 of 255 registers) there is little
//     else to hide a stall behind.
//   * CTAs are rasterised in groups of GROUP_M tile rows so the A and B
//     panels a wave of CTAs reads stay in L2.
//
// Fragment loads per operand layout in shared memory:
//   K-major, any precision:    ldmatrix.x4 (see stage 1).
//   MN-major f16/bf16:         ldmatrix.x4.trans.
//   MN-major tf32/s8 ("PERM"): ldmatrix cannot split 32-bit or 8-bit elements.
//     Instead of transposing through registers, the kernel relabels which
//     actual rows/columns each MMA tile holds.  For B, the four n8 tiles of a
//     32-column group are interleaved: tile jj's fragment column c is actual
//     column 4c + jj.  Lane (g, t) then needs columns 4g .. 4g+3 — four
//     CONTIGUOUS elements, one per tile — at its k rows:
//       tf32: one 16-byte shared load per k row = b0 (or b1) of 4 tiles;
//       s8:   one 32-bit load per k row, 4 rows (4t .. 4t+3) transposed as a
//             4x4 byte matrix with 8 PRMTs = b0 (or b1) of 4 tiles.
//     A (column-major) is treated alike over 64-row groups: m16 tile jj's
//     fragment row r is actual row 4r + jj (r < 8) or 32 + 4(r-8) + jj.
//     The accumulators inherit the relabelling; the epilogue writes each back
//     to its actual (row, col) — with interleaved B the four tiles' c0 (c1)
//     values are 4 consecutive columns, a 4-wide vector store.  These reads
//     use their own swizzle (swizzle.cuh, ROWS_PER_T) that keeps them
//     conflict-free.  (fragments.py: perm_row / perm_col.)
//
// Edges and alignment: a 16-byte chunk that is partly outside the matrix is
// copied with cp.async's src-size form (the missing bytes become zeros), one
// wholly outside with src-size 0.  16-byte copies need 16-byte aligned rows
// (base pointer and leading dimension); the kernel tests that once per CTA
// and otherwise copies element by element — 4-byte cp.async for tf32,
// synchronous loads and a 16-byte shared store for f16/bf16/s8.
#include "cp_async.cuh"
#include "epilogue.cuh"
#include "ldmatrix.cuh"
#include "mma.cuh"
#include "swizzle.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 256
#define BLOCK_K 32
#define WARP_M 64
#define WARP_N 64
#define STAGES 4
#define THREADS 256
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

constexpr int E = sizeof(elem_a);
constexpr int CHUNK_E = 16 / E;  // elements per 16-byte chunk
constexpr int MT = WARP_M / MMA_M, NT = WARP_N / MMA_N;
constexpr int WARPS_N = BLOCK_N / WARP_N;
constexpr int KSTEPS = BLOCK_K / MMA_K;
static_assert(sizeof(elem_a) == sizeof(elem_b), "A and B share an element type");
static_assert((BLOCK_M / WARP_M) * WARPS_N * 32 == THREADS, "one warp per warp tile");
static_assert(WARP_M % MMA_M == 0 && WARP_N % 16 == 0 && BLOCK_K % MMA_K == 0, "whole MMA tiles, n8 pairs");

// Shared layout: the source layout, K-major or MN-major.
constexpr bool A_KMAJOR = A_LAYOUT == LAYOUT_ROW, B_KMAJOR = B_LAYOUT == LAYOUT_COL;
constexpr bool A_PERM = !A_KMAJOR && E != 2, B_PERM = !B_KMAJOR && E != 2;
static_assert(!A_PERM || WARP_M % 64 == 0, "interleaved A needs 64-row warp tiles");
static_assert(!B_PERM || WARP_N % 32 == 0, "interleaved B needs 32-column groups");
constexpr int ROWS_PER_T = E == 4 ? 1 : 4;  // k rows per fragment word for the PERM swizzle
constexpr int A_ROWS = A_KMAJOR ? BLOCK_M : BLOCK_K, A_ROW_BYTES = (A_KMAJOR ? BLOCK_K : BLOCK_M) * E;
constexpr int B_ROWS = B_KMAJOR ? BLOCK_N : BLOCK_K, B_ROW_BYTES = (B_KMAJOR ? BLOCK_K : BLOCK_N) * E;
constexpr int A_STAGE_BYTES = A_ROWS * A_ROW_BYTES, B_STAGE_BYTES = B_ROWS * B_ROW_BYTES;
constexpr int STAGE_BYTES = A_STAGE_BYTES + B_STAGE_BYTES;
#ifdef SMEM_BYTES
static_assert(SMEM_BYTES >= STAGES * STAGE_BYTES, "SMEM_BYTES in the config covers the pipeline");
#endif

template <int BYTES> struct Raw { typedef unsigned char type; };
template <> struct Raw<2> { typedef unsigned short type; };

template <int ROW_BYTES, bool PERM>
__device__ __forceinline__ int swz(int row, int chunk) {
    return swizzled_offset<ROW_BYTES, PERM ? ROWS_PER_T : 0>(row, chunk);
}

__device__ __forceinline__ u32 lds32(u32 addr) {
    u32 v;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr));
    return v;
}
__device__ __forceinline__ uint4 lds128(u32 addr) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
    return v;
}

__device__ __forceinline__ void sts128(u32 addr, u32 x, u32 y, u32 z, u32 w) {
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(addr), "r"(x), "r"(y), "r"(z), "r"(w));
}

// Which 16-byte chunk (row, chunk) of a ROWS x CPR-chunk tile this thread copies
// in its iteration `it`: consecutive threads take consecutive chunks of a row
// (coalesced).  PAIRED (tf32 PERM operands): iterations 2u and 2u+1 take the
// same chunk of rows k and k + 4 (k % 8 < 4), the two rows one tf32 fragment
// pair spans, so that the rounding pass can interleave them (round_tile_tf32).
template <int ROWS, int CPR, bool PAIRED>
__device__ __forceinline__ void chunk_coords(int it, int& row, int& chunk) {
    if constexpr (PAIRED) {
        static_assert(ROWS % 8 == 0 && (ROWS * CPR / THREADS) % 2 == 0, "row pairs divide among the threads");
        const int lin = threadIdx.x + (it / 2) * THREADS, p = lin / CPR;
        row = (p / 4) * 8 + p % 4 + 4 * (it % 2);
        chunk = lin % CPR;
    } else {
        const int idx = threadIdx.x + it * THREADS;
        row = idx / CPR;
        chunk = idx % CPR;
    }
}
constexpr bool A_PAIRED = A_PERM && E == 4, B_PAIRED = B_PERM && E == 4;
// tf32 inputs: TF32_ROUND = 1 rounds them to nearest (cvt.rna) in the pass over each landed tile
// described at TileCopy::round_tf32; 0 (the default) leaves the fp32 bits to the tensor cores, which
// ignore the low 13 (truncation, as in the wgmma kernels, which cannot touch their tiles), and then
// only the interleaved (PAIRED) operands still need the pass: with both operands K-major it goes
// entirely, with its wait for the next tile two steps early and a read and a write of every tile in
// shared memory.  Measured on the H100 at 4096^3 (rc): 147 TFLOP/s rounding, 199 truncating, with a
// relative error of 8e-4 instead of 3e-4 (random normal inputs; cuBLAS TF32: 3e-4).
#ifndef TF32_ROUND
#define TF32_ROUND 0
#endif
constexpr bool TILE_PASS = E == 4 && (TF32_ROUND || A_PAIRED || B_PAIRED);
__device__ __forceinline__ u32 tf32_bits(u32 x) { return TF32_ROUND ? to_tf32(x) : x; }

// --- producer: one operand's tile for one stage -------------------------------
// The tile is ROWS x ROW_BYTES in the source layout; "slow" is its row index
// (outer for K-major, k for MN-major), "fast" the contiguous one.
template <int ROWS, int ROW_BYTES, bool KMAJOR, bool PERM, bool ALIGNED, bool ROLLED, typename T>
__device__ __forceinline__ void load_tile_impl(u32 dst, const T* __restrict__ src, i64 ld, int outer0,
                                               int outer_n, int k0, int k_n) {
    constexpr int CPR = ROW_BYTES / 16, CHUNKS = ROWS * CPR;
    static_assert(CHUNKS % THREADS == 0, "whole chunks per thread");
    // ROLLED (the fallback loop, where the accumulators and fragments are live): one chunk
    // at a time, or the loads of all chunks would be hoisted together and exceed the
    // registers the MMA accumulators leave.
#pragma unroll(ROLLED ? 1 : CHUNKS / THREADS)
    for (int it = 0; it < CHUNKS / THREADS; ++it) {
        int row, chunk;
        chunk_coords<ROWS, CPR, PERM && E == 4>(it, row, chunk);
        const int slow = KMAJOR ? outer0 + row : k0 + row;          // in the matrix
        const int fast = (KMAJOR ? k0 : outer0) + chunk * CHUNK_E;
        const int slow_n = KMAJOR ? outer_n : k_n, fast_n = KMAJOR ? k_n : outer_n;
        const T* p = src + (i64)slow * ld + fast;
        const u32 d = dst + swz<ROW_BYTES, PERM>(row, chunk);
        const int left = slow < slow_n ? fast_n - fast : 0;          // elements of this chunk in range
        if constexpr (ALIGNED) {
            const int bytes = left <= 0 ? 0 : left >= CHUNK_E ? 16 : left * E;
            cp_async_16_zfill(d, bytes > 0 ? (const void*)p : (const void*)src, bytes);
        } else if constexpr (E == 4) {
#pragma unroll
            for (int e = 0; e < 4; ++e) cp_async_4_zfill(d + 4 * e, e < left ? p + e : src, e < left ? 4 : 0);
        } else {
            typedef typename Raw<E>::type raw;
            const raw* q = reinterpret_cast<const raw*>(p);
            union { raw v[CHUNK_E]; uint4 u; } buf;
#pragma unroll
            for (int e = 0; e < CHUNK_E; ++e) buf.v[e] = e < left ? q[e] : raw(0);
            asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(d), "r"(buf.u.x), "r"(buf.u.y),
                         "r"(buf.u.z), "r"(buf.u.w));
        }
    }
}

// The steady-state copy: everything about a thread's chunks that does not
// change along K is computed once (TileCopy below), so issuing a tile costs,
// per 16-byte chunk, one cp.async plus a 64-bit address add (and for K-major
// operands a row test): the general load_tile_impl above recomputes rows,
// swizzle and bounds for every chunk, ~15 instructions each, which in the
// first version of this kernel was most of the non-MMA work of the K loop.
//
// Why the per-thread state is so small: with THREADS a multiple of the chunks
// per row, a thread's chunks all sit in one chunk column, RPI rows apart (for
// PAIRED tf32 operands: rows k, k + 4, k + 2 RPI, ...), and the swizzle masks
// repeat every 8 rows (ldmatrix pattern) or 4 ROWS_PER_T rows (PERM pattern),
// so iteration it lands at a compile-time offset from iteration 0 — an
// immediate in the LDGSTS — and its source is `ptr + delta(it) * ld`.
// Bounds inside full K tiles: a K-major operand's chunk row (m or n) may lie
// past the matrix (delta >= rem: zero-filled, read from a safe address); an
// MN-major operand's chunk column has a fixed source size (0..16 bytes) for
// the whole loop.  The last, partial K tile and unaligned operands use the
// general path.
template <int ROWS, int ROW_BYTES, bool KMAJOR, bool PERM, typename T>
struct TileCopy {
    static constexpr int CPR = ROW_BYTES / 16, ITERS = ROWS * CPR / THREADS;
    static constexpr bool PAIRED = PERM && E == 4;
    static constexpr int RPI = THREADS / CPR;                 // rows between consecutive iterations
    static constexpr int PERIOD = PERM ? 4 * ROWS_PER_T : 8;  // rows after which the swizzle repeats
    static_assert(THREADS % CPR == 0 && (ROWS * CPR) % THREADS == 0, "each thread copies one chunk column");
    static_assert(!PAIRED || RPI % 4 == 0, "paired rows k, k + 4 stay in the thread's column");
    static constexpr bool STRAIGHT = PAIRED || RPI % PERIOD == 0 || ITERS == 1;

    int row0, chunk, off0, rem, bytes;
    const T* ptr;  // source of iteration 0 for the next fast tile
    i64 ld, kstep;

    __device__ static constexpr int delta(int it) { return PAIRED ? (it / 2) * 2 * RPI + 4 * (it % 2) : it * RPI; }

    __device__ __forceinline__ void init(const T* src, i64 ld_, int outer0, int outer_n) {
        chunk_coords<ROWS, CPR, PAIRED>(0, row0, chunk);
        off0 = swz<ROW_BYTES, PERM>(row0, chunk);
        ld = ld_;
        if constexpr (KMAJOR) {  // rows are m (n); a row past the matrix reads row outer_n - 1, zero-filled
            rem = outer_n - outer0 - row0;
            ptr = src + (i64)min(outer0 + row0, outer_n - 1) * ld + chunk * CHUNK_E;
            kstep = BLOCK_K;
            bytes = 16;
        } else {  // rows are k; the chunk column is in, partly in or out of the matrix for good
            const int left = outer_n - outer0 - chunk * CHUNK_E;
            bytes = left <= 0 ? 0 : left >= CHUNK_E ? 16 : left * E;
            ptr = src + (i64)row0 * ld + (left > 0 ? outer0 + chunk * CHUNK_E : 0);
            kstep = BLOCK_K * ld;
            rem = ROWS;
        }
    }
    // Byte offset of iteration `it`'s chunk within a stage.
    __device__ __forceinline__ int offset(int it) const {
        if constexpr (STRAIGHT) return off0 + delta(it) * ROW_BYTES;
        else return swz<ROW_BYTES, PERM>(row0 + delta(it), chunk);
    }
    // Iterations [IT0, IT1) of the next full K tile into the stage at `slot`.
    template <int IT0, int IT1>
    __device__ __forceinline__ void copy(u32 slot) const {
#pragma unroll
        for (int it = IT0; it < IT1; ++it) {
            const u32 d = slot + offset(it);
            if constexpr (KMAJOR) {
                const bool ok = delta(it) < rem;
                cp_async_16_zfill(d, ok ? ptr + delta(it) * ld : ptr, ok ? 16 : 0);
            } else {
                cp_async_16_zfill(d, ptr + delta(it) * ld, bytes);
            }
        }
    }
    __device__ __forceinline__ void advance() { ptr += kstep; }

    // tf32: round the thread's own chunks of a landed tile in place (cvt.rna),
    // so fragments go to the MMA as loaded.  Rounding at fragment load would
    // cost a conversion per element per reading warp (4 warps read each A
    // element, 2 each B element); here it is one per element, and the thread's
    // own cp.async writes are visible to it after cp.async.wait_group.
    // PAIRED operands are also re-interleaved: the thread holds the same chunk
    // of rows k and k + 4 (x = x0..x3 at k, y = y0..y3 at k + 4) and writes back
    //     B:  row k:  x0 y0 x1 y1     row k + 4:  x2 y2 x3 y3
    //     A:  row k:  x0 x1 y0 y1     row k + 4:  x2 x3 y2 y3
    // so one 16-byte fragment load yields whole register pairs / quads: for B,
    // (b0, b1) of two n8 tiles; for A, (a0, a1, a2, a3) of one m16 tile (see
    // load_fragments).  Without it the MMA's register pairs must be assembled
    // from two loads with moves, which ptxas re-does before nearly every MMA.
    template <bool IS_A>
    __device__ __forceinline__ void round_tf32(u32 slot) const {
        if constexpr (PAIRED) {
#pragma unroll
            for (int u = 0; u < ITERS / 2; ++u) {
                const u32 dx = slot + offset(2 * u), dy = dx + 4 * ROW_BYTES;  // = offset(2u + 1)
                const uint4 x = lds128(dx), y = lds128(dy);
                if constexpr (IS_A) {  // quads (a0 a1 a2 a3) = (m, k) (m+1, k) (m, k+4) (m+1, k+4)
                    sts128(dx, tf32_bits(x.x), tf32_bits(x.y), tf32_bits(y.x), tf32_bits(y.y));
                    sts128(dy, tf32_bits(x.z), tf32_bits(x.w), tf32_bits(y.z), tf32_bits(y.w));
                } else {               // pairs (b0 b1) = (k, n) (k+4, n)
                    sts128(dx, tf32_bits(x.x), tf32_bits(y.x), tf32_bits(x.y), tf32_bits(y.y));
                    sts128(dy, tf32_bits(x.z), tf32_bits(y.z), tf32_bits(x.w), tf32_bits(y.w));
                }
            }
        } else if constexpr (TF32_ROUND) {
#pragma unroll
            for (int it = 0; it < ITERS; ++it) {
                const u32 d = slot + offset(it);
                const uint4 x = lds128(d);
                sts128(d, to_tf32(x.x), to_tf32(x.y), to_tf32(x.z), to_tf32(x.w));
            }
        }
    }
};

// General path: `aligned` is uniform across the CTA, one branch per operand and tile.
template <int ROWS, int ROW_BYTES, bool KMAJOR, bool PERM, bool ROLLED, typename T>
__device__ __forceinline__ void load_tile(u32 dst, const T* __restrict__ src, i64 ld, int outer0, int outer_n,
                                          int k0, int k_n, bool aligned) {
    if (aligned) load_tile_impl<ROWS, ROW_BYTES, KMAJOR, PERM, true, ROLLED>(dst, src, ld, outer0, outer_n, k0, k_n);
    else load_tile_impl<ROWS, ROW_BYTES, KMAJOR, PERM, false, ROLLED>(dst, src, ld, outer0, outer_n, k0, k_n);
}

// --- consumer: fragments of one MMA_K step ---------------------------------------

// Four fragment words of 4 interleaved tiles (PERM operands): element jj of
// the 4 contiguous ones at (k row, column 4g) belongs to tile jj.
// tf32: one 16-byte load.  s8: rows k .. k+3 (4 k per word), 4x4 byte transpose.
__device__ __forceinline__ void load_perm4(u32 (&out)[4], u32 row_addr, int row_bytes_stride) {
    if constexpr (E == 4) {
        const uint4 v = lds128(row_addr);
        out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w;
    } else {
        // w_i: bytes (tile 0..3) of k row 4t + i.  Word jj wants byte jj of w0..w3, lowest k lowest.
        const u32 w0 = lds32(row_addr), w1 = lds32(row_addr + row_bytes_stride);
        const u32 w2 = lds32(row_addr + 2 * row_bytes_stride), w3 = lds32(row_addr + 3 * row_bytes_stride);
        const u32 t0 = __byte_perm(w0, w1, 0x5140), t1 = __byte_perm(w0, w1, 0x7362);
        const u32 t2 = __byte_perm(w2, w3, 0x5140), t3 = __byte_perm(w2, w3, 0x7362);
        out[0] = __byte_perm(t0, t2, 0x5410); out[1] = __byte_perm(t0, t2, 0x7632);
        out[2] = __byte_perm(t1, t3, 0x5410); out[3] = __byte_perm(t1, t3, 0x7632);
    }
}

// For the PERM rows (a separate swizzle per row), the (row, chunk) of this
// lane's word for k row `k` and 4-element column group starting at `col`
// (a multiple of 4): swizzled address within the stage.
template <int ROW_BYTES>
__device__ __forceinline__ int perm_offset(int k, int col) {
    const int byte = col * E;
    return swz<ROW_BYTES, true>(k, byte / 16) + (byte % 16);
}

// Fragments of the next MMA_K step are loaded while the current one multiplies
// (two register sets), except where both operands take the PERM path, whose
// 16-byte / 4 x 32-bit loads would need more than 255 registers.
#ifndef FRAG_BUFS
#define FRAG_BUFS ((A_PERM && B_PERM) ? 1 : 2)
#endif

struct Fragments {
    u32 a[MT][4];
    u32 b[NT][2];
};

__device__ __forceinline__ void load_fragments(Fragments& f, u32 sa, u32 sb, int s, int wm, int wn, int lane) {
    const int q = lane / 8, r8 = lane % 8, g = lane / 4, t = lane % 4;
    // A
    if constexpr (A_PAIRED) {
        // Interleaved tf32 A: the chunk at (k row t + 4v, columns m .. m+3) holds
        // a0 a1 a2 a3 of m16 tile 4grp + 2q + v (rows g, g+8 = m + 2v, m + 2v + 1).
#pragma unroll
        for (int grp = 0; grp < MT / 4; ++grp)
#pragma unroll
            for (int q2 = 0; q2 < 2; ++q2)
#pragma unroll
                for (int v = 0; v < 2; ++v) {
                    const uint4 w = lds128(sa + perm_offset<A_ROW_BYTES>(s * MMA_K + t + 4 * v,
                                                                         wm + 64 * grp + 32 * q2 + 4 * g));
                    u32* a = f.a[4 * grp + 2 * q2 + v];
                    a[0] = w.x; a[1] = w.y; a[2] = w.z; a[3] = w.w;
                }
    } else if constexpr (A_PERM) {
#pragma unroll
        for (int grp = 0; grp < MT / 4; ++grp)
#pragma unroll
            for (int h = 0; h < 2; ++h)        // rows g (a0, a2) or g + 8 (a1, a3)
#pragma unroll
                for (int kh = 0; kh < 2; ++kh) {  // k words t (a0, a1) or t + 4 (a2, a3)
                    const int k = s * MMA_K + (t + 4 * kh) * ELEMS_PER_WORD;
                    const int m = wm + 64 * grp + 32 * h + 4 * g;
                    u32 w[4];
                    load_perm4(w, sa + perm_offset<A_ROW_BYTES>(k, m), A_ROW_BYTES);
#pragma unroll
                    for (int jj = 0; jj < 4; ++jj) f.a[4 * grp + jj][h + 2 * kh] = w[jj];
                }
    } else {
#pragma unroll
        for (int i = 0; i < MT; ++i) {
            int off;
            if constexpr (A_KMAJOR) off = swz<A_ROW_BYTES, false>(wm + i * MMA_M + r8 + 8 * (q % 2), 2 * s + q / 2);
            else off = swz<A_ROW_BYTES, false>(s * MMA_K + r8 + 8 * (q / 2), (wm + i * MMA_M) / 8 + q % 2);
            ldmatrix4<!A_KMAJOR>(f.a[i], sa + off);
        }
    }
    // B
    if constexpr (B_PAIRED) {
        // Interleaved tf32 B: the chunk at (k row t + 4v, columns n .. n+3) holds
        // b0 b1 of n8 tiles 4grp + 2v and 4grp + 2v + 1 (column g = n + 2v, n + 2v + 1).
#pragma unroll
        for (int grp = 0; grp < NT / 4; ++grp)
#pragma unroll
            for (int v = 0; v < 2; ++v) {
                const uint4 w = lds128(sb + perm_offset<B_ROW_BYTES>(s * MMA_K + t + 4 * v, wn + 32 * grp + 4 * g));
                f.b[4 * grp + 2 * v][0] = w.x; f.b[4 * grp + 2 * v][1] = w.y;
                f.b[4 * grp + 2 * v + 1][0] = w.z; f.b[4 * grp + 2 * v + 1][1] = w.w;
            }
    } else if constexpr (B_PERM) {
#pragma unroll
        for (int grp = 0; grp < NT / 4; ++grp)
#pragma unroll
            for (int kh = 0; kh < 2; ++kh) {  // k words t (b0) or t + 4 (b1)
                const int k = s * MMA_K + (t + 4 * kh) * ELEMS_PER_WORD;
                u32 w[4];
                load_perm4(w, sb + perm_offset<B_ROW_BYTES>(k, wn + 32 * grp + 4 * g), B_ROW_BYTES);
#pragma unroll
                for (int jj = 0; jj < 4; ++jj) f.b[4 * grp + jj][kh] = w[jj];
            }
    } else {
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
            int off;
            if constexpr (B_KMAJOR) off = swz<B_ROW_BYTES, false>(wn + j * MMA_N + r8 + 8 * (q / 2), 2 * s + q % 2);
            else off = swz<B_ROW_BYTES, false>(s * MMA_K + r8 + 8 * (q % 2), (wn + j * MMA_N) / 8 + q / 2);
            u32 r[4];
            ldmatrix4<!B_KMAJOR>(r, sb + off);
            f.b[j][0] = r[0]; f.b[j][1] = r[1]; f.b[j + 1][0] = r[2]; f.b[j + 1][1] = r[3];
        }
    }
}

// Actual row (within the warp tile) of accumulator row `r` (0..15) of m16 tile i,
// and actual column of fragment column `c` (0..7) of n8 tile j (fragments.py: perm_row, perm_col).
__device__ __forceinline__ int acc_row(int i, int r) {
    if constexpr (A_PAIRED) return 64 * (i / 4) + 32 * ((i % 4) / 2) + 4 * (r % 8) + 2 * (i % 2) + r / 8;
    else if constexpr (A_PERM) return 64 * (i / 4) + 32 * (r / 8) + 4 * (r % 8) + i % 4;
    else return i * MMA_M + r;
}
__device__ __forceinline__ int acc_col(int j, int c) {
    if constexpr (B_PERM) return 32 * (j / 4) + 4 * c + j % 4;
    else return j * MMA_N + c;
}

// --- the K loop ---------------------------------------------------------------
//
// Per tile t (KSTEPS MMA_K steps), with PREFETCH (two fragment sets):
//   every step s loads the fragments of step s + 1 while step s multiplies,
//     and the last step those of the NEXT tile's step 0: the MMAs never wait
//     for ldmatrix, not even across tiles;
//   steps 0 .. COPY_STEPS-1 each issue a slice of tile t + STAGES - 1's copies
//     (into the slot of tile t - 1), spread among the MMAs rather than bunched
//     in front of them; the slices form one cp.async group;
//   the last step waits for tile t + 1 and holds the tile's one __syncthreads,
//     which publishes tile t + 1 and certifies that nobody reads tile t's slot
//     any more (each warp has all of tile t's fragments in registers by then),
//     so tile t + 1's copies may refill it.
// The barrier thus comes while each warp still has a whole step of MMAs
// queued in the tensor pipe and waiting on it costs little.  Without PREFETCH
// (tf32/s8 with both operands MN-major: two fragment sets would need more than
// 255 registers) the barrier is at step 0, before the tile's first fragment
// loads, as in a plain multistage loop (it then frees tile t - 1's slot).
// tf32: each thread rounds its own chunks of tile t + 1 at ROUND_STEP, after
// the group that carries them is committed and before a barrier publishes them.
static_assert(KSTEPS >= 2 && STAGES >= 2, "at least two MMA_K steps per tile, two stages");
constexpr int ROUND_STEP = KSTEPS >= 3 ? KSTEPS - 2 : KSTEPS - 1;
constexpr int COPY_STEPS = TILE_PASS ? ROUND_STEP : KSTEPS - 1;

typedef TileCopy<A_ROWS, A_ROW_BYTES, A_KMAJOR, A_PERM, elem_a> CopyA;
typedef TileCopy<B_ROWS, B_ROW_BYTES, B_KMAJOR, B_PERM, elem_b> CopyB;

// f(Int<0>()), ..., f(Int<N-1>()): a loop whose index is a constant expression.
template <int V> struct Int { static constexpr int value = V; };
template <int I, int N> struct StaticFor {
    template <typename F> __device__ __forceinline__ static void run(F&& f) {
        f(Int<I>());
        StaticFor<I + 1, N>::run(f);
    }
};
template <int N> struct StaticFor<N, N> {
    template <typename F> __device__ __forceinline__ static void run(F&&) {}
};

// FAST: both operands 16-byte aligned: full K tiles take TileCopy's steady-state
// path; the element-wise fallback is not even compiled into this copy of the loop.
template <bool FAST>
__device__ __forceinline__ void mainloop(const Gemm& g, acc_t (&acc)[MT][NT][4], unsigned char* smem, int m0, int n0,
                                         int wm, int wn, int lane, bool a_aligned, bool b_aligned) {
    // The fallback loop (unaligned operands) keeps one fragment set: its general
    // copies need many registers of their own, and it only has to be correct.
    constexpr bool PREFETCH = FAST && FRAG_BUFS == 2;
    constexpr int SYNC_STEP = PREFETCH ? KSTEPS - 1 : 0;
    const u32 smem_base = cvta_shared(smem), smem_end = smem_base + STAGES * STAGE_BYTES;
    // A partial K tile (K % BLOCK_K != 0) is taken FIRST: tile 0 covers k in
    // [full * BLOCK_K, K) and tile t > 0 covers [(t - 1) * BLOCK_K, t * BLOCK_K).
    // Then only the prologue ever needs the general copy path, and in the FAST
    // loop body the steady-state copies are alone (fewer live registers).
    const int full = g.K / BLOCK_K, partial = g.K % BLOCK_K != 0, tiles = full + partial;
    CopyA ca;
    CopyB cb;
    ca.init(g.A, g.lda, m0, g.M);  // FAST copies; the tf32 rounding pass uses the offsets either way
    cb.init(g.B, g.ldb, n0, g.N);
    auto next_slot = [&](u32 slot) { return slot + STAGE_BYTES == smem_end ? smem_base : slot + STAGE_BYTES; };

    // The general path: all of tile `tile` at once.
    auto general = [&](int tile, u32 slot) {
        const int k0 = (tile < partial ? full : tile - partial) * BLOCK_K;
        load_tile<A_ROWS, A_ROW_BYTES, A_KMAJOR, A_PERM, !FAST>(slot, g.A, g.lda, m0, g.M, k0, g.K,
                                                                FAST || a_aligned);
        load_tile<B_ROWS, B_ROW_BYTES, B_KMAJOR, B_PERM, !FAST>(slot + A_STAGE_BYTES, g.B, g.ldb, n0, g.N, k0, g.K,
                                                                FAST || b_aligned);
    };
    // Slice `part` (of COPY_STEPS) of the next full tile, in k order, through TileCopy.
    auto fast = [&](u32 slot, auto part_c) {
        constexpr int part = decltype(part_c)::value;
        ca.template copy<part * CopyA::ITERS / COPY_STEPS, (part + 1) * CopyA::ITERS / COPY_STEPS>(slot);
        cb.template copy<part * CopyB::ITERS / COPY_STEPS, (part + 1) * CopyB::ITERS / COPY_STEPS>(slot + A_STAGE_BYTES);
        if constexpr (part == COPY_STEPS - 1) {
            ca.advance();
            cb.advance();
        }
    };
    // In the loop: tile >= STAGES - 1 >= 1, never the partial one.
    auto issue = [&](int tile, u32 slot, auto part_c) {
        if (tile < tiles) {
            if constexpr (FAST) fast(slot, part_c);
            else if constexpr (decltype(part_c)::value == 0) general(tile, slot);
        }
    };
    auto round_tf32 = [&](u32 slot) {
        if constexpr (TILE_PASS) {
            ca.template round_tf32<true>(slot);
            cb.template round_tf32<false>(slot + A_STAGE_BYTES);
        }
    };

    // Prologue: STAGES - 1 tiles in flight (empty groups keep the wait count uniform).
    u32 wr = smem_base;  // then: the slot of tile t + STAGES - 1 = that of tile t - 1
#pragma unroll 1
    for (int p = 0; p < STAGES - 1; ++p) {
        if (p < tiles) {
            if (!FAST || p < partial) general(p, wr);
            else StaticFor<0, COPY_STEPS>::run([&](auto part) { fast(wr, part); });
        }
        cp_async_commit();
        wr = next_slot(wr);
    }

    Fragments frag[PREFETCH ? 2 : 1];
    u32 rd = smem_base;  // tile t's slot
    if constexpr (TILE_PASS) {
        cp_async_wait<STAGES - 2>();
        round_tf32(rd);
    }
    if constexpr (PREFETCH) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        load_fragments(frag[0], rd, rd + A_STAGE_BYTES, 0, wm, wn, lane);
    }
#pragma unroll 1
    for (int t = 0; t < tiles; ++t) {
        const u32 nx = next_slot(rd);
        StaticFor<0, KSTEPS>::run([&](auto step) {
            constexpr int s = decltype(step)::value;
            if constexpr (TILE_PASS && s == ROUND_STEP) {
                cp_async_wait<STAGES - 2>();  // tile t + 1: its group was committed at step COPY_STEPS - 1
                if (t + 1 < tiles) round_tf32(nx);
            }
            if constexpr (s == SYNC_STEP) {
                cp_async_wait<STAGES - 2>();  // PREFETCH: tile t + 1 has landed; else tile t
                __syncthreads();
            }
            if constexpr (!PREFETCH) load_fragments(frag[0], rd, rd + A_STAGE_BYTES, s, wm, wn, lane);
            else if constexpr (s + 1 < KSTEPS) load_fragments(frag[(s + 1) % 2], rd, rd + A_STAGE_BYTES, s + 1, wm, wn, lane);
            else load_fragments(frag[(s + 1) % 2], nx, nx + A_STAGE_BYTES, 0, wm, wn, lane);
            if constexpr (s < COPY_STEPS) issue(t + STAGES - 1, wr, step);
            if constexpr (s == COPY_STEPS - 1) cp_async_commit();
            const Fragments& f = frag[PREFETCH ? s % 2 : 0];
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int i = 0; i < MT; ++i) {
                    // Serpentine order: consecutive MMAs share an A or B fragment.  j outermost:
                    // a PERM B fragment's two registers come from two different loads, and the
                    // MMA wants them as an aligned register pair; built once, used MT times.
                    const int ii = (j % 2) ? MT - 1 - i : i;
                    mma(acc[ii][j], f.a[ii], f.b[j]);
                }
        });
        rd = nx;
        wr = next_slot(wr);
    }
    cp_async_wait<0>();
}

__device__ __forceinline__ void mma_pipeline(const Gemm& g) {
    extern __shared__ __align__(128) unsigned char smem[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    // Grouped rasterisation: consecutive CTAs walk GROUP_M tile rows before moving right.
    const int tiles_n = gridDim.x, tiles_m = gridDim.y;
    const int id = blockIdx.y * tiles_n + blockIdx.x;
    const int first_m = (id / (GROUP_M * tiles_n)) * GROUP_M;
    const int group_rows = min(tiles_m - first_m, GROUP_M);
    const int tile_m = first_m + (id % (GROUP_M * tiles_n)) % group_rows;
    const int tile_n = (id % (GROUP_M * tiles_n)) / group_rows;
    const int m0 = tile_m * BLOCK_M, n0 = tile_n * BLOCK_N;
    const int wm = (warp / WARPS_N) * WARP_M, wn = (warp % WARPS_N) * WARP_N;

    // 16-byte copies need every row start 16-byte aligned: base pointer and leading dimension.
    const bool a_aligned = (reinterpret_cast<unsigned long long>(g.A) % 16 == 0) && (g.lda % CHUNK_E == 0);
    const bool b_aligned = (reinterpret_cast<unsigned long long>(g.B) % 16 == 0) && (g.ldb % CHUNK_E == 0);

    acc_t acc[MT][NT][4] = {};
#if defined(ASSUME_ALIGNED)  // analysis builds only: the fast loop alone in the SASS
    mainloop<true>(g, acc, smem, m0, n0, wm, wn, lane, true, true);
#else
    if (a_aligned && b_aligned) mainloop<true>(g, acc, smem, m0, n0, wm, wn, lane, true, true);
    else mainloop<false>(g, acc, smem, m0, n0, wm, wn, lane, a_aligned, b_aligned);
#endif

    // Epilogue: accumulators straight from registers to D (alpha, beta, C, conversion in store_d_run).
    const int gq = lane / 4, tq = lane % 4;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // accumulator rows g (c0, c1) and g + 8 (c2, c3)
            const int row = m0 + wm + acc_row(i, gq + 8 * h);
            if constexpr (B_PERM) {
                // Tiles 4p .. 4p+3 hold columns 8t .. 8t+3 (c0) and 8t+4 .. 8t+7 (c1) of group p.
#pragma unroll
                for (int p = 0; p < NT / 4; ++p)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const acc_t v[4] = {acc[i][4 * p][2 * h + e], acc[i][4 * p + 1][2 * h + e],
                                            acc[i][4 * p + 2][2 * h + e], acc[i][4 * p + 3][2 * h + e]};
                        store_d_run<4>(g, row, n0 + wn + acc_col(4 * p, 2 * tq + e), v);
                    }
            } else {
#pragma unroll
                for (int j = 0; j < NT; ++j) store_d_run<2>(g, row, n0 + wn + acc_col(j, 2 * tq), &acc[i][j][2 * h]);
            }
        }
}

TCGEMM_KERNEL(mma_pipeline, mma_pipeline)
