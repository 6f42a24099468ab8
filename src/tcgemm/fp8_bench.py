"""Benchmark of fp8 GEMMs with per-tensor, row-wise and block-wise scales: tcgemm against torch._scaled_mm.

    python -m tcgemm.fp8_bench --json fp8.json [--shapes 4096,8192,128x4096x4096] [--modes tensor,row]
    python -m tcgemm.fp8_bench --modes block --shapes deepseek --json block.json

e4m3 inputs (A row-major M x K, B = W^T of a row-major N x K weight, as torch._scaled_mm wants them), bf16 out.
``tensor``: one float32 scale per operand; ``row``: ``scale_a`` (M, 1) and ``scale_b`` (1, N), torch._scaled_mm's
row-wise mode (tcgemm: kernels/include/hopper_epilogue.cuh, scale_rows_cols); ``block``: DeepSeek-V3's scales,
``scale_a`` (M, ceil(K/128)) per 1 x 128 group (M-major, as tcgemm.quantize_fp8 returns them) and ``scale_b``
(ceil(N/128), ceil(K/128)) per 128 x 128 block (kernels/include/block_scales.cuh), against torch._scaled_mm's
block-wise mode where this torch and GPU run it (else tcgemm alone, its TFLOP/s beside DeepGEMM's published H800
figures: DEEPGEMM_PUBLISHED). The default shapes are issue 31's: 4096^3, 8192^3, 128 x 4096 x 4096, 16 x 4096 x 4096
and Llama-3-8B's layers (qkv, o, gate_up, down) at 2048 and 4096 tokens; ``--shapes deepseek``: DeepSeek-V3's dense
shapes of DeepGEMM's table at M = 64, 128, 4096.

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
    mode: str  # "tensor" | "row" | "block"
    sets: int
    kernel: str  # what tcgemm ran ("kernel:config")
    eager_us_torch: float | None  # (None: torch has no such mode here; `baseline` says why)
    eager_us_tcgemm: float
    eager_ratio: float | None
    graph_us_torch: float | None
    graph_us_tcgemm: float | None
    graph_ratio: float | None
    tflops_torch: float | None
    tflops_tcgemm: float | None
    rel_error_torch: float | None
    rel_error_tcgemm: float
    baseline: str = "torch._scaled_mm"
    deepgemm_published_tflops: float | None = None  # DeepGEMM's README (H800, its own timing), same shape


LLAMA3_8B = [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)]  # (N, K) of qkv, o, gate_up, down
DEFAULT_SHAPES = ([(4096, 4096, 4096), (8192, 8192, 8192), (128, 4096, 4096), (16, 4096, 4096)]
                  + [(m, n, k) for m in (2048, 4096) for n, k in LLAMA3_8B])
# DeepGEMM's published dense fp8 (block-wise) figures, TFLOP/s by (M, N, K): its README at commit 55ab91f
# (2025-03-25), measured by DeepSeek on an H800 (the H100's SM count and clocks) with CUDA 12.8 and their own timing.
DEEPGEMM_PUBLISHED = {
    (64, 2112, 7168): 206, (64, 24576, 1536): 289, (64, 32768, 512): 219, (64, 7168, 16384): 336,
    (64, 4096, 7168): 287, (64, 7168, 2048): 295, (128, 2112, 7168): 352, (128, 24576, 1536): 535,
    (128, 32768, 512): 358, (128, 7168, 16384): 645, (128, 4096, 7168): 533, (128, 7168, 2048): 510,
    (4096, 2112, 7168): 1009, (4096, 24576, 1536): 1125, (4096, 32768, 512): 751, (4096, 7168, 16384): 1426,
    (4096, 4096, 7168): 1265, (4096, 7168, 2048): 1168,
}


def _error(y: torch.Tensor, ref: torch.Tensor) -> float:
    return (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item()


def bench_shape(m: int, n: int, k: int, mode: str, timer: CudaTimer, budget_s: float,
                log: Callable[[str], None], config: str | None = None, kernel: str = "auto") -> Row:
    import tcgemm
    from tcgemm import launch

    gen = torch.Generator(device="cuda").manual_seed(m + 3 * n + 7 * k)
    touched = m * k + n * k + 2 * m * n + 4 * (m + n)
    sets = rotation_count(touched, touched + 2 * m * n, timer.l2_bytes(), free_bytes=timer.free_bytes())
    e4m3 = torch.float8_e4m3fn
    xs = [torch.randn(m, k, device="cuda", generator=gen).to(e4m3) for _ in range(sets)]
    ws = [torch.randn(n, k, device="cuda", generator=gen).to(e4m3) for _ in range(sets)]
    kb, nb = -(-k // 128), -(-n // 128)
    if mode == "row":
        sas = [torch.rand(m, 1, device="cuda", generator=gen) + 0.5 for _ in range(sets)]
        sbs = [torch.rand(1, n, device="cuda", generator=gen) + 0.5 for _ in range(sets)]
    elif mode == "block":
        sas = [(torch.rand(kb, m, device="cuda", generator=gen) + 0.5).t() for _ in range(sets)]  # M-major
        sbs = [torch.rand(nb, kb, device="cuda", generator=gen) + 0.5 for _ in range(sets)]
    else:
        sas = [torch.rand((), device="cuda", generator=gen) + 0.5 for _ in range(sets)]
        sbs = [torch.rand((), device="cuda", generator=gen) + 0.5 for _ in range(sets)]

    def ours(i: int) -> torch.Tensor:
        return tcgemm.gemm(xs[i], ws[i].t(), scale_a=sas[i], scale_b=sbs[i], kernel=kernel, config=config)

    ref = _reference(xs[0], ws[0], sas[0], sbs[0], mode)
    theirs, baseline = _torch_side(xs, ws, sas, sbs, mode, ref)
    with launch.trace() as seen:
        err_ours = _error(ours(0), ref)
    err_theirs = _error(theirs(0), ref) if theirs is not None else None
    del ref
    flops = 2.0 * m * n * k
    published = DEEPGEMM_PUBLISHED.get((m, n, k)) if mode == "block" else None
    if theirs is None:
        e_o = timer.eager((ours, ours), sets, budget_s)[0]  # (the timer interleaves two sides: ours twice)
        g_o = timer.graphs((ours, ours), sets, budget_s, e_o)[0]
        e_t = g_t = None
    else:
        e_t, e_o, _, _ = timer.eager((theirs, ours), sets, budget_s)
        g_t, g_o = timer.graphs((theirs, ours), sets, budget_s, min(e_t, e_o))
    row = Row(m, n, k, mode, sets, seen[-1] if seen else "?", e_t, e_o, e_t / e_o if e_t else None, g_t, g_o,
              g_t / g_o if g_t and g_o else None, flops / g_t / 1e6 if g_t else None,
              flops / g_o / 1e6 if g_o else None, err_theirs, err_ours, baseline, published)
    graph = f"{row.graph_ratio:.3f}x" if row.graph_ratio else "-"
    versus = (f"vs {e_t:8.1f} ({row.eager_ratio:.3f}x)  graph {g_o or 0:8.1f} vs {g_t or 0:8.1f} ({graph})  "
              f"err {err_ours:.2e} vs {err_theirs:.2e}" if theirs is not None else
              f"graph {g_o or 0:8.1f} us = {row.tflops_tcgemm or 0:6.0f} TFLOP/s"
              + (f" (DeepGEMM published, H800: {published})" if published else "") + f"  err {err_ours:.2e}")
    log(f"{m:5d} x {n:5d} x {k:5d} {mode:6s} {row.kernel:38s} eager {e_o:8.1f} us {versus}")
    return row


def _reference(x: torch.Tensor, w: torch.Tensor, sa: torch.Tensor, sb: torch.Tensor, mode: str) -> torch.Tensor:
    """float64 D of the quantized operands and their scales (x (M, K), w (N, K))."""
    if mode != "block":
        return sa.double().reshape(-1, 1) * (x.double() @ w.double().t()) * sb.double().reshape(1, -1)
    out = torch.zeros(x.shape[0], w.shape[0], dtype=torch.float64, device=x.device)
    cols = torch.arange(w.shape[0], device=x.device) // 128
    for j in range(sa.shape[1]):
        ks = slice(128 * j, 128 * (j + 1))
        out += sa[:, j:j + 1].double() * (x[:, ks].double() @ w[:, ks].double().t()) * sb[cols, j].double()
    return out


def _torch_side(xs: list, ws: list, sas: list, sbs: list, mode: str,
                ref: torch.Tensor) -> tuple[Callable[[int], torch.Tensor] | None, str]:
    """torch._scaled_mm for the mode, and what it is. Block-wise: the forms torch versions take the weight's scales in
    are tried in turn, and the first whose result matches the reference is timed; None if none runs here."""
    if mode != "block":
        return (lambda i: torch._scaled_mm(xs[i], ws[i].t(), sas[i], sbs[i], out_dtype=torch.bfloat16)), \
            "torch._scaled_mm"
    forms = {"scale_b (N/128, K/128)^T": lambda s: s.t(), "scale_b (N/128, K/128)": lambda s: s,
             "scale_b (K/128, N/128) contiguous": lambda s: s.t().contiguous()}
    failures = []
    for name, form in forms.items():
        sbs_form = [form(s) for s in sbs]
        try:
            y = torch._scaled_mm(xs[0], ws[0].t(), sas[0], sbs_form[0], out_dtype=torch.bfloat16)
            torch.cuda.synchronize()
        except (RuntimeError, ValueError) as exc:
            failures.append(f"{name}: {str(exc).splitlines()[0][:120]}")
            continue
        if _error(y, ref) < 2e-2:
            return ((lambda i, f=sbs_form: torch._scaled_mm(xs[i], ws[i].t(), sas[i], f[i], out_dtype=torch.bfloat16)),
                    f"torch._scaled_mm block-wise, {name}")
        failures.append(f"{name}: ran, wrong result (error {_error(y, ref):.2e})")
    return None, "none: torch._scaled_mm has no block-wise mode here (" + "; ".join(failures) + ")"


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
    parser.add_argument("--shapes", help="comma list of N (cube) or MxNxK (default: issue 31's shapes), or deepseek "
                                         "(DeepGEMM's dense table)")
    parser.add_argument("--modes", default="tensor,row", help="scale modes: tensor, row, block (comma-separated)")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of timing per side and mode")
    parser.add_argument("--kernel", default="auto", help="tcgemm's kernel by name (default: auto; `tcgemm list`)")
    parser.add_argument("--config", help="tcgemm's tile configs by name, comma-separated: a row each (default: the "
                                         "kernel's pick; `tcgemm list` names them)")
    parser.add_argument("--json", help="write the rows and the environment here")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU (an H100: fp8 runs on sm_90)")
    modes = [m for m in args.modes.split(",") if m]
    for mode in modes:
        if mode not in ("tensor", "row", "block"):
            parser.error(f"--modes: {mode!r} is not tensor, row or block")
    if args.shapes == "deepseek":
        shapes = list(DEEPGEMM_PUBLISHED)
    else:
        shapes = [_shape(s) for s in args.shapes.split(",")] if args.shapes else DEFAULT_SHAPES
    from .bench import environment

    timer = CudaTimer()
    env = environment()
    rows: list[Row] = []
    configs: list[str | None] = [c for c in args.config.split(",") if c] if args.config else [None]
    for m, n, k in shapes:
        for mode in modes:
            for config in configs:
                rows.append(bench_shape(m, n, k, mode, timer, args.budget, lambda s: print(s, flush=True), config,
                                        args.kernel))
                timer.empty_cache()
                dump_rows(args.json, env, rows)
    if args.json:
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
