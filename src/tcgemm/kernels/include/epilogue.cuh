// epilogue.cuh — D = alpha * acc + beta * C, written with bounds checks.
//
// C is read through (c_row, c_col) strides so that a full matrix, a bias row
// (c_row == 0) or a bias column (c_col == 0) are the same code; it is not
// read at all when beta == 0, so C may be null then and NaNs in an unused C
// do not leak into D (the BLAS rule).
#pragma once
#include "gemm.cuh"

__device__ __forceinline__ float epilogue_value(const Gemm& g, int m, int n, float acc) {
    float v = g.alpha * acc;
    if (g.beta != 0.0f) v += g.beta * to_float(g.C[(i64)m * g.c_row + (i64)n * g.c_col]);
    return v;
}

__device__ __forceinline__ void store_d(const Gemm& g, int m, int n, float acc) {
    if (m < g.M && n < g.N) g.D[(i64)m * g.ldd + n] = (elem_d)epilogue_value(g, m, n, acc);
}

// Four consecutive columns n..n+3 of row m: one 16-byte store when the whole
// vector is in bounds and aligned (ldd a multiple of 4, D 16-byte aligned),
// else element by element.  The test is uniform across the CTA except at the
// right edge, so it costs a predicate, not divergence.
__device__ __forceinline__ void store_d4(const Gemm& g, int m, int n, const float acc[4]) {
    if (m >= g.M) return;
    float v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) v[i] = (n + i < g.N) ? epilogue_value(g, m, n + i, acc[i]) : 0.0f;
    elem_d* dst = g.D + (i64)m * g.ldd + n;
    const bool vector_ok = sizeof(elem_d) == 4 && n + 3 < g.N && (g.ldd & 3) == 0 &&
                           (reinterpret_cast<unsigned long long>(dst) & 15) == 0;
    if (vector_ok) {
        *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
            if (n + i < g.N) dst[i] = (elem_d)v[i];
    }
}
