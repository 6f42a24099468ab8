// stage_copy.cu — the operand copies of tcgemm/staging.py (not a GEMM).
//
// A Hopper kernel reads an operand through TMA, which wants every row on a
// 16-byte boundary and, for tf32/int8/fp8, the K-major layout.  When the
// caller's tensor has neither (bf16 at 4095^3: rows of 8190 bytes; int8 with
// B row-major) kernel="auto" copies it into a buffer that has both: one read
// and one write of the operand against a GEMM that reads it K / BLOCK times.
// torch's copy_ into a padded or transposed view runs element by element with
// computed offsets; this is the usual tiled copy instead:
//
//   dst[z][i][j] (row i of R, column j of C, rows `ld` elements apart)
//     = src[z * s_b + i * s_i + j * s_j]
//
// through a TILE x TILE shared-memory tile: the read phase walks whichever
// source index has stride 1 across the lanes (coalesced reads whether or not
// the copy transposes), the write phase walks j (coalesced writes).  The +1
// column of padding puts a tile column on distinct banks for 4-byte elements,
// the transposing case's hot path (tf32); for 1- and 2-byte elements several
// lanes share a bank word, which costs a few shared-memory replays but no DRAM
// traffic.  Rows past R or columns past C are skipped (the padding of each
// row, ld - C elements, is never read by the GEMM).
#ifndef ELEM
#define ELEM unsigned short  // 1-, 2- or 4-byte element, copied as raw bits
#endif
typedef ELEM elem;
typedef long long i64;

constexpr int TILE = 32;
constexpr int ROWS = 8;  // thread rows: each thread moves TILE / ROWS elements per phase

extern "C" __global__ void __launch_bounds__(TILE * ROWS) stage_copy(const elem* __restrict__ src, i64 s_i, i64 s_j,
                                                                     i64 s_b, elem* __restrict__ dst, i64 ld, i64 d_b,
                                                                     int R, int C) {
    __shared__ elem tile[TILE][TILE + 1];
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
    src += blockIdx.z * s_b;
    dst += blockIdx.z * d_b;
    if (s_j == 1 || s_j <= s_i) {  // source rows run along j: lanes along j
#pragma unroll
        for (int r = y; r < TILE; r += ROWS) {
            const int i = i0 + r, j = j0 + x;
            if (i < R && j < C) tile[r][x] = src[i * s_i + j * s_j];
        }
    } else {  // source runs along i (a transposing copy): lanes along i
#pragma unroll
        for (int c = y; c < TILE; c += ROWS) {
            const int i = i0 + x, j = j0 + c;
            if (i < R && j < C) tile[x][c] = src[i * s_i + j * s_j];
        }
    }
    __syncthreads();
#pragma unroll
    for (int r = y; r < TILE; r += ROWS) {
        const int i = i0 + r, j = j0 + x;
        if (i < R && j < C) dst[i * ld + j] = tile[r][x];
    }
}
