"""Autotuning: time every tile config of the kernel ``auto`` picks, keep the fastest on disk per GPU.

``kernel="auto"`` picks a tile config by an estimate (:func:`tcgemm.dispatch.pick_config`). ``tcgemm tune``
(:func:`tune`) measures instead: for each shape it times every config of the kernel auto would run, on the
GPU, and stores the winner in the per-GPU file that :mod:`tcgemm.tuned` reads for ``auto`` (the cache, its
key and :func:`lookup` live there, below dispatch; this module sits above the API and is never imported by
the core).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from . import fastpath, registry
from .registry import KernelSpec, TileConfig
from .tuned import (
    FORMAT,
    bucket,
    cache_path,
    cache_root,
    current_key,
    enabled,
    forget,
    kernel_digest,
    lookup,
    read_cache,
    shape_key,
    write_cache,
)

__all__ = ["FORMAT", "bucket", "cache_path", "cache_root", "current_key", "enabled", "kernel_digest", "lookup",
           "plan", "read_cache", "reload", "save", "shape_key", "tune", "tune_shape", "write_cache"]


def reload() -> None:
    """Forget the files read (the next lookup reads them again) and the prepared launches made with them."""
    forget()
    fastpath.clear()


# ---------------------------------------------------------------------------------------------- tuning


# A measured config replaces the heuristic's pick only when it is at least this much faster: the model benchmark's
# layers vary by 2-5% between processes on the H100 (torch's too), and picks inside that spread moved layers both
# ways (2026-11-27-h100-models-tuned-3d2b970-p*.json: Qwen2.5's o at 2048 tokens 1.16x -> 1.01x of torch on a config
# tune had timed 2.0% ahead, its qkv at 128 0.92x -> 1.00x on one timed 9.3% ahead).
MIN_GAIN = 0.03

# The token counts `tcgemm tune --model` tunes unless --tokens says otherwise. In the model benchmark with a tune
# cache of four models against the empty cache, CUDA graphs (2026-11-27-h100-models-tuned-3d2b970-p*.json, and
# ...-tuned-margin-34ba827-p1.json with MIN_GAIN): at 1-512 tokens the tuned picks ran level or 2-7% ahead (Qwen2.5's
# qkv at 128 0.92x -> 1.00x, the 70B shard's o at 512 1.01x -> 1.08x, decode rows +3-5%); at 2048 and 8192 they
# ran 2-15% behind (the 70B shard's o at 8192 1.15x -> 1.09x, GPT-2's fc1 at 8192 1.16x -> 1.10x), configs that
# tune had timed 3-4% ahead. Not yet known why; a guess: a long product runs power-capped in a model, and tune's
# short rounds per config do not reach that state.
MODEL_TOKENS = (1, 16, 64, 128, 512)


@dataclass
class Planned:
    """What tuning one shape times: the kernel auto picks and each of its configs for the precision."""

    shape: tuple[int, int, int]
    layouts: str  # as requested; the key holds the layouts the kernel reads
    key: str
    spec: KernelSpec
    configs: tuple[TileConfig, ...]
    heuristic: TileConfig  # dispatch.pick_config's choice


@dataclass
class ShapeResult:
    planned: Planned
    times_ms: dict[str, float] = field(default_factory=dict)  # median per config
    skipped: dict[str, str] = field(default_factory=dict)  # config -> why it was not timed
    timed_as: str = "events"  # "graph": CUDA-graph replays (the GPU alone); "events": call by call, host included

    @property
    def fastest(self) -> str | None:
        return min(self.times_ms, key=self.times_ms.__getitem__) if self.times_ms else None

    @property
    def best(self) -> str | None:
        """The config stored: the fastest, unless the heuristic's pick was timed within MIN_GAIN of it."""
        fastest, h = self.fastest, self.heuristic_ms
        if fastest is not None and h is not None and h < (1.0 + MIN_GAIN) * self.times_ms[fastest]:
            return self.planned.heuristic.name
        return fastest

    @property
    def heuristic_ms(self) -> float | None:
        return self.times_ms.get(self.planned.heuristic.name)

    @property
    def gain(self) -> float | None:
        """Heuristic time / best time - 1 (0.1: the tuned config is 10% faster)."""
        h, best = self.heuristic_ms, self.best
        return h / self.times_ms[best] - 1.0 if h is not None and best is not None else None


def _operands(m: int, n: int, k: int, precision: str, layouts: str, device: str) -> tuple[torch.Tensor, ...]:
    """Uninitialised A (M x K) and B (K x N) in ``layouts`` (for planning on the meta device)."""
    from .bench import _DTYPES

    dtype = _DTYPES[precision]
    a = torch.empty((m, k), dtype=dtype, device=device) if layouts[0] == "r" else \
        torch.empty((k, m), dtype=dtype, device=device).t()
    b = torch.empty((k, n), dtype=dtype, device=device) if layouts[1] == "r" else \
        torch.empty((n, k), dtype=dtype, device=device).t()
    return a, b


def _resolve(a: torch.Tensor, b: torch.Tensor, precision: str, cc: int, sms: int):
    """(a, b as auto would run them (staged copies or not), their problem, the spec auto picks)."""
    from .api import resolve
    from .problem import describe

    args = {"precision": "tf32" if precision == "tf32" else None}
    problem, t = describe(a, b, **args)
    a, b, problem, _t, spec, _cfg = resolve(a, b, None, problem, t, args, cc, sms)
    return a, b, problem, spec


def check_layouts(layouts: str) -> None:
    if layouts not in ("rr", "rc", "cr", "cc"):
        raise ValueError(f"--layouts {layouts!r}: use rr, rc, cr or cc (A then B; r = row-major, c = column-major)")


def plan(shapes: Sequence[tuple[int, int, int]], precision: str, layouts: str | Sequence[str] = "rr",
         cc: int = 90, sms: int = 132) -> list[Planned]:
    """What :func:`tune` would time on a GPU of compute capability ``cc`` (x10) with ``sms`` SMs; no GPU
    needed (planned on meta tensors). Raises KernelUnavailable when no kernel computes ``precision``."""
    from .dispatch import pick_config

    if precision not in registry.PRECISIONS:
        raise ValueError(f"--precision {precision!r}: use one of {', '.join(registry.PRECISIONS)}")
    out = []
    for lay in [layouts] if isinstance(layouts, str) else layouts:
        check_layouts(lay)
        for m, n, k in shapes:
            a, b = _operands(m, n, k, precision, lay, "meta")
            _a, _b, problem, spec = _resolve(a, b, precision, cc, sms)
            # (D_TRANSPOSED configs: a transposed problem's, as auto runs tf32 with B row-major)
            configs = tuple(c for c in spec.configs_for(precision)
                            if c.serves_layouts(problem.layouts) and (c.layouts or problem.layouts in spec.layouts)
                            and bool(c.get("D_TRANSPOSED")) == problem.d_transposed)
            out.append(Planned((m, n, k), lay, shape_key(problem), spec, configs, pick_config(spec, problem, sms)))
    return out


def _inputs(m: int, n: int, k: int, precision: str, layouts: str) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Random input sets that together exceed the L2 cache (bench.input_sets)."""
    from .bench import input_sets

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return input_sets(m, n, k, precision, layouts, getattr(props, "L2_cache_size", 50 * 2**20))


def _measure(fn: Callable[[int], None], sets: int, budget_s: float) -> list[float]:
    """Milliseconds of runs of ``fn`` (bench.time_runs: warm-up, CUDA events, rotating sets)."""
    from .bench import time_runs

    return time_runs(fn, sets, budget_s)


def _capture(fn: Callable[[int], None], sets: int) -> torch.cuda.CUDAGraph | None:
    """A CUDA graph of one ``fn`` call per input set (bench.capture), None without a GPU or if it fails."""
    if not torch.cuda.is_available():
        return None
    from .bench import capture

    return capture(fn, sets)


def _measure_graph(graph: torch.cuda.CUDAGraph, sets: int, budget_s: float, max_runs: int = 100) -> list[float]:
    """Milliseconds per call of replays of ``graph`` (``sets`` calls each), each replay between CUDA events."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    graph.replay()
    end.record()
    end.synchronize()
    runs = int(min(max_runs, max(3, budget_s * 1e3 / max(start.elapsed_time(end), 1e-3))))
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for s, e in events:
        s.record()
        graph.replay()
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) / sets for s, e in events]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:200]


def tune_shape(planned: Planned, precision: str, budget_s: float = 0.25, rounds: int = 3,
               on_step: Callable[[str, float], None] | None = None) -> ShapeResult:
    """Time each config of ``planned`` on the current GPU: first a checked run against a float64 reference
    (a config that fails to launch or computes a wrong result is skipped, with the reason), then
    ``rounds`` rounds of ``budget_s / rounds`` seconds each, configs in alternating order (a clock
    drifting over the minutes spreads over all of them), each round after its own warm-up; the median
    of all runs is the config's time. ``on_step(description, advance)`` reports progress (1 per config)."""
    from .api import device_info
    from .bench import _DTYPES, _OUT_DTYPES
    from .check import TOLERANCE, reference, relative_error
    from .entry import gemm

    m, n, k = planned.shape
    cc, sms, _arch = device_info(torch.cuda.current_device())
    sets = _inputs(m, n, k, precision, planned.layouts)
    staged = [_resolve(a, b, precision, cc, sms)[:2] for a, b in sets]  # auto's copies, made outside timing
    out = torch.empty((m, n), dtype=_OUT_DTYPES.get(precision, _DTYPES[precision]), device=sets[0][0].device)
    ref = reference(*sets[0], None, 1.0, 0.0)
    prec_arg = "tf32" if precision == "tf32" else None
    result = ShapeResult(planned)
    runners: dict[str, Callable[[int], None]] = {}
    label = f"{precision} {m}x{n}x{k} {planned.layouts}"
    for cfg in planned.configs:
        def run(i: int, name: str = cfg.name) -> None:
            a, b = staged[i % len(staged)]
            gemm(a, b, out=out, kernel=planned.spec.name, config=name, precision=prec_arg)

        try:
            out.fill_(float("nan") if out.dtype.is_floating_point else 0)
            run(0)
            err = relative_error(out, ref)
        except Exception as exc:  # noqa: BLE001 - whatever stops this config: recorded, the others go on
            result.skipped[cfg.name] = _first_line(exc)
            if on_step:
                on_step(f"{label} {cfg.name}", 1.0)
            continue
        if not err <= TOLERANCE[precision]:
            result.skipped[cfg.name] = f"wrong result: relative error {err:.2e} > {TOLERANCE[precision]:.0e}"
            if on_step:
                on_step(f"{label} {cfg.name}", 1.0)
            continue
        runners[cfg.name] = run
    # The GPU's time alone where every config captures in a CUDA graph: timed call by call, a short call's
    # events also hold its host work, which is the same for every config and at a few microseconds of GPU
    # time decided the ranking (512 x 3072 x 768: all configs 19.5-23 us a call, 7-8 us of it on the GPU).
    graphs = {name: _capture(run, len(staged)) for name, run in runners.items()}
    timers: dict[str, Callable[[float], list[float]]]
    if graphs and all(g is not None for g in graphs.values()):
        timers = {name: (lambda b, g=g: _measure_graph(g, len(staged), b)) for name, g in graphs.items()}
        result.timed_as = "graph"
    else:
        graphs.clear()
        timers = {name: (lambda b, run=run: _measure(run, len(staged), b)) for name, run in runners.items()}
    times: dict[str, list[float]] = {name: [] for name in runners}
    order = list(runners)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            if on_step:
                on_step(f"{label} {name}", 1.0 / rounds)
            times[name] += timers[name](budget_s / rounds)
    result.times_ms = {name: statistics.median(t) for name, t in times.items() if t}
    graphs.clear()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return result


def entry(result: ShapeResult, cc: int, sms: int) -> dict[str, Any]:
    """The JSON record of one tuned shape class."""
    p = result.planned
    return {"spec": p.spec.name, "best": result.best, "heuristic": p.heuristic.name, "arch": cc, "sms": sms,
            "shape": list(p.shape), "layouts": p.layouts, "times_ms": result.times_ms, "timed_as": result.timed_as,
            "skipped": result.skipped}


def save(results: Sequence[ShapeResult], cc: int, sms: int, key: dict[str, Any] | None = None) -> Path:
    """Merge ``results`` into this GPU's file (a stale file is replaced) and make lookups see them."""
    key = current_key() if key is None else key
    path = cache_path(key)
    data = read_cache(path)
    entries = dict(data["entries"]) if data is not None and data.get("key") == key else {}
    for r in results:
        if r.best is not None:
            entries[r.planned.key] = entry(r, cc, sms)
    write_cache(path, key, entries)
    reload()
    return path


def tune(shapes: Sequence[tuple[int, int, int]], precision: str, layouts: str | Sequence[str] = "rr",
         budget_s: float = 0.25, *, rounds: int = 3, write: bool = True,
         on_step: Callable[[str, float], None] | None = None) -> list[ShapeResult]:
    """Tune ``shapes`` (M, N, K) in ``precision`` and ``layouts`` on the current GPU; ``write``: merge the
    winners into its cache file, which ``kernel="auto"`` then uses. ``budget_s``: seconds of timed runs
    per config and shape."""
    from .api import device_info

    if budget_s <= 0:
        raise ValueError(f"--budget {budget_s}: give a positive number of seconds per config and shape")
    cc, sms, _arch = device_info(torch.cuda.current_device())
    results = [tune_shape(p, precision, budget_s, rounds, on_step)
               for p in plan(shapes, precision, layouts, cc, sms)]
    if write:
        save(results, cc, sms)
    return results
