"""Write the ladder and auto-vs-cuBLAS tables of docs/ladder.md from committed benchmark JSON.

    python tools/readme_tables.py RESULTS.json [...] [--write docs/ladder.md]

Every figure comes from the given files (each row was measured next to cuBLAS in the same
process). With --write, the text between the file's `<!-- tables:begin -->` and
`<!-- tables:end -->` markers is replaced, the source links made relative to that file's folder
(docs/ladder.md links ../benchmarks/results/...); otherwise it is printed, linked as given.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tcgemm import registry

_STAGE_ORDER = ["simt", "wmma", "mma_sync", "hopper"]


def _load(paths: list[Path]) -> tuple[list[dict], list[tuple[Path, dict]]]:
    rows: list[dict] = []
    envs = []
    for i, p in enumerate(paths):
        data = json.loads(p.read_text())
        envs.append((p, data["environment"]))
        for r in data["rows"]:
            rows.append({**r, "_file": p.name, "_run": i, "_commit": data["environment"].get("commit")})
    return rows, envs


def _shape(r: dict) -> str:
    """The problem as a label: its size, and the layouts when they are not both row-major."""
    m, n, k = r["m"], r["n"], r["k"]
    size = f"{m}³" if m == n == k else f"{m}×{n}×{k}"
    layouts = r.get("layouts", "rr")
    return size if layouts == "rr" else f"{size} ({layouts})"


def _best(rows: list[dict], precision: str, shape: str) -> dict[str, dict]:
    """Fastest row per kernel name (over the configs of one run) for one precision and shape, all from
    the first file that measured the shape: repeats are no second chance to win (auto_vs_cublas shows
    their range instead), and a kernel a later file adds does not join another run's table."""
    best: dict[str, dict] = {}
    runs = [r["_run"] for r in rows if r["precision"] == precision and _shape(r) == shape]
    first = min(runs, default=None)  # one run per table: its title says "same run"
    for r in rows:
        if r["precision"] == precision and _shape(r) == shape and r["_run"] == first:
            name = r["kernel"]
            old = best.get(name)
            if old is None or r["_run"] < old["_run"] or (r["_run"] == old["_run"] and r["tflops"] > old["tflops"]):
                best[name] = r
    return best


def _newest_autos(rows: list[dict], precision: str, shape: str) -> list[dict]:
    """auto's rows at this shape from the runs of the first such run's commit (earlier commits' runs
    measured other code)."""
    mine = [r for r in rows if r["precision"] == precision and _shape(r) == shape and r["kernel"].startswith("auto")]
    if not mine:
        return []
    commit = min(mine, key=lambda r: r["_run"])["_commit"]
    return [r for r in mine if r["_commit"] == commit]


def _repeats(rows: list[dict], precision: str, shape: str) -> str:
    """' (0.77–0.85× over 3 runs)' when auto ran at this shape in more than one file of the newest commit."""
    mine = _newest_autos(rows, precision, shape)
    ratios = sorted(r["pct_cublas"] / 100 for r in mine if r.get("pct_cublas") is not None)
    runs = {r["_run"] for r in mine}
    # (no ratios: cuBLAS refused the shape in every run)
    return f" ({ratios[0]:.2f}–{ratios[-1]:.2f}× over {len(runs)} runs)" if len(runs) > 1 and ratios else ""


def _family(name: str) -> str | None:
    """The ladder family of a bench row's kernel ("wgmma_ws_kmajor [rc copies]" -> "hopper"), None for
    cuBLAS and auto."""
    try:
        return registry.get(name.split(" ")[0]).family
    except ValueError:
        return None


def _ratio(r: dict) -> str:
    return f"{r['pct_cublas'] / 100:.2f}×" if r.get("pct_cublas") is not None else "n/a"


def ladder(rows: list[dict], precision: str, shape: str) -> list[str]:
    # The first run that timed ladder stages at this shape (a run of auto and cuBLAS alone has no ladder).
    staged = {r["_run"] for r in rows if r["precision"] == precision and _shape(r) == shape
              and _family(r["kernel"]) is not None}
    best = _best([r for r in rows if r["_run"] in staged], precision, shape)
    if not best:
        return []
    unit = "TOP/s" if precision == "int8" else "TFLOP/s"
    out = [f"**{precision}, {shape}** — {unit} (ratio to cuBLAS, same run)", "",
           f"| kernel | best tile | {unit} | vs cuBLAS | vs previous stage | rel. error |",
           "|---|---|---:|---:|---:|---:|"]
    previous: dict[str, float] = {}  # family -> the stage below in its ladder (rows come in ladder order)
    for name, r in best.items():
        err = "exact" if r["error"] == 0 else f"{r['error']:.0e}"
        family = _family(name)
        gain = f"{r['tflops'] / previous[family]:.2f}×" if family in previous else ""
        out.append(f"| {name} | {r['config']} | {r['tflops']:.1f} | {_ratio(r)} | {gain} | {err} |")
        if family:
            previous[family] = r["tflops"]
    return [*out, ""]


def _graph(rows: list[dict], precision: str, shape: str) -> str:
    """Kernel and cuBLAS microseconds per call replayed from CUDA graphs (no host work), from the first
    auto row of the shape that has them (tcgemm bench records them for calls under 0.1 ms)."""
    for r in rows:
        if (r["precision"] == precision and _shape(r) == shape and r["kernel"].startswith("auto")
                and r.get("graph_us") and r.get("cublas_graph_us")):
            return f"{r['graph_us']:.1f} vs {r['cublas_graph_us']:.1f}, {r['cublas_graph_us'] / r['graph_us']:.2f}×"
    return "–"


def _median_run(rows: list[dict], precision: str, shape: str) -> list[dict]:
    """The rows of the run whose auto ratio at this shape is the median over the newest commit's runs
    that timed it (the lower middle one for an even count), so that no single process stands for the
    shape; the other rows unchanged. One such run: all rows."""
    autos = sorted((r["pct_cublas"], r["_run"]) for r in _newest_autos(rows, precision, shape)
                   if r.get("pct_cublas") is not None)
    if len({run for _, run in autos}) < 2:
        return rows
    keep = autos[(len(autos) - 1) // 2][1]
    return [r for r in rows if not (r["precision"] == precision and _shape(r) == shape) or r["_run"] == keep]


def auto_vs_cublas(rows: list[dict], precision: str) -> list[str]:
    shapes: list[str] = []
    for r in rows:
        if r["precision"] == precision and _shape(r) not in shapes:
            shapes.append(_shape(r))
    lines = [f"**{precision}: `kernel=\"auto\"` vs cuBLAS**", "",
             "| shape | cuBLAS | tcgemm auto | ratio | kernel chosen | GPU only (CUDA graph): µs, ratio |",
             "|---|---:|---:|---:|---|---:|"]
    found = False
    for shape in shapes:
        best = _best(_median_run(rows, precision, shape), precision, shape)
        auto = next((r for n, r in best.items() if n.startswith("auto")), None)
        cublas = best.get("cublas")
        if auto is None:
            continue
        found = True
        if auto.get("cublas_ms"):  # cuBLAS timed in alternation with auto: the figure the ratio uses
            base = f"{2 * auto['m'] * auto['n'] * auto['k'] / auto['cublas_ms'] / 1e9:.1f}"
        else:
            base = f"{cublas['tflops']:.1f}" if cublas else "refused"
        lines.append(f"| {shape} | {base} | {auto['tflops']:.1f} | {_ratio(auto)}{_repeats(rows, precision, shape)} | "
                     f"{auto['kernel'].removeprefix('auto (').removesuffix(')')} | {_graph(rows, precision, shape)} |")
    return [*lines, ""] if found else []


def _link(path: Path, base: Path | None) -> str:
    """path as a Markdown link target from a file in folder ``base`` (None: as given)."""
    if base is None:
        return path.as_posix()
    return Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()


def render(paths: list[Path], base: Path | None = None) -> str:
    """The tables; source links relative to folder ``base`` (the written file's), or as given."""
    rows, envs = _load(paths)
    precisions: list[str] = []
    for r in rows:
        if r["precision"] not in precisions:
            precisions.append(r["precision"])
    parts: list[str] = []
    for precision in precisions:
        for shape in ("4096³", "4096³ (rc)"):
            if any(_shape(r) == shape and r["precision"] == precision for r in rows):
                parts += ladder(rows, precision, shape)
        parts += auto_vs_cublas(rows, precision)
    parts.append("Sources (GPU, driver, CUDA, torch, NVRTC, commit and date are inside each file):")
    for p, env in envs:
        parts.append(f"- [`{p.as_posix()}`]({_link(p, base)}) — {env['gpu']}, driver {env['driver']}, "
                     f"CUDA {env['cuda']}, torch {env['torch']}, commit {env['commit']}, {env['date']}")
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    write = None
    if "--write" in argv:
        i = argv.index("--write")
        write = Path(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    text = render([Path(a) for a in argv], None if write is None else write.parent)
    if write is None:
        print(text)
        return 0
    doc = write.read_text()
    begin, end = "<!-- tables:begin -->", "<!-- tables:end -->"
    if begin not in doc or end not in doc:
        print(f"{write} has no {begin} ... {end} markers", file=sys.stderr)
        return 2
    head, _, rest = doc.partition(begin)
    _, _, tail = rest.partition(end)
    write.write_text(f"{head}{begin}\n{text}{end}{tail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
