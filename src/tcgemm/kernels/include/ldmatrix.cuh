// ldmatrix.cuh — ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16 (sm_75+).
//
// One ldmatrix moves up to four 8x8 matrices of 16-bit elements from shared
// memory into registers, already in MMA fragment order.  Each 8x8 matrix is
// 8 rows of 16 contiguous bytes; the rows may lie anywhere (16-byte aligned):
// lanes 8q .. 8q+7 give the addresses of rows 0..7 of matrix q (for .x1 and
// .x2 only lanes 0-7 / 0-15 are read).  Register q of every lane receives a
// piece of matrix q:
//
//   plain:   lane l holds row l/4, elements 2*(l%4), 2*(l%4)+1     (one 32-bit word of the row)
//   .trans:  lane l holds elements (row 2*(l%4), col l/4) and (row 2*(l%4)+1, col l/4)
//
//            matrix row r (16 bytes, 8 x b16)          plain: lane -> word
//     r=0   | w0 | w1 | w2 | w3 |                        lanes 0 1 2 3 take words 0 1 2 3 of row 0
//     r=1   | w0 | w1 | w2 | w3 |                        lanes 4 5 6 7 ... of row 1, etc.
//
// Plain ldmatrix of a K-major tile (16-byte row = 16 bytes of k) therefore
// hands lane (g, t) word t of row g: exactly the A/B fragment order of
// mma.cuh, for ANY element size, because the MMA fragments are defined per
// 32-bit word (f16 pairs, one tf32, four s8).  .trans swaps rows and columns
// in units of 16 bits, so it turns an MN-major 16-bit tile into fragments but
// would split a tf32 or tear apart s8 quadruples: kernels handle MN-major
// tf32/s8 operands without it (see mma_sync/*.cu).
//
// Row addresses are 32-bit shared-window addresses (cvta_shared below).  Eight
// rows of one matrix are read in one shared-memory wavefront when their 16-byte
// chunks fall in eight different 4-bank groups: swizzle.cuh arranges that.
#pragma once
#include "gemm.cuh"

__device__ __forceinline__ u32 cvta_shared(const void* p) {
    return static_cast<u32>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x1(u32& r0, u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2(u32& r0, u32& r1, u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4(u32& r0, u32& r1, u32& r2, u32& r3, u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x1_trans(u32& r0, u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2_trans(u32& r0, u32& r1, u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r0), "=r"(r1) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(u32& r0, u32& r1, u32& r2, u32& r3,
                                                  u32 addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}

template <bool TRANS>
__device__ __forceinline__ void ldmatrix4(u32 (&r)[4], u32 addr) {
    if constexpr (TRANS) ldmatrix_x4_trans(r[0], r[1], r[2], r[3], addr);
    else ldmatrix_x4(r[0], r[1], r[2], r[3], addr);
}
template <bool TRANS>
__device__ __forceinline__ void ldmatrix2(u32 (&r)[2], u32 addr) {
    if constexpr (TRANS) ldmatrix_x2_trans(r[0], r[1], addr);
    else ldmatrix_x2(r[0], r[1], addr);
}

// One 32-bit word: the fragment loads ldmatrix cannot do (a tf32 or s8 fragment of an MN-major tile, whose
// elements .trans would split).
__device__ __forceinline__ u32 lds_b32(u32 addr) {
    u32 v;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// Which lanes address which rows for the two fragment loads the kernels use
// (fragments.py: ldmatrix_a_rows, ldmatrix_b_rows).  Coordinates are
// (row, 16-byte chunk) of the tile as stored, relative to the fragment's corner.
//
// A, K-major [m][k] (plain x4): matrices q = (m 0-7, k chunk 0), (m 8-15, chunk 0),
//   (m 0-7, chunk 1), (m 8-15, chunk 1)  ->  a0, a1, a2, a3.
//   lane l: m = l%8 + 8*((l/8)%2), chunk = l/16.
// A, MN-major [k][m] 16-bit (.trans x4): the same four matrices stored transposed:
//   lane l: k = l%8 + 8*(l/16), m-chunk = (l/8)%2.
// B, K-major [n][k] (plain x4, two n8 tiles j, j+1): matrices (n 0-7, chunk 0), (n 0-7, chunk 1),
//   (n 8-15, chunk 0), (n 8-15, chunk 1)  ->  b[j][0], b[j][1], b[j+1][0], b[j+1][1].
//   lane l: n = l%8 + 8*(l/16), chunk = (l/8)%2.
// B, MN-major [k][n] 16-bit (.trans x4), same register order:
//   lane l: k = l%8 + 8*((l/8)%2), n-chunk = l/16.

// stmatrix (sm_90): the store twin of ldmatrix.x4.  Lanes 8q .. 8q+7 give the
// addresses of rows 0..7 of matrix q; register q of lane l holds row l/4,
// elements 2*(l%4), 2*(l%4)+1 of matrix q — exactly the layout in which an
// m16n8 accumulator fragment (mma.sync, and each 8-column block of a wgmma
// accumulator) holds its values, so a warp writes four 8x8 blocks of its
// results to shared memory with one instruction and no shuffles.
__device__ __forceinline__ void stmatrix_x4(unsigned addr, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

// Two 8 x 8 matrices stored transposed (lanes 0 .. 15 give the rows' addresses).
__device__ __forceinline__ void stmatrix_x2_trans(unsigned addr, unsigned r0, unsigned r1) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(addr), "r"(r0), "r"(r1)
                 : "memory");
}

// Four 8 x 8 matrices, each stored transposed: the value a lane holds at (row r, columns 2c, 2c + 1) of
// matrix q lands at rows 2c, 2c + 1, column r of the 8 rows whose addresses lanes 8q .. 8q + 7 give.
__device__ __forceinline__ void stmatrix_x4_trans(unsigned addr, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}
