"""tcgemm.explain: which kernel and config auto picks for a call, and why (on the fake H100)."""

from __future__ import annotations

import pytest
import torch

import tcgemm


def test_explain_names_the_kernel_that_runs(fake_gpu):
    a = torch.randn(256, 512, dtype=torch.bfloat16)
    w = torch.randn(384, 512, dtype=torch.bfloat16)
    bias = torch.randn(384, dtype=torch.bfloat16)
    choice = tcgemm.explain(a, w.t(), bias, beta=1.0)
    tcgemm.gemm(a, w.t(), bias, beta=1.0)
    (plan, *_rest) = fake_gpu.calls[-1]
    assert choice.kernel == plan.spec.name and choice.config == plan.config.name
    assert choice.label == f"{plan.spec.name}:{plan.config.name}"
    assert choice.family == "hopper" and choice.how == "estimate" and choice.staged == ()
    assert "bf16" in choice.reason


def test_explain_forced_and_empty(fake_gpu):
    a = torch.randn(64, 64)
    b = torch.randn(64, 64)
    forced = tcgemm.explain(a, b, kernel="simt_naive")
    assert forced.kernel == "simt_naive" and forced.how == "forced"
    empty = tcgemm.explain(torch.randn(0, 8), torch.randn(8, 4))
    assert empty.kernel == "none" and empty.staged == ()


def test_explain_reports_staged_operands(fake_gpu):
    a = torch.randn(512, 515, dtype=torch.float16)[:, :513]  # rows not 16-byte aligned
    b = torch.randn(513, 512, dtype=torch.float16)
    choice = tcgemm.explain(a, b)
    assert "a" in choice.staged and choice.family == "hopper"


def test_explain_rejects_unknown_arguments(fake_gpu):
    with pytest.raises(TypeError, match="bogus"):
        tcgemm.explain(torch.randn(4, 4), torch.randn(4, 4), bogus=1)


def test_explain_decode_takes_the_swap_ab_specialist(fake_gpu):
    """F.linear at a few tokens (A row-major, B = W.t()): the stream-K swap-AB kernel, its config by the
    measured M and K ranges, with W stored N x K (B = W.t()) or K x N (X @ W, read MN-major); past 16 rows, and
    below K = 1024, the general kernels."""
    w = torch.randn(4096, 4096, dtype=torch.bfloat16)
    for m, config in ((1, "8x64x64q8s3g1"), (16, "16x64x64q8s2g1")):
        choice = tcgemm.explain(torch.randn(m, 4096, dtype=torch.bfloat16), w.t())
        assert choice.label == f"swap_ab_stream_k:{config}", choice
        assert "specialist for M <= 128" in choice.reason and "K >= " in choice.reason
    gpt2_qkv = torch.randn(2304, 768, dtype=torch.bfloat16)  # (K < 1024: 64 x 64 tiles of the general kernel)
    short_k = tcgemm.explain(torch.randn(1, 768, dtype=torch.bfloat16), gpt2_qkv.t())
    assert short_k.label == "wgmma_tma_store:64x64x64"
    o_70b = torch.randn(8192, 1024, dtype=torch.bfloat16)
    assert tcgemm.explain(torch.randn(16, 1024, dtype=torch.bfloat16), o_70b.t()).label == (
        "swap_ab_stream_k:16x64x64q4s5g1")
    # 17..32 rows: the 32-token tile where N <= 8192 and K >= 3584 (batched decode), the general kernels above.
    assert tcgemm.explain(torch.randn(17, 4096, dtype=torch.bfloat16), w.t()).label == "swap_ab_stream_k:32x64x64q4s4g1"
    assert tcgemm.explain(torch.randn(33, 4096, dtype=torch.bfloat16), w.t()).kernel != "swap_ab_stream_k"
    assert tcgemm.explain(torch.randn(1, 4096, dtype=torch.bfloat16), w).label == "swap_ab_stream_k:8x64x64q8s3g1"
    # At narrow N and long K (Llama-3-70B TP8 qkv) the 32-token tile to 32 rows; above, the general kernel's tiles
    # in six k ranges (120 units where unsplit tiles make 20).
    qkv = torch.randn(1280, 8192, dtype=torch.bfloat16)
    choice = tcgemm.explain(torch.randn(32, 8192, dtype=torch.bfloat16), qkv.t())
    assert choice.label == "swap_ab_stream_k:32x64x64q4s4g1", choice
    for m, config in ((33, "64x64x64k6"), (64, "64x64x64k6"), (65, "128x64x64k6h"), (128, "128x64x64k6h")):
        assert tcgemm.explain(torch.randn(m, 8192, dtype=torch.bfloat16), qkv.t()).label == f"wgmma_tma_store:{config}"
    assert tcgemm.explain(torch.randn(129, 8192, dtype=torch.bfloat16), qkv.t()).kernel != "swap_ab_stream_k"
    assert tcgemm.explain(torch.randn(128, 4096, dtype=torch.bfloat16), w.t()).kernel != "swap_ab_stream_k"
    # A config of the general kernels named under auto goes to them, even at one row.
    assert tcgemm.explain(torch.randn(1, 4096, dtype=torch.bfloat16), w.t(), config="64x64x64").kernel == (
        "wgmma_tma_store")


def test_explain_tf32_with_b_row_major_runs_transposed(fake_gpu):
    """tf32 x @ w with w stored K x N: the transposed problem with B^T through registers, nothing staged; the
    launch reads the operands as given (kernel layouts "cc": B^T and A^T) and writes D transposed."""
    x = torch.randn(512, 1024)
    w = torch.randn(1024, 768)
    choice = tcgemm.explain(x, w, precision="tf32")
    assert choice.kernel == "wgmma_tma_store_kmajor" and "rT" in choice.config and choice.staged == ()
    assert "registers" in choice.reason and "no copy of B" in choice.reason
    bias = torch.randn(768)
    d = tcgemm.gemm(x, w, bias, beta=1.0, precision="tf32")  # (the fake GPU computes what the launch describes)
    plan, problem, *_rest = fake_gpu.calls[-1]
    assert plan.config.name == choice.config and problem.d_transposed and problem.layouts == "cc"
    assert (problem.m, problem.n) == (768, 512) and d.shape == (512, 768)
    assert torch.allclose(d.double(), x.double() @ w.double() + bias.double(), rtol=1e-5, atol=1e-4)


def test_explain_names_the_ping_pong_schedule(fake_gpu):
    """GPT-2's qkv at 8192 tokens (K = 768): 128 x 128 ping-pong tiles, and the reason says what that is; named,
    the config plans and launches like any other (the fake GPU computes what the launch describes)."""
    x = torch.randn(8192, 768, dtype=torch.bfloat16)
    w = torch.randn(2304, 768, dtype=torch.bfloat16)
    choice = tcgemm.explain(x, w.t())
    assert choice.label == "wgmma_tma_store:128x128x64pp" and "ping-pong" in choice.reason
    d = tcgemm.gemm(x[:300], w.t()[:, :200], kernel="wgmma_tma_store", config="128x128x64pp")
    plan, *_rest = fake_gpu.calls[-1]
    assert plan.config.name == "128x128x64pp"
    assert torch.allclose(d.double(), x[:300].double() @ w.t()[:, :200].double(), rtol=2e-2, atol=2e-2)
