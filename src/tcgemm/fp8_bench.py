"""Benchmark of fp8 GEMMs with per-tensor and row-wise scales: tcgemm against torch._scaled_mm.

    python -m tcgemm.fp8_bench --json fp8.json [--shapes 4096,8192,128x4096x4096] [--modes tensor,row]

e4m3 inputs (A row-major M x K, B = W^T of a row-major N x K weight, as torch._scaled_mm wants them), bf16 out.
``tensor``: one float32 scale per operand; ``row``: ``scale_a`` (M, 1) and ``scale_b`` (1, N), torch._scaled_mm's
row-wise mode (tcgemm: kernels/include/hopper_epilogue.cuh, scale_rows_cols). The default shapes are issue 31's:
4096^3, 8192^3, 128 x 4096 x 4096, 16 x 4096 x 4096 and Llama-3-8B's layers (qkv, o, gate_up, down) at 2048 and
4096 tokens.

Both sides run in one process on the same inputs, enough copies of operands and scales to pass 2 x L2, timed
interleaved (tcgemm.model_bench.CudaTimer): eager (host work included; medians of blocks in A/B/B/A order) and
CUDA-graph replay (one call per copy). Ratios are torch time / tcgemm time (> 1: tcgemm faster); TFLOP/s from the
graph times. Each side's result is checked against a float64 reference of the same quantized operands and scales.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from .model_bench import CudaTimer, dump_rows, rotation_count


@dataclass
class Row:
    m: int
    n: int
    k: int
    mode: str  # "tensor" | "row"
    sets: int
    kernel: str  # what tcgemm ran ("kernel:config")
    eager_us_torch: float
    eager_us_tcgemm: float
    eager_ratio: float
    graph_us_torch: float | None
    graph_us_tcgemm: float | None
    graph_ratio: float | None
    tflops_torch: float | None
    tflops_tcgemm: float | None
    rel_error_torch: float
    rel_error_tcgemm: float


LLAMA3_8B = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)]  # (N, K) of qkv, o, gate_up, down
DEFAULT_SHAPES = ([(4096, 4096, 4096), (8192, 8192, 8192), (128, 4096, 4096), (16, 4096, 4096)]
                  + [(m, n, k) for m in (2048, 4096) for n, k in LLAMA3_8B])


def _error(y: torch.Tensor, ref: torch.Tensor) -> float:
    return (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item()


def bench_shape(m: int, n: int, k: int, mode: str, timer: CudaTimer, budget_s: float,
                log: Callable[[str], None], config: str | None = None) -> Row:
    import tcgemm
    from tcgemm import launch

    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    touched = m * k + n * k + 2 * m * n + 4 * (m + n)
    sets = rotation_count(touched, touched + 2 * m * n, timer.l2_bytes(), free_bytes=timer.free_bytes())
    e4m3 = torch.float8_e4m3fn
    xs = [torch.randn(m, k, device="cuda", generator=gen).to(e4m3) for _ in range(sets)]
    ws = [torch.randn(n, k, device="cuda", generator=gen).to(e4m3) for _ in range(sets)]
    if mode == "row":
        sas = [torch.rand(m, 1, device="cuda", generator=gen) + 0.5 for _ in range(sets)]
        sbs = [torch.rand(1, n, device="cuda", generator=gen) + 0.5 for _ in range(sets)]
    else:
        sas = [torch.rand((), device="cuda", generator=gen) + 0.5 for _ in range(sets)]
        sbs = [torch.rand((), device="cuda", generator=gen) + 0.5 for _ in range(sets)]

    def theirs(i: int) -> torch.Tensor:
        return torch._scaled_mm(xs[i], ws[i].t(), sas[i], sbs[i], out_dtype=torch.bfloat16)

    def ours(i: int) -> torch.Tensor:
        return tcgemm.gemm(xs[i], ws[i].t(), scale_a=sas[i], scale_b=sbs[i], config=config)

    ref = sas[0].double().reshape(-1, 1) * (xs[0].double() @ ws[0].double().t()) * sbs[0].double().reshape(1, -1)
    with launch.trace() as seen:
        err_ours = _error(ours(0), ref)
    err_theirs = _error(theirs(0), ref)
    del ref
    e_t, e_o, _, _ = timer.eager((theirs, ours), sets, budget_s)
    g_t, g_o = timer.graphs((theirs, ours), sets, budget_s, min(e_t, e_o))
    flops = 2.0 * m * n * k
    row = Row(m, n, k, mode, sets, seen[-1] if seen else "?", e_t, e_o, e_t / e_o, g_t, g_o,
              g_t / g_o if g_t and g_o else None, flops / g_t / 1e6 if g_t else None,
              flops / g_o / 1e6 if g_o else None, err_theirs, err_ours)
    graph = f"{row.graph_ratio:.3f}x" if row.graph_ratio else "-"
    log(f"{m:5d} x {n:5d} x {k:5d} {mode:6s} {row.kernel:38s} eager {e_o:8.1f} us vs {e_t:8.1f} "
        f"({row.eager_ratio:.3f}x)  graph {g_o or 0:8.1f} vs {g_t or 0:8.1f} ({graph})  "
        f"err {err_ours:.2e} vs {err_theirs:.2e}")
    return row


def _shape(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.lower().split("x")]
    if len(parts) == 1:
        return parts[0], parts[0], parts[0]
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: give N (a cube) or MxNxK")
    return parts[0], parts[1], parts[2]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tcgemm.fp8_bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--shapes", help="comma list of N (cube) or MxNxK (default: issue 31's shapes)")
    parser.add_argument("--modes", default="tensor,row", help="scale modes: tensor, row (comma-separated)")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of timing per side and mode")
    parser.add_argument("--config", help="tcgemm's tile config by name (default: auto's; `tcgemm list` names them)")
    parser.add_argument("--json", help="write the rows and the environment here")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU (an H100: fp8 runs on sm_90)")
    modes = [m for m in args.modes.split(",") if m]
    for mode in modes:
        if mode not in ("tensor", "row"):
            parser.error(f"--modes: {mode!r} is not tensor or row")
    shapes = [_shape(s) for s in args.shapes.split(",")] if args.shapes else DEFAULT_SHAPES
    from .bench import environment

    timer = CudaTimer()
    env = environment()
    rows: list[Row] = []
    for m, n, k in shapes:
        for mode in modes:
            rows.append(bench_shape(m, n, k, mode, timer, args.budget, lambda s: print(s, flush=True), args.config))
            timer.empty_cache()
            dump_rows(args.json, env, rows)
    if args.json:
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
