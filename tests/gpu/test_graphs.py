"""Every kernel and tile config under CUDA graphs, auto at model shapes, per-stream scratch across streams,
and torch.compile(mode="reduce-overhead").

The rule these tests hold tcgemm to (the standard torch recipe): after one eager call of a signature (the
warm-up), capturing the same call compiles nothing, allocates nothing from host memory and synchronises
nothing; the graph launches what eager calls launch (same kernel:config, launch.trace()) and its replays give
the eager call's bits, also after the captured inputs' contents change in place. Split-K, tail-split and
GPC_ORDER configs keep scratch per (device, stream) for eager launches and one GRAPH set per device for captured
ones, sized by the eager calls (launch.split_k_buffers): they get problems where that path is active
(tests/graph_problems.py, checked on the CPU by tests/cpu/test_graph_problems.py).

All random data comes from private generators: a capture that fails part-way can leave torch's default CUDA
generator mid-capture (see bench.capture), and the tests after a failure should still run.
"""

from __future__ import annotations

import math

import pytest
import torch

import graph_problems as gp
import tcgemm
import tcgemm.nn
from tcgemm import jit, launch, registry
from tcgemm.check import TOLERANCE, reference, relative_error

pytestmark = pytest.mark.gpu

CASES = gp.cases()


def _arch() -> int:
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


def _sms() -> int:
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


@pytest.fixture
def builds(monkeypatch):
    """Counts kernel builds: NVRTC compilations (jit.compile_source) and kernels loaded (jit._loaded).
    ``builds()`` returns (compilations so far, kernels loaded)."""
    compiled: list[str] = []
    real = jit.compile_source

    def counting(source, *args, **kwargs):
        compiled.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(jit, "compile_source", counting)
    return lambda: (len(compiled), len(jit._loaded))


def _call(case: gp.Case, t: dict, out: torch.Tensor) -> torch.Tensor:
    kw = case.gemm_kwargs()
    if case.scaled:
        kw.update(scale_a=t["scale_a"], scale_b=t["scale_b"])
    return tcgemm.gemm(t["a"], t["b"], t["c"], out=out, **kw)


def _error(case: gp.Case, t: dict, d: torch.Tensor) -> float:
    """Relative error of d against float64, with check.check's floor against cancellation."""
    kw = case.gemm_kwargs()
    scale = t["scale_a"].item() * t["scale_b"].item() if case.scaled else 1.0
    ref = reference(t["a"], t["b"], t["c"], kw["alpha"], kw["beta"], scale)
    magnitude = abs(kw["alpha"] * scale) * torch.matmul(t["a"].double().abs(), t["b"].double().abs())
    floor = torch.linalg.vector_norm(magnitude).item() / math.sqrt(max(t["a"].shape[-1], 1))
    return relative_error(d, ref, floor)


def _assert_close(case: gp.Case, t: dict, d: torch.Tensor, what: str) -> None:
    if d.dtype.is_floating_point:
        assert not torch.isnan(d).any(), f"{what}: output elements left unwritten (NaN poison)"
    else:
        assert not (d == torch.iinfo(d.dtype).min).any(), f"{what}: output elements left unwritten (poison)"
    err = _error(case, t, d)
    tol = 2 * TOLERANCE[case.precision]  # (beta != 0: C's rounding too, as tests/gpu/test_hostile.py)
    assert err <= tol, f"{what}: error {err} > {tol}"


def _poison(d: torch.Tensor) -> None:
    d.fill_(float("nan") if d.dtype.is_floating_point else torch.iinfo(d.dtype).min)


def _skip_unless_served(spec: registry.KernelSpec) -> None:
    if _arch() < spec.min_arch:
        pytest.skip(f"{spec.name} needs sm_{spec.min_arch}")


# 1. Every kernel, config and precision: eager, then captured after a warm-up on a side stream.
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_config_under_cuda_graphs(case, builds):
    _skip_unless_served(case.spec)
    shape = gp.shape_for(case, _sms())
    label = f"{case.kernel}:{case.config}"

    # Eager (the full path; it also leaves the prepared launch of this signature).
    t = gp.tensors(case, shape, "cuda", seed=1)
    d_eager = gp.poisoned(shape, case.precision, "cuda")
    with launch.trace() as eager_seen:
        assert _call(case, t, d_eager) is d_eager
    torch.cuda.synchronize()
    assert eager_seen == [label]
    _assert_close(case, t, d_eager, "eager")

    # The static tensors of the graph: same signature (and contents), new addresses; warmed up on a side stream.
    ts = gp.tensors(case, shape, "cuda", seed=1)
    d_static = gp.poisoned(shape, case.precision, "cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        _call(case, ts, d_static)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    assert torch.equal(d_static, d_eager), "the warm-up on a side stream differs from the eager call"

    before = builds()
    graph = torch.cuda.CUDAGraph()
    with launch.trace() as captured:
        with torch.cuda.graph(graph):
            _call(case, ts, d_static)
    assert captured == eager_seen, "the graph captured another kernel than the eager call ran"
    assert builds() == before, "a kernel was compiled or loaded during capture"

    for replay in range(2):
        _poison(d_static)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(d_static, d_eager), f"replay {replay} differs from the eager result"

    # New contents in the captured tensors (and new scales): the replay computes on them.
    t2 = gp.tensors(case, shape, "cuda", seed=2)
    for name in ("a", "b", "c", "scale_a", "scale_b"):
        if ts[name] is not None:
            ts[name].copy_(t2[name])
    _poison(d_static)
    graph.replay()
    d_fresh = gp.poisoned(shape, case.precision, "cuda")
    with launch.trace() as fresh_seen:
        _call(case, t2, d_fresh)
    torch.cuda.synchronize()
    assert fresh_seen == [label]
    assert torch.equal(d_static, d_fresh), "a replay on new input contents differs from an eager call on them"
    _assert_close(case, t2, d_static, "replay on new contents")
    assert builds() == before


# 2. auto at model shapes through tcgemm.nn.Linear, bf16, in inference mode.
LLAMA_8B = {"qkv": (4096, 6144), "o": (4096, 4096), "gate_up": (4096, 28672), "down": (14336, 4096)}
MODEL_CASES = [pytest.param(name, fi, fo, m, False, id=f"llama3-8b-{name}-M{m}")
               for name, (fi, fo) in LLAMA_8B.items() for m in (1, 16, 128, 2048)]
MODEL_CASES.append(pytest.param("gpt2-fc", 768, 3072, 512, True, id="gpt2-fc-M512"))


def _linear(in_features: int, out_features: int, bias: bool, gen: torch.Generator) -> tcgemm.nn.Linear:
    """A bf16 tcgemm Linear whose parameters come from ``gen`` (not torch's default generator), frozen."""
    layer = tcgemm.nn.Linear(in_features, out_features, bias=bias, device="meta", dtype=torch.bfloat16)
    w = torch.randn(out_features, in_features, device="cuda", dtype=torch.bfloat16, generator=gen)
    layer.weight = torch.nn.Parameter(w.mul_(in_features ** -0.5), requires_grad=False)
    if bias:
        layer.bias = torch.nn.Parameter(torch.randn(out_features, device="cuda", dtype=torch.bfloat16,
                                                    generator=gen), requires_grad=False)
    return layer


@pytest.fixture(scope="module")
def layers():
    made: dict[tuple[int, int, bool], tcgemm.nn.Linear] = {}

    def get(in_features: int, out_features: int, bias: bool) -> tcgemm.nn.Linear:
        key = (in_features, out_features, bias)
        if key not in made:
            gen = torch.Generator(device="cuda")
            gen.manual_seed(in_features * 7 + out_features)
            made[key] = _linear(in_features, out_features, bias, gen)
        return made[key]

    yield get
    made.clear()
    torch.cuda.empty_cache()


@pytest.mark.parametrize("name,in_features,out_features,m,bias", MODEL_CASES)
def test_auto_linear_at_model_shapes_under_cuda_graphs(name, in_features, out_features, m, bias, layers, builds):
    layer = layers(in_features, out_features, bias)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(m)
    with torch.inference_mode():
        x = torch.randn(m, in_features, device="cuda", dtype=torch.bfloat16, generator=gen)
        choice = tcgemm.explain(x, layer.weight.t(), layer.bias, beta=1.0 if bias else 0.0)
        with launch.trace() as eager_seen:
            y = layer(x)
        torch.cuda.synchronize()
        assert eager_seen == [choice.label]
        if name == "down" and m == 2048 and _arch() == 90 and choice.how == "estimate":
            cfg = registry.get(choice.kernel).config(choice.config)
            assert cfg.get("GPC_ORDER"), f"auto took {choice.label}, not the long-K GPC_ORDER config"
        ref = x.double() @ layer.weight.double().t()
        if bias:
            ref = ref + layer.bias.double()
        err = relative_error(y, ref)
        assert err <= TOLERANCE["bf16"], err

        x_static = x.clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            layer(x_static)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        before = builds()
        graph = torch.cuda.CUDAGraph()
        with launch.trace() as captured:
            with torch.cuda.graph(graph):
                y_static = layer(x_static)
        assert captured == eager_seen
        assert builds() == before
        for _ in range(2):
            y_static.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(y_static, y), "replay differs from the eager module call"
        x2 = torch.randn(m, in_features, device="cuda", dtype=torch.bfloat16, generator=gen)
        x_static.copy_(x2)
        graph.replay()
        y2 = layer(x2)
        torch.cuda.synchronize()
        assert torch.equal(y_static, y2)
    del graph, y_static


# 3. Per-stream scratch: a graph captured on one stream, eager calls of scratch-using configs on another.
SCRATCH = [gp.Case("wgmma_tma_store", "128x128x64k4", "bf16"),       # split-K
           gp.Case("wgmma_tma_store", "128x256x64s4b2og", "bf16"),   # GPC_ORDER
           gp.Case("wgmma_tma_store", "128x256x64s4b2ot", "bf16")]   # tail split


def test_graph_and_eager_scratch_users_on_other_streams(builds):
    """A graph of split-K, GPC_ORDER and tail-split launches captured on stream s (warmed up there, not on
    torch's capture stream), replayed on the default stream and on s2 while eager calls of the split-K and
    GPC_ORDER configs run on s2 and on s before and after each replay (ordered by events, never concurrent):
    each keeps its results. Guards the per-(device, stream) scratch (launch.split_k_buffers, _gpc_buffer)."""
    for case in SCRATCH:
        _skip_unless_served(case.spec)
    sms = _sms()
    shapes = [gp.shape_for(case, sms) for case in SCRATCH]
    # Eager references on the default stream (the full path: prepared launches for the signatures).
    inputs, refs, static, outs = [], [], [], []
    for case, shape in zip(SCRATCH, shapes, strict=True):
        t = gp.tensors(case, shape, "cuda", seed=11)
        d = gp.poisoned(shape, case.precision, "cuda")
        _call(case, t, d)
        inputs.append(t)
        refs.append(d)
        static.append(gp.tensors(case, shape, "cuda", seed=11))
        outs.append(gp.poisoned(shape, case.precision, "cuda"))
    torch.cuda.synchronize()
    for case, t, d in zip(SCRATCH, inputs, refs, strict=True):
        _assert_close(case, t, d, f"eager {case.id}")

    s, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    cur = torch.cuda.current_stream()
    s.wait_stream(cur)
    with torch.cuda.stream(s):
        for case, t, d in zip(SCRATCH, static, outs, strict=True):
            _call(case, t, d)
    cur.wait_stream(s)
    torch.cuda.synchronize()
    before = builds()
    graph = torch.cuda.CUDAGraph()
    with launch.trace() as captured:
        with torch.cuda.graph(graph, stream=s):
            for case, t, d in zip(SCRATCH, static, outs, strict=True):
                _call(case, t, d)
    assert captured == [f"{c.kernel}:{c.config}" for c in SCRATCH]
    assert builds() == before

    def eager_round(stream: torch.cuda.Stream, seed: int) -> list[tuple[gp.Case, dict, torch.Tensor]]:
        """The split-K and GPC_ORDER calls on ``stream``, after everything queued on the default stream."""
        stream.wait_stream(cur)
        done = []
        with torch.cuda.stream(stream):
            for case, shape in zip(SCRATCH[:2], shapes[:2], strict=True):
                t = gp.tensors(case, shape, "cuda", seed=seed)
                d = gp.poisoned(shape, case.precision, "cuda")
                _call(case, t, d)
                done.append((case, t, d))
        cur.wait_stream(stream)
        return done

    def replay(stream: torch.cuda.Stream) -> None:
        for d in outs:
            _poison(d)
        stream.wait_stream(cur)
        with torch.cuda.stream(stream):
            graph.replay()
        cur.wait_stream(stream)

    eager = eager_round(s2, 21)
    replay(cur)
    eager += eager_round(s2, 22)
    replay(s2)
    eager += eager_round(s, 23)   # on the capture stream: the graph's own scratch, in turn
    replay(s)
    eager += eager_round(s2, 24)
    torch.cuda.synchronize()
    for d, ref in zip(outs, refs, strict=True):
        assert torch.equal(d, ref), "a replay after eager scratch users on other streams differs"
    for case, t, d in eager:
        _assert_close(case, t, d, f"eager {case.id} between replays")
    assert builds() == before


# 4. torch.compile(mode="reduce-overhead") (cudagraph trees) of a Llama-3-8B MLP at 2048 tokens.
class _LlamaMLP(torch.nn.Module):
    def __init__(self, gen: torch.Generator, d: int = 4096, hidden: int = 14336) -> None:
        super().__init__()
        self.hidden = hidden
        self.gate_up = _linear(d, 2 * hidden, False, gen)
        self.down = _linear(hidden, d, False, gen)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up(x).split(self.hidden, dim=-1)
        return self.down(torch.nn.functional.silu(gate) * up)


def test_torch_compile_reduce_overhead_llama_mlp():
    """SLOW (torch.compile: ~30-60 s). gate_up 4096 -> 28672, SiLU(gate) * up, down 14336 -> 4096 (K >= 12288:
    auto's GPC_ORDER config on Hopper) at M = 2048, bf16: the compiled module runs through cudagraph trees'
    warm-up and recording and replays, without cudagraph skips, and matches float64 and the eager module."""
    pytest.importorskip("triton")
    import torch._dynamo
    from torch._dynamo.utils import counters

    gen = torch.Generator(device="cuda")
    gen.manual_seed(8)
    mlp = _LlamaMLP(gen)
    x = torch.randn(2048, 4096, device="cuda", dtype=torch.bfloat16, generator=gen)
    torch._dynamo.reset()
    counters.clear()
    try:
        with torch.no_grad():
            with launch.trace() as eager_seen:
                eager = mlp(x)
            compiled = torch.compile(mlp, mode="reduce-overhead", fullgraph=True)
            outs = []
            with launch.trace() as compiled_seen:
                for _ in range(5):  # warm-up, recording, then replays
                    torch.compiler.cudagraph_mark_step_begin()
                    outs.append(compiled(x).clone())
            torch.cuda.synchronize()
        assert counters["inductor"]["cudagraph_skips"] == 0, dict(counters["inductor"])
        assert compiled_seen and set(compiled_seen) == set(eager_seen), (compiled_seen, eager_seen)
        w_gu, w_d = mlp.gate_up.weight.double(), mlp.down.weight.double()
        gate, up = (x.double() @ w_gu.t()).split(mlp.hidden, dim=-1)
        ref = (torch.nn.functional.silu(gate) * up) @ w_d.t()
        del gate, up, w_gu, w_d
        # bf16 GEMMs and a bf16 intermediate (rounded once more than the float64 chain): twice the GEMM tolerance.
        assert relative_error(eager, ref) <= 2 * TOLERANCE["bf16"]
        for i, y in enumerate(outs):
            assert relative_error(y, ref) <= 2 * TOLERANCE["bf16"], f"call {i}"
            assert relative_error(y, eager.double()) <= TOLERANCE["bf16"], f"call {i}"
        assert all(torch.equal(y, outs[-1]) for y in outs[2:]), "replays of the recorded graph differ"
    finally:
        torch._dynamo.reset()
