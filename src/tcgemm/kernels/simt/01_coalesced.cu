// Stage 1 — coalesced.
//
// The same arithmetic as stage 0, with one change: lanes of a warp now run
// along N.  For row-major B and D a warp's 32 loads of B[k, n..n+31] and its
// 32 stores to D fall in one or two 128-byte lines, and all lanes read the
// same A[m, k] (one broadcast).  Global traffic per FMA drops from two
// uncoalesced lines to a fraction of one; only the access order changed.
#include "epilogue.cuh"

#ifndef BLOCK_M
#define BLOCK_M 8
#define BLOCK_N 32
#define THREADS 256
#endif
static_assert(BLOCK_M * BLOCK_N == THREADS, "one thread per output element");

__device__ __forceinline__ void coalesced(const Gemm& g) {
    const int m = blockIdx.y * BLOCK_M + threadIdx.x / BLOCK_N;
    const int n = blockIdx.x * BLOCK_N + threadIdx.x % BLOCK_N;  // lanes run along N
    if (m >= g.M || n >= g.N) return;
    float acc = 0.0f;
    for (int k = 0; k < g.K; ++k) acc += g.A[a_offset(g, m, k)] * g.B[b_offset(g, k, n)];
    store_d(g, m, n, acc);
}

TCGEMM_KERNEL(simt_coalesced, coalesced)
