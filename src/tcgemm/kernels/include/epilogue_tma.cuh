// epilogue_tma.cuh — a warpgroup's 64 x BLOCK_N accumulator tile to global
// memory through shared memory and TMA stores (sm_90), for 16-bit D.
//
// Why: written straight from registers (epilogue.cuh), each thread stores
// pairs of adjacent columns, so a warp instruction writes 8 rows x 16 bytes,
// half a 32-byte sector per row, and the consumer warps are busy issuing 64
// such stores per tile while the tensor cores wait.  Here each warp writes its
// values into shared memory with stmatrix (16 columns x 16 rows per
// instruction), one thread hands the staged tile to the TMA unit, and the
// warpgroup goes straight back to the next tile's wgmmas: the global writes
// (whole 128-byte lines, edges clipped by the tensor map's extents) overlap
// the next main loop.
//
// Staging layout: BLOCK_N / 64 boxes of 64 rows x 64 columns (128-byte rows,
// 8 KB each, 1024-byte aligned), swizzled as the tensor map's
// CU_TENSOR_MAP_SWIZZLE_128B expects: the 16-byte chunk c of row r sits at
// chunk c ^ (r % 8).  One stmatrix matrix is 8 consecutive rows of one chunk
// column, which the XOR spreads over 8 different bank quads: no conflicts.
//
// Tiles whose width is not a multiple of 64 (96 or 144 columns: whole waves
// of tiles at N = 768 or 2304) stage boxes of 64- or 32-byte rows instead
// (D_BOX_BYTES; the host encodes D's map with the matching 64B or 32B
// swizzle).  The hardware XORs address bits [4, 7) with bits [7, 10), so with
// rows of P bytes chunk c of row r sits at c ^ ((r * P / 128) % (P / 16)):
// rows r and r + 1 of a 64-byte box share a 128-byte line and an XOR value,
// and the 8 rows of a stmatrix matrix still land in 8 different bank quads
// (4 XOR values x 2 halves of the line; 32-byte rows: 2 x 4).
//
// 32-bit D (fp32 or s32; configs with EPI_32BIT): a 128-byte row is 32 columns, so
// the boxes are 64 rows x 32 columns, and there is no 32-bit stmatrix: each
// thread stores its column pairs with 8-byte st.shared at the same swizzled
// addresses.  Rows r and r + 1 of a half-warp then meet in the same banks
// (their chunk pairs are swapped by the XOR), a 2-way conflict on a few
// dozen stores per tile.
//
// Buffer reuse: the thread that issued the previous tile's stores waits until
// they have *read* the buffer (wait_group.read 0) before the warpgroup
// overwrites it; by then a whole main loop has passed, so it rarely waits.
// A tile staged in parts through one buffer waits so between its own parts,
// for the TMA unit to read the part just handed over (it may first have to
// issue loads the producer queued for the next tile); with BUFS = 2 buffers
// the parts alternate and each waits only for the part before last
// (wait_group.read 1), which the TMA unit read while this warpgroup wrote the
// other buffer.
#pragma once
#include "epilogue.cuh"
#include "cp_async.cuh"
#include "ldmatrix.cuh"
#include "tma.cuh"

__device__ __forceinline__ void warpgroup_bar_sync(int id) {
    asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

__device__ __forceinline__ unsigned pack_d2(float lo, float hi) {
    union {
        elem_d h[2];
        unsigned u;
    } p;
    p.h[0] = from_float<elem_d>(lo);
    p.h[1] = from_float<elem_d>(hi);
    return p.u;
}

#ifndef D_BOX_BYTES
#define D_BOX_BYTES 128  // bytes per staged box row: 128, or 64 / 32 for tiles of 96 or 144 columns (above)
#endif

// The swizzle's XOR value for row r of a staged box (the chunk index bits it flips).
__device__ __forceinline__ int d_box_xor(int r) { return (r / (128 / D_BOX_BYTES)) % (D_BOX_BYTES / 16); }

__device__ __forceinline__ void st_shared_v2(unsigned addr, unsigned x, unsigned y) {
    asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(addr), "r"(x), "r"(y) : "memory");
}

// D rows m_wg .. m_wg + 63, columns n0 .. n0 + 2 * NACC - 1 of batch entry z
// (C, if read, already points at entry z).  `buf`: this warpgroup's staging
// buffer of BUFS x 64 x (2 * NACC / PARTS) elements; `bar_id`: a named barrier
// owned by this warpgroup (not 0).  PARTS > 1 stages the tile in that many
// column parts through a smaller buffer (leaving shared memory for a deeper
// ring), each part waiting until the TMA unit has read the one BUFS before it.
//
// How C is read (beta != 0) is a template parameter so that each case compiles
// to straight-line code: with the test inside the unrolled loop, the blend
// code for every 16 columns sat between the stores of the common beta = 0
// path, and the consumers stalled on instruction fetch in the epilogue
// (Nsight Compute's "no instruction" stalls, bf16 128 x 256).
//
// C's loads must not wait one by one: every stmatrix is an asm with a memory
// clobber, so a load of C after it cannot move above it, and a blend that
// loads the 8 values of each 16 columns just before their stmatrix pays one
// L2 round trip per 16 columns: 32 per tile at 128 x 256, about as long as a
// K = 768 tile's whole main loop.  (At 2048 tokens GPT-2's layers, all with a
// bias, ran at 0.42-0.67x cuBLAS, Llama-3-8B's, without, at 0.98-1.02x:
// 2026-11-25-h100-models-a7883c2.json.)  A bias (C a row broadcast: c_row =
// 0, c_col = 1, pairs aligned: what tcgemm.nn.Linear passes) therefore has a
// path of its own, C_ROW: each warp loads the tile's bias once, coalesced,
// lane l holding the column pairs l, l + 32, l + 64, ... (BLOCK_N / 64
// registers for a 16-bit C) before the first part, and each 16-column step
// takes the two pairs its lane needs with two shuffles.  Holding each lane's
// own pairs instead (2 per step: 32 registers at BLOCK_N = 256) spilled; so
// do the shuffles in 128 x 256 tiles stored in one part (ptxas hoists all 32
// above the first store), which keep the element-wise blend.  C_ROW also runs beside the next
// tile's first wgmmas (EPI_OVERLAP; hopper_epilogue.cuh) without serializing
// them, which the element-wise blend did.  Any other C (C_ANY) keeps the
// element-wise loads.
//
// FIRST, LAST: only parts [FIRST, LAST) (EPI_OVERLAP stores a tile in two calls, the next tile's first
// wgmmas issued in between; the parts use the same buffers as in one call).
// Which reads of C a call site compiles: none (the caller knows beta = 0), a bias row only, or any C; Staged:
// any C whose first BUFS parts the caller already copied into the staging buffers, in D's swizzled layout
// (hopper_epilogue.cuh: stage_c_tile).  Those parts read C with ldmatrix at the very addresses their stmatrix
// then writes D to (ldmatrix and stmatrix map lanes to elements alike, so each register holds the C pair of its
// accumulator pair), with no wait on global memory; the other parts read C as Any does.
enum class CRead { None, Row, Any, Staged };

// C's columns n, n + 1 of a row broadcast as 32-bit words (16-bit C: one word, x in its low half;
// 32-bit C: two, C_WORDS), so that they load and shuffle without a trip through local memory.
static_assert(sizeof(elem_c) == 2 || sizeof(elem_c) == 4, "16- or 32-bit C");
enum : int { C_WORDS = sizeof(elem_c) / 2 };  // (an enumerator: no global symbol in the PTX)
struct CPair {
    unsigned w[C_WORDS];
};
__device__ __forceinline__ float c_float(unsigned bits) {
    union {
        unsigned u;
        elem_c e[4 / sizeof(elem_c)];
    } v;
    v.u = bits;
    return to_float(v.e[0]);
}
__device__ __forceinline__ float c_x(const CPair& p) { return c_float(p.w[0]); }
__device__ __forceinline__ float c_y(const CPair& p) { return C_WORDS == 1 ? c_float(p.w[0] >> 16) : c_float(p.w[C_WORDS - 1]); }
// (n even; 0 beyond N)
__device__ __forceinline__ CPair load_c_pair(const Gemm& g, int n) {
    CPair p;
    if (n + 1 < g.N) {
        if constexpr (C_WORDS == 1) {
            p.w[0] = *reinterpret_cast<const unsigned*>(g.C + n);
        } else {
            const uint2 q = *reinterpret_cast<const uint2*>(g.C + n);
            p.w[0] = q.x;
            p.w[C_WORDS - 1] = q.y;
        }
        return p;
    }
#pragma unroll
    for (int i = 0; i < C_WORDS; ++i) p.w[i] = 0u;
    if (n < g.N) {
        union {
            unsigned u;
            elem_c e[4 / sizeof(elem_c)];
        } v;
        v.u = 0u;
        v.e[0] = g.C[n];
        p.w[0] = v.u;
    }
    return p;
}
// Lane `src`'s pair, for every lane of the warp.
__device__ __forceinline__ CPair shfl_pair(const CPair& p, int src) {
    CPair q;
#pragma unroll
    for (int i = 0; i < C_WORDS; ++i) q.w[i] = __shfl_sync(0xffffffffu, p.w[i], src);
    return q;
}
// Whether C is a bias row the C_ROW epilogue reads in pairs (g.C already at the tile's batch entry).
__device__ __forceinline__ bool c_is_bias_row(const Gemm& g) {
    return g.c_row == 0 && g.c_col == 1 && (reinterpret_cast<unsigned long long>(g.C) % (2 * sizeof(elem_c))) == 0;
}

// CLIP: rows m_end and below are not this tile's to write (a grouped GEMM's segment ends there, and the rows after
// it are the next expert's: group_rows.cuh), so the staged parts go out as 16-byte stores of the rows above m_end
// instead of TMA stores, which clip at the tensor's edges only. Each 16-byte chunk of a staged row is read back at
// its swizzled place; eight lanes write a 128-byte line. From registers (store_tile_registers) a warp instruction
// writes 8 rows x 16 bytes, and those tiles, 9 of DeepSeek-V3's 32 experts at 512 tokens each, held back their
// cluster peers enough to cost the L2 its reuse of B: the contiguous layout 1.88 ms against the masked one's 1.54
// under Nsight Compute, level with segments of at least one tile (2026-11-27-h100-ncu-grouped-*.txt).
template <int BOX_COLS, int PART_COLS>
__device__ __forceinline__ void store_staged_rows(const Gemm& g, unsigned part_buf, int m_wg, int n_part, int m_end) {
    constexpr int CHUNKS = D_BOX_BYTES / 16, ELEMS = 16 / sizeof(elem_d), BOXES = PART_COLS / BOX_COLS;
    constexpr unsigned BOX_SIZE = 64 * D_BOX_BYTES;
    const int rows = min(64, min(m_end, g.M) - m_wg);
#pragma unroll 4
    for (int i = threadIdx.x % 128; i < BOXES * 64 * CHUNKS; i += 128) {
        const int b = i / (64 * CHUNKS), r = (i / CHUNKS) % 64, c = i % CHUNKS;
        const int n = n_part + b * BOX_COLS + c * ELEMS;
        if (r >= rows || n >= g.N) continue;
        uint4 v;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(part_buf + b * BOX_SIZE + r * D_BOX_BYTES + ((c ^ d_box_xor(r)) << 4)));
        elem_d* dst = g.D + (i64)(m_wg + r) * g.ldd + n;
        if (n + ELEMS <= g.N) {
            *reinterpret_cast<uint4*>(dst) = v;
        } else {  // (the last columns of D: element by element, the bits picked at constant places)
#pragma unroll
            for (int j = 0; j < ELEMS; ++j) {
                constexpr int PER_WORD = 4 / sizeof(elem_d);
                const unsigned word = j / PER_WORD == 0 ? v.x : j / PER_WORD == 1 ? v.y : j / PER_WORD == 2 ? v.z : v.w;
                if (n + j < g.N) {
                    if constexpr (sizeof(elem_d) == 2)
                        reinterpret_cast<unsigned short*>(dst)[j] = (unsigned short)(word >> (16 * (j % PER_WORD)));
                    else
                        reinterpret_cast<unsigned*>(dst)[j] = word;
                }
            }
        }
    }
}

template <int PARTS, int BUFS, CRead MODE, bool SCALE, int FIRST, int LAST, bool CLIP = false, typename Acc, int NACC>
__device__ __forceinline__ void epilogue_tma_store_as(const Gemm& g, const Acc (&acc)[NACC], unsigned buf,
                                                      const TmaDesc* tma_d, int m_wg, int n0, int z, int bar_id,
                                                      int m_end = 0) {
    constexpr bool WIDE = sizeof(elem_d) == 4;    // fp32 or s32 D
    constexpr bool INT = (Acc)0.5f == 0;          // s32 accumulators (int8): exact integer alpha, beta
    static_assert((sizeof(elem_d) == 2 && !INT) || (WIDE && sizeof(Acc) == 4),
                  "TMA-store epilogue: 16-bit or fp32 D from float sums, s32 D from s32 sums");
    constexpr int BOX_COLS = D_BOX_BYTES / sizeof(elem_d);  // columns per swizzled box row (128 bytes: 64 or 32)
    constexpr unsigned BOX_SIZE = 64 * D_BOX_BYTES;           // one box: 64 rows
    static_assert(D_BOX_BYTES == 128 || D_BOX_BYTES == 64 || D_BOX_BYTES == 32, "a TMA swizzle span");
    static_assert((2 * NACC / PARTS) % BOX_COLS == 0, "whole boxes per part");
    // Part p of every tile uses buffer p % BUFS, so the part before last is always the other buffer's.
    static_assert((BUFS == 1 || BUFS == 2) && PARTS % BUFS == 0, "one buffer, or two taking parts in turn");
    constexpr unsigned PART_BYTES = 64 * (2 * NACC / PARTS) * sizeof(elem_d);
    constexpr int PART_JP = NACC / 8 / PARTS;  // 16-column steps per part
    static_assert(PART_JP * 8 * PARTS == NACC, "each part a whole number of 16-column steps (TileConfig.writes)");
    const int wg_tid = threadIdx.x % 128, warp = wg_tid / 32, lane = wg_tid % 32;
    const int q = lane / 8, r8 = lane % 8;               // this lane addresses row r8 of stmatrix matrix q
    const int r_stm = warp * 16 + (q % 2) * 8 + r8;      // the box row this lane addresses for stmatrix
    const unsigned row_offset = r_stm * D_BOX_BYTES;
    const int m_lo = m_wg + warp * 16 + lane / 4;       // rows this lane's values belong to: m_lo, m_lo + 8
    const int n_lane = n0 + 2 * (lane % 4);
    // C_ROW: pair p of the tile's bias (columns n0 + 2p, + 1) is in register p / 32 of lane p % 32; the
    // 16-column steps [JP0, JP1) of this call use pairs 8 JP0 .. 8 JP1 - 1, i.e. registers R0 .. R1 - 1.
    constexpr int JP0 = FIRST * PART_JP, JP1 = LAST * PART_JP, R0 = JP0 / 4, R1 = (JP1 - 1) / 4 + 1;
    CPair bias[MODE == CRead::Row ? R1 - R0 : 1];
    if constexpr (MODE == CRead::Row) {
#pragma unroll
        for (int r = R0; r < R1; ++r) bias[r - R0] = load_c_pair(g, n0 + 2 * (lane + 32 * r));
    }
    // CRead::Any with a row-major 16-bit C at 4-byte aligned rows: each part's C values come in as column
    // pairs (one 32-bit load for v[i], v[i + 1]), all of the part's issued before the wait for its buffer. Read
    // one element at a time inside the loop below, a part cost one round trip per 16 columns: 6-8 us per
    // 128 x 256 tile (2026-11-26-h100-explore-c-epilogue-872c966.json: +7% at K = 14336, +16% at K = 4096).
    // (Not with TAIL_SPLIT: its 16 more live registers spilled 128 x 256's; those read element by element.)
    static_assert(MODE != CRead::Staged || (sizeof(elem_d) == 2 && sizeof(elem_c) == 2 && !INT),
                  "C staged in D's buffers: 16-bit C and D");
    constexpr bool ANY = MODE == CRead::Any || MODE == CRead::Staged;  // (reads a whole-matrix C)
    constexpr bool PAIRS = ANY && sizeof(elem_c) == 2 && !INT && !kTailSplit;
    const bool pairs = PAIRS && g.c_col == 1 && g.c_row % 2 == 0 && (reinterpret_cast<unsigned long long>(g.C) & 3) == 0;
#pragma unroll
    for (int part = FIRST; part < LAST; ++part) {
        const unsigned part_buf = buf + (part % BUFS) * PART_BYTES;
        const bool from_smem = MODE == CRead::Staged && part < BUFS;  // (a constant once the loop is unrolled)
        unsigned c_pairs[PAIRS ? PART_JP * 4 : 1];  // (pj, h, row half): C at columns n, n + 1 as two 16-bit halves
        if constexpr (PAIRS) {
            if (pairs && !from_smem) {
#pragma unroll
                for (int pj = 0; pj < PART_JP; ++pj) {
#pragma unroll
                    for (int q = 0; q < 4; ++q) {  // q = 2 h + row half: values 4 h + 2 (row half) (+ 1)
                        const int m = m_lo + 8 * (q % 2), n = n_lane + 8 * (2 * (part * PART_JP + pj) + q / 2);
                        unsigned word = 0u;
                        if (m < g.M && n + 1 < g.N) {
                            word = *reinterpret_cast<const unsigned*>(g.C + m * (i64)g.c_row + n);
                        } else if (m < g.M && n < g.N) {
                            union {
                                unsigned u;
                                elem_c e[2];
                            } one;
                            one.u = 0u;
                            one.e[0] = g.C[m * (i64)g.c_row + n];
                            word = one.u;
                        }
                        c_pairs[pj * 4 + q] = word;
                    }
                }
            }
        }
        if (from_smem) cp_async_wait<0>();  // this thread's copies of C are in (the barrier: everyone's)
        if (wg_tid == 0) tma_store_wait_read<BUFS - 1>();  // earlier stores are done reading part_buf
        warpgroup_bar_sync(bar_id);
#pragma unroll
        for (int pj = 0; pj < PART_JP; ++pj) {  // two 8-column blocks (2 jp, 2 jp + 1) per stmatrix.x4
            const int jp = part * PART_JP + pj;
            float v[8];
            unsigned w[8];  // 32-bit D: the values' bits
            // 16-bit D: the stmatrix address of this lane's 8 x 8 block (and, C staged, of its C block)
            const int block = 2 * pj + q / 2;  // 8-column block (within the part) whose rows this lane addresses
            constexpr int BOX_BLOCKS = BOX_COLS / 8;  // 8-column blocks (16-byte chunks) per box row
            const unsigned addr = part_buf + row_offset + (block / BOX_BLOCKS) * BOX_SIZE +
                                  (((block % BOX_BLOCKS) ^ d_box_xor(r_stm)) << 4);
            if constexpr (INT) {  // int32 arithmetic, wrapping like cuBLAS's 32I mode (epilogue.cuh)
#pragma unroll
                for (int i = 0; i < 8; ++i) {  // (outside D the TMA store clips the value: C is not read there)
                    const int m = m_lo + 8 * ((i / 2) % 2), n = n_lane + 8 * (2 * jp + i / 4) + i % 2;
                    const int x = (int)acc[8 * jp + i];
                    w[i] = (unsigned)(m < g.M && n < g.N ? epilogue_value(g, m, n, x) : x);
                }
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i) v[i] = SCALE ? g.alpha * acc[8 * jp + i] : acc[8 * jp + i];
                if constexpr (ANY) {
                    if (from_smem) {  // C pairs in the accumulator layout: (v[2 i], v[2 i + 1]) <- register i
                        u32 cr[4];
                        ldmatrix_x4(cr[0], cr[1], cr[2], cr[3], addr);
#pragma unroll
                        for (int i = 0; i < 4; ++i) {
                            v[2 * i] += g.beta * c_float(cr[i]);
                            v[2 * i + 1] += g.beta * c_float(cr[i] >> 16);
                        }
                    } else if (PAIRS && pairs) {  // values 4 h + 2 r, + 1: columns n, n + 1 of row half r (outside D: zeros)
#pragma unroll
                        for (int q = 0; q < 4; ++q) {
                            const unsigned word = c_pairs[PAIRS ? pj * 4 + q : 0];
                            v[4 * (q / 2) + 2 * (q % 2)] += g.beta * c_float(word);
                            v[4 * (q / 2) + 2 * (q % 2) + 1] += g.beta * c_float(word >> 16);
                        }
                    } else {
#pragma unroll
                        for (int i = 0; i < 8; ++i) {
                            const int m = m_lo + 8 * ((i / 2) % 2), n = n_lane + 8 * (2 * jp + i / 4) + i % 2;
                            if (m < g.M && n < g.N) v[i] += g.beta * to_float(g.C[(i64)m * g.c_row + (i64)n * g.c_col]);
                        }
                    }
                } else if constexpr (MODE == CRead::Row) {
                    // values 4 h .. 4 h + 3: columns n_lane + 16 jp + 8 h (+ 1), i.e. pair 8 jp + 4 h + lane % 4
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const CPair p = shfl_pair(bias[jp / 4 - R0], (8 * jp + 4 * h + lane % 4) % 32);
                        const float x = g.beta * c_x(p), y = g.beta * c_y(p);
                        v[4 * h] += x;
                        v[4 * h + 1] += y;
                        v[4 * h + 2] += x;
                        v[4 * h + 3] += y;
                    }
                }
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    v[i] = activate<STORE_ACT>(v[i]);  // (epilogue_act.cuh; none unless EPI_ACT)
                    w[i] = __float_as_uint(v[i]);
                }
            }
            if constexpr (WIDE) {
                // v[0..1], v[2..3]: columns 2 (lane % 4) + {0, 1} of 8-column block 2 pj, rows lane / 4 and
                // + 8; v[4..7]: the same of block 2 pj + 1.  Column c of the part: box c / 32, 16-byte chunk
                // (c % 32) / 4 of the row, swizzled by the row's index mod 8 (= lane / 4 here).
                // (Rows rl and rl + 8 have the same XOR value: 8 rows span whole swizzle periods' worth of it.)
                const int rl = warp * 16 + lane / 4;
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int c = 16 * pj + 8 * h + 2 * (lane % 4);
                    const unsigned box = part_buf + (c / BOX_COLS) * BOX_SIZE + (lane % 2) * 8;
                    const int chunk = ((c % BOX_COLS) / 4) ^ d_box_xor(rl);
                    st_shared_v2(box + rl * D_BOX_BYTES + (chunk << 4), w[4 * h], w[4 * h + 1]);
                    st_shared_v2(box + (rl + 8) * D_BOX_BYTES + (chunk << 4), w[4 * h + 2], w[4 * h + 3]);
                }
            } else {
                stmatrix_x4(addr, pack_d2(v[0], v[1]), pack_d2(v[2], v[3]), pack_d2(v[4], v[5]),
                            pack_d2(v[6], v[7]));
            }
        }
        fence_proxy_async();  // make the shared-memory writes visible to the TMA unit
        warpgroup_bar_sync(bar_id);
        if constexpr (CLIP) {  // (the next part's barrier keeps its staging behind these reads)
            store_staged_rows<BOX_COLS, 16 * PART_JP>(g, part_buf, m_wg, n0 + 16 * PART_JP * part, m_end);
        } else if (wg_tid == 0) {
#pragma unroll
            for (int b = 0; b < 16 * PART_JP / BOX_COLS; ++b)
                tma_store_3d(tma_d, part_buf + b * BOX_SIZE, n0 + 16 * PART_JP * part + BOX_COLS * b, m_wg, z);
            tma_store_commit();
        }
    }
}

// D written transposed (16-bit D; configs with D_TRANSPOSED, hopper_config.cuh): the kernel computes D^T = B^T A^T
// with the weight as its A (64-row blocks: features) and the tokens as its B (BLOCK_N: any multiple of 8, so
// that M = 300 tokens take two tiles of 152), and this warpgroup's 64 x NTOK tile of D^T goes out as an NTOK x
// 64 tile of D: stmatrix.trans writes each 8 x 8 block transposed into a buffer of NTOK rows (tokens) of 128
// bytes (64 features), 128-byte swizzled, and the staging's `store` writes it at (features m_wg, tokens n0) of
// D's map.  C (beta != 0) is read element-wise at the transposed problem's strides, except a bias (per feature:
// c_row = 1, c_col = 0 here), which each lane loads once for its two rows.
// Staging: the NTOK rows in blocks of 8 tokens (1 KB: each block keeps the swizzle's 1024-byte period), `at(b)`
// the address of block b.  DtBuffer: one buffer, one box of 64 x NTOK; hopper_epilogue.cuh's DtRing: blocks in
// a ring slot, 8-token boxes.
struct DtBuffer {
    unsigned buf;
    __device__ __forceinline__ unsigned at(int b) const { return buf + b * 1024; }
    __device__ __forceinline__ void store(const TmaDesc* tma_d, int m_wg, int n0, int z, int /*n_end*/) const {
        if (threadIdx.x % 128 == 0) {
            tma_store_3d(tma_d, buf, m_wg, n0, z);  // D's map: x = features (D's columns), y = tokens (D's rows)
            tma_store_commit();
        }
    }
};

template <bool SCALE, bool BIAS, bool ANY, typename Staging, typename Acc, int NACC>
__device__ __forceinline__ void epilogue_tma_store_transposed_as(const Gemm& g, const Acc (&acc)[NACC],
                                                                 const Staging& buf, const TmaDesc* tma_d, int m_wg,
                                                                 int n0, int z, int bar_id) {
    static_assert(sizeof(elem_d) == 2, "transposed TMA-store epilogue: 16-bit D");
    const int wg_tid = threadIdx.x % 128, warp = wg_tid / 32, lane = wg_tid % 32;
    const int q = lane / 8, r8 = lane % 8;
    const int m_lo = m_wg + warp * 16 + lane / 4;  // this lane's rows (features): m_lo, m_lo + 8
    const int n_lane = n0 + 2 * (lane % 4);
    float b_lo = 0.0f, b_hi = 0.0f;
    if constexpr (BIAS) {
        if (m_lo < g.M) b_lo = g.beta * to_float(g.C[(i64)m_lo * g.c_row]);
        if (m_lo + 8 < g.M) b_hi = g.beta * to_float(g.C[(i64)(m_lo + 8) * g.c_row]);
    }
    if (wg_tid == 0) tma_store_wait_read<0>();  // the previous tile's store has read the buffer
    warpgroup_bar_sync(bar_id);
    // 16 tokens per step: four 8 x 8 blocks, one stmatrix.x4.trans; a last 8 (NTOK an odd multiple of 8), x2.
#pragma unroll
    for (int jp = 0; jp < (NACC + 4) / 8; ++jp) {
        constexpr int LAST = NACC / 8;  // (the x2 step, where NACC % 8 == 4)
        const int nv = jp == LAST ? 4 : 8;
        float v[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = i < nv ? (SCALE ? g.alpha * acc[8 * jp + i] : acc[8 * jp + i]) : 0.0f;
        if constexpr (BIAS) {
#pragma unroll
            for (int i = 0; i < 8; ++i) v[i] += (i / 2) % 2 ? b_hi : b_lo;
        }
        if constexpr (ANY) {
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int m = m_lo + 8 * ((i / 2) % 2), n = n_lane + 8 * (2 * jp + i / 4) + i % 2;
                // (32-bit offsets: 64-bit index arithmetic here made the widest tiles (232 tokens, 116 accumulators)
                // spill; the host refuses these configs a C of 2^31 elements or more, dispatch.config_refuses)
                if (i < nv && m < g.M && n < g.N) v[i] += g.beta * to_float(g.C[m * (int)g.c_row + n * (int)g.c_col]);
            }
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = activate<STORE_ACT>(v[i]);
        // Block q of the x4 holds features 8 (q % 2) .. + 7 of this warp's 16 and tokens 16 jp + 8 (q / 2) .. + 7;
        // stored transposed, its row r8 is token 16 jp + 8 (q / 2) + r8, its 16 bytes the feature chunk 2 warp + q % 2.
        const int chunk = 2 * warp + q % 2;
        const unsigned addr = buf.at(2 * jp + q / 2) + r8 * 128 + ((chunk ^ r8) << 4);
        if (jp == LAST)
            stmatrix_x2_trans(addr, pack_d2(v[0], v[1]), pack_d2(v[2], v[3]));  // (lanes 16 .. 31: addresses unused)
        else
            stmatrix_x4_trans(addr, pack_d2(v[0], v[1]), pack_d2(v[2], v[3]), pack_d2(v[4], v[5]), pack_d2(v[6], v[7]));
    }
    fence_proxy_async();
    warpgroup_bar_sync(bar_id);
    buf.store(tma_d, m_wg, n0, z, g.N);
}

template <typename Staging, typename Acc, int NACC>
__device__ __forceinline__ void epilogue_tma_store_transposed(const Gemm& g, const Acc (&acc)[NACC], const Staging& buf,
                                                              const TmaDesc* tma_d, int m_wg, int n0, int z, int bar_id) {
    if (g.beta != 0.0f && g.c_col == 0 && g.c_row == 1) {
        epilogue_tma_store_transposed_as<true, true, false>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    } else if (g.beta != 0.0f) {
        epilogue_tma_store_transposed_as<true, false, true>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    } else if (g.alpha != 1.0f) {
        epilogue_tma_store_transposed_as<true, false, false>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    } else {
        epilogue_tma_store_transposed_as<false, false, false>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    }
}

// READ: which reads of C this call site may need (CRead::None: the caller knows beta = 0; CRead::Row:
// the caller knows C is none or a bias row; CRead::Staged: the caller staged the first BUFS parts of a whole C).
template <int PARTS, int BUFS, int FIRST = 0, int LAST = PARTS, CRead READ = CRead::Any, typename Acc, int NACC>
__device__ __forceinline__ void epilogue_tma_store(const Gemm& g, const Acc (&acc)[NACC], unsigned buf,
                                                   const TmaDesc* tma_d, int m_wg, int n0, int z, int bar_id) {
    constexpr bool INT = (Acc)0.5f == 0;  // s32 sums: epilogue_value reads C itself
    // alpha = 1, beta = 0 (the common call; fp8's scales ride on alpha) skips the multiply: 128
    // instructions per thread and tile at 128 x 256 while the tensor cores wait (x * 1.0f is x).
    // C_ROW for a 16-bit C where a tile is stored in parts or is narrow: 128 x 256 (and 128 x 128) tiles
    // stored in one part spilled with it (ptxas hoists the shuffles of all 16 steps above the first
    // store), and so did a 32-bit C; those blend element-wise.
    constexpr bool ROW_OK = sizeof(elem_c) == 2 && (PARTS > 1 || NACC <= 32);
    static_assert(READ != CRead::Row || ROW_OK, "a call site that relies on C_ROW needs a tile stored in parts");
    if constexpr (ROW_OK && READ != CRead::None) {
        if (!INT && g.beta != 0.0f && (READ == CRead::Row || c_is_bias_row(g))) {
            epilogue_tma_store_as<PARTS, BUFS, CRead::Row, true, FIRST, LAST>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
            return;
        }
    }
    if constexpr (READ == CRead::Staged) {
        if (!INT && g.beta != 0.0f) {
            epilogue_tma_store_as<PARTS, BUFS, CRead::Staged, true, FIRST, LAST>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
            return;
        }
    }
    if (READ == CRead::Any && !INT && g.beta != 0.0f) {  // (READ is a constant: no code for the others)
        epilogue_tma_store_as<PARTS, BUFS, CRead::Any, true, FIRST, LAST>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    } else if (INT || g.alpha != 1.0f)
        epilogue_tma_store_as<PARTS, BUFS, CRead::None, true, FIRST, LAST>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
    else
        epilogue_tma_store_as<PARTS, BUFS, CRead::None, false, FIRST, LAST>(g, acc, buf, tma_d, m_wg, n0, z, bar_id);
}
