"""Score auto's estimate (tcgemm.dispatch) against the measured explorations: does it pick the config that ran fastest?

    python3 tools/fit_estimate.py                                  # every explore file of the newest day
    python3 tools/fit_estimate.py --since 2026-11-25 --worst 20
    python3 tools/fit_estimate.py --set 128x192x64c1=0.95:1 --set 128x224x64=1.0   # try speeds (and epilogues)

Reads `tcgemm bench --json` files (benchmarks/results/<date>-h100-explore-*.json, plus any given as arguments) and
`tcgemm tune` cache files given as arguments (their CUDA-graph-timed entries: every config at each tuned shape, e.g.
2026-11-27-h100-tune-models-exact-3d2b970.json), keeps each (M, N, K, layouts) at which two or more configs of
wgmma_tma_store were timed (CUDA-graph time where there is one, else the eager median), and asks auto which config
it would run there (the estimate alone: TCGEMM_TUNE=0 in this process). A shape
scores best time / time of auto's pick (1.0: auto picks the fastest measured); shapes where auto picks a config
nobody measured, or another kernel, are left out. Prints the total loss (sum of 1 - score), the shape count and
the worst shapes. --set changes a config's speed (and its epilogue k-tiles) in this process only, to try a
registry change before making it: a lower loss on these files is a hint, not a proof (they hold the shapes
someone chose to explore), so check the picks it moves on the model shapes too (`tcgemm explain`).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
os.environ["TCGEMM_TUNE"] = "0"  # score the estimate, not a tune cache this machine may hold

from tcgemm import dispatch, registry, tune  # noqa: E402
from tcgemm.problem import describe  # noqa: E402

Shape = tuple[int, int, int, str]


def _runs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if not isinstance(doc, dict):  # (a few early files are bare lists of rows)
        return [{"rows": [r for r in doc if isinstance(r, dict)]}] if isinstance(doc, list) else []
    return [doc] if "rows" in doc else [r for r in doc.get("runs", {}).values() if isinstance(r, dict)]


def _tuned_entries(doc: dict[str, Any], kernel: str) -> list[dict[str, Any]]:
    """A tune cache file's bf16 entries of ``kernel`` timed from CUDA graphs (tcgemm.tune; none in a bench file)."""
    entries = doc.get("entries") if isinstance(doc, dict) and isinstance(doc.get("entries"), dict) else {}
    return [e for k, e in entries.items() if k.startswith("bf16:") and e.get("spec") == kernel
            and e.get("timed_as") == "graph" and e.get("times_ms") and e.get("shape") and e.get("layouts")]


def load(files: list[str], kernel: str = "wgmma_tma_store") -> dict[Shape, dict[str, float]]:
    """{(M, N, K, layouts): {config name: best time in us}} over ``files``, for shapes with two or more configs."""
    by_label = {c.describe(): c.name for c in registry.get(kernel).configs_for("bf16")}
    data: dict[Shape, dict[str, float]] = {}
    for path in files:
        doc = json.loads(Path(path).read_text())
        for entry in _tuned_entries(doc, kernel):
            times = data.setdefault((*entry["shape"], entry["layouts"]), {})
            for name, ms in entry["times_ms"].items():
                times[name] = min(1e3 * ms, times.get(name, float("inf")))
        for run in _runs(doc):
            layouts = (run.get("config") or {}).get("layouts", "rc") if isinstance(run.get("config"), dict) else "rc"
            for row in run.get("rows", []):
                name = by_label.get(row.get("config", ""))
                if name is None or not str(row.get("kernel", "")).replace("auto (", "").startswith(kernel):
                    continue
                if row.get("precision", "bf16") != "bf16":
                    continue
                t = row.get("graph_us") or (row["ms"] * 1e3 if row.get("ms") else None)
                if not t:
                    continue
                key = (row["m"], row["n"], row["k"], row.get("layouts") or layouts)
                times = data.setdefault(key, {})
                times[name] = min(t, times.get(name, float("inf")))
    return {k: v for k, v in data.items() if len(v) >= 2}


def score(data: dict[Shape, dict[str, float]], sms: int = 132) -> tuple[float, list[tuple[float, Shape, str, str]]]:
    """(total loss, [(score, shape, auto's pick, fastest)] ascending) of auto's picks on ``data``."""
    rows = []
    for (m, n, k, layouts), times in data.items():
        a, b = tune._operands(m, n, k, "bf16", layouts, "meta")
        try:
            spec, cfg = dispatch.select(describe(a, b)[0], 90, sms)
        except ValueError:
            continue
        if spec.name != "wgmma_tma_store" or cfg.name not in times:
            continue
        best = min(times, key=lambda c: times[c])
        rows.append((times[best] / times[cfg.name], (m, n, k, layouts), cfg.name, best))
    rows.sort()
    return sum(1 - r[0] for r in rows), rows


def apply(setting: str, kernel: str = "wgmma_tma_store") -> None:
    """NAME=SPEED[:EPILOGUE]: set a config's estimate parameters in this process."""
    name, _, value = setting.partition("=")
    speed, _, epilogue = value.partition(":")
    cfg = {c.name: c for c in registry.get(kernel).configs_for("bf16")}.get(name)
    if cfg is None or not speed:
        raise SystemExit(f"--set {setting!r}: want CONFIG=SPEED[:EPILOGUE] with a config of {kernel}")
    object.__setattr__(cfg, "speed", float(speed))  # (TileConfig is frozen: a deliberate, local override)
    if epilogue:
        object.__setattr__(cfg, "epilogue", float(epilogue))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="more `tcgemm bench --json` files")
    ap.add_argument("--since", help="explore files dated this day or later (default: the newest day's)")
    ap.add_argument("--set", action="append", default=[], metavar="CONFIG=SPEED[:EPILOGUE]",
                    help="try another speed (and epilogue) for a config; repeatable")
    ap.add_argument("--worst", type=int, default=15, help="shapes listed, worst first (default 15)")
    args = ap.parse_args()
    found = sorted(glob.glob(str(ROOT / "benchmarks/results/*-h100-explore-*.json")))
    if not found and not args.files:
        raise SystemExit("no explore files under benchmarks/results/")
    since = args.since or (Path(found[-1]).name[:10] if found else "")
    files = [f for f in found if Path(f).name[:10] >= since] + args.files
    for setting in args.set:
        apply(setting)
    data = load(files)
    loss, rows = score(data)
    print(f"{len(files)} files, {len(rows)} shapes scored; loss {loss:.3f} (sum of 1 - fastest / auto's pick)")
    for r, (m, n, k, layouts), pick, best in rows[: args.worst]:
        print(f"  {r:.3f}  {m}x{n}x{k} {layouts}: auto {pick}, fastest {best}")


if __name__ == "__main__":
    main()
