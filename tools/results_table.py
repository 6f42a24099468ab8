"""Markdown tables for the docs from committed benchmark JSON files (docs/ladder.md's are from tools/readme_tables.py).

    python tools/results_table.py benchmarks/results/FILE.json [...]

One table per (precision, shape): every kernel's TFLOP/s and its ratio to
cuBLAS measured in the same run, plus the file and environment it came from.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def tables(path: Path) -> str:
    data = json.loads(path.read_text())
    env = data["environment"]
    groups: dict[tuple[str, int, int, int], list[dict]] = defaultdict(list)
    for row in data["rows"]:
        groups[(row["precision"], row["m"], row["n"], row["k"])].append(row)
    lines = [f"From `{path.as_posix()}` — {env['gpu']}, driver {env['driver']}, CUDA {env['cuda']}, "
             f"torch {env['torch']}, commit {env['commit']}, {env['date']}.", ""]
    for (precision, m, n, k), rows in groups.items():
        lines += [f"**{precision}, {m}×{n}×{k}**", "",
                  "| kernel | tile | TFLOP/s | vs cuBLAS | rel. error |", "|---|---|---:|---:|---:|"]
        for r in rows:
            pct = f"{r['pct_cublas'] / 100:.2f}×" if r["pct_cublas"] is not None else "n/a"
            err = f"{r['error']:.1e}" if r["error"] is not None else "-"
            lines.append(f"| {r['kernel']} | {r['config']} | {r['tflops']:.1f} | {pct} | {err} |")
        lines.append("")
    return "\n".join(lines)


def compact(path: Path) -> str:
    """One table: a row per kernel/config, a column per shape, cells 'TFLOP/s (ratio to cuBLAS)'."""
    data = json.loads(path.read_text())
    shapes: list[tuple[int, int, int]] = []
    cells: dict[tuple[str, str], dict[tuple[int, int, int], str]] = defaultdict(dict)
    for r in data["rows"]:
        shape = (r["m"], r["n"], r["k"])
        if shape not in shapes:
            shapes.append(shape)
        pct = f" ({r['pct_cublas'] / 100:.2f}×)" if r["pct_cublas"] is not None else ""
        cells[(r["kernel"], r["config"])][shape] = f"{r['tflops']:.1f}{pct}"
    head = "| kernel | tile | " + " | ".join("×".join(map(str, s)) for s in shapes) + " |"
    lines = [head, "|---|---|" + "---:|" * len(shapes)]
    for (kernel, config), row in cells.items():
        lines.append(f"| {kernel} | {config} | " + " | ".join(row.get(s, "-") for s in shapes) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    mode = tables
    for arg in sys.argv[1:]:
        if arg == "--compact":
            mode = compact
            continue
        print(mode(Path(arg)))
