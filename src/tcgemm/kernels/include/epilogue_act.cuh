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
// Accuracy: silu and gelu_tanh go through the SFU's tanh (below), gelu through erff.
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

// tanh on the SFU: one MUFU.TANH (max relative error 2^-10.99, below a bf16 ulp and about an fp16 half-ulp).
// sigmoid(y) = 0.5 + 0.5 tanh(y / 2) keeps silu and gelu_tanh at one MUFU per value.  Written as x / (1 + e^-y)
// they cost two (MUFU.EX2 and MUFU.RCP).  The SFU does 16 a clock and SM against the FMA pipe's 128, so a
// 128 x 128 tile's 16k tanh take ~1k cycles against ~0.6k for gelu_tanh's five FP32 operations a value: the
// SFU bounds this epilogue.  Its packed forms do not help: tanh.approx.f16x2 and .bf16x2 compile to two
// MUFU.TANH.F16 / .BF16 on sm_90a, one a half.  bias + GELU at 8192 x 768 -> 3072 cost 6% over bias alone,
// 512 x 4096 -> 14336 3% (2026-11-26-h100-explore-epilogue-configs-4393892.json).
__device__ __forceinline__ float tanh_approx(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// gelu_tanh's tanh argument sqrt(2 / pi) (v + 0.044715 v^3) as v (K0 + K1 v^2): three operations.
constexpr float GELU_K0 = 0.7978845608028654f, GELU_K1 = 0.7978845608028654f * 0.044715f;

template <Act A>
__device__ __forceinline__ float activate(float v) {
    if constexpr (A == Act::Relu) {
        return fmaxf(v, 0.0f);
    } else if constexpr (A == Act::Gelu) {
        return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    } else if constexpr (A == Act::GeluTanh) {
        const float hv = 0.5f * v;  // 0.5 v (1 + tanh(u))
        return fmaf(hv, tanh_approx(v * fmaf(GELU_K1, v * v, GELU_K0)), hv);
    } else if constexpr (A == Act::Silu) {
        const float hv = 0.5f * v;  // v sigmoid(v) = 0.5 v (1 + tanh(v / 2))
        return fmaf(hv, tanh_approx(hv), hv);
    } else {
        return v;
    }
}
