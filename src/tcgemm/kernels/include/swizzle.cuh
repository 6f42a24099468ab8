// swizzle.cuh — XOR-swizzled shared-memory tiles: conflict-free without padding.
//
// Shared memory has 32 banks of 4 bytes; a warp's access takes one pass
// ("wavefront") per 128 bytes when every 4-byte bank is touched at most once,
// and more passes when two addresses share a bank.  Think of memory as 128-byte
// lines of eight 16-byte chunks: chunk position p (0..7) within its line IS
// the bank group (banks 4p..4p+3).
//
// Tiles are stored as rows of ROW_BYTES bytes, each row a whole number of
// 16-byte chunks.  Both writers and readers work in chunks:
//   * cp.async writes one 16-byte chunk per lane; eight consecutive lanes
//     write eight consecutive chunks of one row (a full 128 bytes).
//   * ldmatrix reads, per 8x8 matrix, the SAME logical chunk of 8 consecutive
//     rows.  Unswizzled with ROW_BYTES = 128 those are 8 chunks at position p
//     of 8 lines: one bank group, an 8-way conflict.  (Padding each row by 16
//     bytes also fixes this, at the cost of memory and of 16-byte-unaligned
//     row strides for wider accesses.)
//
// Swizzle: store logical chunk c of row r at chunk c ^ mask(r) of the same
// row (only the low 3 bits change, so a chunk stays in its 128-byte segment).
//   ROW_BYTES % 128 == 0:  mask = r & 7          8 rows -> 8 different positions
//   ROW_BYTES == 64:       mask = (r >> 1) & 3   two rows share a line; rows r
//                          and r^1 sit in different halves, pairs differ by the XOR
//   ROW_BYTES == 32:       mask = (r >> 2) & 1   same argument with 4 rows a line
// In each case 8 consecutive rows at one logical chunk land on 8 distinct
// positions (ldmatrix: one wavefront per matrix), and the 8 chunks of one
// 128-byte line written by 8 lanes are a permutation of it (cp.async: one
// wavefront per 8 lanes).
//
// MN-major tf32 / s8 operands are read per 32-bit word instead (ldmatrix
// cannot split them; mma_sync/02_cp_async_pipeline.cu): lane (g, t) reads
// the word(s) of row k = ROWS_PER_T*t + i at column chunk pair {2q, 2q+1}
// (its g selects the word).  Those 4 rows (t = 0..3) must map the pair to four
// disjoint pairs, so that mask is (((r / ROWS_PER_T) & 3) << 1) — an even
// XOR keeps {2q, 2q+1} a pair and moves it to a different pair for each t:
// 4 rows x 8 words = all 32 banks.  (ROWS_PER_T = 1 for tf32, 4 for s8.)
#pragma once

// Byte offset of logical 16-byte chunk `chunk` of row `row`.
// ROWS_PER_T == 0: the ldmatrix pattern; > 0: the MN-major word pattern.
template <int ROW_BYTES, int ROWS_PER_T = 0>
__device__ __forceinline__ int swizzled_offset(int row, int chunk) {
    static_assert(ROW_BYTES % 16 == 0 && ROW_BYTES >= 32, "rows of whole 16-byte chunks, at least 32 bytes");
    int mask;
    if constexpr (ROWS_PER_T > 0) {
        static_assert(ROW_BYTES % 128 == 0, "the word pattern needs rows of whole 128-byte lines");
        mask = ((row / ROWS_PER_T) & 3) << 1;
    } else if constexpr (ROW_BYTES % 128 == 0) {
        mask = row & 7;
    } else if constexpr (ROW_BYTES == 64) {
        mask = (row >> 1) & 3;
    } else {
        static_assert(ROW_BYTES == 32, "row of 32, 64 or a multiple of 128 bytes");
        mask = (row >> 2) & 1;
    }
    return row * ROW_BYTES + ((chunk ^ mask) << 4);
}
