"""auto against cuBLAS at issue 27's sweep: every precision, both weight layouts, one JSON.

    python3 tools/precision_sweep.py --json $OUT/sweep.json               # the default shapes and precisions
    python3 tools/precision_sweep.py --precisions bf16,fp16 --layouts rc --shapes 32x4096x4096,4096

Issue 27 asks that no precision among fp32, tf32, fp16 and bf16 (int8 against ``torch._int_mm``) fall below
0.9x cuBLAS at any shape of the benchmark sweep. This runs ``tcgemm bench --kernels auto`` for each precision and
layout pair (rr: B row-major, ``x @ w``; rc: B column-major, ``x @ W.t()`` as ``nn.Linear`` stores it), each in its
own process, one after another (the GPU timed by one process at a time). A first pass with a tiny budget runs the
pairs in parallel processes to compile every kernel they need into the disk cache, so the timed pass pays no JIT.

The ratio of a row is cuBLAS's time over tcgemm's in the same process, on the same inputs: CUDA-graph replay where
the bench replayed the call (calls under 0.1 ms: the GPU alone), else the eager per-call time (host work
included); both are kept in the JSON. With ``--processes N`` every pair runs N times (all pairs once, then again:
the GPU's clock and temperature drift over minutes) and a row's ratio is the median of its N, the lowest beside
it: the large shapes' eager ratios moved by 4% between two single-process sweeps. Rows whose median is below
``--floor`` are listed at the end. A row whose cuBLAS side cannot run (``torch._int_mm`` wants M > 16 and N, K
multiples of 8) has no ratio and is listed as such.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ("16x4096x4096,32x4096x4096,64x4096x4096,128x4096x4096,1024,2047x2045x2046,4095,4096,4097,8192,"
          "4096x14336x4096,4096x4096x14336,8192x8192x1024")
PRECISIONS = "fp32,tf32,bf16,fp16,int8"


def row_ratio(row: dict) -> tuple[float | None, str]:
    """cuBLAS's time over tcgemm's for one bench row, and which timing it is ("graph" or "eager")."""
    graph, cublas_graph = row.get("graph_us"), row.get("cublas_graph_us")
    if graph and cublas_graph:
        return cublas_graph / graph, "graph"
    if row.get("ms") and row.get("cublas_ms"):
        return row["cublas_ms"] / row["ms"], "eager"
    return None, "none"


def medians(runs: dict[str, list[list[dict]]]) -> dict[tuple[str, str], tuple[float | None, float | None, str]]:
    """(pair, MxNxK) -> (median ratio over the processes, lowest, timing) of the tcgemm rows; None where no process
    had a cuBLAS time."""
    found: dict[tuple[str, str], list[tuple[float | None, str]]] = {}
    for pair, processes in runs.items():
        for rows in processes:
            for row in rows:
                if "cublas" not in row.get("kernel", ""):
                    found.setdefault((pair, f"{row['m']}x{row['n']}x{row['k']}"), []).append(row_ratio(row))
    out = {}
    for key, seen in found.items():
        ratios = [r for r, _ in seen if r is not None]
        how = next((h for r, h in seen if r is not None), "none")
        out[key] = (statistics.median(ratios), min(ratios), how) if ratios else (None, None, how)
    return out


def below(runs: dict[str, list[list[dict]]], floor: float) -> list[str]:
    """One line per tcgemm row whose median is under ``floor`` (or without a cuBLAS time), as 'pair MxNxK median
    (lowest, timing)'."""
    lines = []
    for (pair, shape), (median, lowest, how) in medians(runs).items():
        if median is None:
            lines.append(f"{pair:8s} {shape:18s}: no cuBLAS time (its side cannot run)")
        elif median < floor:
            lines.append(f"{pair:8s} {shape:18s}: {median:.3f} (lowest {lowest:.3f}, {how})")
    return lines


def bench(precision: str, layouts: str, shapes: str, budget: float, out: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tcgemm", "bench", "--precision", precision, "--layouts", layouts, "--kernels", "auto",
           "--shapes", shapes, "--budget", str(budget), "--json", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--precisions", default=PRECISIONS, help=f"comma list (default {PRECISIONS})")
    ap.add_argument("--layouts", default="rr,rc", help="comma list of A/B layouts (default rr,rc)")
    ap.add_argument("--shapes", default=SHAPES, help="as tcgemm bench --shapes takes them (default: the sweep's)")
    ap.add_argument("--budget", type=float, default=0.4, help="seconds of timed runs per row and side (default 0.4)")
    ap.add_argument("--floor", type=float, default=0.9, help="list the rows below this ratio (default 0.9)")
    ap.add_argument("--processes", type=int, default=1, help="timed runs of every pair, each its own process "
                    "(default 1; the README's tables take the median of 3)")
    ap.add_argument("--json", required=True, help="write every row, by precision-layout pair, to this file")
    args = ap.parse_args()
    pairs = [(p, lay) for p in args.precisions.split(",") for lay in args.layouts.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        warm = [bench(p, lay, args.shapes, 0.01, Path(tmp) / f"warm-{p}-{lay}.json") for p, lay in pairs]
        for proc in warm:  # (compiles only: their timings share the GPU and are thrown away)
            proc.communicate()
        runs: dict[str, list[list[dict]]] = {}
        environment = None
        for i in range(args.processes):
            for p, lay in pairs:
                out = Path(tmp) / f"{p}-{lay}-{i}.json"
                text, _ = bench(p, lay, args.shapes, args.budget, out).communicate()
                if not out.exists():
                    print(f"{p} {lay}: tcgemm bench wrote no results\n{text[-2000:]}", file=sys.stderr)
                    continue
                data = json.loads(out.read_text())
                environment = environment or data.get("environment")
                runs.setdefault(f"{p}-{lay}", []).append(data["rows"])
                rows = sum("cublas" not in r.get("kernel", "") for r in data["rows"])
                print(f"{p} {lay}, process {i + 1} of {args.processes}: {rows} rows", flush=True)
    Path(args.json).write_text(json.dumps({
        "environment": environment, "benchmark": "tools/precision_sweep.py: tcgemm bench --kernels auto per "
        "precision and layout pair, each pair's processes in order", "shapes": args.shapes, "floor": args.floor,
        "processes": args.processes, "runs": runs}, indent=1))
    lines = below(runs, args.floor)
    print(f"rows whose median is below {args.floor}x cuBLAS (or without a cuBLAS time): {len(lines)}")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    main()
