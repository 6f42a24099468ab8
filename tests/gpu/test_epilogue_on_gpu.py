"""Fused epilogues on the GPU (tcgemm.epilogue): every activation and gated pair against a float64 reference of
the same formula, poisoned outputs, odd shapes, every layout (fused where the kernel serves it, unfused
elsewhere), a bias and a residual C, and a CUDA graph."""

from __future__ import annotations

import math

import pytest
import torch

import tcgemm
from tcgemm import epilogue, launch
from tcgemm.check import TOLERANCE, poisoned_like, random_operand, relative_error

pytestmark = pytest.mark.gpu

ACTS = ["relu", "gelu", "gelu_tanh", "silu"]
GATED = ["swiglu", "geglu", "geglu_tanh", "reglu"]


def _inputs(m: int, n: int, k: int, layouts: str, dtype: torch.dtype, seed: int):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    a = random_operand(m, k, "row" if layouts[0] == "r" else "col", None, dtype, "cuda", gen)
    b = random_operand(k, n, "row" if layouts[1] == "r" else "col", None, dtype, "cuda", gen)
    return a, b, gen


def _reference(a, b, c, beta: float, name: str) -> torch.Tensor:
    z = torch.matmul(a.double(), b.double())
    if c is not None:
        z = z + beta * c.double()
    return epilogue.apply(z, epilogue.parse(name))


def _error(out: torch.Tensor, ref: torch.Tensor, a, b) -> float:
    k = a.shape[-1]
    magnitude = torch.linalg.vector_norm(torch.matmul(a.double().abs(), b.double().abs())).item() / math.sqrt(k)
    return relative_error(out, ref, magnitude * (0.5 if ref.shape[-1] < b.shape[-1] else 1.0))


def _ran(labels: list[str]) -> list[str]:
    return [lab for lab in labels if lab.startswith("wgmma_tma_store:")]


@pytest.mark.parametrize("layouts", ["rc", "rr", "cc", "cr"])
@pytest.mark.parametrize("shape", [(1, 136, 64), (300, 1000, 520), (129, 2056, 4104), (1000, 3000, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", GATED)
def test_gated(name: str, shape, layouts: str) -> None:
    m, n, k = shape
    dtype = torch.bfloat16 if name != "geglu_tanh" else torch.float16
    a, b, _ = _inputs(m, n, k, layouts, dtype, seed=m + n + k)
    out = poisoned_like((m, n // 2), dtype, "cuda")
    with launch.trace() as seen:
        tcgemm.gemm(a, b, out=out, activation=name)
    assert not torch.isnan(out).any()
    err = _error(out, _reference(a, b, None, 0.0, name), a, b)
    assert err <= TOLERANCE["bf16"], (name, shape, layouts, err)
    aligned = k % 8 == 0 and (n // 2) % 8 == 0
    if layouts[1] == "c" and aligned:  # fused: one launch of the Hopper kernel, nothing after it
        assert len(_ran(seen)) == 1 and len(seen) == 1, seen
        assert tcgemm.explain(a, b, activation=name).label == seen[0]  # explain names what ran
    # and a new output, twice (the second call takes the prepared launch)
    for _ in range(2):
        d = tcgemm.gemm(a, b, activation=name)
        assert d.shape == (m, n // 2) and torch.equal(d, out)


@pytest.mark.parametrize("c_kind", ["none", "bias", "residual"])
@pytest.mark.parametrize("layouts", ["rc", "rr", "cr"])
@pytest.mark.parametrize("shape", [(1, 8, 8), (7, 1001, 520), (300, 768, 3072), (2047, 2045, 2048)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", ACTS)
def test_activation(name: str, shape, layouts: str, c_kind: str) -> None:
    m, n, k = shape
    a, b, gen = _inputs(m, n, k, layouts, torch.bfloat16, seed=3 * m + n + k)
    c = None
    if c_kind == "bias":
        c = torch.randn(n, generator=gen, device="cuda").to(torch.bfloat16)
    elif c_kind == "residual":
        c = torch.randn(m, n, generator=gen, device="cuda").to(torch.bfloat16)
    beta = 0.0 if c is None else 1.0
    out = poisoned_like((m, n), torch.bfloat16, "cuda")
    tcgemm.gemm(a, b, c, beta=beta, out=out, activation=name)
    err = _error(out, _reference(a, b, c, beta, name), a, b)
    assert err <= TOLERANCE["bf16"], (name, shape, layouts, c_kind, err)
    d = tcgemm.gemm(a, b, c, beta=beta, activation=name)
    assert torch.equal(d, out)


@pytest.mark.parametrize("name", ["swiglu", "gelu"])
def test_fused_call_in_a_cuda_graph(name: str) -> None:
    m, n, k = 512, 2 * 1408, 1024
    a, b, gen = _inputs(m, n, k, "rc", torch.bfloat16, seed=5)
    bias = None if name == "swiglu" else torch.randn(n, generator=gen, device="cuda").to(torch.bfloat16)
    beta = 0.0 if bias is None else 1.0
    n_out = n // 2 if name == "swiglu" else n
    out = poisoned_like((m, n_out), torch.bfloat16, "cuda")
    tcgemm.gemm(a, b, bias, beta=beta, out=out, activation=name)  # warm: compiled and prepared
    out.fill_(float("nan"))
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.gemm(a, b, bias, beta=beta, out=out, activation=name)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()  # capture ran nothing
    graph.replay()
    torch.cuda.synchronize()
    err = _error(out, _reference(a, b, bias, beta, name), a, b)
    assert err <= TOLERANCE["bf16"]


def test_autograd_matches_torch() -> None:
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    x = torch.randn(64, 256, generator=gen, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(512, 256, generator=gen, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    y = tcgemm.gemm(x, w.t(), activation="swiglu")
    g = torch.randn_like(y)
    y.backward(g)
    x2, w2 = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    z = x2 @ w2.t()
    y2 = torch.nn.functional.silu(z[:, :256]) * z[:, 256:]
    y2.backward(g.double())
    for got, want in ((x.grad, x2.grad), (w.grad, w2.grad)):
        assert relative_error(got, want, 0.0) < 2e-2


class _LlamaLikeMLP(torch.nn.Module):
    def __init__(self, hidden: int, inter: int) -> None:
        super().__init__()
        self.gate_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.up_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.down_proj = torch.nn.Linear(inter, hidden, bias=False)
        self.act_fn = torch.nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


@pytest.mark.parametrize("tokens", [1, 37, 512])
def test_gated_mlp_module(tokens: int) -> None:
    from tcgemm.mlp import GatedMLP, fuse_mlp

    torch.manual_seed(tokens)
    ref_mlp = _LlamaLikeMLP(256, 696).cuda()
    mlp = _LlamaLikeMLP(256, 696).cuda().to(torch.bfloat16)
    mlp.load_state_dict(ref_mlp.state_dict())
    x = torch.randn(2, tokens, 256, device="cuda")
    residual = torch.randn(2, tokens, 256, device="cuda")
    with torch.no_grad():
        want = ref_mlp.double()(x.double())
    model = torch.nn.Sequential(mlp)
    assert fuse_mlp(model) == 1 and isinstance(model[0], GatedMLP)
    fused = model[0]
    with torch.no_grad():
        got = fused(x.to(torch.bfloat16))
        got_res = fused(x.to(torch.bfloat16), residual.to(torch.bfloat16))
    assert got.shape == (2, tokens, 256)
    assert relative_error(got, want, 0.0) < 2e-2
    with torch.no_grad():  # the repeat call (the layers' prepared launches from raw addresses): the same bits
        assert torch.equal(fused(x.to(torch.bfloat16)), got)
    assert relative_error(got_res, want + residual.double(), 0.0) < 2e-2
    # training: gradients through the unfused formula match torch's
    xg = x.to(torch.bfloat16).requires_grad_()
    fused(xg).float().square().sum().backward()
    xr = x.double().requires_grad_()
    ref_mlp(xr).square().sum().backward()
    assert relative_error(xg.grad, xr.grad, 0.0) < 5e-2
    assert relative_error(fused.gate_up.weight.grad[:696], ref_mlp.gate_proj.weight.grad, 0.0) < 5e-2


def test_transformers_llama_mlp_fuses() -> None:
    transformers = pytest.importorskip("transformers")
    from tcgemm.mlp import fuse_mlp

    config = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=512)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config).cuda().to(torch.bfloat16).eval()
    ids = torch.randint(0, 512, (2, 33), device="cuda")
    with torch.no_grad():
        want = model(ids).logits.double()
        assert fuse_mlp(model) == 2
        got = model(ids).logits
    assert relative_error(got, want, 0.0) < 2e-2


# Each schedule the gated epilogue meets: EPI_OVERLAP, the tail split, 2 x 2 and along-N clusters, 256-row tiles,
# 96-wide tiles (32-byte boxes), ping-pong consumers, split-K, no cluster.
GATED_CONFIGS = ["128x256x64s4b2o", "128x256x64s4b2t", "128x256x64c4", "256x128w128", "256x128w128n", "128x96x64n",
                 "192x96x64", "128x128x64pp", "128x128x64b2k3", "64x128x64"]


@pytest.mark.parametrize("config", GATED_CONFIGS)
def test_gated_every_schedule(config: str) -> None:
    m, n, k = 1000, 2 * 1000, 1032
    a, b, _ = _inputs(m, n, k, "rc", torch.bfloat16, seed=11)
    out = poisoned_like((m, n // 2), torch.bfloat16, "cuda")
    with launch.trace() as seen:
        tcgemm.gemm(a, b, out=out, activation="swiglu", kernel="wgmma_tma_store", config=config)
    assert seen == [f"wgmma_tma_store:{config}"]
    err = _error(out, _reference(a, b, None, 0.0, "swiglu"), a, b)
    assert err <= TOLERANCE["bf16"], (config, err)


@pytest.mark.parametrize("activation", [None, "swiglu"])
def test_main_grad_accumulation(activation) -> None:
    """accumulate_main_grad=True on the GPU: two backward passes add dW into the float32 weight.main_grad."""
    torch.manual_seed(3)
    layer = tcgemm.nn.Linear(264, 2 * 200, bias=False, device="cuda", dtype=torch.bfloat16, activation=activation,
                             accumulate_main_grad=True)
    layer.weight.main_grad = torch.zeros_like(layer.weight, dtype=torch.float32)
    x = torch.randn(3, 77, 264, device="cuda").to(torch.bfloat16)
    for _ in range(2):
        layer(x).float().square().sum().backward()
    assert layer.weight.grad is None
    w64 = layer.weight.detach().double().requires_grad_()
    y = torch.nn.functional.linear(x.double(), w64)
    epilogue.apply(y, epilogue.parse(activation)).square().sum().backward()
    assert relative_error(layer.weight.main_grad, 2 * w64.grad, 0.0) < 3e-2
