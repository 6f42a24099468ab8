"""Fused epilogues (tcgemm.epilogue) on the CPU: names, the torch formula, and what the host plans for a gated or
activated GEMM (defines, B's and D's tensor-map geometry, the configs it refuses); two gated builds compile
spill-free for sm_90a."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F

from tcgemm import dispatch, epilogue, jit, launch, registry, sass, tma
from tcgemm.problem import describe


def _rel(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.double() - want).norm() / want.norm()).item()


def test_parse_names_and_errors() -> None:
    assert epilogue.parse(None) == epilogue.Epilogue()
    assert not epilogue.parse("none").fused
    assert epilogue.parse("gelu_tanh") == epilogue.Epilogue("gelu_tanh")
    assert epilogue.parse("swiglu") == epilogue.Epilogue("silu", gated=True)
    assert epilogue.parse("geglu").name == "geglu"
    with pytest.raises(ValueError, match="swiglu"):
        epilogue.parse("swish")
    with pytest.raises(TypeError, match="string"):
        epilogue.parse(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="even"):
        epilogue.gated_halves(7)


def test_apply_is_the_models_formula() -> None:
    x = torch.randn(5, 8, dtype=torch.float64)
    assert torch.equal(epilogue.apply(x, epilogue.parse("gelu")), F.gelu(x))
    assert torch.equal(epilogue.apply(x, epilogue.parse("gelu_tanh")), F.gelu(x, approximate="tanh"))
    assert torch.equal(epilogue.apply(x, epilogue.parse("swiglu")), F.silu(x[:, :4]) * x[:, 4:])
    assert torch.equal(epilogue.apply(x, epilogue.parse("reglu")), F.relu(x[:, :4]) * x[:, 4:])


def _gated_problem(m: int = 300, n: int = 2 * 1000, k: int = 4096, dtype: torch.dtype = torch.bfloat16):
    a = torch.empty(m, k, dtype=dtype)
    w = torch.empty(n, k, dtype=dtype)  # gate_up weight: rows [0, n/2) gate, [n/2, n) up
    problem, _t = describe(a, w.t())
    half = n // 2
    return dataclasses.replace(problem, d_ld=half, d_batch_stride=m * half, activation=4, gated=True)


def test_gated_plan_geometry_and_defines() -> None:
    problem = _gated_problem()
    spec, cfg = dispatch.select(problem, 90, 132, "wgmma_tma_store")
    assert cfg["BLOCK_N"] % 128 == 0 and not cfg.get("D_TRANSPOSED")
    defines = dict(launch.plan(problem, spec, cfg).defines)
    assert defines["EPI_GATED"] == "1" and defines["EPI_ACT"] == "4"
    dims, strides, box = tma.geometry(problem, cfg, "b")
    assert dims == (4096, 1000, 2) and strides == (4096 * 2, 1000 * 4096 * 2)
    assert box[1] <= cfg["BLOCK_N"] // 2
    d_dims, _d_strides, _d_box = tma.d_geometry(problem, cfg)
    assert d_dims[:2] == (1000, 300)


def test_gated_refusals() -> None:
    problem = _gated_problem()
    spec = registry.get("wgmma_tma_store")
    configs = [c for c in spec.configs_for("bf16") if not c.get("D_TRANSPOSED")]
    refused = [c for c in configs if not c.gated_parts()]
    assert refused and all("gated" in dispatch.config_refuses(c, problem, spec) for c in refused)
    assert all(c.gated_parts() for c in configs if c["BLOCK_N"] % 128 == 0 and c.get("D_BOX_BYTES", 128) == 128)
    assert spec.config("128x96x64n", "bf16").gated_parts() == 1  # 48 output columns: three 32-byte boxes
    # B row-major (x @ w with w (K, N)): the gated map reads K-major rows only
    a, b = torch.empty(64, 256, dtype=torch.bfloat16), torch.empty(256, 512, dtype=torch.bfloat16)
    rr, _ = describe(a, b)
    rr = dataclasses.replace(rr, gated=True, activation=4)
    assert "K-major" in dispatch.why_not(spec, rr, 90)
    # kernels without the epilogue refuse any activation
    other = registry.get("wgmma_cluster")
    assert "fused epilogue" in dispatch.why_not(other, dataclasses.replace(problem, gated=False), 90)
    with pytest.raises(ValueError, match="fused epilogue"):
        launch.plan(problem, other, other.configs[0])


def test_plain_problem_defines_unchanged() -> None:
    problem = dataclasses.replace(_gated_problem(), activation=0, gated=False, d_ld=2000)
    spec, cfg = dispatch.select(problem, 90, 132, "wgmma_tma_store")
    defines = dict(launch.plan(problem, spec, cfg).defines)
    assert "EPI_ACT" not in defines and "EPI_GATED" not in defines


def test_cpu_tensors_get_the_cuda_error() -> None:
    import tcgemm

    with pytest.raises(ValueError, match="CUDA"):
        tcgemm.gemm(torch.randn(4, 8), torch.randn(8, 6), activation="swiglu")


@pytest.mark.parametrize("config", ["128x256x64s4b2o", "256x128w128", "128x96x64n", "128x128x64pp"])
def test_gated_builds_compile_without_spills(config: str) -> None:
    try:
        jit.nvrtc_version()
    except jit.JitUnavailable:
        pytest.skip("NVRTC is not installed")
    problem = _gated_problem(m=4096, n=2 * 14336)
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config(config, "bf16")
    assert dispatch.config_refuses(cfg, problem, spec) is None
    plan = launch.plan(problem, spec, cfg)
    cubin = jit.cubin(spec.source, plan.defines, "sm_90a")
    code = sass.disassemble(cubin)
    assert not sass.has_local_memory(code)
    assert "MUFU.TANH" in code  # silu as 0.5 v (1 + tanh(v / 2)), in the epilogue


class _LlamaLikeMLP(torch.nn.Module):
    def __init__(self, hidden: int = 8, inter: int = 16, act: torch.nn.Module | None = None) -> None:
        super().__init__()
        self.gate_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.up_proj = torch.nn.Linear(hidden, inter, bias=False)
        self.down_proj = torch.nn.Linear(inter, hidden, bias=False)
        self.act_fn = act if act is not None else torch.nn.SiLU()


def test_gated_mlp_state_dict_is_the_usual_layout() -> None:
    from tcgemm.mlp import GatedMLP

    mlp = _LlamaLikeMLP()
    fused = GatedMLP.from_hf(mlp)
    assert fused.activation == "swiglu"
    state = fused.state_dict()
    assert sorted(state) == ["down_proj.weight", "gate_proj.weight", "up_proj.weight"]
    for key, value in mlp.state_dict().items():
        assert torch.equal(state[key], value)
    other = GatedMLP(8, 16)
    other.load_state_dict(mlp.state_dict())
    assert torch.equal(other.gate_up.weight, torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight]))
    assert other.down.weight.data_ptr() != mlp.down_proj.weight.data_ptr()  # (loaded: copied in)


def test_fuse_and_unfuse_mlp() -> None:
    from tcgemm.mlp import GatedMLP, fuse_mlp, unfuse_mlp

    model = torch.nn.Sequential(_LlamaLikeMLP(), _LlamaLikeMLP(act=torch.nn.GELU(approximate="tanh")),
                                _LlamaLikeMLP(act=torch.nn.Tanh()))
    assert fuse_mlp(model, keep_original=True) == 2
    assert isinstance(model[0], GatedMLP) and model[1].activation == "geglu_tanh"
    assert not isinstance(model[2], GatedMLP)  # no epilogue for tanh: left as it is
    assert unfuse_mlp(model) == 2 and isinstance(model[0], _LlamaLikeMLP)
    with pytest.raises(ValueError, match="gated pair"):
        GatedMLP(8, 16, activation="silu")
    with pytest.raises(ValueError, match="no fused"):
        GatedMLP.from_hf(_LlamaLikeMLP(act=torch.nn.Tanh()))


def test_linear_activation_argument() -> None:
    from tcgemm.nn import Linear

    layer = Linear(8, 6, activation="swiglu")
    assert "activation='swiglu'" in repr(layer)
    assert Linear(8, 6, activation="none").activation is None
    with pytest.raises(ValueError, match="even"):
        Linear(8, 7, activation="geglu")
    with pytest.raises(ValueError, match="unknown"):
        Linear(8, 6, activation="tanh")


@pytest.mark.parametrize("layouts", ["rc", "rr"])
@pytest.mark.parametrize("name", ["swiglu", "geglu_tanh", "gelu", "relu"])
def test_fused_calls_on_the_emulated_gpu(fake_gpu, name: str, layouts: str) -> None:
    """The host path of a fused call (describe, plan, D's geometry, out) against torch's formula; the emulated
    kernel applies the epilogue the problem names, so a wrong plan or D shape shows here."""
    import tcgemm

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(37, 64, generator=gen).to(torch.bfloat16)
    w = torch.randn(80, 64, generator=gen).to(torch.bfloat16)
    b = w.t() if layouts == "rc" else w.t().contiguous()
    want = epilogue.apply(x.double() @ w.double().t(), epilogue.parse(name))
    got = tcgemm.gemm(x, b, activation=name)
    assert got.shape == want.shape and _rel(got, want) < 1e-2
    fused = [p for _plan, p in fake_gpu.calls if p.activation or p.gated]
    assert bool(fused) == (layouts == "rc" or not epilogue.parse(name).gated)  # gated: B K-major only
    out = torch.full(want.shape, float("nan"), dtype=torch.bfloat16)
    tcgemm.gemm(x, b, out=out, activation=name)
    assert torch.equal(out, got)


def test_gpt2_block_fused_row_on_the_emulated_gpu(fake_gpu) -> None:
    from tcgemm import model_bench

    cfg = model_bench.GPT2Config(d_model=32, n_head=4, d_ff=128, batch=2, seq=8)
    torch.manual_seed(0)
    plain = model_bench.Block(cfg)
    fused = model_bench.Block(cfg, __import__("tcgemm.nn").nn.Linear, fused=True).to(torch.bfloat16)
    fused.load_state_dict(plain.state_dict())
    x = torch.randn(2, 8, 32)
    with torch.no_grad():
        want = plain.double()(x.double())
        got = fused(x.to(torch.bfloat16))
    assert _rel(got, want) < 2e-2
    assert any(p.activation == epilogue.ACTIVATIONS["gelu_tanh"] for _plan, p in fake_gpu.calls)


def test_explain_names_the_fused_launch_or_why_not(fake_gpu) -> None:
    import tcgemm

    x = torch.randn(300, 512).to(torch.bfloat16)
    w = torch.randn(2 * 1000, 512).to(torch.bfloat16)
    fused = tcgemm.explain(x, w.t(), activation="swiglu")
    assert fused.kernel == "wgmma_tma_store" and "epilogue" in fused.reason
    assert fused.config == tcgemm.explain(x, w.t(), activation="swiglu", config=fused.config).config
    unfused = tcgemm.explain(x, w.t().contiguous(), activation="swiglu")  # b row-major: gated reads K-major only
    assert "unfused" in unfused.reason and "K-major" in unfused.reason
    assert "unfused" in tcgemm.explain(x.float(), w.t().float(), activation="gelu").reason
    assert fake_gpu.calls == []  # nothing launched


@pytest.mark.parametrize("name", ["swiglu", "geglu_tanh", "reglu"])
@pytest.mark.parametrize("bias", [False, True])
def test_gated_training_gradients_on_the_emulated_gpu(fake_gpu, name: str, bias: bool) -> None:
    """A gated Linear under autograd (two GEMMs of the weight's halves, tcgemm.nn._GatedFunction): its output and
    gradients against torch's formula in float64."""
    from tcgemm.nn import Linear

    torch.manual_seed(0)
    layer = Linear(24, 2 * 20, bias=bias, activation=name)
    x = torch.randn(3, 7, 24, requires_grad=True)
    y = layer(x)
    assert y.shape == (3, 7, 20)
    g = torch.randn_like(y)
    y.backward(g)
    x64 = x.detach().double().requires_grad_()
    w64 = layer.weight.detach().double().requires_grad_()
    b64 = layer.bias.detach().double().requires_grad_() if bias else None
    ref = epilogue.apply(torch.nn.functional.linear(x64, w64, b64), epilogue.parse(name))
    ref.backward(g.double())
    assert _rel(y.detach(), ref.detach()) < 1e-5
    assert _rel(x.grad, x64.grad) < 1e-5 and _rel(layer.weight.grad, w64.grad) < 1e-5
    if bias:
        assert _rel(layer.bias.grad, b64.grad) < 1e-5


@pytest.mark.parametrize("activation", [None, "gelu", "swiglu"])
def test_weight_gradients_accumulate_into_main_grad(fake_gpu, activation) -> None:
    """accumulate_main_grad=True: dW is added into the float32 weight.main_grad (the GEMM's C, beta = 1) and
    weight.grad stays None; two backward passes sum."""
    from tcgemm.nn import Linear

    torch.manual_seed(0)
    layer = Linear(16, 24, bias=False, accumulate_main_grad=True, activation=activation).to(torch.bfloat16)
    x = torch.randn(5, 16).to(torch.bfloat16)
    with pytest.raises(ValueError, match="main_grad"):
        layer(x.clone().requires_grad_()).float().sum().backward()
    layer.weight.main_grad = torch.zeros_like(layer.weight, dtype=torch.float32)
    for _ in range(2):
        layer(x).float().sum().backward()
    assert layer.weight.grad is None
    w64 = layer.weight.detach().double().requires_grad_()
    ref = torch.nn.functional.linear(x.double(), w64)
    epilogue.apply(ref, epilogue.parse(activation)).sum().backward()
    assert _rel(layer.weight.main_grad, 2 * w64.grad) < 2e-2
    assert any(p.c_strides is not None and p.out_dtype == torch.float32 for _plan, p in fake_gpu.calls)
