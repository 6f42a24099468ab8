"""Pictures of benchmark results and fragment layouts (matplotlib, optional: `pip install tcgemm[plot]`).

Reads the rows that `tcgemm bench --json` writes (or the rows of a bench that just ran), so
committed results can be drawn on any machine, GPU or not. Two figures:

* ladder: TFLOP/s of each ladder stage next to cuBLAS, one panel per precision, at one shape
  (4096^3 by default); the fastest tile config of each kernel;
* auto: TFLOP/s of ``kernel="auto"`` and of cuBLAS for every shape measured, one panel per precision.
"""

from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .layouts import Layout

KINDS = ("ladder", "auto", "both")
LADDER_SHAPE = (4096, 4096, 4096)
_FIELDS = ("kernel", "m", "n", "k", "precision", "tflops")
_BLUE, _RED, _GREEN = "#4c72b0", "#c44e52", "#55a868"

Shape = tuple[int, int, int]


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise PlotUnavailable("pictures need matplotlib: pip install matplotlib (or tcgemm[plot])") from exc
    return plt


def require_matplotlib() -> None:
    """PlotUnavailable now rather than after a long benchmark."""
    _pyplot()


def load_rows(paths: Iterable[Path | str]) -> list[dict]:
    """The GEMM rows of bench JSON files (rows of other records, e.g. --model, are skipped, and so
    are other results files among several, such as sanitizer or property-test summaries)."""
    rows: list[dict] = []
    others: list[Path] = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise FileNotFoundError(f"results file {path} does not exist: pass files written by `tcgemm bench --json`")
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            others.append(path)
            continue
        rows += [r for r in data["rows"] if all(f in r for f in _FIELDS)]
    if others and not rows:
        names = ", ".join(str(o) for o in others)
        raise ValueError(f"results file(s) {names} have no 'rows' list: pass files written by `tcgemm bench --json`")
    return rows


def _shape(r: dict) -> Shape:
    return r["m"], r["n"], r["k"]


def _shape_text(shape: Shape) -> str:
    return "x".join(map(str, shape))


def _layouts(r: dict) -> str:
    return r.get("layouts") or "rr"


def _is_auto(r: dict) -> bool:
    return r["kernel"] == "auto" or r["kernel"].startswith("auto ")


def _precisions(rows: list[dict]) -> list[str]:
    from .registry import PRECISIONS

    found = list(dict.fromkeys(r["precision"] for r in rows))
    return sorted(found, key=lambda p: (PRECISIONS.index(p) if p in PRECISIONS else len(PRECISIONS), found.index(p)))


def _stage_order(label: str) -> int:
    from .registry import all_specs

    names = [s.name for s in all_specs()]
    base = label.split(" [")[0].split(" (")[0]
    return names.index(base) if base in names else len(names)


def _panels(plt: Any, count: int, width: float, height: float, cols: int = 3) -> tuple[Any, list[Any]]:
    cols = min(cols, count)
    nrows = -(-count // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(width * cols, height * nrows), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.axis("off")
    return fig, flat[:count]


def _unit(precision: str) -> str:
    return "TOP/s" if precision.startswith("int") else "TFLOP/s"


def ladder_data(rows: list[dict], shape: Shape | None = None) -> tuple[Shape, dict[str, dict[str, dict]]]:
    """(shape, {precision: {bar label: fastest row}}) for the ladder figure; cuBLAS under 'cublas'.
    ``shape`` defaults to 4096^3 when measured, else the largest shape in ``rows``."""
    if not rows:
        raise ValueError("no benchmark rows to draw: pass files written by `tcgemm bench --json`")
    shapes = {_shape(r) for r in rows}
    if shape is None:
        shape = LADDER_SHAPE if LADDER_SHAPE in shapes else max(shapes, key=lambda s: s[0] * s[1] * s[2])
    best: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        if _shape(r) != shape or _is_auto(r):
            continue
        label = r["kernel"] + ("" if _layouts(r) == "rr" else f" {_layouts(r)}")
        kept = best[r["precision"]].get(label)
        if kept is None or r["tflops"] > kept["tflops"]:
            best[r["precision"]][label] = r
    if not best:
        raise ValueError(f"no kernel results at {_shape_text(shape)}: pick --shape among "
                         f"{', '.join(sorted(map(_shape_text, shapes)))}")
    return shape, {p: best[p] for p in _precisions([r for p in best for r in best[p].values()])}


def ladder_figure(rows: list[dict], out: Path, shape: Shape | None = None) -> Path:
    """One panel per precision: a bar per ladder stage (fastest config) and one for cuBLAS, at ``shape``."""
    shape, data = ladder_data(rows, shape)  # errors about the data first, with or without matplotlib
    plt = _pyplot()
    fig, axes = _panels(plt, len(data), 6.0, 4.2)
    for ax, (precision, bars) in zip(axes, data.items(), strict=True):
        cublas = bars.get("cublas")
        names = sorted((n for n in bars if n != "cublas"), key=_stage_order)
        names += ["cublas"] if cublas else []
        values = [bars[n]["tflops"] for n in names]
        ax.barh(names, values, color=[_RED if n == "cublas" else _BLUE for n in names])
        for i, n in enumerate(names):
            r = bars[n]
            pct = r.get("pct_cublas")
            if pct is None and cublas:
                pct = 100.0 * r["tflops"] / cublas["tflops"]
            note = f" {r['tflops']:.0f}" + (f" ({pct:.0f}%)" if pct is not None and n != "cublas" else "")
            ax.text(r["tflops"], i, note, va="center", fontsize=8)
        if cublas:
            ax.axvline(cublas["tflops"], color=_RED, linestyle="--", linewidth=1)
        ax.set_xlim(0, max(values) * 1.3)
        ax.invert_yaxis()
        ax.set_xlabel(_unit(precision))
        ax.set_title(f"{precision}  {_shape_text(shape)}")
    fig.suptitle("tcgemm ladder vs cuBLAS (fastest tile config per kernel; % of cuBLAS timed alongside)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)


def auto_data(rows: list[dict]) -> dict[str, list[tuple[str, dict, dict | None]]]:
    """{precision: [(x label, auto row, cuBLAS row or None)]}, shapes in order of appearance. A shape
    measured in several files keeps its first row: a repeat run is no second chance to win."""
    auto: dict[tuple[str, Shape, str], dict] = {}
    cublas: dict[tuple[str, Shape, str], dict] = {}
    for r in rows:
        key = (r["precision"], _shape(r), _layouts(r))
        target = auto if _is_auto(r) else cublas if r["kernel"] == "cublas" else None
        if target is not None and key not in target:
            target[key] = r
    if not auto:
        raise ValueError("no `auto` rows to draw: pass results of `tcgemm bench --kernels auto` "
                         "(or use --kind ladder)")
    data: dict[str, list[tuple[str, dict, dict | None]]] = defaultdict(list)
    for key, r in auto.items():  # dicts keep first-appearance order
        label = _shape_text(key[1]) + ("" if key[2] == "rr" else f" {key[2]}")
        data[key[0]].append((label, r, cublas.get(key)))
    return {p: data[p] for p in _precisions([e[1] for v in data.values() for e in v])}


def auto_figure(rows: list[dict], out: Path) -> Path:
    """One panel per precision: TFLOP/s of auto and cuBLAS (two bars) for each shape measured."""
    data = auto_data(rows)
    plt = _pyplot()
    fig, axes = _panels(plt, len(data), 6.0, 4.2)
    width = 0.38
    for ax, (precision, entries) in zip(axes, data.items(), strict=True):
        xs = range(len(entries))
        ours = [e[1]["tflops"] for e in entries]
        # cuBLAS as timed alongside auto (cublas_ms), the figure its % uses; else its own row
        theirs = [2 * e[1]["m"] * e[1]["n"] * e[1]["k"] / e[1]["cublas_ms"] / 1e9 if e[1].get("cublas_ms")
                  else e[2]["tflops"] if e[2] else 0.0 for e in entries]
        ax.bar([x - width / 2 for x in xs], ours, width, color=_GREEN, label="tcgemm auto")
        ax.bar([x + width / 2 for x in xs], theirs, width, color=_RED, label="cuBLAS")
        for x, (_label, r, base) in zip(xs, entries, strict=True):
            pct = r.get("pct_cublas")
            if pct is None and base:
                pct = 100.0 * r["tflops"] / base["tflops"]
            ax.text(x - width / 2, r["tflops"], f"{pct:.0f}%" if pct is not None else "", ha="center",
                    va="bottom", fontsize=8)
            if base is None:
                ax.text(x + width / 2, 0, "n/a", ha="center", va="bottom", fontsize=8)
        staged = [", staged" in e[1]["kernel"] for e in entries]
        ax.set_xticks(list(xs), [f"{e[0]}{' (staged)' if st else ''}" for e, st in zip(entries, staged, strict=True)],
                      fontsize=7, rotation=35, ha="right")
        pad = max(0.0, (3 - len(entries)) / 2)  # a lone shape keeps narrow bars
        ax.set_xlim(-0.6 - pad, len(entries) - 0.4 + pad)
        ax.set_ylim(0, max(ours + theirs) * 1.3)  # room for the legend above the bars
        ax.set_ylabel(_unit(precision))
        ax.set_title(precision)
        ax.legend(loc="upper center", ncol=2, fontsize=8)
    fig.suptitle("tcgemm kernel='auto' vs cuBLAS timed alongside (% = auto / cuBLAS; staged: aligned copies made)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)


def charts(rows: list[dict], out: Path, kind: str = "ladder", shape: Shape | None = None) -> list[Path]:
    """Draw ``kind`` ('ladder', 'auto' or 'both') to ``out``; 'both' writes STEM-ladder.png and
    STEM-auto.png next to ``out`` (each that the rows have data for; ValueError if neither)."""
    out = Path(out)
    if kind == "ladder":
        return [ladder_figure(rows, out, shape)]
    if kind == "auto":
        return [auto_figure(rows, out)]
    if kind != "both":
        raise ValueError(f"kind {kind!r} must be one of {', '.join(KINDS)}")
    written, problems = [], []
    for name, draw in (("ladder", lambda p: ladder_figure(rows, p, shape)), ("auto", lambda p: auto_figure(rows, p))):
        try:
            written.append(draw(out.with_name(f"{out.stem}-{name}{out.suffix or '.png'}")))
        except ValueError as exc:
            problems.append(str(exc))
    if not written:
        raise ValueError("; ".join(problems))
    return written


def ladder_chart(paths: list[Path], out: Path, shape: Shape | None = None) -> Path:
    """The ladder figure from bench JSON files."""
    return ladder_figure(load_rows(paths), out, shape)


def layout_png(layout: Layout, out: Path) -> Path:
    """The layout as a coloured grid: a colour per thread, 'T<lane>' and 'r<reg>[.e<elem>]' in each cell."""
    plt = _pyplot()
    import numpy as np
    from matplotlib.colors import hsv_to_rgb

    grid = layout.grid()
    rgb = np.zeros((layout.rows, layout.cols, 3))
    for row, cells in enumerate(grid):
        for col, (lane, _reg, _elem) in enumerate(cells):
            # golden-ratio hue steps: neighbouring lanes get clearly different pastel colours
            rgb[row, col] = hsv_to_rgb(((lane * 0.618034) % 1.0, 0.45, 0.97))
    fig, ax = plt.subplots(figsize=(max(5.0, 0.62 * layout.cols + 1.2), max(3.5, 0.42 * layout.rows + 1.6)))
    ax.imshow(rgb, aspect="auto", interpolation="nearest")
    for row, cells in enumerate(grid):
        for col, (lane, reg, elem) in enumerate(cells):
            text = f"T{lane}\nr{reg}" + (f".e{elem}" if layout.elems > 1 else "")
            ax.text(col, row, text, ha="center", va="center", fontsize=6.5, linespacing=1.0)
    ax.set_xticks(range(layout.cols))
    ax.set_yticks(range(layout.rows))
    ax.set_xticks([c - 0.5 for c in range(1, layout.cols)], minor=True)
    ax.set_yticks([r - 0.5 for r in range(1, layout.rows)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1)
    ax.tick_params(which="both", length=0, labelsize=7)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(layout.col_axis)
    ax.set_ylabel(layout.row_axis)
    w, h = fig.get_size_inches()
    fig.suptitle(textwrap.fill(f"{layout.name}: {layout.summary}", int(w * 11)), fontsize=9, y=1 - 0.1 / h)
    # fixed margins in inches: tight_layout would lay out thousands of cell texts once more (wgmma: 4096)
    fig.subplots_adjust(left=0.8 / w, right=1 - 0.2 / w, bottom=0.2 / h, top=1 - 1.1 / h)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return Path(out)


def model_ratio_data(records: Iterable[dict]) -> dict[str, dict[str, list[tuple[int, float]]]]:
    """{model: {"eager": [(M, ratio)], "graph": [(M, ratio)]}} of the layer sums in `tcgemm bench --model`
    records (ratio = torch / tcgemm); a model in several records keeps its first."""
    data: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for record in records:
        models = record.get("models") if isinstance(record, dict) else None
        if not isinstance(models, list):
            raise ValueError("not a `tcgemm bench --model` record (no 'models' list): pass what "
                             "`tcgemm bench --model NAME --json FILE` writes")
        for entry in models:
            name = entry["model"]["name"]
            if name in data:
                continue
            sums = sorted(entry["sums"], key=lambda s: s["m"])
            data[name] = {mode: [(s["m"], s[f"{mode}_ratio"]) for s in sums if s.get(f"{mode}_ratio") is not None]
                          for mode in ("eager", "graph")}
    if not data:
        raise ValueError("the records hold no model rows to draw")
    return data


def plot_models(records: Iterable[dict], out: Path) -> Path:
    """Ratio torch / tcgemm of each model's decoder-layer Linears (their summed times) against the token
    count M, eager (host work included, solid) and from CUDA graphs (GPU alone, dashed); a line at 1.0:
    above it tcgemm is faster."""
    data = model_ratio_data(records)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (name, modes) in enumerate(data.items()):
        colour = colours[i % len(colours)]
        for mode, style in (("eager", "-"), ("graph", "--")):
            if modes[mode]:
                xs, ys = zip(*modes[mode], strict=True)
                ax.plot(xs, ys, style, marker="o", color=colour, label=f"{name} ({mode})")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("tokens M")
    ax.set_ylabel("torch time / tcgemm time (> 1: tcgemm faster)")
    ax.set_title("decoder-layer Linears: torch.nn.functional.linear vs tcgemm.nn.Linear")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return Path(out)
