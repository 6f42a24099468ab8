"""tcgemm.gating's kernels (kernels/util/gated_act.cu) on the GPU: act(gate) * up and its backward against float64
for every activation and 16/32-bit dtype, the vector and the one-element paths, strided gate/up rows, poisoned
outputs, a CUDA graph; and a gated layer's training step through them against float64."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import epilogue, gating

pytestmark = pytest.mark.gpu
ACTS = ["silu", "gelu", "gelu_tanh", "relu"]
TOL = {torch.bfloat16: 8e-3, torch.float16: 1e-3, torch.float32: 1e-5}


def _available() -> bool:
    return torch.cuda.is_available()


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30))


def _poison(numel: int, dtype: torch.dtype) -> None:
    """Fill blocks of the caching allocator with NaN, so outputs the kernel leaves unwritten show."""
    for _ in range(2):
        torch.full((numel + 4096,), float("nan"), dtype=dtype, device="cuda")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("act", ACTS)
@pytest.mark.parametrize("rows,n,pad", [(1, 8, 0), (37, 13, 0), (129, 1408, 0), (64, 1000, 8), (5, 7, 3)])
def test_matches_float64(dtype, act, rows, n, pad):
    if not _available():
        pytest.skip("needs a CUDA GPU")
    gen = torch.Generator(device="cuda").manual_seed(rows * n + pad)
    gu = (torch.randn(rows, 2 * n + pad, device="cuda", generator=gen) * 2).to(dtype)[:, :2 * n]  # strided with pad
    dh = torch.randn(rows, n, device="cuda", generator=gen).to(dtype)
    want_h, want_dgu = gating.reference(gu, dh, act)
    _poison(rows * 2 * n, dtype)
    h = gating.forward(gu, act)
    _poison(rows * 2 * n, dtype)
    dgu = gating.backward(dh, gu, act)
    torch.cuda.synchronize()
    assert not h.isnan().any() and not dgu.isnan().any()
    assert _rel(h, want_h) < TOL[dtype]
    assert _rel(dgu, want_dgu) < TOL[dtype]


def test_captures_in_a_cuda_graph():
    if not _available():
        pytest.skip("needs a CUDA GPU")
    gu = torch.randn(256, 2 * 512, device="cuda").to(torch.bfloat16)
    dh = torch.randn(256, 512, device="cuda").to(torch.bfloat16)
    gating.backward(dh, gu, "silu")  # (loads the kernels)
    gating.forward(gu, "silu")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        h = gating.forward(gu, "silu")
        dgu = gating.backward(dh, gu, "silu")
    gu.copy_(torch.randn_like(gu))
    dh.copy_(torch.randn_like(dh))
    graph.replay()
    want_h, want_dgu = gating.reference(gu, dh, "silu")
    assert _rel(h, want_h) < TOL[torch.bfloat16] and _rel(dgu, want_dgu) < TOL[torch.bfloat16]


@pytest.mark.parametrize("name", ["swiglu", "geglu", "geglu_tanh", "reglu"])
@pytest.mark.parametrize("bias", [False, True])
def test_gated_layer_training_step(name, bias):
    """tcgemm.nn.Linear(activation=gated) under autograd: one GEMM each way through gating's kernels, against the
    float64 formula (odd token count, N / 2 not a multiple of any tile)."""
    if not _available():
        pytest.skip("needs a CUDA GPU")
    torch.manual_seed(0)
    layer = tcgemm.nn.Linear(256, 2 * 200, bias=bias, activation=name).cuda().to(torch.bfloat16)
    x = torch.randn(3, 67, 256, device="cuda").to(torch.bfloat16).requires_grad_()
    y = layer(x)
    dy = torch.randn_like(y)
    y.backward(dy)
    x64 = x.detach().double().requires_grad_()
    w64 = layer.weight.detach().double().requires_grad_()
    b64 = layer.bias.detach().double().requires_grad_() if bias else None
    ref = epilogue.apply(torch.nn.functional.linear(x64, w64, b64), epilogue.parse(name))
    ref.backward(dy.double())
    assert _rel(y.detach(), ref.detach()) < 1e-2
    assert _rel(x.grad, x64.grad) < 1e-2 and _rel(layer.weight.grad, w64.grad) < 1e-2
    if bias:
        assert _rel(layer.bias.grad, b64.grad) < 1e-2
