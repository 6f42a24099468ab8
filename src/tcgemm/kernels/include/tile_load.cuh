// tile_load.cuh — cooperative global -> shared copy of one operand tile for
// the SIMT kernels (fp32), for either source layout.
//
// The tile is ROWS x COLS in the operand's logical coordinates (A: m x k,
// B: k x n).  Threads walk the source along its contiguous dimension so every
// warp reads whole 128-byte lines whatever the layout; VW == 4 turns each
// thread's read into one 16-byte load (the host picks VEC = 4 only when the
// base pointer, the leading dimension and the batch stride keep every vector
// 16-byte aligned).  Elements outside the matrix are filled with zeros, so
// the K loop needs no bounds checks of its own.
//
// The copy is split in two halves, fetch (global -> registers) and store
// (registers -> shared), so a kernel can issue the loads of the next tile,
// compute on the current one, and only then write shared memory: the global
// latency hides behind the arithmetic.
#pragma once
#include "gemm.cuh"

template <int ROWS, int COLS, int LAYOUT, bool K_IS_COL, bool TRANSPOSE, int DST_LD, int NTHREADS, int VW>
struct TileLoader {
    // Source: element (r, c) sits at r*ld + c (row-major) or c*ld + r (column-major).
    // K runs along the tile's columns for A (m x k) and along its rows for B (k x n).
    // Destination: dst[r*DST_LD + c], or dst[c*DST_LD + r] when TRANSPOSE.
    static constexpr bool ROW = LAYOUT == LAYOUT_ROW;
    static constexpr int FAST = ROW ? COLS : ROWS;  // contiguous extent in the source
    static constexpr int LINE_VECS = FAST / VW;
    static constexpr int VECS = ROWS * COLS / VW;
    static constexpr int ITERS = (VECS + NTHREADS - 1) / NTHREADS;
    static_assert(FAST % VW == 0, "tile's contiguous extent must be a multiple of VW");

    const float* __restrict__ base;  // element (outer0, k = 0)
    i64 ld;
    int outer_left, k_extent;        // bounds: outer index < outer_left, k < k_extent
    float reg[ITERS][VW];

    // outer0/outer_extent: where this CTA's rows of A (m) or columns of B (n) start, and M or N.
    __device__ __forceinline__ TileLoader(const float* src, i64 ld_, int outer0, int outer_extent, int k_extent_)
        : base(src + ((ROW == K_IS_COL) ? (i64)outer0 * ld_ : (i64)outer0)), ld(ld_),
          outer_left(outer_extent - outer0), k_extent(k_extent_) {}

    __device__ __forceinline__ static void coords(int it, int& r, int& c) {
        const int idx = threadIdx.x + it * NTHREADS;
        const int slow = idx / LINE_VECS, fast = (idx % LINE_VECS) * VW;
        r = ROW ? slow : fast;
        c = ROW ? fast : slow;
    }

    __device__ __forceinline__ void fetch(int k0) {
#pragma unroll
        for (int it = 0; it < ITERS; ++it) {
            if (VECS % NTHREADS != 0 && threadIdx.x + it * NTHREADS >= VECS) break;
            int r, c;
            coords(it, r, c);
            const int R = K_IS_COL ? r : k0 + r, C = K_IS_COL ? k0 + c : c;  // relative to base
            const int row_left = K_IS_COL ? outer_left : k_extent, col_left = K_IS_COL ? k_extent : outer_left;
            const int slow = ROW ? R : C, slow_left = ROW ? row_left : col_left;
            const int fast = ROW ? C : R, fast_left = ROW ? col_left : row_left;
            const float* p = base + (i64)slow * ld + fast;
            if (VW == 4 && slow < slow_left && fast + 3 < fast_left) {
                const float4 v = __ldg(reinterpret_cast<const float4*>(p));
                reg[it][0] = v.x; reg[it][1 % VW] = v.y; reg[it][2 % VW] = v.z; reg[it][3 % VW] = v.w;
            } else {
#pragma unroll
                for (int v = 0; v < VW; ++v)
                    reg[it][v] = (slow < slow_left && fast + v < fast_left) ? __ldg(p + v) : 0.0f;
            }
        }
    }

    __device__ __forceinline__ void store(float* __restrict__ dst) const {
#pragma unroll
        for (int it = 0; it < ITERS; ++it) {
            if (VECS % NTHREADS != 0 && threadIdx.x + it * NTHREADS >= VECS) break;
            int r, c;
            coords(it, r, c);
            // The vector runs along c (row-major source) or r (column-major source);
            // it stays a vector in shared memory when that is also the destination's
            // contiguous direction.
            constexpr bool CONTIGUOUS_DST = ROW != TRANSPOSE;
            if (VW == 4 && CONTIGUOUS_DST && DST_LD % 4 == 0) {
                float* q = TRANSPOSE ? dst + c * DST_LD + r : dst + r * DST_LD + c;
                *reinterpret_cast<float4*>(q) =
                    make_float4(reg[it][0], reg[it][1 % VW], reg[it][2 % VW], reg[it][3 % VW]);
            } else {
#pragma unroll
                for (int v = 0; v < VW; ++v) {
                    const int rr = ROW ? r : r + v, cc = ROW ? c + v : c;
                    dst[TRANSPOSE ? cc * DST_LD + rr : rr * DST_LD + cc] = reg[it][v];
                }
            }
        }
    }
};

// The two operands' loaders: A is an m x k tile (K along columns), B a k x n tile.
template <int BM, int BK, bool TRANSPOSE, int DST_LD, int NTHREADS, int VW>
using ALoader = TileLoader<BM, BK, A_LAYOUT, true, TRANSPOSE, DST_LD, NTHREADS, VW>;
template <int BK, int BN, int DST_LD, int NTHREADS, int VW>
using BLoader = TileLoader<BK, BN, B_LAYOUT, false, false, DST_LD, NTHREADS, VW>;

// Four floats from 16-byte-aligned shared memory into four registers (one LDS.128).
__device__ __forceinline__ void load_float4(float* dst, const float* src) {
    const float4 v = *reinterpret_cast<const float4*>(src);
    dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
}
