"""Pictures of benchmark results (matplotlib, optional: `pip install tcgemm[plot]`).

Reads the JSON that `tcgemm bench --json` writes, so committed results can be drawn on any
machine, GPU or not.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path


def _load(paths: list[Path]) -> list[dict]:
    rows: list[dict] = []
    for p in paths:
        rows += json.loads(Path(p).read_text())["rows"]
    return rows


def ladder_chart(paths: list[Path], out: Path, shape: tuple[int, int, int] | None = None) -> Path:
    """One panel per precision: a bar per kernel (best config) at ``shape``, cuBLAS as a line."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise RuntimeError("plots need matplotlib: pip install matplotlib") from exc
    rows = _load(paths)
    if shape is None:  # the largest shape measured for every precision
        shape = max({(r["m"], r["n"], r["k"]) for r in rows}, key=lambda s: s[0] * s[1] * s[2])
    by_precision: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        if (r["m"], r["n"], r["k"]) != shape:
            continue
        name = r["kernel"]
        by_precision[r["precision"]][name] = max(r["tflops"], by_precision[r["precision"]].get(name, 0.0))
    if not by_precision:
        raise ValueError(f"no results at {shape} in {', '.join(map(str, paths))}")
    cols = min(3, len(by_precision))
    rows_n = -(-len(by_precision) // cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(5.5 * cols, 4 * rows_n), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[len(by_precision):]:
        ax.axis("off")
    for ax, (precision, kernels) in zip(flat, by_precision.items(), strict=False):
        cublas = kernels.pop("cublas", None)
        names = list(kernels)
        ax.barh(names, [kernels[n] for n in names], color="#4c72b0")
        if cublas:
            ax.axvline(cublas, color="#c44e52", linestyle="--", label=f"cuBLAS {cublas:.0f}")
            ax.legend(loc="lower right")
        ax.invert_yaxis()
        ax.set_xlabel("TFLOP/s")
        ax.set_title(f"{precision}  {'×'.join(map(str, shape))}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
