// gated_act.cu — the elementwise half of a gated MLP in training (tcgemm/gating.py; not a GEMM).
//
// The forward's GEMM writes gate and up side by side, GU = x [Wg; Wu]^T (rows of 2n: gate columns, then up).
//
//   gated_forward:   H  = act(G) * U                          (reads G, U; writes H)
//   gated_backward:  dU = dH * act(G)                         (reads dH, G, U; writes dG, dU side by side, so that
//                    dG = dH * U * act'(G)                     dx = [dG dU] W and dW = [dG dU]^T x are one GEMM each)
//
// torch's autograd of act(g) * u runs five kernels over n-wide tensors (act, mul; mul, mul, act_backward): 14 tensor
// passes. These two are 5 (forward 2 reads, 1 write; backward 3 reads, 2 writes), and keep every intermediate in
// fp32 registers (one rounding per output, where torch rounds act(g) and dH * U to 16 bits first).  Memory-bound:
// the math is the precise libdevice one (expf, erff, tanhf), not the epilogue's tanh.approx.
//
// Layout: rows x cols elements; each of the five arrays has its own row stride (elements).  VEC elements (16 bytes)
// a load where the host found every address and stride 16-byte aligned and cols a multiple of VEC; else one
// element at a time.  A thread takes one column vector of rows blockIdx.y, blockIdx.y + gridDim.y, ...
#ifndef ELEM
#define ELEM __nv_bfloat16
#endif
#ifndef ACT  // epilogue.ACTIVATIONS' codes: 1 relu, 2 gelu (erf), 3 gelu_tanh, 4 silu
#define ACT 4
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "elem_convert.cuh"

// act(g) and act'(g), the formulas of torch's kernels (F.silu, F.gelu with approximate none / tanh, F.relu).
__device__ __forceinline__ void activation(float g, float& act, float& slope) {
#if ACT == 1
    act = g > 0.f ? g : 0.f;
    slope = g > 0.f ? 1.f : 0.f;
#elif ACT == 2
    const float cdf = 0.5f * (1.f + erff(g * 0.70710678118654752f));
    const float pdf = expf(-0.5f * g * g) * 0.39894228040143268f;  // 1 / sqrt(2 pi)
    act = g * cdf;
    slope = cdf + g * pdf;
#elif ACT == 3
    const float k = 0.79788456080286536f, c = 0.044715f;  // sqrt(2 / pi)
    const float t = tanhf(k * (g + c * g * g * g));
    act = 0.5f * g * (1.f + t);
    slope = 0.5f * (1.f + t) + 0.5f * g * (1.f - t * t) * k * (1.f + 3.f * c * g * g);
#elif ACT == 4
    const float s = 1.f / (1.f + expf(-g));
    act = g * s;
    slope = s * (1.f + g * (1.f - s));
#else
#error "ACT must be 1 (relu), 2 (gelu), 3 (gelu_tanh) or 4 (silu)"
#endif
}

template <int V> struct alignas(sizeof(ELEM) * V) Pack {  // (aligned: one 16-byte access at V = VEC)
    ELEM e[V];
};
template <int V> __device__ __forceinline__ Pack<V> load(const ELEM* p) {
    return *reinterpret_cast<const Pack<V>*>(p);  // (V = VEC: one 16-byte load; the host checked the alignment)
}
template <int V> __device__ __forceinline__ void store(ELEM* p, const Pack<V>& v) { *reinterpret_cast<Pack<V>*>(p) = v; }

constexpr int VEC = 16 / sizeof(ELEM);

template <int V>
__device__ __forceinline__ void forward_rows(const ELEM* __restrict__ g, const ELEM* __restrict__ u, long long ld_in,
                                             ELEM* __restrict__ h, long long ld_h, int rows, int cols) {
    const long long col = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
    if (col >= cols) return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        const Pack<V> gv = load<V>(g + r * ld_in + col), uv = load<V>(u + r * ld_in + col);
        Pack<V> hv;
#pragma unroll
        for (int i = 0; i < V; ++i) {
            float act, slope;
            activation(to_f32(gv.e[i]), act, slope);
            hv.e[i] = from_f32<ELEM>(act * to_f32(uv.e[i]));
        }
        store<V>(h + r * ld_h + col, hv);
    }
}

template <int V>
__device__ __forceinline__ void backward_rows(const ELEM* __restrict__ dh, long long ld_dh, const ELEM* __restrict__ g,
                                              const ELEM* __restrict__ u, long long ld_in, ELEM* __restrict__ dg,
                                              ELEM* __restrict__ du, long long ld_out, int rows, int cols) {
    const long long col = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * V;
    if (col >= cols) return;
    for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
        const Pack<V> dv = load<V>(dh + r * ld_dh + col), gv = load<V>(g + r * ld_in + col),
                      uv = load<V>(u + r * ld_in + col);
        Pack<V> dgv, duv;
#pragma unroll
        for (int i = 0; i < V; ++i) {
            float act, slope;
            activation(to_f32(gv.e[i]), act, slope);
            const float d = to_f32(dv.e[i]);
            duv.e[i] = from_f32<ELEM>(d * act);
            dgv.e[i] = from_f32<ELEM>(d * to_f32(uv.e[i]) * slope);
        }
        store<V>(dg + r * ld_out + col, dgv);
        store<V>(du + r * ld_out + col, duv);
    }
}

extern "C" __global__ void __launch_bounds__(256) gated_forward(const ELEM* __restrict__ g, const ELEM* __restrict__ u,
                                                                 long long ld_in, ELEM* __restrict__ h, long long ld_h,
                                                                 int rows, int cols, int vectors) {
    if (vectors)
        forward_rows<VEC>(g, u, ld_in, h, ld_h, rows, cols);
    else
        forward_rows<1>(g, u, ld_in, h, ld_h, rows, cols);
}

extern "C" __global__ void __launch_bounds__(256) gated_backward(const ELEM* __restrict__ dh, long long ld_dh,
                                                                  const ELEM* __restrict__ g, const ELEM* __restrict__ u,
                                                                  long long ld_in, ELEM* __restrict__ dg,
                                                                  ELEM* __restrict__ du, long long ld_out, int rows,
                                                                  int cols, int vectors) {
    if (vectors)
        backward_rows<VEC>(dh, ld_dh, g, u, ld_in, dg, du, ld_out, rows, cols);
    else
        backward_rows<1>(dh, ld_dh, g, u, ld_in, dg, du, ld_out, rows, cols);
}
