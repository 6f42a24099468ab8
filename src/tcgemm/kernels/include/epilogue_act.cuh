// epilogue_act.cuh — an activation applied to D in the epilogue, and the gated pair (SwiGLU, GeGLU).
//
// What a model runs after a Linear layer is elementwise: GELU after GPT-2's fc1, SiLU(gate) * up after a
// Llama MLP's gate_up.  Done by a separate kernel, it reads the GEMM's whole output back from HBM and writes
// it again; here it is applied to each value while the tile is still in registers, so it costs a few
// instructions per value and no memory traffic.
//
// EPI_ACT (the host's define, tcgemm.epilogue.ACTIVATIONS): 0 none, 1 relu, 2 gelu (erf), 3 gelu_tanh,
// 4 silu.  D = act(alpha * A B + beta * C): a bias (C a row) goes in before the activation, as in
// act(x W^T + b).
//
// EPI_GATED = 1: the tile's BLOCK_N accumulator columns are BLOCK_N / 2 gate columns then the same
// BLOCK_N / 2 columns of up (the host's tensor map of B reads the gate_up weight's two halves as a third
// dimension: hopper_cluster.cuh), and the tile writes BLOCK_N / 2 columns act(gate) * up.  In the wgmma
// accumulator layout a thread's register j holds column 8 (j / 4) + 2 (lane % 4) + j % 2 of its rows, so
// register j of the gate half and register j of the up half (ATOM_ACC / 2 further) are the same column of
// the two halves: the pairing needs no data movement at all.
//
// Accuracy: silu and gelu_tanh go through one __expf (x * sigmoid(y), since 0.5 (1 + tanh(y / 2)) =
// sigmoid(y)), a relative error of a few fp32 ulps; gelu through erff.  Both far below a bf16 or fp16 ulp.
#pragma once

#ifndef EPI_ACT
#define EPI_ACT 0
#endif
#ifndef EPI_GATED
#define EPI_GATED 0
#endif

enum class Act : int { None = 0, Relu = 1, Gelu = 2, GeluTanh = 3, Silu = 4 };
constexpr Act ACTIVATION = static_cast<Act>(EPI_ACT);
constexpr bool GATED = EPI_GATED != 0;
// What the store applies to each value: gated tiles apply the activation to the gate before the product.
constexpr Act STORE_ACT = GATED ? Act::None : ACTIVATION;

// x * sigmoid(y) = x / (1 + e^-y).  __fdividef returns 0 for a finite x over a denominator beyond 2^126
// (e^-y overflowing to inf included): the limit for large negative y; large positive y give x / 1.
__device__ __forceinline__ float x_sigmoid(float x, float y) { return __fdividef(x, 1.0f + __expf(-y)); }

template <Act A>
__device__ __forceinline__ float activate(float v) {
    if constexpr (A == Act::Relu) {
        return fmaxf(v, 0.0f);
    } else if constexpr (A == Act::Gelu) {
        return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    } else if constexpr (A == Act::GeluTanh) {
        // 0.5 v (1 + tanh(u)) = v sigmoid(2u), u = sqrt(2 / pi) (v + 0.044715 v^3)
        const float u2 = 1.5957691216057308f * v * (1.0f + 0.044715f * v * v);
        return x_sigmoid(v, u2);
    } else if constexpr (A == Act::Silu) {
        return x_sigmoid(v, v);
    } else {
        return v;
    }
}
