// epilogue.cuh — D = act(alpha * acc + beta * C), written with bounds checks (act: none unless the
// production Hopper kernel is built with EPI_ACT, epilogue_act.cuh).
//
// C is read through (c_row, c_col) strides so that a full matrix, a bias row
// (c_row == 0) or a bias column (c_col == 0) are the same code; it is not
// read at all when beta == 0, so C may be null then and NaNs in an unused C
// do not leak into D (the BLAS rule).
//
// Accumulators are float (fp32/tf32/fp16/bf16 kernels) or int (int8 kernels).
// Integer GEMMs stay exact: alpha and beta are integers (the host checks) and
// the blend is int32 arithmetic, wrapping on overflow like cuBLAS's 32I mode.
#pragma once
#include "gemm.cuh"
#include "epilogue_act.cuh"

__device__ __forceinline__ float epilogue_value(const Gemm& g, int m, int n, float acc) {
    float v = g.alpha * acc;
    if (g.beta != 0.0f) v += g.beta * to_float(g.C[(i64)m * g.c_row + (i64)n * g.c_col]);
    return activate<STORE_ACT>(v);
}

__device__ __forceinline__ int epilogue_value(const Gemm& g, int m, int n, int acc) {
    const int alpha = (int)g.alpha, beta = (int)g.beta;
    int v = alpha == 1 ? acc : alpha * acc;
    if (beta != 0) v += beta * (int)g.C[(i64)m * g.c_row + (i64)n * g.c_col];
    return v;
}

__device__ __forceinline__ elem_d to_d(float v) { return from_float<elem_d>(v); }
__device__ __forceinline__ elem_d to_d(int v) { return (elem_d)v; }  // int32 accumulators -> int32 D

template <typename Acc>
__device__ __forceinline__ void store_d(const Gemm& g, int m, int n, Acc acc) {
    if (m < g.M && n < g.N) g.D[(i64)m * g.ldd + n] = to_d(epilogue_value(g, m, n, acc));
}

// RUN consecutive columns n..n+RUN-1 of row m (RUN = 2 or 4): one vector store
// of RUN * sizeof(elem_d) bytes when the whole run is in bounds and aligned
// (ldd a multiple of RUN, D suitably aligned), else element by element.  The
// test is uniform across the CTA except at the right edge, so it costs a
// predicate, not divergence.
template <int RUN, typename Acc>
__device__ __forceinline__ void store_d_run(const Gemm& g, int m, int n, const Acc* acc) {
    static_assert(RUN == 2 || RUN == 4, "runs of 2 or 4 columns");
    if (m >= g.M) return;
    elem_d v[RUN];
#pragma unroll
    for (int i = 0; i < RUN; ++i) v[i] = (n + i < g.N) ? to_d(epilogue_value(g, m, n + i, acc[i])) : elem_d();
    elem_d* dst = g.D + (i64)m * g.ldd + n;
    constexpr int BYTES = RUN * sizeof(elem_d);
    const bool vector_ok = (BYTES == 4 || BYTES == 8 || BYTES == 16) && n + RUN - 1 < g.N &&
                           (g.ldd % RUN) == 0 && (reinterpret_cast<unsigned long long>(dst) % BYTES) == 0;
    if (vector_ok) {
        if constexpr (BYTES == 16) {
            *reinterpret_cast<int4*>(dst) = *reinterpret_cast<const int4*>(v);
        } else if constexpr (BYTES == 8) {
            *reinterpret_cast<int2*>(dst) = *reinterpret_cast<const int2*>(v);
        } else if constexpr (BYTES == 4) {
            *reinterpret_cast<int*>(dst) = *reinterpret_cast<const int*>(v);
        }
    } else {
#pragma unroll
        for (int i = 0; i < RUN; ++i)
            if (n + i < g.N) dst[i] = v[i];
    }
}

template <typename Acc>
__device__ __forceinline__ void store_d4(const Gemm& g, int m, int n, const Acc acc[4]) {
    store_d_run<4>(g, m, n, acc);
}
