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
// stage_copy (any strides, transposing included) goes through a TILE x TILE
// shared-memory tile: the read phase walks whichever
// source index has stride 1 across the lanes (coalesced reads whether or not
// the copy transposes), the write phase walks j (coalesced writes).  The +1
// column of padding puts a tile column on distinct banks for 4-byte elements,
// the transposing case's hot path (tf32); for 1- and 2-byte elements several
// lanes share a bank word, which costs a few shared-memory replays but no DRAM
// traffic.  Rows past R or columns past C are skipped (the padding of each
// row, ld - C elements, is never read by the GEMM).
//
// stage_rows is the non-transposing case (s_j == 1), which is most of them: the
// bf16 operands at 4095^3 and the padded D copied back out.  There a copy is a
// byte string per row, and the tile kernel's 2-byte lanes leave DRAM idle
// (~1 TB/s measured).  Each thread instead writes 4-byte words of the
// destination row; the source bytes of a word start at an arbitrary byte offset
// r, so the thread reads the two aligned source words around them and lets
// __byte_perm pick the four bytes (every word read holds at least one byte of
// the row, so no read leaves the source allocation).  Lanes take consecutive
// words: both reads and the write coalesce into 128-byte lines, and the second
// read hits the line the neighbouring lane just brought into L1.  The few bytes
// before the destination row's first aligned word and after its last are copied
// singly.
#ifndef ELEM
#define ELEM unsigned short  // 1-, 2- or 4-byte element, copied as raw bits
#endif
#include "tf32_split.cuh"

typedef ELEM elem;
typedef long long i64;

constexpr int TILE = 32;
constexpr int ROWS = 8;  // thread rows: each thread moves TILE / ROWS elements per phase

// The read phase of both tiled kernels: tile[r][c] = source element (i0 + r, j0 + c), lanes along whichever
// source index has stride 1.
template <typename T>
__device__ __forceinline__ void read_tile(T (&tile)[TILE][TILE + 1], const T* __restrict__ src, i64 s_i, i64 s_j,
                                          int R, int C) {
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
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
}

extern "C" __global__ void __launch_bounds__(TILE * ROWS) stage_copy(const elem* __restrict__ src, i64 s_i, i64 s_j,
                                                                     i64 s_b, elem* __restrict__ dst, i64 ld, i64 d_b,
                                                                     int R, int C) {
    __shared__ elem tile[TILE][TILE + 1];
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
    read_tile(tile, src + blockIdx.z * s_b, s_i, s_j, R, C);
    dst += blockIdx.z * d_b;
#pragma unroll
    for (int r = y; r < TILE; r += ROWS) {
        const int i = i0 + r, j = j0 + x;
        if (i < R && j < C) dst[i * ld + j] = tile[r][x];
    }
}

constexpr int ROW_THREADS = 128;
constexpr int ROW_WORDS = 4;  // destination words per thread, ROW_THREADS apart (loads in flight per thread)

extern "C" __global__ void __launch_bounds__(ROW_THREADS) stage_rows(const unsigned char* __restrict__ src, i64 s_row,
                                                                    i64 s_b, unsigned char* __restrict__ dst, i64 d_row,
                                                                    i64 d_b, int rows, int row_bytes) {
    src += blockIdx.z * s_b;
    dst += blockIdx.z * d_b;
    for (int row = blockIdx.y; row < rows; row += gridDim.y) {
        const unsigned char* s = src + row * s_row;
        unsigned char* d = dst + row * d_row;
        const int head = min(int((4 - (reinterpret_cast<unsigned long long>(d) & 3)) & 3), row_bytes);
        const int words = (row_bytes - head) / 4;
        const int first = blockIdx.x * ROW_THREADS * ROW_WORDS + threadIdx.x;
        unsigned int lo[ROW_WORDS], hi[ROW_WORDS];
#pragma unroll
        for (int w = 0; w < ROW_WORDS; ++w) {  // all loads first: ROW_WORDS pairs in flight per thread
            const int word = first + w * ROW_THREADS;
            if (word < words) {
                const unsigned char* p = s + head + 4 * word;
                const unsigned int* aligned = reinterpret_cast<const unsigned int*>(
                    reinterpret_cast<unsigned long long>(p) & ~3ull);
                lo[w] = __ldg(aligned);
                hi[w] = (reinterpret_cast<unsigned long long>(p) & 3) ? __ldg(aligned + 1) : 0u;
            }
        }
        const unsigned int shift = (reinterpret_cast<unsigned long long>(s + head) & 3) * 0x1111u;
#pragma unroll
        for (int w = 0; w < ROW_WORDS; ++w) {
            const int word = first + w * ROW_THREADS;
            if (word < words)
                reinterpret_cast<unsigned int*>(d + head)[word] = __byte_perm(lo[w], hi[w], 0x3210u + shift);
        }
        if (blockIdx.x == 0) {  // the unaligned ends: head bytes before the first word, the rest after the last
            const int tail = head + 4 * words;
            if (threadIdx.x < head) d[threadIdx.x] = s[threadIdx.x];
            if (threadIdx.x >= 32 && threadIdx.x - 32 < row_bytes - tail)
                d[tail + threadIdx.x - 32] = s[tail + threadIdx.x - 32];
        }
    }
}

// split_tf32 is the operand copy of an fp32 GEMM run on tf32 tensor cores
// (tcgemm/emulation.py; the split itself, and why three tf32 products carry an
// fp32 product's accuracy: include/tf32_split.cuh).  The GEMM does the three
// products as ONE tf32 GEMM over 3K: each row of the K-major copy holds three
// K-blocks,
//
//   A3 row = [ hi' | lo  | hi ]        B3 row (a column of B) = [ lo | hi' | hi ]
//
// so block 0 sums ha lb, block 1 la hb, block 2 ha hb, the small terms first.
// lo is rounded to tf32 by the GEMM's TMA copy (its tensor maps are TFLOAT32).
// The transposing case (B row-major) goes through the shared-memory tile of
// stage_copy; rows run along K in the destination (the wgmma's K-major
// operand), `ld` floats apart (3K rounded up to 16 bytes; the rest unread).
extern "C" __global__ void __launch_bounds__(TILE * ROWS) split_tf32(const float* __restrict__ src, i64 s_i, i64 s_j,
                                                                     float* __restrict__ dst, i64 ld, int R, int C,
                                                                     int b_side) {
    __shared__ float tile[TILE][TILE + 1];
    const int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
    read_tile(tile, src, s_i, s_j, R, C);
#pragma unroll
    for (int r = y; r < TILE; r += ROWS) {
        const int i = i0 + r, j = j0 + x;
        if (i < R && j < C) {
            float hi, hi_finite, lo;
            split_tf32_value(tile[r][x], hi, hi_finite, lo);
            float* row = dst + i * ld;
            row[j] = b_side ? lo : hi_finite;
            row[C + j] = b_side ? hi_finite : lo;
            row[2 * C + j] = hi;
        }
    }
}
