"""Benchmark: tcgemm kernels next to cuBLAS, same process, same inputs.

Method (docs/how-it-works.md, "Measuring"): CUDA events around each launch after warm-up, the
median of many runs, input sets rotated so that together they exceed the L2
cache several times over (every run reads its operands from HBM, as in a
real model), random normal data, and cuBLAS (``torch.matmul``, TF32 off for
fp32) timed on exactly the same tensors. Each kernel's output on the first set
is checked against a float64 reference.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

import torch

from . import launch, registry, staging
from ._version import __version__
from .api import device_info, explain, resolve
from .check import TOLERANCE, random_operand, reference, relative_error
from .entry import gemm
from .problem import describe, transposed_layouts_of

_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
           "bf16": torch.bfloat16, "int8": torch.int8,
           "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}
_OUT_DTYPES = {"int8": torch.int32, "fp8e4m3": torch.bfloat16, "fp8e5m2": torch.bfloat16}


@dataclass
class BenchRow:
    kernel: str
    config: str
    m: int
    n: int
    k: int
    precision: str
    ms: float
    tflops: float
    pct_cublas: float | None
    error: float | None
    passed: bool | None
    registers: int | None = None
    smem_bytes: int | None = None
    block: int | None = None
    grid: tuple[int, int, int] | None = None
    samples: int = 0
    spread_pct: float = 0.0  # (p90 - p10) / median
    # cuBLAS timed in alternation with this kernel (pct_cublas is against it); None: not paired
    cublas_ms: float | None = None
    layouts: str = "rr"  # A and B: r = row-major, c = column-major (the inputs both sides were timed on)
    # Short calls only (GRAPH_BELOW_MS): microseconds per call replayed from a CUDA graph of one call per
    # input set, i.e. the GPU's time without the host's, and cuBLAS's, replayed in alternation with it;
    # None: not measured.
    graph_us: float | None = None
    cublas_graph_us: float | None = None
    out_dtype: str = ""  # D's dtype ("float32", ...); "" in files written before the field existed


@dataclass
class BenchResult:
    environment: dict[str, object]
    rows: list[BenchRow] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"environment": self.environment, "rows": [asdict(r) for r in self.rows]}


def _git_commit() -> str:
    if os.environ.get("TCGEMM_COMMIT"):
        return os.environ["TCGEMM_COMMIT"]
    try:
        here = os.path.dirname(__file__)
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                             timeout=5).stdout.strip()
        if not out or out == "HEAD":  # a copy without history answers "HEAD"
            return "unknown"
        # A working tree that differs from that commit (a copy sent to a GPU machine with an older .git)
        # is marked "+": set TCGEMM_COMMIT to name what really ran.
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=5).stdout.strip()
        return out + ("+" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _driver_version() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return out.splitlines()[0] if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def environment() -> dict[str, object]:
    from .jit import nvrtc_version

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "gpu": props.name,
        "capability": f"{props.major}.{props.minor}",
        "sms": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "driver": _driver_version(),
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "nvrtc": nvrtc_version(),
        "tcgemm": __version__,
        "python": platform.python_version(),
        "commit": _git_commit(),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


@contextlib.contextmanager
def cublas_precision(precision: str) -> Iterator[None]:
    """cuBLAS in the same precision as the kernel: TF32 only for 'tf32'."""
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old


def time_runs(fn: Callable[[int], None], sets: int, budget_s: float = 1.0, max_runs: int = 200,
              min_runs: int = 5) -> list[float]:
    """Milliseconds of ``fn(i)`` for rotating set i, each run between its own CUDA events."""
    fn(0)  # warm-up: compile, load, caches
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(1 % sets)
    end.record()
    end.synchronize()
    estimate = max(start.elapsed_time(end), 1e-3)
    runs = int(min(max_runs, max(min_runs, budget_s * 1e3 / estimate)))
    for i in range(min(3, runs)):  # a few more warm-up runs at steady clocks
        fn(i % sets)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(runs)]
    for i, (s, e) in enumerate(events):
        s.record()
        fn(i % sets)
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in events]


# Seconds of cuBLAS calls before a process's first timed row: the first shape of a run otherwise met
# a GPU still settling from idle (auto's first row ran 1-2% lower against cuBLAS than the same config
# timed after it, in the same process: 2026-11-23-h100-group-order-overlap-*.json).
WARMUP_S = 1.0
_warmed = False


def warm_gpu(fn: Callable[[int], None], sets: int, seconds: float = WARMUP_S) -> None:
    """Run ``fn`` on rotating sets for ``seconds`` of wall time, once per process."""
    global _warmed
    if _warmed or seconds <= 0:
        return
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline:
        for _ in range(8):
            fn(i % sets)
            i += 1
        torch.cuda.synchronize()
    _warmed = True


def time_interleaved(fn: Callable[[int], None], baseline: Callable[[int], None], sets: int,
                     budget_s: float = 1.0, rounds: int = 10, max_runs: int = 2000) -> tuple[list[float], list[float]]:
    """Milliseconds of ``fn`` and of ``baseline`` timed in alternating blocks (ABBA order), each
    launch between its own CUDA events. A GPU's clock drifts with its temperature and power over a
    benchmark; alternating spreads that drift over both, where timing one after the other would
    hand the cooler, faster minutes to whichever ran first."""
    fn_times = time_runs(fn, sets, budget_s / (2 * rounds), max_runs=max(1, max_runs // rounds))
    base_times = time_runs(baseline, sets, budget_s / (2 * rounds), max_runs=max(1, max_runs // rounds))
    blocks = {id(fn): len(fn_times), id(baseline): len(base_times)}  # runs per block, from the first one
    for r in range(1, rounds):
        pair = ((baseline, base_times), (fn, fn_times)) if r % 2 else ((fn, fn_times), (baseline, base_times))
        for f, times in pair:
            events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                      for _ in range(blocks[id(f)])]
            for i, (start, end) in enumerate(events):
                start.record()
                f((i + r) % sets)
                end.record()
            torch.cuda.synchronize()
            times += [start.elapsed_time(end) for start, end in events]
    return fn_times, base_times


GRAPH_BELOW_MS = 0.1  # calls this short are also timed from CUDA graphs (the per-call events include host time)


def capture(fn: Callable[[int], None], sets: int) -> torch.cuda.CUDAGraph | None:
    """A CUDA graph holding one call of ``fn`` per input set (rotating, as the event timing does):
    replayed, it runs the calls' kernels without their host work (argument checks, planning, the
    launch itself happen once, at capture). None if the call cannot be captured. (A failed capture
    can leave torch's CUDA random generator mid-capture, so that later torch.randn calls in the
    process raise: every kernel and cuBLAS call the benchmark times captures cleanly, and a test
    that provoked a failure broke the GPU tests after it, so none does.)"""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for i in range(min(sets, 3)):  # warm-up on a side stream (per-stream caches, workspaces)
                fn(i)
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(sets):
                fn(i)
        graph.replay()
        torch.cuda.synchronize()
        return graph
    except RuntimeError:
        return None


def time_graphs(graph: torch.cuda.CUDAGraph, baseline: torch.cuda.CUDAGraph | None, sets: int,
                rounds: int = 10, replays: int = 10) -> tuple[float, float | None]:
    """Microseconds per call of two captured graphs (``capture``), replayed in alternating blocks as
    time_interleaved does, so clock drift falls on both: the medians over ``rounds`` blocks."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times: dict[int, list[float]] = {0: [], 1: []}
    for r in range(rounds):
        order = ((0, graph), (1, baseline)) if r % 2 == 0 else ((1, baseline), (0, graph))
        for side, g in order:
            if g is None:
                continue
            start.record()
            for _ in range(replays):
                g.replay()
            end.record()
            end.synchronize()
            times[side].append(1e3 * start.elapsed_time(end) / (replays * sets))
    return statistics.median(times[0]), statistics.median(times[1]) if times[1] else None


def _summary(times: list[float]) -> tuple[float, float]:
    med = statistics.median(times)
    if len(times) >= 10:
        q = statistics.quantiles(times, n=10)
        return med, 100.0 * (q[-1] - q[0]) / med
    return med, 100.0 * (max(times) - min(times)) / med


def input_sets(m: int, n: int, k: int, precision: str, layouts: str, l2_bytes: int,
               seed: int = 0) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Enough random (A, B) pairs that together they exceed 3x the L2 cache."""
    dtype = _DTYPES[precision]
    per_set = (m * k + k * n) * torch.tensor([], dtype=dtype).element_size()
    count = max(2, min(64, -(-3 * l2_bytes // max(per_set, 1))))
    free, _ = torch.cuda.mem_get_info()
    count = max(1, min(count, int(0.5 * free // max(per_set, 1))))
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    return [
        (random_operand(m, k, "row" if layouts[0] == "r" else "col", None, dtype, "cuda", gen),
         random_operand(k, n, "row" if layouts[1] == "r" else "col", None, dtype, "cuda", gen))
        for _ in range(count)
    ]


def cublas_baseline(precision: str, sets: list[tuple[torch.Tensor, torch.Tensor]],
                    out: torch.Tensor) -> tuple[str, Callable[[int], None]] | None:
    """(label, run(i)) of the cuBLAS call that computes the same thing, or None if cuBLAS refuses the shape.

    fp32/tf32/fp16/bf16: torch.matmul (TF32 enabled only for tf32); int8: torch._int_mm (s8 x s8 -> s32),
    which needs M > 16 and K, N multiples of 8; fp8: torch._scaled_mm with unit scale tensors and the
    output's dtype, which needs B column-major (A row-major) and M, N, K multiples of 16."""
    a0, b0 = sets[0]
    if precision.startswith("fp8"):
        m, k = a0.shape
        n = b0.shape[1]
        if m % 16 or n % 16 or k % 16 or b0.stride(0) != 1 or a0.stride(1) != 1:
            return None
        one = torch.ones((), dtype=torch.float32, device=a0.device)

        def run_fp8(i: int) -> None:
            a, b = sets[i % len(sets)]
            torch._scaled_mm(a, b, one, one, out_dtype=out.dtype, out=out)

        return "torch._scaled_mm", run_fp8

    if precision == "int8":
        m, k = a0.shape
        n = b0.shape[1]
        if m <= 16 or k % 8 or n % 8:
            return None

        def run_int(i: int) -> None:
            a, b = sets[i % len(sets)]
            torch._int_mm(a, b, out=out)

        return "torch._int_mm", run_int

    if out.dtype != a0.dtype:  # 16-bit inputs, fp32 D: cuBLAS's fp32-output GEMM through torch.mm's out_dtype
        def run_wide(i: int) -> None:
            a, b = sets[i % len(sets)]
            torch.mm(a, b, out_dtype=out.dtype, out=out)

        return "torch.mm (out_dtype)", run_wide

    def run(i: int) -> None:
        a, b = sets[i % len(sets)]
        torch.matmul(a, b, out=out)

    return ("torch.matmul (TF32)" if precision == "tf32" else "torch.matmul"), run


def _runs_transposed(spec: registry.KernelSpec, config: str, precision: str, layouts: str) -> bool:
    """Whether the named ``config`` of ``spec`` serves ``layouts`` through the transposed problem (D_TRANSPOSED
    configs of their own layouts: theirs are B's and A's, flipped)."""
    cfg = next((c for c in spec.configs_for(precision) if c.name == config), None) if config else None
    return cfg is not None and bool(cfg.get("D_TRANSPOSED")) and cfg.serves_layouts(transposed_layouts_of(layouts))


def bench_shape(m: int, n: int, k: int, names: list[str], precision: str = "fp32", layouts: str = "rr",
                budget_s: float = 1.0, on_row: Callable[[BenchRow], None] | None = None,
                out_dtype: torch.dtype | None = None) -> list[BenchRow]:
    """Time cuBLAS and each named kernel (``"auto"`` allowed) on the same inputs; D of ``out_dtype``
    (default: the precision's own output type)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    l2 = getattr(props, "L2_cache_size", 50 * 2**20)
    sets = input_sets(m, n, k, precision, layouts, l2)
    out_dtype = out_dtype or _OUT_DTYPES.get(precision, _DTYPES[precision])
    out_name = str(out_dtype).removeprefix("torch.")
    out = torch.empty((m, n), dtype=out_dtype, device="cuda")
    ref = reference(*sets[0], None, 1.0, 0.0)
    flops = 2.0 * m * n * k
    rows: list[BenchRow] = []

    baseline = cublas_baseline(precision, sets, out)
    cublas_ms: float | None = None
    cublas_graph_us: float | None = None
    cublas_graph: torch.cuda.CUDAGraph | None = None
    if baseline is not None:  # cuBLAS may still refuse at run time (torch._scaled_mm: e5m2 x e5m2)
        try:
            with cublas_precision(precision):
                baseline[1](0)
        except Exception:  # noqa: BLE001 - whatever torch raises for a refused pair: no baseline
            baseline = None
    if baseline is not None:
        label, run_cublas = baseline
        with cublas_precision(precision):
            warm_gpu(run_cublas, len(sets))
            times = time_runs(run_cublas, len(sets), budget_s)
            run_cublas(0)
            err = relative_error(out, ref)
        med, spread = _summary(times)
        cublas_ms = med
        if med < GRAPH_BELOW_MS:
            with cublas_precision(precision):
                cublas_graph = capture(run_cublas, len(sets))
            if cublas_graph is not None:
                cublas_graph_us = time_graphs(cublas_graph, None, len(sets))[0]
        base = BenchRow("cublas", label, m, n, k, precision, med, flops / med / 1e9, 100.0, err,
                        err <= max(TOLERANCE[precision], 1e-5), samples=len(times), spread_pct=spread,
                        layouts=layouts, graph_us=cublas_graph_us, cublas_graph_us=cublas_graph_us,
                        out_dtype=out_name)
        rows.append(base)
        if on_row:
            on_row(base)

    cc, sms, arch = device_info(torch.cuda.current_device())
    prec_arg = "tf32" if precision == "tf32" else None
    for name in names:
        kernel, _, cfg_name = name.partition(":")
        kernel_sets, label = sets, kernel
        if kernel != "auto" and layouts not in registry.get(kernel).layouts and not _runs_transposed(
                registry.get(kernel), cfg_name, precision, layouts):
            # A kernel that reads other layouts only (wgmma_ws_kmajor: "rc") is timed on copies of the
            # same inputs in the nearest layout it serves, made outside the timing (not a config that serves
            # them through the transposed problem: tf32's A_REGS configs for B row-major).
            want = staging.target_layouts(layouts, registry.get(kernel).layouts)
            kernel_sets = [(staging.aligned_copy(a, want[0]), staging.aligned_copy(b, want[1])) for a, b in sets]
            label = f"{kernel} [{want} copies]"
        a0, b0 = kernel_sets[0]
        describe_args = dict(out=out, precision=prec_arg)
        problem, t0 = describe(a0, b0, **describe_args)
        try:
            staged_a, _b, problem, _t, spec, cfg = resolve(a0, b0, None, problem, t0, describe_args, cc, sms,
                                                           kernel, cfg_name or None)
        except ValueError:  # this kernel does not serve the precision/shape: nothing to time
            continue
        config_label = cfg.describe()
        if kernel == "auto":
            label = f"auto ({spec.name}{', staged' if staged_a is not a0 else ''})"
            choice = explain(a0, b0, out=out, precision=prec_arg)
            if choice.technique.startswith("3xTF32"):  # fp32 on tf32 tensor cores (tcgemm.emulation)
                label = f"auto (3xtf32: {choice.kernel})"
                config_label = registry.get(choice.kernel).config(choice.config, "tf32").describe()
        plan = launch.plan(problem, spec, cfg, sms)
        attrs = launch.kernel_for(plan, arch, torch.cuda.current_device()).attributes

        # auto keeps choosing (and staging) per call, as a user's call would
        fixed = cfg_name or None if kernel == "auto" else cfg.name

        def run_kernel(i: int, kernel: str = kernel, cfg_name: str | None = fixed, kernel_sets=kernel_sets) -> None:
            a, b = kernel_sets[i % len(kernel_sets)]
            gemm(a, b, out=out, kernel=kernel, config=cfg_name, precision=prec_arg)

        out.fill_(float("nan") if out.dtype.is_floating_point else 0)
        run_kernel(0)
        err = relative_error(out, ref)
        paired_ms = None
        if baseline is not None:
            with cublas_precision(precision):
                times, base_times = time_interleaved(run_kernel, baseline[1], len(sets), 2 * budget_s)
            paired_ms = statistics.median(base_times)
        else:
            times = time_runs(run_kernel, len(sets), budget_s)
        med, spread = _summary(times)
        graph_us = paired_graph_us = None
        if med < GRAPH_BELOW_MS:
            kernel_graph = capture(run_kernel, len(sets))
            if kernel_graph is not None:
                with cublas_precision(precision):
                    graph_us, paired_graph_us = time_graphs(kernel_graph, cublas_graph, len(sets))
        row = BenchRow(
            kernel=label, config=config_label,
            m=m, n=n, k=k, precision=precision, ms=med, tflops=flops / med / 1e9,
            pct_cublas=100.0 * (paired_ms or cublas_ms) / med if cublas_ms else None, error=err,
            passed=err <= TOLERANCE[precision], registers=attrs.num_regs, smem_bytes=attrs.shared_size_bytes,
            block=plan.block, grid=plan.grid, samples=len(times), spread_pct=spread, cublas_ms=paired_ms,
            layouts=layouts, graph_us=graph_us, cublas_graph_us=paired_graph_us, out_dtype=out_name,
        )
        rows.append(row)
        if on_row:
            on_row(row)

    torch.cuda.empty_cache()
    return rows


def ladder_names(precision: str, all_configs: bool = False) -> list[str]:
    """Every registry kernel that computes ``precision`` (each config with all_configs)."""
    names = []
    for spec in registry.all_specs():
        if precision in spec.precisions:
            configs = spec.configs_for(precision)
            configs = configs if all_configs else configs[:1]
            names += [f"{spec.name}:{c.name}" for c in configs]
    return names
