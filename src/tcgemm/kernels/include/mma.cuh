// mma.cuh — warp-level tensor-core MMA (mma.sync, sm_80+) and its fragments.
//
// One mma.sync makes the 32 lanes of a warp compute D (16 x 8) = A (16 x K) @ B (K x 8) + C,
// each lane contributing a few 32-bit registers of A, B and C.  Which matrix
// element sits in which lane/register is fixed by the PTX ISA ("Matrix
// Fragments for mma.m16n8k*"); the helpers below restate those figures and
// src/tcgemm/fragments.py restates them in Python (tests/cpu/test_fragment_maps.py
// emulates a warp's mma from them).  With
//     g = lane / 4   (the PTX "groupID")     t = lane % 4   (the "threadID_in_group")
// every shape used here has the same structure once K is counted in 32-bit
// words (E = elements per register: 2 for f16/bf16, 1 for tf32, 4 for s8, so
// MMA_K = 8 * E and a k "word" w covers elements w*E .. w*E+E-1):
//
//   A (16 x MMA_K, row-major "row")     B (MMA_K x 8, column-major "col")
//            k words 0..3 | 4..7                   n = g
//   rows 0-7   a0 (g,t)   | a2 (g,t+4)       k words 0..3  b0 (word t, col g)
//   rows 8-15  a1 (g+8,t) | a3 (g+8,t+4)     k words 4..7  b1 (word t+4, col g)
//
//   C/D (16 x 8), one float/int each:  c0 (g, 2t)  c1 (g, 2t+1)  c2 (g+8, 2t)  c3 (g+8, 2t+1)
//
// e.g. m16n8k16.f16: a0 holds A[g][2t], A[g][2t+1] (low half first); a2 holds
// A[g][2t+8..9]; b1 holds B[2t+8][g], B[2t+9][g].  m16n8k8.tf32: a2 = A[g][t+4].
// m16n8k32.s8: a0 = A[g][4t..4t+3] (lowest byte = lowest k), b1 = B[16+4t..19+4t][g].
// The 32-bit-word view is what lets ldmatrix (a b16 instruction) load tf32 and
// s8 fragments of K-major tiles too: see ldmatrix.cuh.
#pragma once
#include "gemm.cuh"
#include "gemm.cuh"

// The instruction each precision uses; MMA_K counts elements.
#if defined(PRECISION_INT8)
#define MMA_K 32
typedef int acc_t;
#elif defined(PRECISION_TF32) || defined(PRECISION_FP32)
#define MMA_K 8
typedef float acc_t;
#else  // fp16, bf16
#define MMA_K 16
typedef float acc_t;
#endif
#define MMA_M 16
#define MMA_N 8
constexpr int ELEMS_PER_WORD = MMA_K / 8;  // elements of A/B per 32-bit fragment register

// --- the instructions -------------------------------------------------------

__device__ __forceinline__ void mma_f16(float d[4], const u32 a[4], const u32 b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void mma_bf16(float d[4], const u32 a[4], const u32 b[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Inputs must already be tf32 bit patterns (see to_tf32); the tensor core ignores the low 13 bits.
__device__ __forceinline__ void mma_tf32(float d[4], const u32 a[4], const u32 b[2]) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Exact: s8 x s8 products summed in s32 (wrapping, no .satfinite).
__device__ __forceinline__ void mma_s8(int d[4], const u32 a[4], const u32 b[2]) {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// fp32 -> tf32, round to nearest, ties away from zero (the rounding cuBLAS's TF32 mode uses).
__device__ __forceinline__ u32 to_tf32(u32 bits) {
    u32 r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(bits)));
    return r;
}
__device__ __forceinline__ u32 to_tf32(float x) { return to_tf32(__float_as_uint(x)); }

// The build's MMA: the one instruction PRECISION_* selects.
__device__ __forceinline__ void mma(acc_t d[4], const u32 a[4], const u32 b[2]) {
#if defined(PRECISION_INT8)
    mma_s8(d, a, b);
#elif defined(PRECISION_TF32) || defined(PRECISION_FP32)
    mma_tf32(d, a, b);
#elif defined(PRECISION_BF16)
    mma_bf16(d, a, b);
#else
    mma_f16(d, a, b);
#endif
}

// Fragment registers as the MMA reads them: tf32 inputs are rounded once per
// register here (a no-op for every other precision).
template <int N>
__device__ __forceinline__ void prepare_fragment(u32 (&r)[N]) {
#if defined(PRECISION_TF32) || defined(PRECISION_FP32)
#pragma unroll
    for (int i = 0; i < N; ++i) r[i] = to_tf32(r[i]);
#endif
}

// --- per-lane fragment coordinates (fragments.py: a_coord, b_coord, c_coord) ---
// The (row, col) of the FIRST element of a register; the register's other
// ELEMS_PER_WORD - 1 elements follow along k (col of A, row of B).

// A register r (0..3): row g + 8*(r&1), k = (t + 4*(r>>1)) * ELEMS_PER_WORD.
__device__ __forceinline__ int a_frag_row(int lane, int r) { return lane / 4 + 8 * (r & 1); }
__device__ __forceinline__ int a_frag_col(int lane, int r) { return (lane % 4 + 4 * (r >> 1)) * ELEMS_PER_WORD; }
// B register r (0..1): k = (t + 4*r) * ELEMS_PER_WORD, col g.
__device__ __forceinline__ int b_frag_row(int lane, int r) { return (lane % 4 + 4 * r) * ELEMS_PER_WORD; }
__device__ __forceinline__ int b_frag_col(int lane, int r) { return lane / 4; }
// C/D register r (0..3): row g + 8*(r>>1), col 2t + (r&1).
__device__ __forceinline__ int c_frag_row(int lane, int r) { return lane / 4 + 8 * (r >> 1); }
__device__ __forceinline__ int c_frag_col(int lane, int r) { return 2 * (lane % 4) + (r & 1); }
