"""What a whole-matrix C costs: D = A B + C (a residual, a partial sum) against D = A B, tcgemm against cuBLAS.

bf16, A row-major and B column-major (x @ w.t()), C of D's shape; per shape, same process, interleaved: tcgemm
without C, tcgemm with C (beta = 1), tcgemm with C at a 4-byte (not 16-byte) aligned address, each on the config
auto runs with C, torch.mm and torch.addmm. The 16-byte aligned C is staged in shared memory a few k-tiles ahead
(hopper_epilogue.cuh), the other is read from L2 in the epilogue. Inputs rotate over enough copies
that each call reads them from HBM; CUDA events around each call after warm-up, medians. Also the relative
error of tcgemm's D with C against float64, and the configs auto ran with and without C.

    python3 benchmarks/probes/c_epilogue.py [--shapes 2048x8192x14336,...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch

import tcgemm
from tcgemm import launch
from tcgemm.check import reference, relative_error

DEFAULT = "2048x8192x14336,4096x8192x7168,4096x8192x14336,2048x4096x4096,4096x4096x4096,8192x8192x8192"


def _median_ms(fn, sets: int, runs: int) -> list[float]:
    times = []
    for r in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(r % sets)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=DEFAULT, help="comma-separated MxNxK")
    parser.add_argument("--runs", type=int, default=40, help="timed calls per side and round")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    dt = torch.bfloat16
    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        per_set = (m * k + n * k + 2 * m * n) * 2
        sets = max(2, min(8, -(-3 * 50 * 2**20 // per_set)))
        a = [torch.randn(m, k, device="cuda", dtype=dt) for _ in range(sets)]
        w = [torch.randn(n, k, device="cuda", dtype=dt) * k**-0.5 for _ in range(sets)]
        c = [torch.randn(m, n, device="cuda", dtype=dt) for _ in range(sets)]
        c_l2 = [torch.randn(m, n + 8, device="cuda", dtype=dt)[:, 2:n + 2] for _ in range(sets)]  # (4-byte aligned)
        with launch.trace() as seen_plain:
            tcgemm.gemm(a[0], w[0].t())
        with launch.trace() as seen:
            tcgemm.gemm(a[0], w[0].t(), c[0], beta=1.0)
        kernel, _, config = seen[0].partition(":")
        run = {"kernel": kernel, "config": config}
        sides = {
            "tc": lambda i, a=a, w=w, run=run: tcgemm.gemm(a[i], w[i].t(), **run),
            "tc+c": lambda i, a=a, w=w, c=c, run=run: tcgemm.gemm(a[i], w[i].t(), c[i], beta=1.0, **run),
            "tc+c_l2": lambda i, a=a, w=w, c=c_l2, run=run: tcgemm.gemm(a[i], w[i].t(), c[i], beta=1.0, **run),
            "torch": lambda i, a=a, w=w: torch.mm(a[i], w[i].t()),
            "torch+c": lambda i, a=a, w=w, c=c: torch.addmm(c[i], a[i], w[i].t()),
        }
        for fn in sides.values():
            for i in range(sets):
                fn(i)
        torch.cuda.synchronize()
        times: dict[str, list[float]] = {name: [] for name in sides}
        for rnd in range(4):  # A B B A ...
            order = list(sides) if rnd % 2 == 0 else list(reversed(sides))
            for name in order:
                times[name] += _median_ms(sides[name], sets, args.runs)
        ms = {name: statistics.median(t) for name, t in times.items()}
        d = tcgemm.gemm(a[0], w[0].t(), c[0], beta=1.0)
        ref = reference(a[0], w[0].t(), c[0], 1.0, 1.0)
        err = relative_error(d, ref)
        row = {"shape": [m, n, k], "ms": ms, "c_cost_tcgemm": ms["tc+c"] / ms["tc"] - 1,
               "c_cost_tcgemm_l2": ms["tc+c_l2"] / ms["tc"] - 1,
               "c_cost_torch": ms["torch+c"] / ms["torch"] - 1, "ratio_with_c": ms["torch+c"] / ms["tc+c"],
               "rel_error_c": err, "kernel_c": seen[0], "kernel_auto_without_c": seen_plain[0]}
        rows.append(row)
        print(f"{m}x{n}x{k}: tcgemm {ms['tc']:.4f} ms, with C {ms['tc+c']:.4f} "
              f"(+{100 * row['c_cost_tcgemm']:.1f}%), from L2 {ms['tc+c_l2']:.4f} "
              f"(+{100 * row['c_cost_tcgemm_l2']:.1f}%); "
              f"torch {ms['torch']:.4f}, addmm {ms['torch+c']:.4f} (+{100 * row['c_cost_torch']:.1f}%); with C "
              f"torch/tcgemm {row['ratio_with_c']:.3f}; {seen[0]} (without C {seen_plain[0]}); error {err:.1e}",
              flush=True)
        del a, w, c, c_l2
        torch.cuda.empty_cache()
    if args.json:
        from tcgemm.bench import environment

        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
