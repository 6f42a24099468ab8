// Stage 0 — naive.
//
// One thread per element of D, reading its row of A and column of B straight
// from global memory for every k.  Lanes of a warp are laid along M, so for
// row-major operands neighbouring lanes read A and write D a whole row apart
// (lda, ldd elements): each warp access touches 32 different cache lines.
// Every multiply-add costs two global loads: the kernel is bound by memory
// traffic long before the FMA units matter.
#include "epilogue.cuh"

#ifndef BLOCK_M
#define BLOCK_M 16
#define BLOCK_N 16
#define THREADS 256
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS, "one thread per output element");

__device__ __forceinline__ void naive(const Gemm& g) {
    const int m = blockIdx.y * BLOCK_M + threadIdx.x % BLOCK_M;  // lanes run along M
    const int n = blockIdx.x * BLOCK_N + threadIdx.x / BLOCK_M;
    if (m >= g.M || n >= g.N) return;
    float acc = 0.0f;
    for (int k = 0; k < g.K; ++k) acc += g.A[a_offset(g, m, k)] * g.B[b_offset(g, k, n)];
    store_d(g, m, n, acc);
}

TCGEMM_KERNEL(simt_naive, naive)
