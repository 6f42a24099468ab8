// wmma stage 1 — CTA tiles in skewed shared memory, double-buffered.
//
// Stage 0 read every fragment from global memory, each element of A and B
// once per 16-wide tile of D that needs it.  Here a CTA of THREADS threads
// computes a BLOCK_M x BLOCK_N tile of D: it copies BLOCK_M x BLOCK_K of A
// and BLOCK_K x BLOCK_N of B into shared memory once, and its warps — each
// owning a WARP_M x WARP_N tile, (WARP_M/16) x (WARP_N/16) accumulator
// fragments — read their fragments from there.  A fragment of A is reused
// for WARP_N/16 mma_syncs and one of B for WARP_M/16, so a warp issues
// (WARP_M + WARP_N)/16 fragment loads per (WARP_M/16)(WARP_N/16) mma_syncs
// (6 per 8 for a 64 x 32 warp tile, against 2 per 1 in stage 0), those loads
// hit shared memory instead of L1/L2, and global traffic falls by the CTA
// tile size.
//
// Copies are double-buffered through registers (as in SIMT stage 7): the
// next K tile's global loads are issued before the tensor-core work on the
// current one and written to the other shared buffer after it, so one
// barrier per K tile and the global latency hides behind the MMAs.  With
// VEC = 4 (operands 16-byte aligned) a thread moves 16 bytes per load;
// otherwise it moves 4 bytes made of 1-, 2- or 4-byte element loads.
// Elements outside the matrix are zeros, so the K loop has no edge cases.
//
// Shared tiles keep the operands' own layouts (the row/column-major trick of
// stage 0: col_major fragments for column-major operands), with every line
// SKEW = 16 bytes longer than the tile — the "skewed" shared memory:
//   A fragment load reads 8 lines x 16 bytes at a time (one 8x8 matrix of
//   ldmatrix, or the 8 rows of a 32-bit fragment load).  With an unpadded
//   line of 64 or 256 bytes (a multiple of 128), all 8 pieces fall on the
//   same 4 banks: an 8-way (or 4-way) conflict.  With a line of 16 * odd
//   bytes (80, 272, ...), line r starts at 16-byte slot (odd * r) mod 8 of
//   the 128-byte bank window, a different slot for each of the 8 lines:
//   one wavefront, conflict-free.  16 bytes is also the smallest skew wmma
//   allows (leading dimension a multiple of 16 bytes, fragment pointers
//   32-byte aligned: tile offsets are even multiples of the line pitch).
// int8 caveats: a 16 x 16 int8 fragment is 16 bytes wide, so fragments at odd
// multiples of 16 along a line start 16-byte (not 32-byte) aligned; the code
// generated for them (LDSM, byte loads) needs no more than 16.  And IMMA
// wants A row-major and B column-major: for the other layouts wmma gathers
// bytes one at a time (LDS.U8) — correct, but the slow transposes of this
// stage; the mma_sync ladder transposes while copying instead.
// The epilogue reuses the operand buffers to turn each warp's accumulators
// into row-major strips that whole 128-byte rows of D can be written from.
#include "epilogue.cuh"
#include "wmma.cuh"

#ifndef BLOCK_M
#define BLOCK_M 128
#define BLOCK_N 128
#define BLOCK_K 16  // 64 bytes of float (tf32) per line
#define WARP_M 64
#define WARP_N 32
#define THREADS 256
#define VEC 4
#endif

constexpr int WARPS_N = BLOCK_N / WARP_N;
constexpr int FRAGS_M = WARP_M / MMA_M, FRAGS_N = WARP_N / MMA_N;
static_assert((BLOCK_M / WARP_M) * WARPS_N * 32 == THREADS, "one warp per warp tile");
static_assert(WARP_M % MMA_M == 0 && WARP_N % MMA_N == 0 && BLOCK_K % MMA_K == 0, "whole fragments");

constexpr bool A_ROW = A_LAYOUT == LAYOUT_ROW, B_ROW = B_LAYOUT == LAYOUT_ROW;
constexpr int SKEW = WMMA_LD_STEP;  // 16 bytes of elements
// A row-major: As[m][k]; column-major: As[k][m].  B row-major: Bs[k][n]; column-major: Bs[n][k].
constexpr int A_LINES = A_ROW ? BLOCK_M : BLOCK_K, A_LINE = A_ROW ? BLOCK_K : BLOCK_M;
constexpr int B_LINES = B_ROW ? BLOCK_K : BLOCK_N, B_LINE = B_ROW ? BLOCK_N : BLOCK_K;
constexpr int A_LD = A_LINE + SKEW, B_LD = B_LINE + SKEW;
constexpr int A_TILE = A_LINES * A_LD, B_TILE = B_LINES * B_LD;  // elements
static_assert((A_LD * sizeof(elem_a) / 16) % 2 == 1 && (B_LD * sizeof(elem_b) / 16) % 2 == 1,
              "line pitch an odd number of 16-byte slots (see the bank-conflict note)");

// Epilogue staging: per warp, one 16-row strip of its accumulators,
// row-major.  store_matrix_sync writes 8 rows x 32 bytes per instruction
// for 32-bit accumulators; a pitch of WARP_N + 8 words (160 bytes when
// WARP_N = 32, an odd number of 32-byte slots) spreads those rows over
// all banks, where WARP_N words (128 bytes) would stack them 8-deep.
constexpr int ACC_LD = WARP_N + 8;
constexpr int OPERAND_BYTES = 2 * (A_TILE + B_TILE) * (int)sizeof(elem_a);
constexpr int STAGE_BYTES = (THREADS / 32) * MMA_M * ACC_LD * (int)sizeof(acc_t);
constexpr int SMEM_BYTES_ = OPERAND_BYTES > STAGE_BYTES ? OPERAND_BYTES : STAGE_BYTES;

// Global -> registers -> shared copy of one operand tile: LINES lines of
// LINE contiguous elements, element (s, f) at src[s * ld + f], stored at
// dst[s * DST_LD + f].  Each thread moves CHUNK-byte pieces; consecutive
// threads take consecutive pieces of a line, so a warp reads whole lines.
template <int LINES, int LINE, int DST_LD>
struct TileCopy {
    static constexpr int CHUNK = VEC == 4 ? 16 : 4;
    static constexpr int E = CHUNK / (int)sizeof(elem_bits);  // elements per piece
    static constexpr int WORDS = CHUNK / 4;
    static constexpr int LINE_CHUNKS = LINE / E;
    static constexpr int ITERS = LINES * LINE_CHUNKS / THREADS;
    static_assert(LINE % E == 0 && (LINES * LINE_CHUNKS) % THREADS == 0, "tile splits evenly into pieces");

    unsigned reg[ITERS][WORDS];

    // tile: element (0, 0) of the tile; lines_left / line_left: how much of it is in the matrix.
    __device__ __forceinline__ void fetch(const elem_bits* tile, i64 ld, int lines_left, int line_left) {
#pragma unroll
        for (int it = 0; it < ITERS; ++it) {
            const int idx = threadIdx.x + it * THREADS;
            const int s = idx / LINE_CHUNKS, f = (idx % LINE_CHUNKS) * E;
            const elem_bits* p = tile + (i64)s * ld + f;
            if (VEC == 4 && s < lines_left && f + E <= line_left) {
                const uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
                reg[it][0] = v.x;
                reg[it][1 % WORDS] = v.y;
                reg[it][2 % WORDS] = v.z;
                reg[it][3 % WORDS] = v.w;
            } else {
#pragma unroll
                for (int w = 0; w < WORDS; ++w) reg[it][w] = 0;
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    const unsigned bits = (s < lines_left && f + e < line_left) ? (unsigned)__ldg(p + e) : 0u;
                    constexpr int SZ = sizeof(elem_bits);
                    reg[it][e * SZ / 4] |= bits << (8 * ((e * SZ) % 4));  // little-endian packing
                }
            }
        }
    }

    __device__ __forceinline__ void store(elem_bits* dst) const {
#pragma unroll
        for (int it = 0; it < ITERS; ++it) {
            const int idx = threadIdx.x + it * THREADS;
            const int s = idx / LINE_CHUNKS, f = (idx % LINE_CHUNKS) * E;
            elem_bits* q = dst + s * DST_LD + f;
            if constexpr (WORDS == 4) {
                *reinterpret_cast<uint4*>(q) = make_uint4(reg[it][0], reg[it][1 % WORDS], reg[it][2 % WORDS],
                                                          reg[it][3 % WORDS]);
            } else {
                *reinterpret_cast<unsigned*>(q) = reg[it][0];
            }
        }
    }
};

__device__ __forceinline__ void wmma_smem_body(const Gemm& g) {
    __shared__ __align__(128) unsigned char smem[SMEM_BYTES_];
    elem_bits* const a_buf = reinterpret_cast<elem_bits*>(smem);  // [2][A_TILE]
    elem_bits* const b_buf = a_buf + 2 * A_TILE;                   // [2][B_TILE]

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int m0 = blockIdx.y * BLOCK_M, n0 = blockIdx.x * BLOCK_N;
    const int wm = (warp / WARPS_N) * WARP_M, wn = (warp % WARPS_N) * WARP_N;  // warp tile in the CTA tile
    const int tiles = (g.K + BLOCK_K - 1) / BLOCK_K;

    TileCopy<A_LINES, A_LINE, A_LD> copy_a;
    TileCopy<B_LINES, B_LINE, B_LD> copy_b;
    const elem_bits* const A = reinterpret_cast<const elem_bits*>(g.A);
    const elem_bits* const B = reinterpret_cast<const elem_bits*>(g.B);
    // Tile t of A starts at (m0, t*BLOCK_K), of B at (t*BLOCK_K, n0); lines run along m or k (A), k or n (B).
    auto fetch = [&](int t) {
        const int k0 = t * BLOCK_K;
        copy_a.fetch(A + a_offset(g, m0, k0), g.lda, A_ROW ? g.M - m0 : g.K - k0, A_ROW ? g.K - k0 : g.M - m0);
        copy_b.fetch(B + b_offset(g, k0, n0), g.ldb, B_ROW ? g.K - k0 : g.N - n0, B_ROW ? g.N - n0 : g.K - k0);
    };

    frag_acc acc[FRAGS_M][FRAGS_N];
#pragma unroll
    for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j) wm::fill_fragment(acc[i][j], acc_t(0));

    fetch(0);
    copy_a.store(a_buf);
    copy_b.store(b_buf);
    __syncthreads();

    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) fetch(t + 1);
        const elem_a* As = reinterpret_cast<const elem_a*>(a_buf + cur * A_TILE);
        const elem_b* Bs = reinterpret_cast<const elem_b*>(b_buf + cur * B_TILE);
#pragma unroll
        for (int kk = 0; kk < BLOCK_K; kk += MMA_K) {
            frag_b b[FRAGS_N];
#pragma unroll
            for (int j = 0; j < FRAGS_N; ++j) {
                const int n = wn + j * MMA_N;
                wm::load_matrix_sync(b[j], Bs + (B_ROW ? kk * B_LD + n : n * B_LD + kk), B_LD);
                to_mma_input(b[j]);
            }
#pragma unroll
            for (int i = 0; i < FRAGS_M; ++i) {
                const int m = wm + i * MMA_M;
                frag_a a;
                wm::load_matrix_sync(a, As + (A_ROW ? m * A_LD + kk : kk * A_LD + m), A_LD);
                to_mma_input(a);
#pragma unroll
                for (int j = 0; j < FRAGS_N; ++j) wm::mma_sync(acc[i][j], a, b[j], acc[i][j]);
            }
        }
        if (t + 1 < tiles) {
            copy_a.store(a_buf + (cur ^ 1) * A_TILE);
            copy_b.store(b_buf + (cur ^ 1) * B_TILE);
        }
        __syncthreads();
    }

    // Epilogue: the loop ended on a barrier, so the operand buffers are free.
    // One 16-row strip of the warp tile at a time: wmma writes it row-major,
    // then each group of 8 lanes writes 32 consecutive columns of one row.
    acc_t* const strip = reinterpret_cast<acc_t*>(smem) + warp * MMA_M * ACC_LD;
    constexpr int RUNS_PER_ROW = WARP_N / 4;
    static_assert((MMA_M * RUNS_PER_ROW) % 32 == 0, "strip splits evenly over the lanes");
#pragma unroll
    for (int i = 0; i < FRAGS_M; ++i) {
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j)
            wm::store_matrix_sync(strip + j * MMA_N, acc[i][j], ACC_LD, wm::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int idx = lane; idx < MMA_M * RUNS_PER_ROW; idx += 32) {
            const int r = idx / RUNS_PER_ROW, c = (idx % RUNS_PER_ROW) * 4;
            alignas(16) acc_t v[4];
            load_acc4(v, strip + r * ACC_LD + c);
            store_d_run<4>(g, m0 + wm + i * MMA_M + r, n0 + wn + c, v);
        }
        __syncwarp();  // the strip is read before the next one overwrites it
    }
}

TCGEMM_KERNEL(wmma_smem, wmma_smem_body)
