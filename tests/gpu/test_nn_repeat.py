"""tcgemm.nn.Linear's repeat calls (a prepared launch from raw addresses): they must see what the module
holds now — weights changed in place, swapped parameters, a new precision, a new dtype — and give torch's
results and gradients, 2-D and 3-D inputs alike."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import tcgemm.nn
from tcgemm import launch

pytestmark = pytest.mark.gpu


def _rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    return ((x.double() - ref.double()).norm() / ref.double().norm()).item()


def _layer(dtype: torch.dtype = torch.bfloat16, bias: bool = True) -> tcgemm.nn.Linear:
    torch.manual_seed(0)
    return tcgemm.nn.Linear(256, 192, bias=bias, device="cuda", dtype=dtype)


@pytest.mark.parametrize("shape", [(64, 256), (3, 40, 256)])
def test_repeat_calls_follow_the_module(shape):
    layer = _layer()
    with torch.inference_mode():
        for _ in range(3):  # first call, then repeats
            x = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
            with launch.trace() as ran:
                y = layer(x)
            assert ran and y.shape == (*shape[:-1], 192)
            assert _rel(y, F.linear(x, layer.weight, layer.bias)) < 1e-2
    with torch.no_grad():
        layer.weight.copy_(torch.randn_like(layer.weight))  # in place: same address
    with torch.inference_mode():
        y = layer(x)
        assert _rel(y, F.linear(x, layer.weight, layer.bias)) < 1e-2
    layer.weight = torch.nn.Parameter(torch.randn(192, 256, device="cuda", dtype=torch.bfloat16))  # swapped
    with torch.inference_mode():
        assert _rel(layer(x), F.linear(x, layer.weight, layer.bias)) < 1e-2


def test_precision_and_dtype_changes_are_seen():
    layer = _layer(torch.float32, bias=False)
    x = torch.randn(64, 256, device="cuda")
    ref = (x.double() @ layer.weight.double().t())
    with torch.inference_mode():
        for _ in range(2):
            exact = layer(x)
        layer.precision = "tf32"
        for _ in range(2):
            rounded = layer(x)
        layer.precision = None
        again = layer(x)
    assert _rel(exact, ref) < 1e-5 and _rel(again, ref) < 1e-5
    assert 1e-5 < _rel(rounded, ref) < 5e-3  # tf32 really ran
    layer.half()
    with torch.inference_mode():
        h = layer(x.half())
    assert h.dtype == torch.float16 and _rel(h, ref) < 1e-2


@pytest.mark.parametrize("bias", [True, False])
def test_repeat_calls_under_autograd_match_torch(bias):
    layer = _layer(bias=bias)
    ref = torch.nn.Linear(256, 192, bias=bias, device="cuda", dtype=torch.bfloat16)
    ref.load_state_dict(layer.state_dict())
    for step in range(3):
        x = torch.randn(2, 32, 256, device="cuda", dtype=torch.bfloat16)
        xa, xb = x.clone().requires_grad_(), x.clone().requires_grad_()
        g = torch.randn(2, 32, 192, device="cuda", dtype=torch.bfloat16)
        layer(xa).backward(g)
        ref(xb).backward(g)
        assert _rel(xa.grad, xb.grad) < 1e-2, step
        assert _rel(layer.weight.grad, ref.weight.grad) < 1e-2, step
        if bias:
            assert _rel(layer.bias.grad, ref.bias.grad) < 1e-2, step
    assert layer(xa).grad_fn is not None


@pytest.mark.parametrize("bias", [True, False])
def test_repeat_calls_of_a_transposed_store(bias):
    """At 300 tokens auto runs some layers as D^T = W X^T written transposed (D_TRANSPOSED configs: the tokens as
    the wgmma's N): the first call and the prepared repeat calls (operands exchanged on the raw addresses) give
    torch's result, eager and inside a CUDA graph."""
    torch.manual_seed(0)
    layer = tcgemm.nn.Linear(4096, 4096, bias=bias, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(300, 4096, device="cuda", dtype=torch.bfloat16)
    assert tcgemm.explain(x, layer.weight.t(), layer.bias, beta=1.0 if bias else 0.0).config.endswith("T")
    with torch.inference_mode():
        for _ in range(3):
            with launch.trace() as ran:
                y = layer(x)
            assert ran and ran[-1].endswith("T")
            assert _rel(y, F.linear(x, layer.weight, layer.bias)) < 1e-2
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            yg = layer(x)
        yg.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert _rel(yg, F.linear(x, layer.weight, layer.bias)) < 1e-2


@pytest.mark.parametrize("activation", [None, "gelu_tanh"])
def test_strided_3d_inputs_repeat(activation):
    """A 3-D input whose flattening is a view (the v slice of a fused qkv output) takes the repeat path too, and
    a slice of another width, at the same shape, does not reuse it."""
    torch.manual_seed(1)
    layer = tcgemm.nn.Linear(256, 192, device="cuda", dtype=torch.bfloat16, activation=activation)
    with torch.inference_mode():
        for width in (3 * 256, 3 * 256, 2 * 256):
            qkv = torch.randn(2, 40, width, device="cuda", dtype=torch.bfloat16)
            v = qkv[..., -256:]
            assert not v.is_contiguous()
            y = layer(v)
            ref = F.linear(v, layer.weight, layer.bias)
            ref = F.gelu(ref.float(), approximate="tanh") if activation else ref
            assert y.shape == (2, 40, 192) and _rel(y, ref) < 1e-2
        assert len(layer._repeat) == 2  # one entry per signature (the strides differ with the width)
