"""Model benchmarks: every Linear of a decoder layer, and a GPT-2-small block, torch vs tcgemm.

Layer benchmark (:func:`bench_model`, ``tcgemm bench --model NAME``). For a model of
:mod:`tcgemm.models` (its decoder layer's Linear shapes) and each token count M, every layer is
timed twice in one process on the same weights and inputs: ``tcgemm.nn.Linear`` called as a module,
as a user calls it, and a ``torch.nn.Linear`` (cuBLAS) holding that module's weight and bias, called the
same way (the layer a model swaps out; until 2026-11-27 the torch side was ``F.linear``, which skips the
module call that the tcgemm side pays: ~1-3 µs of host time per call), both under ``torch.inference_mode``.

* Rotation past L2: :func:`rotation_count` copies of the layer (weight, bias, input) are made, enough
  that the bytes one pass over them touches (weights + inputs + outputs) exceed 3x the GPU's L2 (50 MB
  on an H100), capped at 12 GiB held per row; call i uses copy i mod count, as a model's layers follow
  one another, so every call reads its weight from HBM. Random data, never zeros.
* Eager time (host work included): CUDA events around a *block* of back-to-back calls over the
  rotating copies, microseconds = block time / calls, the block started from an idle GPU. When the
  host takes longer per call than the GPU, the GPU waits and the figure shows it.
* Graph time (GPU alone): one call per copy captured in a ``torch.cuda.CUDAGraph`` per side (after a
  warm-up on a side stream, :func:`tcgemm.bench.capture`), replayed; microseconds per call.
* Both timings alternate their blocks A/B/B/A (clock drift falls on both sides) and keep the median
  block; ``--budget`` seconds per side and timing mode per row.
* Ratio = torch time / tcgemm time: above 1 tcgemm is faster. Per M, the decoder layer's sum of the
  layers' times gives a ratio for the whole layer (attention, norms and activations not included).
* Check, once per row, outside the timing: tcgemm's output against torch's, the relative Frobenius
  error within :data:`tcgemm.check.TOLERANCE`; the kernel:config that ran (``tcgemm.launch.trace``,
  which must be a tcgemm kernel, else the row is an error) and what ``tcgemm.explain`` says auto picks.
* Bandwidth: the device's copy bandwidth, measured once (a 1 GiB device-to-device copy, bytes read +
  written / time, median of several), and per row the achieved TB/s of each side, (weight + input +
  output bytes) / time (graph time when captured, else eager), and its fraction of the copy bandwidth:
  decode rows (M <= 16) are bound by reading the weight.
* Training step: the model's MLP (fc1 -> gelu(tanh) -> fc2, or gate_up -> silu(gate) * up -> down)
  forward and backward (loss = mean of the squared output in float32; weights and input require grad,
  gradients reset each step) with torch.nn.Linear and with tcgemm.nn.Linear sharing its parameters, at
  512 and 4096 tokens: CUDA events around blocks of steps, interleaved; no weight rotation (the step's
  activations and gradients exceed L2 anyway).

GPT-2 block (:func:`bench_gpt2`; the ``gpt2`` model's end-to-end row). The block (d_model 768, 12
heads, MLP 4 x 768 = 3072) is GPT-2's::

    h = x + out_proj(attention(qkv(ln_1(x))))        qkv: 768 -> 2304, out_proj: 768 -> 768
    y = h + fc_proj(gelu_tanh(fc(ln_2(h))))          fc: 768 -> 3072, fc_proj: 3072 -> 768

on batch x seq tokens (default 8 x 1024) of random activations with random weights. Attention:
``"none"`` (default) skips it — out_proj reads the v third of the qkv output (a strided view, read
in place) — so the time is the four linear layers plus LayerNorm, GELU and the residual adds;
``"sdpa"`` runs causal torch scaled_dot_product_attention, the same in both models. The two models
differ only in their Linear class: the tcgemm one is built with tcgemm.nn.Linear and loads the torch
one's state dict. Each model runs under inference_mode, timed with CUDA events around every forward
after warm-up (:func:`tcgemm.bench.time_runs`), median of many runs. Correctness: the relative
Frobenius error ``||y_tcgemm - y_torch|| / ||y_torch||`` of the block's update ``y - x`` (the residual
stream, identical in both, would hide differences), checked against the precision's tolerance
(:data:`tcgemm.check.TOLERANCE`); each model's error against a float32 torch run of the same weights
is recorded too.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial

import torch
import torch.nn.functional as F

from .check import TOLERANCE
from .models import DEFAULT_TOKENS, LinearShape, ModelShapes

PRECISIONS = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "tf32": torch.float32}
ATTENTION = ("none", "sdpa")


@dataclass(frozen=True)
class GPT2Config:
    d_model: int = 768
    n_head: int = 12
    d_ff: int = 3072
    batch: int = 8
    seq: int = 1024

    @property
    def tokens(self) -> int:
        return self.batch * self.seq

    @property
    def linear_flops_per_token(self) -> int:
        """2 x the multiply-adds of qkv, out_proj, fc and fc_proj for one token."""
        d, f = self.d_model, self.d_ff
        return 2 * (d * 3 * d + d * d + d * f + f * d)


class Block(torch.nn.Module):
    """GPT-2's transformer block (pre-LayerNorm) with a chosen Linear class."""

    def __init__(self, cfg: GPT2Config, linear: Callable[..., torch.nn.Module] = torch.nn.Linear,
                 attention: str = "none", fused: bool = False) -> None:
        super().__init__()
        if attention not in ATTENTION:
            raise ValueError(f"attention={attention!r}; use one of {', '.join(ATTENTION)}")
        d = cfg.d_model
        self.cfg, self.attention, self.fused = cfg, attention, fused
        self.ln_1 = torch.nn.LayerNorm(d)
        self.qkv = linear(d, 3 * d)
        self.out_proj = linear(d, d)
        self.ln_2 = torch.nn.LayerNorm(d)
        # fused: tcgemm.nn.Linear(activation="gelu_tanh"), the GELU in fc's epilogue (tcgemm.epilogue)
        self.fc = linear(d, cfg.d_ff, activation="gelu_tanh") if fused else linear(d, cfg.d_ff)
        self.fc_proj = linear(cfg.d_ff, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, d = x.shape
        q, k, v = self.qkv(self.ln_1(x)).split(d, dim=-1)
        if self.attention == "sdpa":
            heads = self.cfg.n_head

            def split_heads(t: torch.Tensor) -> torch.Tensor:
                return t.reshape(batch, seq, heads, d // heads).transpose(1, 2)

            att = F.scaled_dot_product_attention(split_heads(q), split_heads(k), split_heads(v), is_causal=True)
            att = att.transpose(1, 2).reshape(batch, seq, d)
        else:
            att = v  # attention skipped
        h = x + self.out_proj(att)
        f = self.fc(self.ln_2(h))
        return h + self.fc_proj(f if self.fused else F.gelu(f, approximate="tanh"))


@dataclass
class ModelRow:
    precision: str
    impl: str
    ms: float
    tokens_per_s: float
    linear_tflops: float  # linear-layer FLOPs / block time (the block time includes the other ops)
    samples: int
    spread_pct: float  # (p90 - p10) / median
    rel_error_vs_fp32: float
    rel_error_vs_torch: float | None = None
    tolerance: float | None = None
    passed: bool | None = None
    speedup_vs_torch: float | None = None
    kernels: dict[str, str] = field(default_factory=dict)
    # The block captured in a CUDA graph and replayed against torch's, in alternating blocks (the GPU alone; the
    # eager figures above include the host's Python): ms per block, and torch's over this one.
    graph_ms: float | None = None
    graph_speedup_vs_torch: float | None = None


def require_gpu() -> None:
    if not torch.cuda.is_available():
        raise RuntimeError(
            "the GPT-2 model benchmark needs a CUDA GPU and none is visible "
            "(tcgemm runs on CUDA tensors only; run it on a GPU machine)"
        )


def _relative_error(y: torch.Tensor, ref: torch.Tensor) -> float:
    y64, ref64 = y.double(), ref.double()
    denom = torch.linalg.vector_norm(ref64).item()
    diff = torch.linalg.vector_norm(y64 - ref64).item()
    return diff / denom if denom > 0 else diff


def _kernels(block: torch.nn.Module, tokens: int) -> dict[str, str]:
    """The tcgemm kernel (name:config) that auto chooses for each linear layer at this size."""
    from .api import device_info, resolve
    from .problem import describe

    cc, sms, _arch = device_info(torch.cuda.current_device())
    found = {}
    for name, layer in block.named_children():
        if not isinstance(layer, torch.nn.Linear):
            continue
        w = layer.weight
        x = torch.empty(tokens, w.shape[1], dtype=w.dtype, device=w.device)
        args = dict(beta=1.0, precision=getattr(layer, "precision", None))
        problem, t = describe(x, w.t(), layer.bias, **args)
        _a, _b, _p, _t, spec, cfg = resolve(x, w.t(), layer.bias, problem, t, args, cc, sms)
        found[name] = f"{spec.name}:{cfg.name}"
    return found


def bench_gpt2(precisions: list[str] | None = None, cfg: GPT2Config | None = None, attention: str = "none",
               budget_s: float = 2.0, seed: int = 0, on_row: Callable[[ModelRow], None] | None = None,
               device: str = "cuda") -> list[ModelRow]:
    """Time one GPT-2-small block with torch.nn.Linear and with tcgemm.nn.Linear in each precision.

    device: "cuda" (the current GPU); the CPU tests pass "cpu" with an emulated GPU and timer."""
    from .bench import cublas_precision

    if device == "cuda":
        require_gpu()
    cfg = cfg or GPT2Config()
    precisions = precisions or ["fp16", "bf16"]
    for p in precisions:
        if p not in PRECISIONS:
            raise ValueError(f"precision {p!r} is not benchmarked for models; use {', '.join(PRECISIONS)}")
    torch.manual_seed(seed)
    ref_block = Block(cfg, attention=attention).to(device)
    x32 = torch.randn(cfg.batch, cfg.seq, cfg.d_model, device=device)
    with torch.inference_mode(), cublas_precision("fp32"):
        ref = (ref_block(x32) - x32).double()
    rows: list[ModelRow] = []
    for precision in precisions:
        for row in _bench_precision(precision, cfg, attention, ref_block, x32, ref, budget_s, device):
            rows.append(row)
            if on_row:
                on_row(row)
        if device == "cuda":
            torch.cuda.empty_cache()
    return rows


def _bench_precision(precision: str, cfg: GPT2Config, attention: str, ref_block: Block, x32: torch.Tensor,
                     ref: torch.Tensor, budget_s: float, device: str) -> list[ModelRow]:
    """The torch row and the tcgemm row of one precision (the tcgemm block loads the torch block's state dict)."""
    from . import bench
    from .nn import Linear

    dtype = PRECISIONS[precision]
    torch_block = Block(cfg, attention=attention).to(device, dtype)
    torch_block.load_state_dict(ref_block.state_dict())
    blocks = {"torch.nn.Linear": torch_block}
    tc_linear = partial(Linear, precision="tf32" if precision == "tf32" else None)
    # tcgemm.nn.Linear as a drop-in, and with fc's GELU in its epilogue (16-bit only: the fused epilogue's types)
    for impl, fused in (("tcgemm.nn.Linear", False), ("tcgemm fused GELU", True)):
        if fused and dtype not in (torch.float16, torch.bfloat16):
            continue
        block = Block(cfg, tc_linear, attention, fused=fused).to(device, dtype)
        block.load_state_dict(torch_block.state_dict())  # the same state dict as torch.nn.Linear's
        blocks[impl] = block
    x = x32.to(dtype)
    rows: list[ModelRow] = []
    with torch.inference_mode(), bench.cublas_precision(precision):
        outputs = {impl: block(x) - x for impl, block in blocks.items()}
        times = _interleaved_ms([lambda block=block: block(x) for block in blocks.values()], budget_s)
        for impl, ts in zip(blocks, times, strict=True):
            ms, spread = bench._summary(ts)
            rows.append(ModelRow(
                precision=precision, impl=impl, ms=ms, tokens_per_s=cfg.tokens / (ms / 1e3),
                linear_tflops=cfg.tokens * cfg.linear_flops_per_token / (ms / 1e3) / 1e12,
                samples=len(ts), spread_pct=spread, rel_error_vs_fp32=_relative_error(outputs[impl], ref)))
        base = rows[0]
        for ours in rows[1:]:
            ours.rel_error_vs_torch = _relative_error(outputs[ours.impl], outputs[base.impl])
            ours.tolerance = TOLERANCE[precision]
            ours.passed = ours.rel_error_vs_torch <= ours.tolerance
            ours.speedup_vs_torch = base.ms / ours.ms
            ours.kernels = _kernels(blocks[ours.impl], cfg.tokens)
        if device == "cuda":  # each tcgemm block's graph against torch's, alternating
            graphs = {impl: bench.capture(lambda _i, block=block: block(x), 1) for impl, block in blocks.items()}
            for ours in rows[1:]:
                if graphs[ours.impl] is not None and graphs[base.impl] is not None:
                    us, us_torch = bench.time_graphs(graphs[ours.impl], graphs[base.impl], 1, rounds=10, replays=20)
                    ours.graph_ms, base.graph_ms = us / 1e3, us_torch / 1e3
                    ours.graph_speedup_vs_torch = us_torch / us
    return rows


def _interleaved_ms(fns: list[Callable[[], object]], budget_s: float, rounds: int = 8) -> list[list[float]]:
    """Milliseconds of each call of each of ``fns`` (tcgemm.bench.time_runs, each call between its own CUDA
    events): ``rounds`` rounds of every function, the order rotating from round to round."""
    from . import bench

    times: list[list[float]] = [[] for _ in fns]
    for r in range(rounds):
        for j in range(len(fns)):
            i = (j + r) % len(fns)
            times[i] += bench.time_runs(lambda _i, fn=fns[i]: fn(), 1, budget_s / rounds, max_runs=100, min_runs=5)
    return times


def record(rows: list[ModelRow], cfg: GPT2Config, attention: str) -> dict[str, object]:
    """The JSON record: environment, configuration, one row per (precision, implementation)."""
    from .bench import environment

    return {
        "environment": environment(),
        "benchmark": "gpt2-small block forward: torch.nn.Linear vs tcgemm.nn.Linear",
        "config": {**asdict(cfg), "tokens": cfg.tokens, "attention": attention,
                   "linear_flops_per_token": cfg.linear_flops_per_token,
                   "timing": "CUDA events per forward, median after warm-up, inference_mode",
                   "error": "relative Frobenius error of the block update (output - input)"},
        "rows": [asdict(r) for r in rows],
    }


def summary_lines(rows: list[ModelRow]) -> list[str]:
    """One line per row, for a terminal."""
    lines = []
    for r in rows:
        line = (f"{r.precision:5} {r.impl:17} {r.ms:8.3f} ms  {r.tokens_per_s / 1e3:9.1f} k tokens/s  "
                f"err vs fp32 {r.rel_error_vs_fp32:.1e}")
        if r.speedup_vs_torch is not None:
            verdict = "PASS" if r.passed else "FAIL"
            line += (f"  vs torch {r.rel_error_vs_torch:.1e} (tol {r.tolerance:.0e}) {verdict}"
                     f"  ratio {r.speedup_vs_torch:.2f}x")
            if r.graph_speedup_vs_torch is not None:
                line += f"  CUDA graph {r.graph_ms:.3f} ms, {r.graph_speedup_vs_torch:.2f}x"
        lines.append(line)
    return lines


# ------------------------------------------------------------------------------------ the layer benchmark

TRAIN_TOKENS: tuple[int, ...] = (512, 4096)
L2_FACTOR = 3  # one pass over the rotating copies touches more than this many L2 sizes
ROW_MEMORY_CAP = 12 * 2**30  # bytes the copies of one row may hold
MAX_SETS = 512
ROUNDS = 6  # blocks per side and timing mode, in A/B/B/A order
MAX_CALLS_PER_BLOCK = 20000
MAX_REPLAYS = 1000
COPY_BYTES = 2**30
COPY_REPEATS = 9
LAYER_PRECISIONS = ("bf16", "fp16", "tf32", "fp32")

Side = Callable[[int], object]  # one call on rotating copy i


def dump_rows(path: str | None, environment: dict[str, object], rows: Sequence[object]) -> None:
    """Write a benchmark's rows (dataclasses) and its environment as JSON to ``path`` (nothing when None): called
    after every shape, so a run cut short keeps what it measured."""
    if path:
        with open(path, "w") as f:
            json.dump({"environment": environment, "rows": [asdict(r) for r in rows]}, f, indent=1)


def rotation_count(touched_bytes: int, held_bytes: int, l2_bytes: int, cap_bytes: int = ROW_MEMORY_CAP,
                   free_bytes: int | None = None, factor: int = L2_FACTOR, max_sets: int = MAX_SETS) -> int:
    """How many copies of a layer to rotate through: enough that one pass touches more than ``factor`` x
    L2 (at least 2), no more than ``cap_bytes`` (and half of ``free_bytes``) held, at least 1.

    touched_bytes: what one call reads and writes (weight, bias, input, output); held_bytes: what one
    copy keeps allocated while the row runs (its weight, bias and input, and its captured outputs)."""
    if touched_bytes <= 0 or held_bytes <= 0:
        raise ValueError(f"touched_bytes={touched_bytes}, held_bytes={held_bytes}: both must be positive")
    want = max(2, factor * l2_bytes // touched_bytes + 1)  # strictly more than factor x L2
    limit = cap_bytes if free_bytes is None else min(cap_bytes, free_bytes // 2)
    return int(max(1, min(want, limit // held_bytes, max_sets)))


class CudaTimer:
    """The GPU measurements of :func:`bench_model`; the CPU tests pass a stand-in with these methods."""

    def l2_bytes(self) -> int:
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return int(getattr(props, "L2_cache_size", 50 * 2**20))

    def free_bytes(self) -> int:
        return int(torch.cuda.mem_get_info()[0])

    def empty_cache(self) -> None:
        torch.cuda.empty_cache()

    @staticmethod
    def _block_us(fn: Side, first: int, calls: int, sets: int) -> float:
        """Microseconds per call of ``calls`` back-to-back calls between two CUDA events, from an idle GPU."""
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(calls):
            fn((first + i) % sets)
        end.record()
        end.synchronize()
        return 1e3 * start.elapsed_time(end) / calls

    def eager(self, sides: tuple[Side, Side], sets: int, budget_s: float,
              rounds: int = ROUNDS) -> tuple[float, float, int, int]:
        """(µs per call of side 0, of side 1, calls per block of each): medians of ``rounds`` blocks per
        side in A/B/B/A order, each block about ``budget_s / rounds`` seconds and a whole number of
        passes over the ``sets`` copies."""
        for fn in sides:  # warm-up: first calls plan and load; one pass over the copies
            for i in range(sets):
                fn(i)
        estimates = [max(self._block_us(fn, 0, sets, sets), 1e-3) for fn in sides]
        calls = [_calls_per_block(budget_s / rounds, est, sets) for est in estimates]
        times: tuple[list[float], list[float]] = ([], [])
        for r in range(rounds):
            for side in (0, 1) if r % 2 == 0 else (1, 0):
                times[side].append(self._block_us(sides[side], r, calls[side], sets))
        return statistics.median(times[0]), statistics.median(times[1]), calls[0], calls[1]

    def graphs(self, sides: tuple[Side, Side], sets: int, budget_s: float, estimate_us: float,
               rounds: int = ROUNDS) -> tuple[float | None, float | None]:
        """µs per call of each side replayed from a CUDA graph of one call per copy (None: not capturable),
        the graphs replayed in alternating blocks (:func:`tcgemm.bench.time_graphs`)."""
        from .bench import capture, time_graphs

        graphs = [capture(fn, sets) for fn in sides]
        replays = int(min(MAX_REPLAYS, max(1, budget_s / rounds * 1e6 / (max(estimate_us, 1e-3) * sets))))
        if graphs[0] is None and graphs[1] is None:
            return None, None
        if graphs[0] is None or graphs[1] is None:
            only = 0 if graphs[0] is not None else 1
            us, _ = time_graphs(graphs[only], None, sets, rounds, replays)
            return (us, None) if only == 0 else (None, us)
        return time_graphs(graphs[0], graphs[1], sets, rounds, replays)

    def copy_bandwidth(self, nbytes: int = COPY_BYTES, repeats: int = COPY_REPEATS) -> float:
        """Bytes per second of a device-to-device copy of ``nbytes``: (read + written) / time, median."""
        src = torch.randn(nbytes // 4, device="cuda")
        dst = torch.empty_like(src)
        dst.copy_(src)
        times = []
        for _ in range(repeats):
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            dst.copy_(src)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        del src, dst
        torch.cuda.empty_cache()
        return 2 * (nbytes // 4) * 4 / statistics.median(times)


def _calls_per_block(block_s: float, estimate_us: float, sets: int) -> int:
    """Calls filling about ``block_s`` seconds, a whole number of passes over ``sets`` copies."""
    calls = max(sets, min(MAX_CALLS_PER_BLOCK, int(block_s * 1e6 / estimate_us)))
    return -(-calls // sets) * sets


@dataclass
class LayerRow:
    """One Linear of one model at M tokens: torch.nn.Linear vs tcgemm.nn.Linear."""

    model: str
    layer: str
    m: int
    k: int
    n: int
    bias: bool
    precision: str
    sets: int  # copies rotated through
    rotation_bytes: int  # bytes one pass over the copies touches
    eager_us_torch: float
    eager_us_tcgemm: float
    eager_ratio: float  # torch / tcgemm: > 1, tcgemm is faster
    graph_us_torch: float | None
    graph_us_tcgemm: float | None
    graph_ratio: float | None
    calls_per_block_torch: int
    calls_per_block_tcgemm: int
    bytes_per_call: int  # weight + bias + input + output
    tbps_torch: float
    tbps_tcgemm: float
    copy_fraction_torch: float | None  # achieved / device copy bandwidth
    copy_fraction_tcgemm: float | None
    tbps_basis: str  # "graph" or "eager": the time the TB/s figures divide by
    kernel: str  # kernel:config that ran (launch.trace); several joined with "+"
    explain: str  # kernel:config tcgemm.explain names for the call
    explain_how: str  # "estimate", "tuned" or "forced"
    rel_error: float
    tolerance: float
    passed: bool


@dataclass
class LayerSum:
    """A decoder layer's Linear layers at M tokens, summed."""

    model: str
    m: int
    eager_us_torch: float
    eager_us_tcgemm: float
    eager_ratio: float
    graph_us_torch: float | None
    graph_us_tcgemm: float | None
    graph_ratio: float | None


@dataclass
class TrainRow:
    """The model's MLP forward + backward at ``tokens`` tokens: torch.nn.Linear vs tcgemm.nn.Linear."""

    model: str
    tokens: int
    precision: str
    layers: list[str]
    activation: str
    ms_torch: float
    ms_tcgemm: float
    ratio: float
    steps_per_block_torch: int
    steps_per_block_tcgemm: int
    rel_error_dx: float  # the input's gradient, tcgemm vs torch
    rel_error_dw: float  # the first layer's weight gradient
    tolerance: float
    passed: bool
    kernels: list[str]  # kernel:config of every tcgemm launch of one step, forward and backward


@dataclass
class ModelResult:
    model: dict[str, object]
    rows: list[LayerRow] = field(default_factory=list)
    sums: list[LayerSum] = field(default_factory=list)
    train: list[TrainRow] = field(default_factory=list)
    end_to_end: list[ModelRow] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"model": self.model, "rows": [asdict(r) for r in self.rows], "sums": [asdict(s) for s in self.sums],
                "train": [asdict(t) for t in self.train], "end_to_end": [asdict(e) for e in self.end_to_end]}


def check_layer_precision(precision: str) -> torch.dtype:
    if precision not in LAYER_PRECISIONS:
        raise ValueError(f"--precision {precision!r} is not benchmarked for models; use one of "
                         f"{', '.join(LAYER_PRECISIONS)} (default bf16)")
    return PRECISIONS[precision]


def check_tokens(tokens: Sequence[int], what: str = "--tokens") -> list[int]:
    out = [int(t) for t in tokens]
    if not out or min(out) < 1:
        raise ValueError(f"{what} {list(tokens)}: give one or more positive token counts, e.g. 1,16,512")
    return out


def _rotating_layers(lay: LinearShape, m: int, count: int, dtype: torch.dtype, precision: str,
                     device: str, gen: torch.Generator) -> tuple[list[torch.nn.Module], list[torch.Tensor]]:
    """``count`` tcgemm.nn.Linear layers of random weights (normal, std 1/sqrt(K)) and random inputs."""
    from .nn import Linear

    prec_arg = "tf32" if precision == "tf32" else None
    layers, inputs = [], []
    with torch.no_grad():
        for _ in range(count):
            layer = Linear(lay.in_features, lay.out_features, bias=lay.bias, device=device, dtype=dtype,
                           precision=prec_arg)
            layer.weight.copy_(torch.randn(layer.weight.shape, generator=gen, device=device, dtype=dtype)
                               * lay.in_features ** -0.5)
            if layer.bias is not None:
                layer.bias.copy_(torch.randn(layer.bias.shape, generator=gen, device=device, dtype=dtype))
            layers.append(layer.requires_grad_(False))
            inputs.append(torch.randn(m, lay.in_features, generator=gen, device=device, dtype=dtype))
    return layers, inputs


def _torch_twin(layer: torch.nn.Module) -> torch.nn.Module:
    """A torch.nn.Linear holding ``layer``'s weight and bias (the same tensors, no copy)."""
    twin = torch.nn.Linear(layer.in_features, layer.out_features, bias=layer.bias is not None, device="meta",
                           dtype=layer.weight.dtype)
    twin.weight = layer.weight
    twin.bias = layer.bias
    return twin.requires_grad_(False)


def traced_kernels(fn: Callable[[], object], what: str) -> tuple[object, list[str]]:
    """(fn's result, the kernel:config of each tcgemm launch inside it); RuntimeError when none of
    tcgemm's kernels ran (a figure labelled tcgemm must be tcgemm's)."""
    from . import launch, registry

    with launch.trace() as seen:
        result = fn()
    if not seen:
        raise RuntimeError(f"{what}: no tcgemm kernel launched (tcgemm.launch.trace saw nothing), so its "
                           "times would not be tcgemm's; check that tcgemm.nn.Linear runs on this device")
    for label in seen:
        registry.get(label.split(":")[0])  # KeyError for anything but a registered tcgemm kernel
    return result, list(dict.fromkeys(seen))


def _verify(layer: torch.nn.Module, x: torch.Tensor, precision: str, what: str) -> tuple[str, object, float]:
    """(kernels that ran, tcgemm.explain's Choice, relative error against F.linear) of one call."""
    from .api import explain

    y, seen = traced_kernels(lambda: layer(x), what)
    ref = F.linear(x, layer.weight, layer.bias)
    prec_arg = "tf32" if precision == "tf32" else None
    if layer.bias is not None:
        choice = explain(x, layer.weight.t(), layer.bias, beta=1.0, precision=prec_arg)
    else:
        choice = explain(x, layer.weight.t(), precision=prec_arg)
    return "+".join(seen), choice, _relative_error(y, ref)


def bench_layer(model: str, lay: LinearShape, m: int, precision: str, budget_s: float, timer: CudaTimer,
                copy_bps: float | None, device: str = "cuda", seed: int = 0) -> LayerRow:
    """Time one Linear at M tokens: torch.nn.Linear vs tcgemm.nn.Linear (module docstring)."""
    from .bench import cublas_precision

    dtype = check_layer_precision(precision)
    size = torch.tensor([], dtype=dtype).element_size()
    k, n = lay.in_features, lay.out_features
    weight_bytes = (k * n + (n if lay.bias else 0)) * size
    touched = weight_bytes + (m * k + m * n) * size
    held = weight_bytes + (m * k + 2 * m * n) * size  # + one captured output per side
    count = rotation_count(touched, held, timer.l2_bytes(), free_bytes=timer.free_bytes())
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    layers, inputs = _rotating_layers(lay, m, count, dtype, precision, device, gen)

    twins = [_torch_twin(layer) for layer in layers]

    def run_torch(i: int) -> torch.Tensor:
        return twins[i](inputs[i])

    def run_tcgemm(i: int) -> torch.Tensor:
        return layers[i](inputs[i])

    with torch.inference_mode(), cublas_precision(precision):
        kernel, choice, err = _verify(layers[0], inputs[0], precision, f"{model} {lay.name} at M={m}")
        e_torch, e_tc, calls_torch, calls_tc = timer.eager((run_torch, run_tcgemm), count, budget_s)
        g_torch, g_tc = timer.graphs((run_torch, run_tcgemm), count, budget_s, min(e_torch, e_tc))
    graphed = g_torch is not None and g_tc is not None
    basis_torch, basis_tc = (g_torch, g_tc) if graphed else (e_torch, e_tc)
    tbps_torch, tbps_tc = touched / basis_torch / 1e6, touched / basis_tc / 1e6  # bytes/µs / 1e6 = TB/s
    return LayerRow(
        model=model, layer=lay.name, m=m, k=k, n=n, bias=lay.bias, precision=precision, sets=count,
        rotation_bytes=count * touched, eager_us_torch=e_torch, eager_us_tcgemm=e_tc, eager_ratio=e_torch / e_tc,
        graph_us_torch=g_torch, graph_us_tcgemm=g_tc, graph_ratio=g_torch / g_tc if graphed else None,
        calls_per_block_torch=calls_torch, calls_per_block_tcgemm=calls_tc, bytes_per_call=touched,
        tbps_torch=tbps_torch, tbps_tcgemm=tbps_tc,
        copy_fraction_torch=tbps_torch * 1e12 / copy_bps if copy_bps else None,
        copy_fraction_tcgemm=tbps_tc * 1e12 / copy_bps if copy_bps else None,
        tbps_basis="graph" if graphed else "eager", kernel=kernel, explain=choice.label, explain_how=choice.how,
        rel_error=err, tolerance=TOLERANCE[precision], passed=err <= TOLERANCE[precision])


def layer_sums(rows: Sequence[LayerRow]) -> list[LayerSum]:
    """Per (model, M): the sum of the layers' times on each side, and the ratio torch / tcgemm."""
    groups: dict[tuple[str, int], list[LayerRow]] = {}
    for r in rows:
        groups.setdefault((r.model, r.m), []).append(r)
    sums = []
    for (model, m), group in groups.items():
        e_torch = sum(r.eager_us_torch for r in group)
        e_tc = sum(r.eager_us_tcgemm for r in group)
        graphed = all(r.graph_us_torch is not None and r.graph_us_tcgemm is not None for r in group)
        g_torch = sum(r.graph_us_torch or 0.0 for r in group) if graphed else None
        g_tc = sum(r.graph_us_tcgemm or 0.0 for r in group) if graphed else None
        sums.append(LayerSum(model, m, e_torch, e_tc, e_torch / e_tc, g_torch, g_tc,
                             g_torch / g_tc if g_torch is not None and g_tc else None))
    return sums


class MLP(torch.nn.Module):
    """A model's MLP: fc1 -> gelu(tanh) -> fc2, or gate_up -> silu(gate) * up -> down (SwiGLU)."""

    def __init__(self, first: torch.nn.Linear, second: torch.nn.Linear, activation: str) -> None:
        super().__init__()
        if activation not in ("gelu_tanh", "swiglu"):
            raise ValueError(f"activation={activation!r}; use gelu_tanh or swiglu")
        self.first, self.second, self.activation = first, second, activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.first(x)
        if self.activation == "swiglu":
            gate, up = h.chunk(2, dim=-1)
            h = F.silu(gate) * up
        else:
            h = F.gelu(h, approximate="tanh")
        return self.second(h)


def _train_step(mlp: MLP, x: torch.Tensor) -> None:
    for p in (*mlp.parameters(), x):
        p.grad = None
    mlp(x).float().pow(2).mean().backward()


def bench_train(shapes: ModelShapes, tokens: int, precision: str, budget_s: float, timer: CudaTimer,
                device: str = "cuda", seed: int = 0) -> TrainRow:
    """Time the MLP's forward + backward with torch.nn.Linear and with tcgemm.nn.Linear (same parameters)."""
    from .bench import cublas_precision
    from .nn import Linear

    dtype = check_layer_precision(precision)
    torch.manual_seed(seed)
    first, second = (shapes.layer(name) for name in shapes.mlp)
    torch_layers = [torch.nn.Linear(s.in_features, s.out_features, bias=s.bias, device=device, dtype=dtype)
                    for s in (first, second)]
    prec_arg = "tf32" if precision == "tf32" else None
    torch_mlp = MLP(*torch_layers, shapes.activation)
    tc_mlp = MLP(*(Linear.from_torch(t, precision=prec_arg) for t in torch_layers), shapes.activation)
    x = torch.randn(tokens, first.in_features, device=device, dtype=dtype, requires_grad=True)
    with cublas_precision(precision):
        _train_step(torch_mlp, x)
        ref_dx, ref_dw = x.grad.clone(), torch_layers[0].weight.grad.clone()
        _, seen = traced_kernels(lambda: _train_step(tc_mlp, x), f"{shapes.name} training step at {tokens} tokens")
        err_dx, err_dw = _relative_error(x.grad, ref_dx), _relative_error(torch_layers[0].weight.grad, ref_dw)
        ms_torch, ms_tc, steps_torch, steps_tc = timer.eager(
            (lambda _i: _train_step(torch_mlp, x), lambda _i: _train_step(tc_mlp, x)), 1, budget_s)
    tol = TRAIN_TOLERANCE_FACTOR * TOLERANCE[precision]
    return TrainRow(shapes.name, tokens, precision, list(shapes.mlp), shapes.activation, ms_torch / 1e3, ms_tc / 1e3,
                    ms_torch / ms_tc, steps_torch, steps_tc, err_dx, err_dw, tol, max(err_dx, err_dw) <= tol, seen)


# The gradients pass through two or three GEMMs and the activation on each side, each rounding to the
# precision: twice the one-GEMM tolerance.
TRAIN_TOLERANCE_FACTOR = 2.0


def bench_model(name: str, precision: str = "bf16", tokens: Sequence[int] = DEFAULT_TOKENS, budget_s: float = 0.15,
                train_tokens: Sequence[int] = TRAIN_TOKENS, end_to_end: GPT2Config | None = None,
                attention: str = "none", seed: int = 0, on_step: Callable[[str], None] | None = None,
                timer: CudaTimer | None = None, copy_bps: float | None = None, device: str = "cuda") -> ModelResult:
    """Every Linear of ``name``'s decoder layer at each token count, the layer sums, the MLP training
    step at ``train_tokens`` (empty: none) and, for gpt2 with ``end_to_end``, the GPT-2 block's tokens/s
    (:func:`bench_gpt2`). ``on_step(description)`` is called after each row; ``copy_bps``: the device's
    copy bandwidth in bytes/s (fractions of it are reported; None: not reported). The module docstring
    describes the method."""
    from .models import get

    if device == "cuda":
        require_gpu()
    shapes = get(name)
    check_layer_precision(precision)
    tokens = check_tokens(tokens)
    train_tokens = check_tokens(train_tokens, "--train-tokens") if train_tokens else []
    if budget_s <= 0:
        raise ValueError(f"--budget {budget_s}: give a positive number of seconds per side and timing mode")
    timer = timer or CudaTimer()
    result = ModelResult(model=asdict(shapes))
    for m in tokens:
        for lay in shapes.layers:
            result.rows.append(bench_layer(name, lay, m, precision, budget_s, timer, copy_bps, device, seed))
            timer.empty_cache()
            if on_step:
                on_step(f"{name} {lay.name} M={m}")
    result.sums = layer_sums(result.rows)
    for t in train_tokens:
        result.train.append(bench_train(shapes, t, precision, budget_s, timer, device, seed))
        timer.empty_cache()
        if on_step:
            on_step(f"{name} training step {t} tokens")
    if name == "gpt2" and end_to_end is not None:
        result.end_to_end = bench_gpt2([precision], end_to_end, attention, max(0.5, 4 * budget_s), seed,
                                       device=device)
        timer.empty_cache()
        if on_step:
            on_step(f"{name} block end to end")
    return result


def steps(names: Sequence[str], tokens: Sequence[int], train_tokens: Sequence[int], end_to_end: bool) -> int:
    """How many on_step calls :func:`bench_model` makes over ``names`` (for a progress bar)."""
    from .models import get

    count = 0
    for name in names:
        count += len(tokens) * len(get(name).layers) + len(train_tokens)
        count += 1 if name == "gpt2" and end_to_end else 0
    return count


def model_record(results: Sequence[ModelResult], config: dict[str, object],
                 copy_bps: float | None) -> dict[str, object]:
    """The JSON record of a layer benchmark: environment, configuration, copy bandwidth, every model's
    rows, layer sums, training steps and end-to-end rows, and all layer rows in one list."""
    from .bench import environment

    return {
        "environment": environment(),
        "benchmark": "decoder-layer Linears: torch.nn.Linear vs tcgemm.nn.Linear",
        "config": {**config,
                   "timing": ("eager: CUDA events around blocks of back-to-back module calls over rotating "
                              "copies, µs per call; graph: CUDA graphs of one call per copy, replayed; both "
                              "in A/B/B/A blocks, medians; inference_mode"),
                   "rotation": f"copies of weight+input touching > {L2_FACTOR}x L2 per pass (<= "
                               f"{ROW_MEMORY_CAP // 2**30} GiB per row)",
                   "ratio": "torch time / tcgemm time (> 1: tcgemm faster)",
                   "error": "relative Frobenius error of tcgemm's output against torch's"},
        "copy_bandwidth_tbps": copy_bps / 1e12 if copy_bps else None,
        "models": [r.as_dict() for r in results],
        "rows": [asdict(row) for r in results for row in r.rows],
    }
