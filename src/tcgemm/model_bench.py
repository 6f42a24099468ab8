"""Model benchmark: a GPT-2-small block forward with torch.nn.Linear and with tcgemm.nn.Linear.

The block (d_model 768, 12 heads, MLP 4 x 768 = 3072) is GPT-2's::

    h = x + out_proj(attention(qkv(ln_1(x))))        qkv: 768 -> 2304, out_proj: 768 -> 768
    y = h + fc_proj(gelu_tanh(fc(ln_2(h))))          fc: 768 -> 3072, fc_proj: 3072 -> 768

on batch x seq tokens (default 8 x 1024) of random activations with random weights. Attention:
``"none"`` (default) skips it — out_proj reads the v third of the qkv output (a strided view, read
in place) — so the time is the four linear layers plus LayerNorm, GELU and the residual adds;
``"sdpa"`` runs causal torch scaled_dot_product_attention, the same in both models. The two models
differ only in their Linear class: the tcgemm one is built with tcgemm.nn.Linear and loads the torch
one's state dict.

Method: each model runs under inference_mode, timed with CUDA events around every forward after
warm-up (:func:`tcgemm.bench.time_runs`), median of many runs. Correctness: the relative Frobenius
error ``||y_tcgemm - y_torch|| / ||y_torch||`` of the block's update ``y - x`` (the residual stream,
identical in both, would hide differences), checked against the precision's tolerance
(:data:`tcgemm.check.TOLERANCE`); each model's error against a float32 torch run of the same
weights is recorded too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial

import torch
import torch.nn.functional as F

from .check import TOLERANCE

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
                 attention: str = "none") -> None:
        super().__init__()
        if attention not in ATTENTION:
            raise ValueError(f"attention={attention!r}; use one of {', '.join(ATTENTION)}")
        d = cfg.d_model
        self.cfg, self.attention = cfg, attention
        self.ln_1 = torch.nn.LayerNorm(d)
        self.qkv = linear(d, 3 * d)
        self.out_proj = linear(d, d)
        self.ln_2 = torch.nn.LayerNorm(d)
        self.fc = linear(d, cfg.d_ff)
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
        return h + self.fc_proj(F.gelu(self.fc(self.ln_2(h)), approximate="tanh"))


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
    tc_block = Block(cfg, partial(Linear, precision="tf32" if precision == "tf32" else None), attention)
    tc_block = tc_block.to(device, dtype)
    tc_block.load_state_dict(torch_block.state_dict())  # the same state dict as torch.nn.Linear's
    x = x32.to(dtype)
    rows: list[ModelRow] = []
    with torch.inference_mode(), bench.cublas_precision(precision):
        outputs = {}
        for impl, block in (("torch.nn.Linear", torch_block), ("tcgemm.nn.Linear", tc_block)):
            outputs[impl] = block(x) - x
            times = bench.time_runs(lambda _i, block=block: block(x), 1, budget_s, max_runs=500, min_runs=20)
            ms, spread = bench._summary(times)
            rows.append(ModelRow(
                precision=precision, impl=impl, ms=ms, tokens_per_s=cfg.tokens / (ms / 1e3),
                linear_tflops=cfg.tokens * cfg.linear_flops_per_token / (ms / 1e3) / 1e12,
                samples=len(times), spread_pct=spread, rel_error_vs_fp32=_relative_error(outputs[impl], ref)))
        base, ours = rows
        ours.rel_error_vs_torch = _relative_error(outputs[ours.impl], outputs[base.impl])
        ours.tolerance = TOLERANCE[precision]
        ours.passed = ours.rel_error_vs_torch <= ours.tolerance
        ours.speedup_vs_torch = base.ms / ours.ms
        ours.kernels = _kernels(tc_block, cfg.tokens)
    return rows


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
        lines.append(line)
    return lines
