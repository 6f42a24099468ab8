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
