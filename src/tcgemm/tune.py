"""Autotuning: time every tile config of the kernel ``auto`` picks, keep the fastest on disk per GPU.

``kernel="auto"`` picks a tile config by an estimate (:func:`tcgemm.dispatch.pick_config`). ``tcgemm tune``
(:func:`tune`) measures instead: for each shape it times every config of the kernel auto would run, on the
GPU, and stores the winner in a JSON file per GPU, ``<cache root>/tune/<gpu>-<SMs>sm.json`` (the cache root
is the kernel cache's: ``$TCGEMM_CACHE_DIR``, default ``~/.cache/tcgemm``). :func:`lookup`, called by
:func:`tcgemm.dispatch.select` for ``kernel="auto"`` without an explicit config, returns the stored config
of a problem's *shape class* (:func:`shape_key`); problems of classes never tuned keep the heuristic.

A file records what its timings depend on (:func:`current_key`): the GPU's name, SM count and compute
capability, the driver's and torch's CUDA versions, the tcgemm version and a digest of every kernel source
and of the registry's tile configs. A file made under another key is stale: ignored by lookups, replaced
by the next ``tcgemm tune``. A missing file means "not tuned"; an unreadable one is ignored with a warning.
``TCGEMM_TUNE=0`` turns lookups off (the heuristic alone decides).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import tempfile
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import torch

from . import registry
from ._version import __version__
from .problem import GemmProblem
from .registry import KernelSpec, TileConfig

FORMAT = 1
_OFF = ("0", "false", "off", "no")


def bucket(x: int) -> int:
    """``x`` rounded up to a power of two (1 -> 1, 3000 -> 4096, 4096 -> 4096, 4097 -> 8192)."""
    return 1 << max(0, int(x) - 1).bit_length()


def shape_key(problem: GemmProblem) -> str:
    """The shape class of ``problem``: problems of one class share a tuned config.

    ``precision:layouts:MxNxK:batch:alignment`` with M, N and K each rounded *up* to a power of two
    (:func:`bucket`: 3000 and 4096 share 4096, 4097 goes with 8192), ``b1`` for one matrix or ``bN``
    for a batch (any size > 1), ``a16`` when A and B are 16-byte aligned (what the TMA kernels need),
    else ``u``. Layouts are those the kernel reads, after any staging: e.g. ``rc`` for tf32 on Hopper.
    Example: ``bf16:rr:4096x16384x4096:b1:a16`` for a 4096 x 14336 x 4096 bf16 GEMM."""
    p = problem
    aligned = "a16" if p.a.aligned16 and p.b.aligned16 else "u"
    return (f"{p.precision}:{p.layouts}:{bucket(p.m)}x{bucket(p.n)}x{bucket(p.k)}:"
            f"{'bN' if p.batch > 1 else 'b1'}:{aligned}")


# ---------------------------------------------------------------------------------------------- the cache


@cache
def kernel_digest() -> str:
    """Digest of the kernel sources (:mod:`tcgemm.jit`'s) and of every spec's tile configs."""
    from .jit import _headers_digest

    h = hashlib.sha256(_headers_digest().encode())
    for spec in registry.all_specs():
        h.update(repr((spec.name, spec.source, sorted(spec.defines.items()))).encode())
        for cfg in spec.configs:
            h.update(repr((cfg.name, sorted(cfg.params.items()), cfg.precisions)).encode())
    return h.hexdigest()[:16]


def _driver_version() -> str:
    try:
        from cuda.bindings import driver

        err, version = driver.cuDriverGetVersion()
        return str(version) if int(err) == 0 else "unknown"
    except Exception:  # noqa: BLE001 - informative only: no driver, no bindings
        return "unknown"


def current_key(index: int | None = None) -> dict[str, Any]:
    """What a tuning result depends on, for CUDA device ``index`` (default: the current one)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device() if index is None else index)
    return {"gpu": props.name, "sms": props.multi_processor_count, "capability": f"{props.major}.{props.minor}",
            "driver": _driver_version(), "cuda": torch.version.cuda or "none", "tcgemm": __version__,
            "kernels": kernel_digest()}


def cache_root() -> Path:
    """The folder of the tune files: ``<kernel cache>/tune``."""
    from .jit import cache_dir

    return cache_dir() / "tune"


def cache_path(key: dict[str, Any]) -> Path:
    """The file of one GPU, e.g. ``~/.cache/tcgemm/tune/nvidia-h100-80gb-hbm3-132sm.json``."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(key["gpu"]).lower()).strip("-") or "gpu"
    return cache_root() / f"{slug}-{key['sms']}sm.json"


def read_cache(path: Path) -> dict[str, Any] | None:
    """The file's contents, or None when it is missing or unreadable (a warning says which)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        warnings.warn(f"tcgemm ignores its tune cache {path}: it cannot be read ({exc}); "
                      f"run `tcgemm tune --clear` and tune again", RuntimeWarning, stacklevel=2)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict) or data.get("format") != FORMAT:
        warnings.warn(f"tcgemm ignores its tune cache {path}: not a tune file of format {FORMAT}; "
                      f"run `tcgemm tune --clear` and tune again", RuntimeWarning, stacklevel=2)
        return None
    return data


def write_cache(path: Path, key: dict[str, Any], entries: dict[str, Any]) -> None:
    """Write atomically: a temporary file in the same folder renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"format": FORMAT, "key": key, "entries": entries}, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_tables: dict[int, dict[str, Any]] = {}


def _entries() -> dict[str, Any]:
    """The current GPU's valid entries, read once per process (:func:`reload` forgets them)."""
    try:
        index = torch.cuda.current_device()
    except Exception:  # noqa: BLE001 - no CUDA: nothing tuned
        index = -1
    table = _tables.get(index)
    if table is None:
        table = {}
        try:
            key = current_key(index)
        except Exception:  # noqa: BLE001 - no GPU to key the file by: nothing tuned
            key = None
        data = read_cache(cache_path(key)) if key is not None else None
        if data is not None and data.get("key") == key:  # else stale: made for other kernels, GPU or driver
            table = data["entries"]
        _tables[index] = table
    return table


def reload() -> None:
    """Forget the files read (the next lookup reads them again) and the prepared launches made with them."""
    from . import fastpath

    _tables.clear()
    fastpath.clear()


def enabled() -> bool:
    return os.environ.get("TCGEMM_TUNE", "1").strip().lower() not in _OFF


def lookup(problem: GemmProblem, spec: KernelSpec, arch: int, sms: int) -> TileConfig | None:
    """The tuned config of ``problem``'s shape class for ``spec``, or None (untuned, stale, disabled, or a
    config name the registry no longer has): the caller falls back to the heuristic."""
    if not enabled():
        return None
    entry = _entries().get(shape_key(problem))
    if not isinstance(entry, dict) or entry.get("spec") != spec.name or entry.get("arch") != arch \
            or entry.get("sms") != sms:
        return None
    name = entry.get("best")
    return next((c for c in spec.configs_for(problem.precision) if c.name == name), None)


# ---------------------------------------------------------------------------------------------- tuning


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

    @property
    def best(self) -> str | None:
        return min(self.times_ms, key=self.times_ms.__getitem__) if self.times_ms else None

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
            out.append(Planned((m, n, k), lay, shape_key(problem), spec, spec.configs_for(precision),
                               pick_config(spec, problem, sms)))
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
    from .api import device_info, gemm
    from .bench import _DTYPES, _OUT_DTYPES
    from .check import TOLERANCE, reference, relative_error

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
    times: dict[str, list[float]] = {name: [] for name in runners}
    order = list(runners)
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            if on_step:
                on_step(f"{label} {name}", 1.0 / rounds)
            times[name] += _measure(runners[name], len(staged), budget_s / rounds)
    result.times_ms = {name: statistics.median(t) for name, t in times.items() if t}
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return result


def entry(result: ShapeResult, cc: int, sms: int) -> dict[str, Any]:
    """The JSON record of one tuned shape class."""
    p = result.planned
    return {"spec": p.spec.name, "best": result.best, "heuristic": p.heuristic.name, "arch": cc, "sms": sms,
            "shape": list(p.shape), "layouts": p.layouts, "times_ms": result.times_ms, "skipped": result.skipped}


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
