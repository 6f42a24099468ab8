"""PyTorch integration on the GPU: torch.compile(fullgraph=True) with no graph break, gradients of
the exact fp32 kernels against float64, tcgemm.nn.Linear in fp16/bf16/tf32 against torch, DLPack with
CuPy (and JAX where it sees a GPU), and the GPT-2 model benchmark end to end."""

from __future__ import annotations

import json

import pytest
import torch

import tcgemm
import tcgemm.nn
from tcgemm.check import TOLERANCE

pytestmark = pytest.mark.gpu


def _rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    x64, ref64 = x.double(), ref.double()
    return (torch.linalg.vector_norm(x64 - ref64) / torch.linalg.vector_norm(ref64)).item()


class _MLP(torch.nn.Module):
    def __init__(self, d: int = 256, hidden: int = 1024) -> None:
        super().__init__()
        self.up = tcgemm.nn.Linear(d, hidden)
        self.down = tcgemm.nn.Linear(hidden, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.nn.functional.gelu(self.up(x), approximate="tanh"))


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_compile_fullgraph_matches_eager_without_graph_breaks(backend, dtype):
    import torch._dynamo

    if backend == "inductor":
        pytest.importorskip("triton")
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    torch.manual_seed(0)
    model = _MLP().to("cuda", dtype)
    x = torch.randn(4, 77, 256, device="cuda", dtype=dtype, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1, explanation.break_reasons
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    y = compiled(x)
    y.float().square().mean().backward()
    grads = [x.grad.clone(), *(p.grad.clone() for p in model.parameters())]
    x.grad = None
    model.zero_grad()
    y_eager = model(x)
    y_eager.float().square().mean().backward()
    grads_eager = [x.grad, *(p.grad for p in model.parameters())]
    assert not torch._dynamo.utils.counters["graph_break"]
    tol = 1e-5 if dtype == torch.float32 else 5e-3
    assert _rel(y, y_eager) <= tol
    for g, ge in zip(grads, grads_eager, strict=True):
        assert _rel(g, ge) <= 10 * tol


SHAPES = [(7, 13, 5), (1, 1, 1), (33, 17, 65), (128, 96, 257)]


@pytest.mark.parametrize("layouts", ["rr", "rc", "cr", "cc"])
@pytest.mark.parametrize("c_shape", [None, "bias", "full"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_fp32_gradients_against_float64(shape, c_shape, layouts):
    """Gradients of the exact fp32 kernels (precision fp32) against float64 torch autograd, within 1e-4."""
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * 1000 + n * 10 + k)

    def operand(rows: int, cols: int, layout: str) -> torch.Tensor:
        if layout == "r":
            return torch.randn(rows, cols, device="cuda", generator=gen)
        return torch.randn(cols, rows, device="cuda", generator=gen).t()

    a, b = operand(m, k, layouts[0]), operand(k, n, layouts[1])
    c = {None: None, "bias": torch.randn(n, device="cuda", generator=gen),
         "full": torch.randn(m, n, device="cuda", generator=gen)}[c_shape]
    alpha, beta = 0.75, (1.5 if c is not None else 0.0)
    grad = torch.randn(m, n, device="cuda", generator=gen)
    leaves = [x.detach().requires_grad_() if x is not None else None for x in (a, b, c)]
    d = tcgemm.gemm(*leaves, alpha=alpha, beta=beta, precision="fp32")
    d.backward(grad)
    refs = [x.detach().double().requires_grad_() if x is not None else None for x in (a, b, c)]
    d_ref = alpha * refs[0] @ refs[1] + (beta * refs[2] if c is not None else 0)
    d_ref.backward(grad.double())
    assert _rel(d, d_ref) <= 1e-5
    for name, x, r in zip("abc", leaves, refs, strict=True):
        if x is not None:
            assert x.grad.dtype == torch.float32
            assert _rel(x.grad, r.grad) <= 1e-4, f"d{name}"


def test_linear_fp32_gradients_against_float64():
    torch.manual_seed(1)
    layer = tcgemm.nn.Linear(13, 5, device="cuda")
    x = torch.randn(3, 7, 13, device="cuda", requires_grad=True)
    grad = torch.randn(3, 7, 5, device="cuda")
    layer(x).backward(grad)
    w64 = layer.weight.detach().double().requires_grad_()
    b64 = layer.bias.detach().double().requires_grad_()
    x64 = x.detach().double().requires_grad_()
    torch.nn.functional.linear(x64, w64, b64).backward(grad.double())
    for got, want in ((x.grad, x64.grad), (layer.weight.grad, w64.grad), (layer.bias.grad, b64.grad)):
        assert _rel(got, want) <= 1e-4
    assert layer.weight.grad.is_contiguous()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(4, 77, 768), (1000, 768), (768,)], ids=lambda s: "x".join(map(str, s)))
def test_linear_half_matches_torch(dtype, shape):
    torch.manual_seed(2)
    ref = torch.nn.Linear(768, 3072, device="cuda", dtype=dtype)
    ours = tcgemm.nn.Linear.from_torch(ref)
    x = torch.randn(shape, device="cuda", dtype=dtype, requires_grad=True)
    y = ours(x)
    grad = torch.randn_like(y)
    y.backward(grad)
    gx, gw, gb = x.grad.clone(), ref.weight.grad.clone(), ref.bias.grad.clone()
    x.grad = None
    ref.zero_grad()
    y_ref = ref(x)
    y_ref.backward(grad)
    exact = torch.nn.functional.linear(x.double(), ref.weight.double(), ref.bias.double())
    tol = TOLERANCE["fp16" if dtype == torch.float16 else "bf16"]
    assert y.dtype == dtype and y.shape == y_ref.shape
    assert _rel(y, exact) <= tol and _rel(y, y_ref) <= tol
    for got, want in ((gx, x.grad), (gw, ref.weight.grad), (gb, ref.bias.grad)):
        assert _rel(got, want) <= tol


def test_linear_tf32_matches_torch():
    torch.manual_seed(3)
    ref = torch.nn.Linear(1024, 512, device="cuda")
    ours = tcgemm.nn.Linear.from_torch(ref, precision="tf32")
    x = torch.randn(300, 1024, device="cuda")
    with torch.no_grad():
        assert _rel(ours(x), torch.nn.functional.linear(x.double(), ref.weight.double(), ref.bias.double())) <= \
            TOLERANCE["tf32"]


def test_cupy_arrays_in_and_out():
    cp = pytest.importorskip("cupy")
    a = cp.random.standard_normal((300, 200), dtype=cp.float32)
    b = cp.asfortranarray(cp.random.standard_normal((200, 100), dtype=cp.float32))  # column-major
    c = cp.random.standard_normal((100,), dtype=cp.float32)
    d = tcgemm.gemm(a, b, c, beta=1.0)
    assert isinstance(d, cp.ndarray) and d.shape == (300, 100)
    ref = a.astype(cp.float64) @ b.astype(cp.float64) + c
    assert float(cp.linalg.norm(d - ref) / cp.linalg.norm(ref)) <= TOLERANCE["fp32"]
    assert torch.from_dlpack(d).data_ptr() == d.data.ptr  # the result is torch's memory, shared
    out = cp.full((300, 100), cp.nan, dtype=cp.float32)
    assert tcgemm.gemm(a, b, out=out) is out
    assert float(cp.linalg.norm(out - (ref - c)) / cp.linalg.norm(ref - c)) <= TOLERANCE["fp32"]
    h = tcgemm.gemm(a.astype(cp.float16), b.astype(cp.float16))
    assert isinstance(h, cp.ndarray) and h.dtype == cp.float16


def test_jax_arrays_in_and_out():
    jax = pytest.importorskip("jax")
    if not any(dev.platform == "gpu" for dev in jax.devices()):
        pytest.skip("JAX sees no GPU")
    import jax.numpy as jnp

    a = jnp.ones((64, 32), dtype=jnp.float32)
    b = jnp.ones((32, 16), dtype=jnp.float32)
    d = tcgemm.gemm(a, b)
    assert isinstance(d, jax.Array) and float(d[0, 0]) == 32.0


def test_gpt2_model_benchmark_small(tmp_path):
    from tcgemm.model_bench import GPT2Config, bench_gpt2, record

    cfg = GPT2Config(batch=1, seq=128)
    rows = bench_gpt2(["fp16", "bf16"], cfg, "sdpa", budget_s=0.05)
    assert [r.impl for r in rows] == ["torch.nn.Linear", "tcgemm.nn.Linear", "tcgemm fused GELU"] * 2
    for r in rows:
        assert r.tokens_per_s > 0 and r.samples >= 20
        if r.impl.startswith("tcgemm"):
            assert r.passed, r
            assert set(r.kernels) == {"qkv", "out_proj", "fc", "fc_proj"}
            assert r.graph_ms > 0 and r.graph_speedup_vs_torch > 0  # (the blocks captured and replayed)
    text = json.dumps(record(rows, cfg, "sdpa"), default=str)
    env = json.loads(text)["environment"]
    assert {"gpu", "driver", "cuda", "torch", "tcgemm", "commit", "date"} <= set(env)
