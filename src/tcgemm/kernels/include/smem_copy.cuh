// smem_copy.cuh — the plain, synchronous global -> shared tile copy of the
// first mma.sync stages (the pipelined stage uses cp_async.cuh instead).
//
// Elements are moved as raw bits (raw_t: 1, 2 or 4 bytes), so one routine
// serves s8, f16, bf16 and f32 (zero bits are zero in every format).  The tile
// is OUTER x KT in operand coordinates: outer = m for A, n for B.  Threads
// walk the source along its contiguous dimension (coalesced whatever the
// layout) and write shared memory K-major ([outer][k], DST_K_MAJOR) or
// MN-major ([k][outer]); out-of-range elements become zero, so the MMA loop
// needs no bounds checks.
#pragma once
#include "gemm.cuh"

template <int BYTES> struct RawType;
template <> struct RawType<1> { typedef unsigned char type; };
template <> struct RawType<2> { typedef unsigned short type; };
template <> struct RawType<4> { typedef unsigned int type; };
typedef typename RawType<sizeof(elem_a)>::type raw_t;
static_assert(sizeof(elem_a) == sizeof(elem_b), "A and B share an element type");

template <int OUTER, int KT, bool SRC_K_MAJOR, bool DST_K_MAJOR, int DST_LD, int NT>
__device__ __forceinline__ void copy_tile(raw_t* __restrict__ dst, const raw_t* __restrict__ src, i64 ld,
                                          int outer0, int outer_n, int k0, int k_n) {
    constexpr int FAST = SRC_K_MAJOR ? KT : OUTER;  // contiguous extent in the source
    constexpr int TOTAL = OUTER * KT;
    static_assert(TOTAL % NT == 0, "tile elements divide among the threads");
#pragma unroll 4
    for (int it = 0; it < TOTAL / NT; ++it) {
        const int idx = threadIdx.x + it * NT;
        const int slow = idx / FAST, fast = idx % FAST;
        const int o = SRC_K_MAJOR ? slow : fast, k = SRC_K_MAJOR ? fast : slow;
        const int go = outer0 + o, gk = k0 + k;
        raw_t v = 0;
        if (go < outer_n && gk < k_n) v = src[SRC_K_MAJOR ? (i64)go * ld + gk : (i64)gk * ld + go];
        dst[DST_K_MAJOR ? o * DST_LD + k : k * DST_LD + o] = v;
    }
}
