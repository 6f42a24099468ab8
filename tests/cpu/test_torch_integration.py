"""torch.ops.tcgemm.gemm, its autograd and fake implementation, torch.compile and tcgemm.nn.Linear,
on the CPU: the one function that touches the GPU (launch.run) is the kernel-contract emulator of
test_api_emulated.py, so everything above the kernel — the op, the backward's GEMMs and the
operands they are given — runs as it would on a GPU."""

from __future__ import annotations

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import tcgemm
import tcgemm.nn
import tcgemm.ops


def _operand(rows: int, cols: int, layout: str, gen: torch.Generator, batch: int | None = None) -> torch.Tensor:
    lead = () if batch is None else (batch,)
    if layout == "row":
        return torch.randn(*lead, rows, cols, generator=gen)
    return torch.randn(*lead, cols, rows, generator=gen).transpose(-1, -2)


def _grads(fn, *inputs: torch.Tensor, grad: torch.Tensor):
    leaves = [x.detach().clone().requires_grad_() if x is not None else None for x in inputs]
    out = fn(*leaves)
    out.backward(grad)
    return out.detach(), [x.grad if x is not None else None for x in leaves]


def test_op_is_registered_with_a_schema():
    schema = str(torch.ops.tcgemm.gemm.default._schema)
    assert schema.startswith("tcgemm::gemm(Tensor a, Tensor b, Tensor? c=None, float alpha=1.")
    assert "Tensor(a" not in schema  # no aliasing, no mutation


def test_op_forward_matches_torch(gpu):
    gen = torch.Generator().manual_seed(0)
    a, b, c = torch.randn(9, 13, generator=gen), torch.randn(13, 6, generator=gen), torch.randn(6, generator=gen)
    d = torch.ops.tcgemm.gemm(a, b, c, 0.5, 2.0)
    torch.testing.assert_close(d, 0.5 * a @ b + 2.0 * c)
    assert d.is_contiguous() and len(gpu.calls) == 1


@pytest.mark.parametrize("c_shape", [None, "bias", "column", "full"])
@pytest.mark.parametrize("layouts", ["rr", "rc", "cr", "cc"])
@pytest.mark.parametrize("alpha,beta", [(1.0, 1.0), (-0.5, 2.0), (2.0, 0.0)])
def test_gradients_match_torch(gpu, c_shape, layouts, alpha, beta):
    gen = torch.Generator().manual_seed(1)
    m, n, k = 7, 5, 13
    a = _operand(m, k, "row" if layouts[0] == "r" else "col", gen)
    b = _operand(k, n, "row" if layouts[1] == "r" else "col", gen)
    c = {None: None, "bias": torch.randn(n, generator=gen), "column": torch.randn(m, 1, generator=gen),
         "full": torch.randn(m, n, generator=gen)}[c_shape]
    if c is None:
        beta = 0.0
    grad = torch.randn(m, n, generator=gen)

    def ours(a, b, c):
        return tcgemm.gemm(a, b, c, alpha=alpha, beta=beta)

    def torchs(a, b, c):
        return alpha * a @ b + (beta * c if c is not None else 0)

    d, got = _grads(ours, a, b, c, grad=grad)
    d_ref, want = _grads(torchs, a, b, c, grad=grad)
    torch.testing.assert_close(d, d_ref, rtol=1e-5, atol=1e-5)
    for name, g, w, x in zip("abc", got, want, (a, b, c), strict=True):
        if x is None:
            continue
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5, msg=f"d{name}")
        # each gradient comes in its input's layout (autograd keeps it without a re-layout copy)
        if x.dim() == 2 and min(x.shape) > 1:
            assert (g.stride(-1) == 1) == (x.stride(-1) == 1), f"d{name} layout {g.stride()} vs {x.stride()}"


def test_backward_reads_transposed_views_not_copies(gpu):
    """dA = dD Bᵀ and dB = Aᵀ dD: the backward's GEMMs read the saved a, b and the incoming grad in place."""
    gen = torch.Generator().manual_seed(2)
    a = torch.randn(33, 17, generator=gen, requires_grad=True)
    w = torch.randn(9, 17, generator=gen, requires_grad=True)  # b = w.t(): column-major, like nn.Linear
    grad = torch.randn(33, 9, generator=gen)
    d = tcgemm.gemm(a, w.t())
    gpu.calls.clear()
    gpu.operands.clear()
    d.backward(grad)
    assert len(gpu.calls) == 2  # dA and dB: two GEMMs, nothing else launched
    storages = {t.untyped_storage().data_ptr() for t in (a, w, grad)}
    for x, y in gpu.operands:
        assert x.untyped_storage().data_ptr() in storages and y.untyped_storage().data_ptr() in storages
    layouts = sorted(problem.layouts for _plan, problem in gpu.calls)
    assert layouts == ["cr", "rr"]  # dA = grad @ w (rr); dBᵀ = gradᵀ @ a (cr): views, read in place
    torch.testing.assert_close(a.grad, grad @ w.detach())
    torch.testing.assert_close(w.grad, grad.t() @ a.detach())
    assert w.grad.is_contiguous()


def test_batched_and_broadcast_gradients(gpu):
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(3, 6, 5, generator=gen)
    b = torch.randn(5, 4, generator=gen)  # broadcast over the batch: dB sums over it
    c = torch.randn(4, generator=gen)
    grad = torch.randn(3, 6, 4, generator=gen)
    d, got = _grads(lambda a, b, c: tcgemm.gemm(a, b, c, beta=1.0, alpha=1.5), a, b, c, grad=grad)
    d_ref, want = _grads(lambda a, b, c: 1.5 * a @ b + c, a, b, c, grad=grad)
    torch.testing.assert_close(d, d_ref)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
        assert g.shape == w.shape


def test_half_precision_gradients_with_fp32_output(gpu):
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(8, 16, generator=gen).half()
    b = torch.randn(16, 8, generator=gen).half()
    grad = torch.randn(8, 8, generator=gen)
    d, (ga, gb) = _grads(lambda a, b: tcgemm.gemm(a, b, out_dtype=torch.float32), a, b, grad=grad)
    assert d.dtype == torch.float32 and ga.dtype == torch.float16 and gb.dtype == torch.float16
    torch.testing.assert_close(ga.float(), grad.half().float() @ b.float().t(), rtol=2e-3, atol=2e-3)
    torch.testing.assert_close(gb.float(), a.float().t() @ grad.half().float(), rtol=2e-3, atol=2e-3)


def test_double_backward(gpu):
    gen = torch.Generator().manual_seed(5)
    a = torch.randn(4, 3, generator=gen, requires_grad=True)
    b = torch.randn(3, 2, generator=gen, requires_grad=True)
    (ga,) = torch.autograd.grad(tcgemm.gemm(a, b).pow(2).sum(), a, create_graph=True)
    (gb,) = torch.autograd.grad(ga.sum(), b)
    a2, b2 = a.detach().requires_grad_(), b.detach().clone().requires_grad_()
    (ga2,) = torch.autograd.grad((a2 @ b2).pow(2).sum(), a2, create_graph=True)
    (gb2,) = torch.autograd.grad(ga2.sum(), b2)
    torch.testing.assert_close(gb, gb2, rtol=1e-5, atol=1e-5)


def test_out_with_grad_is_refused(gpu):
    a = torch.randn(4, 3, requires_grad=True)
    with pytest.raises(ValueError, match="out= does not support autograd"):
        tcgemm.gemm(a, torch.randn(3, 2), out=torch.empty(4, 2))
    with torch.no_grad():
        tcgemm.gemm(a, torch.randn(3, 2), out=torch.empty(4, 2))


def test_no_grad_calls_do_not_go_through_the_op(gpu, monkeypatch):
    monkeypatch.setattr(tcgemm.ops, "gemm", lambda *a, **k: pytest.fail("op used without autograd"))
    tcgemm.gemm(torch.randn(4, 3), torch.randn(3, 2))
    with torch.no_grad():
        tcgemm.gemm(torch.randn(4, 3, requires_grad=True), torch.randn(3, 2))


# --- fake implementation -------------------------------------------------------------------------

def test_fake_implementation_shapes_and_dtypes():
    with FakeTensorMode():
        a, b = torch.empty(7, 13), torch.empty(13, 5)
        d = torch.ops.tcgemm.gemm(a, b, torch.empty(5), 1.0, 1.0)
        assert d.shape == (7, 5) and d.dtype == torch.float32 and d.is_contiguous()
        d = torch.ops.tcgemm.gemm(torch.empty(3, 7, 13, dtype=torch.float16), torch.empty(13, 5, dtype=torch.float16))
        assert d.shape == (3, 7, 5) and d.dtype == torch.float16
        d = torch.ops.tcgemm.gemm(a.half(), b.t().contiguous().t().half(), out_dtype=torch.float32)
        assert d.dtype == torch.float32
        d = torch.ops.tcgemm.gemm(a.bfloat16(), b.bfloat16())
        assert d.dtype == torch.bfloat16
        d = torch.ops.tcgemm.gemm(a, b, precision="tf32")
        assert d.dtype == torch.float32


def test_fake_implementation_validates_like_the_kernels():
    with FakeTensorMode():
        a = torch.empty(7, 13)
        with pytest.raises(ValueError, match="inner dimensions differ"):
            torch.ops.tcgemm.gemm(a, torch.empty(12, 5))
        with pytest.raises(TypeError, match="same dtype"):
            torch.ops.tcgemm.gemm(a, torch.empty(13, 5).half())
        with pytest.raises(ValueError, match="does not broadcast"):
            torch.ops.tcgemm.gemm(a, torch.empty(13, 5), torch.empty(6), 1.0, 1.0)
        with pytest.raises(ValueError, match="needs c"):
            torch.ops.tcgemm.gemm(a, torch.empty(13, 5), None, 1.0, 1.0)
        with pytest.raises(TypeError, match=r"c is torch\.float16"):
            torch.ops.tcgemm.gemm(a, torch.empty(13, 5), torch.empty(5).half(), 1.0, 1.0)


def test_opcheck(gpu):
    gen = torch.Generator().manual_seed(6)
    a = torch.randn(7, 13, generator=gen, requires_grad=True)
    b = torch.randn(5, 13, generator=gen).t().requires_grad_()
    c = torch.randn(5, generator=gen, requires_grad=True)
    torch.library.opcheck(torch.ops.tcgemm.gemm.default, (a, b, c, 0.5, 1.0, None, None, "auto", None))
    torch.library.opcheck(torch.ops.tcgemm.gemm.default, (a.detach().half(), b.detach().half()))


# --- torch.compile ---------------------------------------------------------------------------------

class _MLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = tcgemm.nn.Linear(16, 32)
        self.down = tcgemm.nn.Linear(32, 8, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.nn.functional.gelu(self.up(x)))


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_torch_compile_fullgraph_forward_and_backward(gpu, backend):
    import torch._dynamo

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    torch.manual_seed(7)
    model = _MLP()
    x = torch.randn(2, 5, 16, requires_grad=True)
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    y = compiled(x)
    y.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    x_grad = x.grad.clone()
    model.zero_grad()
    x.grad = None
    y_eager = model(x)
    y_eager.sum().backward()
    torch.testing.assert_close(y, y_eager)
    torch.testing.assert_close(x_grad, x.grad)
    for g, p in zip(grads, model.parameters(), strict=True):
        torch.testing.assert_close(g, p.grad)
    assert not torch._dynamo.utils.counters["graph_break"]


def test_torch_compile_traces_tcgemm_gemm_as_the_op(gpu):
    import torch._dynamo

    torch._dynamo.reset()
    seen = []

    def backend(gm, _example_inputs):
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward

    a, b = torch.randn(6, 4), torch.randn(4, 3)
    fn = torch.compile(lambda a, b: tcgemm.gemm(a, b, alpha=2.0) + 1, backend=backend, fullgraph=True)
    torch.testing.assert_close(fn(a, b), 2 * a @ b + 1)
    assert any("tcgemm.gemm" in s for s in seen), seen


# --- tcgemm.nn.Linear ------------------------------------------------------------------------------

def test_linear_state_dict_is_torchs():
    torch.manual_seed(8)
    ref = torch.nn.Linear(12, 7)
    ours = tcgemm.nn.Linear(12, 7)
    assert isinstance(ours, torch.nn.Linear)
    sd, sd_ref = ours.state_dict(), ref.state_dict()
    assert list(sd) == list(sd_ref) == ["weight", "bias"]
    assert all(sd[k].shape == sd_ref[k].shape and sd[k].dtype == sd_ref[k].dtype for k in sd)
    ours.load_state_dict(sd_ref)
    ref2 = torch.nn.Linear(12, 7)
    ref2.load_state_dict(ours.state_dict())
    assert torch.equal(ref2.weight, ref.weight) and torch.equal(ref2.bias, ref.bias)
    assert list(tcgemm.nn.Linear(3, 2, bias=False).state_dict()) == ["weight"]


def test_linear_from_torch_shares_parameters(gpu):
    torch.manual_seed(9)
    ref = torch.nn.Linear(12, 7)
    ours = tcgemm.nn.Linear.from_torch(ref, precision="tf32")
    assert ours.weight is ref.weight and ours.bias is ref.bias and ours.precision == "tf32"
    assert "precision='tf32'" in repr(ours)
    no_bias = tcgemm.nn.Linear.from_torch(torch.nn.Linear(3, 2, bias=False))
    assert no_bias.bias is None
    with pytest.raises(TypeError, match=r"torch\.nn\.Linear"):
        tcgemm.nn.Linear.from_torch(torch.nn.Conv1d(1, 1, 1))


@pytest.mark.parametrize("shape", [(12,), (5, 12), (2, 3, 12), (2, 1, 3, 12), (0, 12)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_forward_and_backward_match_torch(gpu, shape, bias):
    torch.manual_seed(10)
    ref = torch.nn.Linear(12, 7, bias=bias)
    ours = tcgemm.nn.Linear(12, 7, bias=bias)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(shape)
    grad = torch.randn(*shape[:-1], 7)
    y, (gx,) = _grads(ours, x, grad=grad)
    y_ref, (gx_ref,) = _grads(ref, x, grad=grad)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(gx, gx_ref, rtol=1e-5, atol=1e-5)
    ours.zero_grad()
    ref.zero_grad()
    ours(x).backward(grad)
    ref(x).backward(grad)
    torch.testing.assert_close(ours.weight.grad, ref.weight.grad, rtol=1e-5, atol=1e-5)
    if bias:
        torch.testing.assert_close(ours.bias.grad, ref.bias.grad, rtol=1e-5, atol=1e-5)


def test_linear_fuses_the_bias_into_one_gemm(gpu):
    layer = tcgemm.nn.Linear(12, 7)
    x = torch.randn(4, 3, 12)
    with torch.no_grad():
        layer(x)
    assert len(gpu.calls) == 1
    _plan, problem = gpu.calls[0]
    assert problem.c_strides == (0, 1, 0) and problem.beta == 1.0  # the (N,) bias row, broadcast
    assert problem.layouts == "rc" and (problem.m, problem.n, problem.k) == (12, 7, 12)  # weight.T in place
    _a_read, b_read = gpu.operands[0]
    assert b_read.data_ptr() == layer.weight.data_ptr()


def test_linear_adds_a_bias_of_another_dtype_separately(gpu):
    layer = tcgemm.nn.Linear(12, 7, dtype=torch.float16)
    layer.bias = torch.nn.Parameter(layer.bias.float())  # bias dtype differs from the output's
    x = torch.randn(5, 12).half()
    with torch.no_grad():
        y = layer(x)
    assert y.dtype == torch.float16
    assert gpu.calls[-1][1].c_strides is None  # the GEMM ran without c
    ref = x.float() @ layer.weight.float().t() + layer.bias.float()
    torch.testing.assert_close(y.float(), ref, rtol=2e-3, atol=2e-3)


def test_linear_explains_wrong_inputs(gpu):
    layer = tcgemm.nn.Linear(12, 7)
    with pytest.raises(ValueError, match="in_features=12"):
        layer(torch.randn(3, 11))
    with pytest.raises(TypeError, match=r"input is torch.float16 but weight is torch.float32"):
        layer(torch.randn(3, 12).half())


def test_linear_follows_autocast(gpu):
    layer = tcgemm.nn.Linear(12, 7)
    x = torch.randn(3, 12)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = layer(x)
        y_ref = torch.nn.functional.linear(x, layer.weight, layer.bias)
    assert y.dtype == y_ref.dtype == torch.bfloat16
    torch.testing.assert_close(y.float(), y_ref.float(), rtol=2e-2, atol=2e-2)


def test_import_tcgemm_stays_lazy():
    import subprocess
    import sys

    code = ("import sys, tcgemm; assert 'tcgemm.ops' not in sys.modules and 'tcgemm.nn' not in sys.modules; "
            "tcgemm.nn.Linear; assert 'tcgemm.ops' in sys.modules; import torch; torch.ops.tcgemm.gemm")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("attention", ["none", "sdpa"])
def test_gpt2_block_with_tcgemm_linears_matches_torch(gpu, attention):
    """The model benchmark's block: tcgemm.nn.Linear loads torch's state dict and gives torch's output
    (with attention skipped, out_proj reads the v third of qkv's output in place, ld = 3 x d_model)."""
    from tcgemm.model_bench import Block, GPT2Config

    cfg = GPT2Config(d_model=32, n_head=4, d_ff=128, batch=2, seq=8)
    torch.manual_seed(11)
    ref = Block(cfg, attention=attention)
    ours = Block(cfg, tcgemm.nn.Linear, attention)
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(cfg.batch, cfg.seq, cfg.d_model)
    with torch.no_grad():
        torch.testing.assert_close(ours(x), ref(x), rtol=1e-5, atol=1e-5)
    assert len(gpu.calls) == 4
    if attention == "none":
        out_proj = gpu.calls[1][1]
        assert out_proj.a.ld == 3 * cfg.d_model and out_proj.layouts == "rc"
    assert cfg.linear_flops_per_token == 2 * (32 * 96 + 32 * 32 + 2 * 32 * 128)


def test_gpt2_benchmark_pipeline_on_the_emulated_gpu(gpu, monkeypatch):
    """bench_gpt2 end to end with the emulated kernels and a stand-in timer: rows, errors, the record."""
    import json

    from tcgemm import bench, model_bench

    def time_runs(fn, sets, budget_s, **kw):
        fn(0)  # one real (emulated) forward
        return [2.0] * 25  # ms

    monkeypatch.setattr(bench, "time_runs", time_runs)
    monkeypatch.setattr(bench, "environment", lambda: {"gpu": "emulated"})
    cfg = model_bench.GPT2Config(d_model=32, n_head=4, d_ff=128, batch=2, seq=8)
    rows = model_bench.bench_gpt2(["fp16", "bf16"], cfg, "sdpa", device="cpu")
    impls = ("torch.nn.Linear", "tcgemm.nn.Linear", "tcgemm fused GELU")
    assert [(r.precision, r.impl) for r in rows] == [(p, i) for p in ("fp16", "bf16") for i in impls]
    for r in rows:  # (8 interleaved rounds of time_runs per implementation)
        assert r.tokens_per_s == cfg.tokens / 2e-3 and r.samples == 8 * 25 and r.rel_error_vs_fp32 < 2e-2
    for r in (r for r in rows if r.impl != "torch.nn.Linear"):
        assert r.passed and r.speedup_vs_torch == 1.0 and r.rel_error_vs_torch < r.tolerance
        assert r.kernels.keys() == {"qkv", "out_proj", "fc", "fc_proj"}
    record = json.loads(json.dumps(model_bench.record(rows, cfg, "sdpa")))
    assert record["config"]["attention"] == "sdpa" and record["config"]["tokens"] == 16
    assert len(record["rows"]) == 6 and record["environment"] == {"gpu": "emulated"}
    assert "ratio 1.00x" in model_bench.summary_lines(rows)[1]
    with pytest.raises(ValueError, match="int8"):
        model_bench.bench_gpt2(["int8"], cfg, device="cpu")
