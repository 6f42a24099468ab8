"""tcgemm's command line: info, list, compile, check, bench, inspect, plot, layout, run, tune.

Run ``tcgemm COMMAND --help`` for each command's options.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import registry
from ._version import __version__
from .plot import PlotUnavailable

if TYPE_CHECKING:
    import torch

# A wide table even when the output is a log file, not a terminal.
console = Console(width=None if sys.stdout.isatty() else 160)

DEFAULT_SHAPES = "1024,4096,4096x10240x4096"
# tcgemm bench with no arguments: auto against cuBLAS in bf16 at the sizes users run (square, an MLP's up and
# down projections, a batch of 128 tokens, decode). The ladders: --ladder (fp32 unless --precision says).
HEADLINE_SHAPES = "4096,8192,4096x14336x4096,4096x4096x14336,128x4096x4096,16x4096x4096"


def parse_shape(text: str) -> tuple[int, int, int]:
    """'4096' -> (4096, 4096, 4096); '4096x10240x4096' -> (M, N, K)."""
    parts = text.lower().split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"shape {text!r} must be N or MxNxK with integers") from None
    if len(dims) == 1:
        dims *= 3
    if len(dims) != 3 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"shape {text!r} must be N or MxNxK with positive integers")
    return dims[0], dims[1], dims[2]


def parse_shapes(text: str) -> list[tuple[int, int, int]]:
    return [parse_shape(s) for s in text.split(",") if s.strip()]


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=False)


def _need_gpu() -> None:
    import torch

    if not torch.cuda.is_available():
        console.print("[red]No CUDA GPU is visible: this command needs one.[/] "
                      "(`tcgemm compile --arch sm_90a` and `tcgemm list` work without a GPU.)")
        raise SystemExit(2)


def cmd_info(args: argparse.Namespace) -> int:
    import torch

    from .jit import JitUnavailable, cache_dir, nvrtc_version

    table = Table(title=f"tcgemm {__version__}", show_header=False)
    table.add_row("torch", f"{torch.__version__} (CUDA {torch.version.cuda})")
    try:
        table.add_row("compiler", f"NVRTC {nvrtc_version()} via cuda.core")
    except JitUnavailable as exc:
        table.add_row("compiler", f"[red]unavailable[/]: {exc}")
    table.add_row("kernel cache", str(cache_dir()))
    if torch.cuda.is_available():
        from .api import device_info

        idx = torch.cuda.current_device()
        props = torch.cuda.get_device_properties(idx)
        cc, sms, arch = device_info(idx)
        clock_ghz = _clock_ghz(idx)
        table.add_row("GPU", f"{props.name} (sm_{cc}, {sms} SMs, {props.total_memory / 2**30:.0f} GiB)")
        table.add_row("target", arch)
        if clock_ghz:
            fp32 = sms * 128 * 2 * clock_ghz / 1e3
            table.add_row("peak FP32 (CUDA cores)", f"{fp32:.1f} TFLOP/s at {clock_ghz:.2f} GHz")
        table.add_row("peak tensor (datasheet)", _datasheet(props.name))
    else:
        table.add_row("GPU", "[yellow]none visible[/] (compile and list still work)")
    console.print(table)
    return 0


def _clock_ghz(idx: int) -> float | None:
    try:
        from cuda.bindings import runtime

        _err, value = runtime.cudaDeviceGetAttribute(runtime.cudaDeviceAttr.cudaDevAttrClockRate, idx)
        return value / 1e6 if value else None
    except Exception:  # noqa: BLE001 - purely informative
        return None


def _datasheet(name: str) -> str:
    if "H100" in name or "H200" in name:
        return "dense bf16/fp16 ~989, tf32 ~495, fp8/int8 ~1979 TFLOP/s (SXM)"
    if "A100" in name:
        return "dense bf16/fp16 312, tf32 156, int8 624 TOP/s"
    return "see the vendor datasheet"


def cmd_list(args: argparse.Namespace) -> int:
    table = Table(title="tcgemm kernel ladder")
    for col in ("name", "stage", "technique", "precisions", "arch", "configs", "seed"):
        table.add_column(col, overflow="fold")
    for s in registry.all_specs():
        table.add_row(s.name, f"{s.family} {s.stage}", s.technique, ",".join(s.precisions),
                      f"sm_{s.min_arch}+", "; ".join(c.describe() for c in s.configs), s.seed)
    console.print(table)
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    from .jit import _cuda_core, cubin

    arch = args.arch
    if arch is None:
        _need_gpu()
        import torch

        from .api import device_info

        arch = device_info(torch.cuda.current_device())[2]
    from .launch import all_builds

    cc = int("".join(ch for ch in arch[3:] if ch.isdigit()))  # sm_90a -> 90
    wanted = None
    if args.kernels:
        wanted = {k.strip() for k in args.kernels.split(",") if k.strip()}
        known = {name for spec in registry.all_specs() for name in (spec.name, *(f"{spec.name}:{c.name}"
                                                                               for c in spec.configs))}
        unknown = wanted - known
        if unknown:
            raise SystemExit(f"tcgemm compile: --kernels {', '.join(sorted(unknown))}: no such kernel or "
                             "kernel:config (`tcgemm list` names them)")
    builds = [(spec, d) for spec, d in all_builds(wanted) if cc >= spec.min_arch]  # wgmma/TMA: sm_90a only
    if args.precision:  # (the build's PRECISION_<name> define)
        builds = [(spec, d) for spec, d in builds if f"PRECISION_{args.precision.upper()}" in dict(d)]
    if args.layouts:
        layouts = args.layouts.strip().lower()
        if len(layouts) != 2 or set(layouts) - {"r", "c"}:
            raise SystemExit(f"tcgemm compile: --layouts {args.layouts!r}: two letters, r or c, A's then B's (e.g. rc)")
        want = {"A_LAYOUT": "0" if layouts[0] == "r" else "1", "B_LAYOUT": "0" if layouts[1] == "r" else "1"}
        builds = [(spec, d) for spec, d in builds if all(dict(d).get(k) == v for k, v in want.items())]
    if not builds:
        raise SystemExit("tcgemm compile: no build matches --kernels / --precision / --layouts")
    _cuda_core()  # import once before the worker threads start
    with _progress() as progress, ThreadPoolExecutor(max_workers=args.jobs) as pool:
        task = progress.add_task(f"compiling for {arch}", total=len(builds))
        futures = [pool.submit(cubin, spec.source, d, arch) for spec, d in builds]
        for f in futures:
            f.result()
            progress.advance(task)
    console.print(f"{len(builds)} kernel builds cached for {arch}")
    return 0


def _kernel_names(text: str, precision: str) -> list[str]:
    """Comma list of 'ladder' (each kernel's default config), 'all' (every config), 'auto', name[:config] or
    name:* (every config of that kernel)."""
    from .bench import ladder_names

    names: list[str] = []
    for token in (t.strip() for t in text.split(",")):
        if token == "ladder":
            names += ladder_names(precision)
        elif token == "all":
            names += ladder_names(precision, all_configs=True)
        elif token.endswith(":*"):  # every config of one kernel
            spec = registry.get(token[:-2])
            names += [f"{spec.name}:{c.name}" for c in spec.configs_for(precision)]
        elif token:
            if token.split(":")[0] != "auto":
                registry.get(token.split(":")[0])
            names.append(token)
    return names


def cmd_check(args: argparse.Namespace) -> int:
    _need_gpu()
    from .check import check
    from .dispatch import KernelUnavailable

    names = _kernel_names(args.kernels, args.precision)
    shapes = parse_shapes(args.shapes)
    cases = [(n, s, lay) for n in names for s in shapes for lay in args.layouts.split(",")]
    failures = 0
    table = Table(title="tcgemm check (float64 reference, poisoned output)")
    for col in ("kernel", "M x N x K", "layouts", "rel. error", "tolerance", "unwritten", "result"):
        table.add_column(col)
    with _progress() as progress:
        task = progress.add_task("checking", total=len(cases))
        for name, (m, n, k), lay in cases:
            kernel, _, cfg = name.partition(":")
            try:
                r = check(m, n, k, kernel=kernel, config=cfg or None, precision=args.precision, layouts=lay,
                          alpha=args.alpha, beta=args.beta)
            except KernelUnavailable as exc:  # e.g. a TMA kernel and unaligned rows, or a layout it does not read
                table.add_row(name, f"{m}x{n}x{k}", lay, "-", "-", "-", f"n/a: {str(exc).split(': ', 1)[-1][:60]}")
                progress.advance(task)
                continue
            failures += not r.passed
            table.add_row(name, f"{m}x{n}x{k}", lay, f"{r.error:.2e}", f"{r.tolerance:.0e}", str(r.unwritten),
                          "[green]PASS[/]" if r.passed else "[red]FAIL[/]")
            progress.advance(task)
    console.print(table)
    return 1 if failures else 0


def _bench_table(rows: list, title: str) -> Table:
    graphed = any(r.graph_us is not None for r in rows)  # short calls: GPU time alone, from a CUDA graph
    table = Table(title=title)
    cols = ["kernel", "tile", "regs", "smem", "block", "grid", "ms", "TFLOP/s", "% cuBLAS"]
    cols += ["graph µs", "% cuBLAS (graph)"] if graphed else []
    for col in (*cols, "check"):
        table.add_column(col, justify="right" if col not in ("kernel", "tile") else "left")
    for r in rows:
        check = "-" if r.passed is None else ("PASS" if r.passed else "[red]FAIL[/]")
        if r.error is not None:
            check += f" {r.error:.0e}"
        cells = [
            r.kernel, r.config, str(r.registers or "-"),
            f"{r.smem_bytes} B" if r.smem_bytes is not None else "-",
            str(r.block or "-"), "x".join(map(str, r.grid)) if r.grid else "-",
            f"{r.ms:.3f}", f"{r.tflops:.2f}", f"{r.pct_cublas:.1f}%" if r.pct_cublas is not None else "n/a",
        ]
        if graphed:
            graph_pct = (f"{100.0 * r.cublas_graph_us / r.graph_us:.1f}%"
                         if r.graph_us and r.cublas_graph_us else "n/a")
            cells += [f"{r.graph_us:.1f}" if r.graph_us is not None else "-", graph_pct]
        table.add_row(*cells, check)
    return table


def _write_json(record: dict, name: str) -> None:
    path = Path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(record, indent=1, default=str))
    os.replace(tmp, path)
    console.print(f"results written to {path}")


def parse_batch_seq(text: str) -> tuple[int, int]:
    """'8x1024' -> (batch 8, seq 1024)."""
    try:
        batch, seq = (int(p) for p in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--tokens {text!r} must be BATCHxSEQ, e.g. 8x1024") from None
    if min(batch, seq) < 1:
        raise argparse.ArgumentTypeError(f"--tokens {text!r} must be BATCHxSEQ with positive integers")
    return batch, seq


@dataclass(frozen=True)
class TokenList:
    """--tokens: token counts M, and the BATCHxSEQ of the GPT-2 block's end-to-end row."""

    counts: tuple[int, ...]
    block: tuple[int, int]  # (batch, seq) of the end-to-end row: the largest count


def _block_of(tokens: int) -> tuple[int, int]:
    """The end-to-end block's batch x seq for ``tokens`` not written as BATCHxSEQ: sequences of 1024 when
    they divide it (8192 -> 8x1024, the default), else one sequence."""
    return (tokens // 1024, 1024) if tokens % 1024 == 0 else (1, tokens)


def parse_tokens(text: str) -> TokenList:
    """'1,16,512' -> counts (1, 16, 512); an entry BATCHxSEQ ('8x1024') counts batch x seq tokens and, as
    the largest, also sets the batch and sequence length of the GPT-2 block's end-to-end row."""
    counts: list[int] = []
    block: tuple[int, int] | None = None
    for part in (s.strip().lower() for s in text.split(",")):
        if not part:
            continue
        if "x" in part:
            batch, seq = parse_batch_seq(part)
            counts.append(batch * seq)
            if block is None or batch * seq >= block[0] * block[1]:
                block = (batch, seq)
            continue
        try:
            count = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--tokens {text!r}: each entry is a token count or BATCHxSEQ, "
                                             "e.g. 1,16,512 or 8x1024") from None
        if count < 1:
            raise argparse.ArgumentTypeError(f"--tokens {text!r}: token counts must be positive")
        counts.append(count)
    if not counts:
        raise argparse.ArgumentTypeError(f"--tokens {text!r} names no token count; e.g. 1,16,512")
    counts = list(dict.fromkeys(counts))
    largest = max(counts)
    return TokenList(tuple(counts), block if block and block[0] * block[1] == largest else _block_of(largest))


def parse_models(text: str) -> list[str]:
    from .models import parse_names

    try:
        return parse_names(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def parse_counts(text: str) -> list[int]:
    """'512,4096' -> [512, 4096] (positive integers)."""
    try:
        counts = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be a comma list of token counts, e.g. 512,4096") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be a comma list of positive token counts, e.g. 512,4096")
    return counts


MODEL_BUDGET = 0.15  # seconds per side and timing mode of each --model row
GEMM_BUDGET = 1.0


def _ratio(value: float | None) -> str:
    if value is None:
        return "-"
    return f"[green]{value:.2f}x[/]" if value >= 1.0 else f"[red]{value:.2f}x[/]"


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _model_table(result) -> Table:
    """Per M: the decoder layer's sum (bold), then each layer: eager and graph µs, ratios, TB/s, kernel, check."""
    model = result.model["name"]
    table = Table(title=f"{model}: torch.nn.functional.linear vs tcgemm.nn.Linear (ratio = torch / tcgemm)")
    cols = ("M", "layer", "K -> N", "eager torch µs", "eager tcgemm µs", "eager ratio", "graph torch µs",
            "graph tcgemm µs", "graph ratio", "TB/s torch / tcgemm", "% copy bw", "kernel", "check")
    for col in cols:
        table.add_column(col, justify="left" if col in ("layer", "K -> N", "kernel", "check") else "right")
    sums = {s.m: s for s in result.sums}
    for m in dict.fromkeys(r.m for r in result.rows):
        s = sums[m]
        table.add_row(str(m), "[bold]layer sum[/]", "", _us(s.eager_us_torch), _us(s.eager_us_tcgemm),
                      _ratio(s.eager_ratio), _us(s.graph_us_torch), _us(s.graph_us_tcgemm), _ratio(s.graph_ratio),
                      "", "", "", "", style="bold")
        for r in (r for r in result.rows if r.m == m):
            pct = (f"{100 * r.copy_fraction_torch:.0f}% / {100 * r.copy_fraction_tcgemm:.0f}%"
                   if r.copy_fraction_torch is not None and r.copy_fraction_tcgemm is not None else "-")
            check = ("PASS" if r.passed else "[red]FAIL[/]") + f" {r.rel_error:.0e}"
            table.add_row("", r.layer, f"{r.k} -> {r.n}{' +b' if r.bias else ''}", _us(r.eager_us_torch),
                          _us(r.eager_us_tcgemm), _ratio(r.eager_ratio), _us(r.graph_us_torch),
                          _us(r.graph_us_tcgemm), _ratio(r.graph_ratio),
                          f"{r.tbps_torch:.2f} / {r.tbps_tcgemm:.2f} ({r.tbps_basis})", pct, escape(r.kernel), check)
    return table


def _train_table(results) -> Table:
    table = Table(title="MLP training step (forward + backward): torch.nn.Linear vs tcgemm.nn.Linear")
    for col in ("model", "tokens", "MLP", "torch ms", "tcgemm ms", "ratio", "check", "tcgemm kernels"):
        table.add_column(col, justify="right" if col in ("tokens", "torch ms", "tcgemm ms", "ratio") else "left")
    for result in results:
        for t in result.train:
            check = ("PASS" if t.passed else "[red]FAIL[/]") + f" dx {t.rel_error_dx:.0e} dw {t.rel_error_dw:.0e}"
            table.add_row(t.model, str(t.tokens), f"{' -> '.join(t.layers)} ({t.activation})", f"{t.ms_torch:.3f}",
                          f"{t.ms_tcgemm:.3f}", _ratio(t.ratio), check, escape(" ".join(t.kernels)))
    return table


def _model_failures(results) -> int:
    rows = [r.passed for res in results for r in (*res.rows, *res.train)]
    rows += [e.passed for res in results for e in res.end_to_end if e.passed is not None]
    return sum(not ok for ok in rows)


def cmd_model_bench(args: argparse.Namespace) -> int:
    """tcgemm bench --model NAME: every Linear of a decoder layer, torch vs tcgemm.nn.Linear (model_bench)."""
    from . import model_bench as mb
    from .models import DEFAULT_TOKENS

    precision = args.precision or "bf16"
    mb.check_layer_precision(precision)
    tokens = args.tokens or parse_tokens(",".join(map(str, DEFAULT_TOKENS)))
    budget = MODEL_BUDGET if args.budget is None else args.budget
    if budget <= 0:
        raise ValueError(f"--budget {budget}: give a positive number of seconds per side and timing mode")
    train = [] if args.no_train else list(args.train_tokens)
    if args.plot:
        from .plot import require_matplotlib

        require_matplotlib()  # before the bench, not after it
    _need_gpu()
    block = mb.GPT2Config(batch=tokens.block[0], seq=tokens.block[1])
    timer = mb.CudaTimer()
    copy_bps = timer.copy_bandwidth()
    console.print(f"{', '.join(args.model)}: {precision}, M = {', '.join(map(str, tokens.counts))}, "
                  f"{budget} s per side and mode; device copy bandwidth {copy_bps / 1e12:.2f} TB/s")
    results = []
    with _progress() as progress:
        task = progress.add_task("models", total=mb.steps(args.model, tokens.counts, train, True))
        for name in args.model:
            results.append(mb.bench_model(
                name, precision, tokens.counts, budget, train, block, args.attention, timer=timer, copy_bps=copy_bps,
                on_step=lambda desc: progress.update(task, description=desc, advance=1)))
    for result in results:
        console.print(_model_table(result))
        for line in mb.summary_lines(result.end_to_end):
            console.print(f"GPT-2 block end to end, {block.batch}x{block.seq} tokens: {line}", markup=False,
                          highlight=False)
    if train:
        console.print(_train_table(results))
    config = {"models": args.model, "precision": precision, "tokens": list(tokens.counts), "budget_s": budget,
              "train_tokens": train, "block": list(tokens.block), "attention": args.attention}
    record = mb.model_record(results, config, copy_bps)
    if args.json:
        _write_json(record, args.json)
    if args.plot:
        from .plot import plot_models

        console.print(f"wrote {plot_models([record], Path(args.plot))}")
    return 1 if _model_failures(results) else 0


_OUT_DTYPE_NAMES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "int32": "int32"}  # torch names


def _bench_out_dtype(precision: str, name: str | None) -> torch.dtype | None:
    """--out-dtype as a torch dtype, checked against what ``precision`` can write (None: the default)."""
    if name is None:
        return None
    import torch

    from .problem import output_dtypes

    dtype = getattr(torch, _OUT_DTYPE_NAMES[name])
    allowed = output_dtypes(precision)
    if dtype not in allowed:
        names = ", ".join(k for k, v in _OUT_DTYPE_NAMES.items() if getattr(torch, v) in allowed)
        raise ValueError(f"--out-dtype {name} is not available for --precision {precision}; use one of: {names}")
    return dtype


def _bench_defaults(args: argparse.Namespace) -> None:
    """Fill what the command line left open. No --kernels: the headline, `auto` against cuBLAS in bf16 at
    HEADLINE_SHAPES; --ladder (or --kernels ladder / all): every ladder stage, fp32 by default, at
    DEFAULT_SHAPES. An explicit --precision, --kernels or --shapes always wins."""
    ladder = args.ladder or any(t.strip() in ("ladder", "all") for t in (args.kernels or "").split(","))
    if args.kernels is None:
        args.kernels = "ladder" if args.ladder else "auto"
    args.precision = args.precision or ("fp32" if ladder else "bf16")
    args.shapes = args.shapes or (DEFAULT_SHAPES if ladder else HEADLINE_SHAPES)


def cmd_bench(args: argparse.Namespace) -> int:
    if args.model:
        return cmd_model_bench(args)
    _need_gpu()
    from .bench import BenchResult, bench_shape, environment

    _bench_defaults(args)
    args.budget = GEMM_BUDGET if args.budget is None else args.budget
    out_dtype = _bench_out_dtype(args.precision, args.out_dtype)
    if args.plot:
        from .plot import require_matplotlib

        require_matplotlib()  # before the bench, not after it
    names = _kernel_names(args.kernels, args.precision)
    shapes = parse_shapes(args.shapes)
    result = BenchResult(environment())
    with _progress() as progress:
        task = progress.add_task("benchmarking", total=len(shapes) * (len(names) + 1))
        for m, n, k in shapes:
            progress.update(task, description=f"{m}x{n}x{k}")
            rows = bench_shape(m, n, k, names, args.precision, args.layouts, args.budget,
                               on_row=lambda _r: progress.advance(task), out_dtype=out_dtype)
            result.rows += rows
            to = f" -> {args.out_dtype}" if args.out_dtype else ""
            progress.console.print(_bench_table(rows, f"{args.precision} {m}x{n}x{k} ({args.layouts}){to}"))
    if args.json:
        _write_json(result.as_dict(), args.json)
    if args.plot:
        from .plot import charts

        for out in charts(result.as_dict()["rows"], Path(args.plot), args.plot_kind):
            console.print(f"wrote {out}")
    failed = [r for r in result.rows if r.passed is False]
    return 1 if failed else 0


def cmd_inspect(args: argparse.Namespace) -> int:
    from .inspection import inspect_kernel

    info = inspect_kernel(args.kernel, config=args.config, precision=args.precision, layouts=args.layouts,
                          arch=args.arch)
    if args.sass:
        console.print(info.sass, markup=False, highlight=False)
        return 0
    if args.ptx:
        from . import jit

        text = jit.ptx(registry.get(args.kernel).source, jit.as_defines(info.defines.items()), info.arch)
        console.print(text, markup=False, highlight=False)
        return 0
    table = Table(title=f"{info.kernel} [{info.config}] for {info.arch}", show_header=False)
    table.add_row("registers / thread", str(info.registers))
    table.add_row("threads / CTA", str(info.threads))
    table.add_row("shared memory", f"{info.static_smem} B static + {info.dynamic_smem} B dynamic")
    table.add_row("stack (spills)", f"{info.stack} B" + ("  [red]spills![/]" if info.stack else ""))
    table.add_row("CTAs / SM on this GPU", str(info.occupancy_ctas) if info.occupancy_ctas is not None
                  else "- (no GPU of this architecture)")
    for group, count in info.mix.items():
        table.add_row(f"SASS: {group}", str(count))
    table.add_row("defines", " ".join(f"{k}={v}" for k, v in info.defines.items()))
    console.print(table)
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from .plot import charts, load_rows

    shape = parse_shape(args.shape) if args.shape else None
    for out in charts(load_rows(args.results), Path(args.output), args.kind, shape):
        console.print(f"wrote {out}")
    return 0


def cmd_layout(args: argparse.Namespace) -> int:
    """tcgemm layout NAME [--png FILE] | --list: a register fragment as a grid (tcgemm.layouts)."""
    from . import layouts

    if args.list:
        table = Table(title="fragment layouts (tcgemm layout NAME)")
        for col in ("name", "matrix", "threads x regs x elems", "what"):
            table.add_column(col, overflow="fold")
        for name in layouts.names():
            lay = layouts.get(name)
            table.add_row(name, f"{lay.rows} x {lay.cols}", f"{lay.threads} x {lay.regs} x {lay.elems}", lay.summary)
        console.print(table)
        return 0
    if not args.name:
        raise ValueError(f"layout NAME missing: one of {', '.join(layouts.names())} (or --list)")
    lay = layouts.get(args.name)
    if args.png:
        from .plot import layout_png

        console.print(f"wrote {layout_png(lay, Path(args.png))}")
        return 0
    Console(width=max(layouts.table_width(lay), 100)).print(layouts.rich_table(lay))
    return 0


_RUN_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "int8": "int8"}


def cmd_run(args: argparse.Namespace) -> int:
    import torch

    from .entry import gemm
    from .fileio import load_matrix, save_matrix

    a = load_matrix(args.a, "A")
    b = load_matrix(args.b, "B")
    c = load_matrix(args.c, "C") if args.c else None
    _need_gpu()
    dtype = getattr(torch, args.dtype) if args.dtype else a.dtype
    out_dtype = torch.int32 if dtype == torch.int8 else (torch.float32 if args.fp32_out else dtype)
    a, b = a.to("cuda", dtype), b.to("cuda", dtype)
    if c is not None:
        c = c.to("cuda", out_dtype)
    d = gemm(a, b, c, alpha=args.alpha, beta=args.beta if c is not None else 0.0, kernel=args.kernel,
             precision=args.precision, out_dtype=out_dtype)
    path = save_matrix(d, args.output)
    console.print(f"D {tuple(d.shape)} {d.dtype} written to {path}")
    return 0


def _tune_table(entries: Iterable[tuple[str, dict]], title: str) -> Table:
    """One row per tuned shape class: the heuristic's config and time, the fastest and the gain."""
    table = Table(title=title)
    for col in ("shape class", "tuned on", "kernel", "heuristic", "ms", "best", "ms ", "gain", "skipped"):
        table.add_column(col, justify="right" if col.startswith(("ms", "gain", "skipped")) else "left")
    for cls, e in entries:
        times = e.get("times_ms") or {}
        h_ms, b_ms = times.get(e.get("heuristic")), times.get(e.get("best"))
        gain = f"{100 * (h_ms / b_ms - 1):+.1f}%" if h_ms and b_ms else "-"
        shape = "x".join(map(str, e.get("shape") or [])) + f" {e.get('layouts', '')}"
        table.add_row(cls, shape, str(e.get("spec")), str(e.get("heuristic")), f"{h_ms:.3f}" if h_ms else "-",
                      str(e.get("best")), f"{b_ms:.3f}" if b_ms else "-", gain, str(len(e.get("skipped") or {})))
    return table


def _tune_show() -> int:
    import warnings

    import torch

    from . import tune

    files = sorted(tune.cache_root().glob("*.json"))
    if not files:
        console.print(f"No tuned configs in {tune.cache_root()}: kernel='auto' uses its heuristic everywhere. "
                      "Run `tcgemm tune --precision bf16 --shapes 4096` on a GPU to make some.")
        return 0
    key = tune.current_key() if torch.cuda.is_available() else None
    for path in files:
        with warnings.catch_warnings():  # said below, in the listing
            warnings.simplefilter("ignore")
            data = tune.read_cache(path)
        if data is None:
            console.print(f"{path}: [red]unreadable[/] (ignored; --clear deletes it)")
            continue
        k = data.get("key") or {}
        status = ("no GPU visible to compare" if key is None else "[green]in use[/]" if k == key
                  else "[yellow]stale[/] (GPU, driver, CUDA, tcgemm or kernels changed: ignored until re-tuned)")
        console.print(f"{path}: {escape(', '.join(f'{n}={v}' for n, v in k.items()))}; {status}")
        title = f"{k.get('gpu', '?')}: {len(data['entries'])} shape classes"
        console.print(_tune_table(sorted(data["entries"].items()), title))
    if not tune.enabled():
        console.print("[yellow]TCGEMM_TUNE=0 is set: kernel='auto' ignores these files.[/]")
    return 0


def _tune_sources(args: argparse.Namespace) -> dict[tuple[int, int, int], list[str]]:
    """--model: set args.shapes to every (M, N, K) of the models' Linears at each --tokens count, and return
    which layers each shape comes from ({} without --model; --shapes 4096 when neither is given)."""
    from .models import get

    if not args.model:
        if args.tokens is not None:
            raise ValueError("--tokens goes with --model (the token counts M of its layers); with --shapes give "
                             "MxNxK shapes instead")
        args.shapes = args.shapes or parse_shapes("4096")
        return {}
    from .tune import MODEL_TOKENS

    sources: dict[tuple[int, int, int], list[str]] = {}
    counts = args.tokens.counts if args.tokens else MODEL_TOKENS
    for name in args.model:
        for m in counts:
            for lay in get(name).layers:
                sources.setdefault(lay.gemm(m), []).append(f"{name} {lay.name}")
    args.shapes = list(sources)
    return sources


def _one_per_class(planned: list) -> tuple[list, list[tuple[tuple[int, int, int], str]]]:
    """(the first planned shape of each shape class, [(shape, class) of the others])."""
    kept: dict[str, object] = {}
    shared = []
    for p in planned:
        if (p.key, p.layouts) in kept:
            shared.append((p.shape, p.key))
        else:
            kept[(p.key, p.layouts)] = p
    return list(kept.values()), shared


def cmd_tune(args: argparse.Namespace) -> int:
    """tcgemm tune: time every tile config of auto's kernel per shape, keep the fastest (tcgemm.tune)."""
    import torch

    from . import tune

    if args.clear:
        files = list(tune.cache_root().glob("*.json")) + list(tune.cache_root().glob(".tmp-*"))
        for path in files:
            path.unlink(missing_ok=True)
        tune.reload()
        console.print(f"removed {len(files)} tune file(s) from {tune.cache_root()}; kernel='auto' uses its heuristic")
        return 0
    if args.show:
        return _tune_show()
    sources = _tune_sources(args)
    layouts = [lay.strip() for lay in (args.layouts or ("rc" if args.model else "rr")).split(",") if lay.strip()]
    for lay in layouts:
        tune.check_layouts(lay)
    if args.budget <= 0:
        raise ValueError(f"--budget {args.budget}: give a positive number of seconds per config and shape")
    if not args.shapes or not layouts:
        raise ValueError("--shapes and --layouts need at least one entry each, e.g. --shapes 4096 --layouts rr")
    if torch.cuda.is_available():
        from .api import device_info

        cc, sms, _arch = device_info(torch.cuda.current_device())
        where = f"{torch.cuda.get_device_name()} (sm_{cc}, {sms} SMs)"
    elif args.dry_run:
        cc, sms, where = 90, 132, "an H100 (sm_90, 132 SMs): no GPU is visible, so planned for one"
    else:
        console.print("[red]No CUDA GPU is visible: `tcgemm tune` times kernels on the GPU it tunes for.[/] "
                      "Run it on that machine; here `tcgemm tune --dry-run` lists what would be timed and "
                      "`--show` / `--clear` read and delete the cache.")
        return 2
    planned = tune.plan(args.shapes, args.precision, layouts, cc, sms)
    if args.model:  # several layers of a class would each overwrite its one entry: tune the class once
        planned, shared = _one_per_class(planned)
        args.shapes = list(dict.fromkeys(p.shape for p in planned))
        for shape, key in shared:
            console.print(f"{'x'.join(map(str, shape))} ({', '.join(sources.get(shape, []))}): shape class {key} "
                          "is tuned once, by its first shape", highlight=False)
    runs = sum(len(p.configs) for p in planned)
    if args.dry_run:
        table = Table(title=f"tcgemm tune --dry-run: {runs} (shape, config) timings on {where}")
        cols = ("shape", *(("layers",) if sources else ()), "layouts", "shape class", "kernel",
                "configs (* = heuristic's pick)")
        for col in cols:
            table.add_column(col, overflow="fold")
        for p in planned:
            names = " ".join(c.name + ("*" if c is p.heuristic else "") for c in p.configs)
            layers = (", ".join(sources.get(p.shape, [])),) if sources else ()
            table.add_row("x".join(map(str, p.shape)), *layers, p.layouts, p.key, p.spec.name, names)
        console.print(table)
        console.print(f"about {runs * args.budget:.0f} s of timed runs (--budget {args.budget} s per config and "
                      f"shape) plus warm-up; results would go to {tune.cache_root()}")
        return 0
    with _progress() as progress:
        task = progress.add_task("tuning", total=runs)
        results = tune.tune(args.shapes, args.precision, layouts, args.budget, write=False,
                            on_step=lambda desc, adv: progress.update(task, description=desc, advance=adv))
    path = tune.save(results, cc, sms)
    entries = [(r.planned.key, tune.entry(r, cc, sms)) for r in results]
    console.print(_tune_table(entries, f"tcgemm tune {args.precision} on {where}"))
    for r in results:
        for name, why in r.skipped.items():
            console.print(f"  {r.planned.key} {name}: skipped, {escape(why)}", highlight=False)
        if r.best is None:
            console.print(f"  [yellow]{r.planned.key}: no config ran; nothing stored (the heuristic stays)[/]")
    console.print(f"written to {path}: kernel='auto' now uses these configs for their shape classes "
                  "(TCGEMM_TUNE=0 disables; other shapes keep the heuristic)")
    return 0


def _paragraphs(*texts: str) -> str:
    """Help text of paragraphs wrapped to 100 columns (the raw formatter keeps the examples' lines)."""
    import textwrap

    return "\n\n".join(textwrap.fill(t, 100) for t in texts)


def _tune_parser(sub: argparse._SubParsersAction) -> None:
    from .jit import cache_dir

    p = sub.add_parser(
        "tune", help="time every tile config of auto's kernel per shape on this GPU; kernel='auto' then uses "
                     "the fastest (cached per GPU)",
        description=_paragraphs(
            "Autotune kernel='auto'. For each shape, the kernel auto picks (for the precision, layouts and "
            "alignment) keeps its place; what is tuned is its tile config (CTA tile, pipeline stages, cluster, "
            "split-K). Each config is checked once against a float64 reference (a config that fails to launch "
            "or computes a wrong result is skipped, with the reason), then timed with CUDA events after "
            "warm-up: the median of many runs over rotating random inputs larger than L2, in alternating "
            "rounds, each run a CUDA graph's replay of one call per input set (the GPU's time alone: a "
            "short call's host work, the same for every config, would otherwise hide the differences; "
            "timed call by call where a config cannot be captured). The fastest is stored if it beats the "
            "heuristic's pick by 3% or more (closer than that, the spread between processes decides, and "
            "the heuristic's pick is stored), per shape class: precision, layouts, M rounded up to a power "
            "of two, N and K exact, batch > 1 or not, 16-byte alignment (a tuned 4096x14336x4096 serves "
            "every M from 2049 to 4096 of that weight). Shapes never tuned keep the default heuristic.",
            "Cache: one JSON file per GPU, <cache root>/tune/<gpu>-<SMs>sm.json, where the cache root is "
            "$TCGEMM_CACHE_DIR (default ~/.cache/tcgemm), the kernel cache's; here: "
            f"{cache_dir() / 'tune'}. A file records the GPU, SM count, driver and torch CUDA versions, the "
            "tcgemm version and a digest of the kernels and tile configs; when any of them changes the file "
            "is stale and ignored until tuned again.",
            "Disable: TCGEMM_TUNE=0 (auto uses the heuristic only), or --clear. An explicit config= always "
            "wins over the cache."),
        epilog="Examples:\n  tcgemm tune --precision bf16 --shapes 4096,8192,4096x14336x4096\n"
               "  tcgemm tune --precision tf32 --shapes 2048 --layouts rr,rc --budget 0.5\n"
               "  tcgemm tune --precision bf16 --shapes 512,16x4096x4096 --dry-run   # no GPU needed\n"
               "  tcgemm tune --model llama3-8b,qwen2.5-7b --tokens 1,16,2048   # those models' Linears\n"
               "  tcgemm tune --show          # what is cached, and whether it is still in use\n"
               "  tcgemm tune --clear         # back to the heuristic",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--precision", default="bf16", choices=list(registry.PRECISIONS),
                   help="computation precision (default bf16)")
    what_shapes = p.add_mutually_exclusive_group()
    what_shapes.add_argument("--shapes", type=parse_shapes, default=None,
                             help="comma list of N (cube) or MxNxK (default 4096)")
    what_shapes.add_argument("--model", type=parse_models, default=None, metavar="NAME[,NAME]",
                             help="instead of --shapes: every (M, N, K) of these models' decoder-layer Linears "
                                  "(see `tcgemm bench --model`) at each --tokens count, layouts rc (nn.Linear "
                                  "multiplies by weight.T, a column-major B); one entry per shape class (tune the "
                                  "token counts you run: 300 tokens use the entry of 512)")
    p.add_argument("--tokens", type=parse_tokens, default=None,
                   help="with --model: token counts M, comma list (default 1,16,64,128,512: at 2048 and 8192 "
                        "the estimate's picks ran as fast or faster in the model benchmark than configs tune "
                        "timed 3-4%% ahead; name them to tune them anyway)")
    p.add_argument("--layouts", default=None,
                   help="comma list of A/B layouts: rr, rc, cr, cc (default rr; rc with --model)")
    p.add_argument("--budget", type=float, default=0.25,
                   help="seconds of timed runs per config and shape (default 0.25)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--dry-run", action="store_true",
                      help="list the (shape, config) timings without running them (no GPU needed: plans for an "
                           "H100 when none is visible)")
    what.add_argument("--show", action="store_true", help="print the cached results (no GPU needed)")
    what.add_argument("--clear", action="store_true", help="delete the cache files: auto uses its heuristic again")
    p.set_defaults(func=cmd_tune)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcgemm",
        description="Hand-written CUDA GEMM kernels for PyTorch: inspect the ladder, check it, time it against cuBLAS.",
        epilog="Examples:\n  tcgemm info\n  tcgemm bench                     # auto vs cuBLAS, bf16, at the sizes "
               "users run\n  tcgemm bench --ladder            # the fp32 SIMT ladder at 1024^3, 4096^3, "
               "4096x10240x4096\n  tcgemm bench --kernels auto --shapes 8192 --json out.json\n"
               "  tcgemm bench --model gpt2        # GPT-2 block: torch.nn.Linear vs tcgemm.nn.Linear\n"
               "  tcgemm check --kernels simt_warp_tiling --shapes 1,7,127,1000\n"
               "  tcgemm compile --arch sm_90a   # fill the kernel cache, no GPU needed\n"
               "  tcgemm layout mma.m16n8k16.a   # which lane/register holds which A element",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"tcgemm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("info", help="GPU, architecture, peak rates, compiler and cache location").set_defaults(
        func=cmd_info)
    sub.add_parser("list", help="the kernel ladder: techniques, precisions, tile configs, seeds").set_defaults(
        func=cmd_list)

    p = sub.add_parser("compile", help="compile every kernel build into the disk cache (no GPU needed with --arch)")
    p.add_argument("--arch", help="NVRTC target such as sm_80 or sm_90a (default: the current GPU's)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiles (default: CPU count)")
    p.add_argument("--kernels", default="",
                   help="only these kernels' builds, or one config's (kernel:config), comma-separated (e.g. "
                        "wgmma_tma_store before its tests: the tests compile one build at a time)")
    p.add_argument("--precision", choices=list(registry.PRECISIONS), default=None,
                   help="only builds of this precision (default: every precision the kernels serve)")
    p.add_argument("--layouts", default="",
                   help="only builds for these operand layouts, A's then B's: rr, rc, cr or cc (torch.nn.Linear's "
                        "x @ W.T is rc); default: every layout")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("inspect", help="registers, shared memory, spills, occupancy and SASS mix of one kernel "
                                       "(no GPU needed with --arch)")
    p.add_argument("kernel", help="a kernel name from `tcgemm list`")
    p.add_argument("--config", help="tile config name (default: the kernel's first for the precision)")
    p.add_argument("--precision", choices=list(registry.PRECISIONS), help="default: the kernel's first")
    p.add_argument("--layouts", default=None, help="A/B layouts: rr, rc, cr or cc (default rr, or the kernel's own)")
    p.add_argument("--arch", help="target such as sm_80 or sm_90a (default: this GPU's, else sm_90a)")
    p.add_argument("--sass", action="store_true", help="print the SASS listing instead of the summary")
    p.add_argument("--ptx", action="store_true", help="print the PTX instead of the summary")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("plot", help="bar charts from bench JSON files: ladder stages vs cuBLAS, auto vs cuBLAS "
                                    "(no GPU needed)",
                       epilog="Example:\n  tcgemm plot benchmarks/results/*.json --kind both -o h100.png"
                              "   # h100-ladder.png, h100-auto.png",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+", help="JSON files written by `tcgemm bench --json`")
    p.add_argument("-o", "--output", default="ladder.png", help="PNG file to write (default ladder.png)")
    p.add_argument("--kind", choices=["ladder", "auto", "both"], default="ladder",
                   help="ladder: each stage's best config vs cuBLAS at one shape; auto: kernel=auto vs cuBLAS per "
                        "shape; both: OUTPUT's stem + -ladder.png and -auto.png (default ladder)")
    p.add_argument("--shape", help="ladder: N or MxNxK to draw (default 4096, else the largest shape in the files)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("layout", help="which lane/register holds which element of an mma.sync, ldmatrix or wgmma "
                                      "fragment, as a grid (no GPU needed)",
                       description="Print a register fragment as a grid of the matrix: each cell names the thread "
                                   "(T<lane>; 0..127 in a warpgroup), its 32-bit register (r<reg>) and, when a "
                                   "register packs several elements, which one (.e<elem>, low bits first). Derived "
                                   "from tcgemm.fragments, the formulas the kernels use.",
                       epilog="Examples:\n  tcgemm layout --list\n  tcgemm layout mma.m16n8k16.a"
                              "          # T<lane>:r<register>.e<element> per (row, k)\n"
                              "  tcgemm layout ldmatrix.x4.trans --png ldm.png",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", help="layout name, e.g. mma.m16n8k16.a (see --list)")
    p.add_argument("--list", action="store_true", help="list the layout names")
    p.add_argument("--png", help="draw a coloured grid (a colour per lane) to this PNG instead (needs matplotlib)")
    p.set_defaults(func=cmd_layout)

    p = sub.add_parser("run", help="multiply matrices stored in .npy/.pt files: D = alpha*A@B + beta*C")
    p.add_argument("a", help="A: (M, K) or (batch, M, K), .npy or .pt")
    p.add_argument("b", help="B: (K, N) or (batch, K, N), .npy or .pt")
    p.add_argument("-o", "--output", required=True, help="where to write D (.npy or .pt; written atomically)")
    p.add_argument("--c", help="C for beta (broadcasts to D's shape)")
    p.add_argument("--alpha", type=float, default=1.0)
    p.add_argument("--beta", type=float, default=1.0, help="scale of C (default 1; ignored without --c)")
    p.add_argument("--dtype", choices=list(_RUN_DTYPES), help="convert A and B to this dtype (default: A's)")
    p.add_argument("--precision", choices=list(registry.PRECISIONS), help="e.g. tf32 for float32 on tensor cores")
    p.add_argument("--fp32-out", action="store_true", help="float32 output for float16/bfloat16 inputs")
    p.add_argument("--kernel", default="auto", help="kernel name (default auto; see `tcgemm list`)")
    p.set_defaults(func=cmd_run)

    def common(p: argparse.ArgumentParser, shapes: str) -> None:
        p.add_argument("--kernels", default="ladder",
                       help="'ladder' (each kernel, default config), 'all' (every config), or a comma list "
                            "of names, 'auto', or name:config (see `tcgemm list`)")
        p.add_argument("--shapes", default=shapes, help=f"comma list of N (cube) or MxNxK (default {shapes})")
        p.add_argument("--precision", default="fp32", choices=list(registry.PRECISIONS),
                       help="computation precision (default fp32: exact float32)")

    p = sub.add_parser("check", help="compare kernels with a float64 reference on random data")
    common(p, "1,7,127,1000")
    p.add_argument("--layouts", default="rr,rc,cr,cc", help="comma list of A/B layouts: r=row-major, c=column-major")
    p.add_argument("--alpha", type=float, default=1.0)
    p.add_argument("--beta", type=float, default=0.0)
    p.set_defaults(func=cmd_check)

    from .models import DEFAULT_TOKENS, names

    p = sub.add_parser(
        "bench", help="time kernels next to cuBLAS on the same inputs, or (--model) every Linear of a model's "
                      "decoder layer: torch vs tcgemm.nn.Linear; print tables, write JSON",
        description=_paragraphs(
            "GEMM shapes (default): with no arguments, kernel='auto' against cuBLAS in bf16 at "
            f"{HEADLINE_SHAPES} (the sizes users run); --ladder times every ladder stage instead (fp32 unless "
            f"--precision says, at {DEFAULT_SHAPES}). Each kernel is timed in alternation with cuBLAS on the "
            "same rotating random inputs (larger than L2), between CUDA events per call, after warm-up: "
            "medians and the ratio to the cuBLAS time taken beside it. Calls under 0.1 ms are also replayed "
            "from CUDA graphs, kernel and cuBLAS in alternation ('graph µs' columns): the GPU's time without "
            "the per-call host work that the event timing includes.",
            f"Models (--model {','.join(names())} or all): every Linear of one decoder layer at each token "
            "count M (--tokens), tcgemm.nn.Linear against a torch.nn.Linear holding the same weights, both "
            "called as modules on the same inputs, under inference_mode. Weights rotate past L2: enough copies of the "
            "layer (weight, bias, input) that one pass touches more than 3x the L2 cache (at most 12 GiB "
            "per row), call i on copy i mod count, as a model's layers follow one another, so each call "
            "reads its weight from HBM. Eager time: CUDA events around blocks of back-to-back calls, per "
            "call, host work included (a host slower than the GPU shows). Graph time: one call per copy "
            "captured in a CUDA graph, replayed: the GPU alone. Both sides alternate blocks A/B/B/A; "
            "--budget seconds per side and mode and row. Ratio = torch time / tcgemm time: above 1 tcgemm "
            "is faster; the layer sum adds a decoder layer's Linears (attention and norms not included). "
            "Each row checks tcgemm's output against torch's (relative Frobenius error), records the "
            "kernel:config that ran and tcgemm.explain's pick, and reports TB/s moved (weights + input + "
            "output) and the fraction of the device's copy bandwidth, measured once per run. A training "
            "row times the model's MLP forward + backward (--train-tokens; --no-train skips it); for gpt2 "
            "the GPT-2 block's end-to-end tokens/s comes too (at the largest --tokens; BATCHxSEQ sets its "
            "shape)."),
        epilog="Examples:\n  tcgemm bench                                   # the headline: auto vs cuBLAS, bf16\n"
               "  tcgemm bench --ladder                          # the fp32 SIMT ladder vs cuBLAS\n"
               "  tcgemm bench --ladder --precision bf16 --shapes 4096   # the wmma, mma.sync and Hopper ladders\n"
               "  tcgemm bench --kernels auto --shapes 8192 --precision fp16 --json out.json\n"
               "  tcgemm bench --model all --json models.json --plot models.png   # about 4 minutes on an H100\n"
               "  tcgemm bench --model llama3-8b --tokens 1,16,2048 --no-train\n"
               "  tcgemm bench --model gpt2 --tokens 8x1024 --attention sdpa      # M = 8192; block 8x1024\n"
               "  tcgemm tune --model llama3-8b --dry-run                        # the shapes it would tune",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", default=None,
                   help="'ladder' (each kernel, default config), 'all' (every config), or a comma list of names, "
                        "'auto', name:config (see `tcgemm list`) or name:* (every config of that kernel); default auto "
                        "(with --ladder: ladder)")
    p.add_argument("--ladder", action="store_true",
                   help="time every ladder stage of the precision next to cuBLAS (fp32 unless --precision says; "
                        f"shapes {DEFAULT_SHAPES} unless --shapes says)")
    p.add_argument("--shapes", default=None,
                   help=f"comma list of N (cube) or MxNxK (default {HEADLINE_SHAPES}; with --ladder or --kernels "
                        f"ladder/all: {DEFAULT_SHAPES})")
    p.add_argument("--precision", default=None, choices=list(registry.PRECISIONS),
                   help="computation precision (default bf16; fp32 with --ladder or --kernels ladder/all; bf16 "
                        "with --model)")
    p.add_argument("--layouts", default="rr", help="A/B layouts: rr, rc, cr or cc (default rr)")
    p.add_argument("--budget", type=float, default=None,
                   help=f"seconds of timed runs per kernel and shape (default {GEMM_BUDGET}); with --model, per "
                        f"side, timing mode and row (default {MODEL_BUDGET})")
    p.add_argument("--out-dtype", choices=sorted(_OUT_DTYPE_NAMES), default=None,
                   help="D's dtype (default: the precision's own; fp16/bf16 may write fp32, fp8 bf16, fp16 or "
                        "fp32; cuBLAS then runs torch.mm(..., out_dtype=) or torch._scaled_mm's out_dtype)")
    p.add_argument("--json", help="write every figure and the environment to this JSON file")
    p.add_argument("--plot", help="after the bench, draw its rows to this PNG (needs matplotlib; see `tcgemm plot`); "
                                  "with --model: ratio torch / tcgemm against M per model, eager and graph")
    p.add_argument("--plot-kind", choices=["ladder", "auto", "both"], default="both",
                   help="with --plot: as `tcgemm plot --kind` (default both: PLOT's stem + -ladder/-auto.png, "
                        "each the rows have data for)")
    p.add_argument("--model", type=parse_models, default=None, metavar="NAME[,NAME]",
                   help=f"instead of GEMM shapes: a model's decoder-layer Linears, torch vs tcgemm.nn.Linear; "
                        f"one or more of {', '.join(names())}, or all")
    p.add_argument("--tokens", type=parse_tokens, default=None,
                   help=f"with --model: token counts M, comma list (default {','.join(map(str, DEFAULT_TOKENS))}); "
                        "an entry BATCHxSEQ counts batch x seq tokens and shapes gpt2's end-to-end block row")
    p.add_argument("--train-tokens", type=parse_counts, default=[512, 4096],
                   help="with --model: token counts of the MLP training-step rows (default 512,4096)")
    p.add_argument("--no-train", action="store_true", help="with --model: skip the training-step rows")
    p.add_argument("--attention", choices=["none", "sdpa"], default="none",
                   help="with --model gpt2: the end-to-end block skips attention (default) or runs torch SDPA, "
                        "the same in both models")
    p.set_defaults(func=cmd_bench)  # precision, kernels, shapes: _bench_defaults (GEMM shapes), bf16 for --model
    _tune_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, NotImplementedError, FileNotFoundError, PlotUnavailable) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")  # escape: '[plot]' is text, not rich markup
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
