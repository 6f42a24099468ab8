// wmma.cuh — the nvcuda::wmma vocabulary shared by the wmma ladder.
//
// wmma is the portable C++ face of the tensor cores: a warp holds opaque
// "fragments" of A (MMA_M x MMA_K), B (MMA_K x MMA_N) and the accumulator
// (MMA_M x MMA_N), loads them with load_matrix_sync, multiplies with
// mma_sync (HMMA for fp16/bf16/tf32, IMMA for int8) and writes the
// accumulator back with store_matrix_sync.  Which lane holds which element
// is unspecified, so every exchange with memory goes through those calls.
//
// The layout of A and B is a template argument of the fragment, not a
// property of the data: a column-major A is loaded as a col_major fragment
// straight from its own storage, so the four transpose variants (rr, rc,
// cr, cc) cost no data movement of ours — the row/column-major trick.
//
// Memory rules of load/store_matrix_sync (CUDA programming guide): the
// pointer must be 256-bit (32-byte) aligned and the leading dimension a
// multiple of 16 bytes (8 halves, 16 bytes of int8, 4 floats).
#pragma once
#include <mma.h>
#include "gemm.cuh"

namespace wm = nvcuda::wmma;

// A file compiled on its own (no launcher defines) gets float inputs: tf32.
#if !defined(PRECISION_TF32) && !defined(PRECISION_INT8) && !defined(PRECISION_FP16) && !defined(PRECISION_BF16)
#define PRECISION_TF32 1
#endif

// Instruction shape and the element type the fragments are declared with.
#if defined(PRECISION_TF32)
// tf32 fragments are k = 8 deep; they are loaded from float storage and each
// element must be rounded to tf32 (cvt.rna) before mma_sync.
#define MMA_M 16
#define MMA_N 16
#define MMA_K 8
typedef wm::precision::tf32 frag_elem;
typedef float acc_t;
#elif defined(PRECISION_INT8)
#define MMA_M 16
#define MMA_N 16
#define MMA_K 16
typedef signed char frag_elem;
typedef int acc_t;
#elif defined(PRECISION_FP16) || defined(PRECISION_BF16)
#define MMA_M 16
#define MMA_N 16
#define MMA_K 16
typedef elem_a frag_elem;  // __half or __nv_bfloat16
typedef float acc_t;
#else
#error "wmma kernels serve PRECISION_FP16, PRECISION_BF16, PRECISION_INT8 or PRECISION_TF32"
#endif

template <int LAYOUT> struct FragLayout { typedef wm::row_major type; };
template <> struct FragLayout<LAYOUT_COL> { typedef wm::col_major type; };
typedef FragLayout<A_LAYOUT>::type a_frag_layout;
typedef FragLayout<B_LAYOUT>::type b_frag_layout;
typedef wm::fragment<wm::matrix_a, MMA_M, MMA_N, MMA_K, frag_elem, a_frag_layout> frag_a;
typedef wm::fragment<wm::matrix_b, MMA_M, MMA_N, MMA_K, frag_elem, b_frag_layout> frag_b;
typedef wm::fragment<wm::accumulator, MMA_M, MMA_N, MMA_K, acc_t> frag_acc;

// The smallest leading dimension step (in elements) wmma accepts: 16 bytes.
constexpr int WMMA_LD_STEP = 16 / sizeof(elem_a);

// Fragments as loaded hold the raw float bits for tf32; round them once here
// (the identity for the other precisions).
template <typename Frag>
__device__ __forceinline__ void to_mma_input(Frag& f) {
#if defined(PRECISION_TF32)
#pragma unroll
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = wm::__float_to_tf32(f.x[i]);
#endif
}

// Raw bits of one element, so copies need not know the element type: zero
// bits are 0 in every precision used here (fp16, bf16, fp32, int8).
template <int BYTES> struct ElemBits;
template <> struct ElemBits<1> { typedef unsigned char type; };
template <> struct ElemBits<2> { typedef unsigned short type; };
template <> struct ElemBits<4> { typedef unsigned int type; };
typedef typename ElemBits<sizeof(elem_a)>::type elem_bits;

// Four consecutive accumulators of a row-major staging tile in shared memory
// (16-byte aligned) into registers with one 128-bit load, for store_d_run<4>.
__device__ __forceinline__ void load_acc4(acc_t* dst, const acc_t* src) {
    *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(src);
}
