"""Does "weight rows each CTA streams" rank tile configs at 1-128 rows better than the estimate does?

At few rows a GEMM is a stream of its weight (B). The H200 sessions found each CTA streaming its share of the weight
at a roughly fixed rate whatever its tile (docs/findings.md, "The H200 a third time" and after), so a call's time
would follow the weight rows one CTA streams over the whole call: rounds of units x (BLOCK_N / CTAs sharing a B tile)
x K / k ranges. This probe reads every exploration file under benchmarks/results (bf16, M <= 128, the production
kernel's configs still in the registry, D^T configs left out), groups the rows timed in one process at one shape,
and asks of each group which config each model would pick among those timed (the estimate through
tcgemm.dispatch.pick_config's ``among``), and how far that pick's measured time is from the group's best.

    PYTHONPATH=src:tests/cpu python3 benchmarks/probes/stream_model_fit.py [--gpu h100|h200] [--show 20]

Reads files only; no GPU. Prints, per GPU, how often each model's pick is within 2% of the best and the mean
excess time of its picks, then the groups where the two models disagree.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import math
from pathlib import Path

from tcgemm import dispatch, registry

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
SPEC = registry.get("wgmma_tma_store")
CONFIGS = {c.name: c for c in SPEC.configs}
NAMES = set(CONFIGS)
SLOTS = 132


def config_name(shown: str, name: str | None) -> str | None:
    """The registry name of a config as the bench prints it ('128x64x64 s8 h' -> '128x64x64h')."""
    if name in NAMES:
        return name
    tokens = [t for t in shown.split() if not t.startswith("[")]
    for guess in (tokens[0] + "".join(tokens[2:]), "".join(tokens), tokens[0]):
        if guess in NAMES:
            return guess
    return None


def stream_cost(cfg: registry.TileConfig, m: int, n: int, k: int) -> float:
    """Weight elements one CTA streams over the call: rounds x rows of its B tile it loads x its k range."""
    rows, cols = dispatch.cluster_blocks(cfg)
    splits = cfg.get("SPLIT_K", 1)
    tiles_m = -(-m // (cfg["BLOCK_M"] * rows)) * rows
    tiles_n = -(-n // (cfg["BLOCK_N"] * cols)) * cols
    rounds = math.ceil(tiles_m * tiles_n * splits / SLOTS)
    share = rows if rows > 1 and not cfg.get("CLUSTER_ALONG_N") else 1  # CTAs stacked along M share each B tile
    # (the estimate's cost of tile rows TMA fills, as tcgemm.dispatch counts them)
    rows_out = 0 if cfg.get("A_HALVES") and m > 64 else dispatch._rows_outside(cfg["BLOCK_M"], m)
    outside = (rows_out + dispatch._rows_outside(cfg["BLOCK_N"], n)) / (cfg["BLOCK_M"] + cfg["BLOCK_N"])
    return rounds * cfg["BLOCK_N"] / share * -(-k // splits) * (1 + dispatch.OOB_ROW_COST * outside * outside)


def groups(gpu: str) -> dict[tuple, dict[str, float]]:
    out: dict[tuple, dict[str, float]] = collections.defaultdict(dict)
    for path in sorted(glob.glob(str(RESULTS / "*explore*.json"))):
        try:
            data = json.loads(Path(path).read_text())
        except ValueError:
            continue
        rows = data.get("rows", data.get("results")) if isinstance(data, dict) else None
        if not isinstance(rows, list):
            continue
        if ("H200" in str(data.get("environment", {}).get("gpu", ""))) != (gpu == "h200"):
            continue
        for r in rows:
            if (not isinstance(r, dict) or r.get("kernel") != "wgmma_tma_store" or r.get("precision") != "bf16"
                    or r.get("layouts") != "rc" or r.get("m", 999) > 128 or not r.get("graph_us")):
                continue
            name = config_name(str(r.get("config", "")), r.get("config_name"))
            if name is None or "T" in name:
                continue
            key = (r["m"], r["n"], r["k"], Path(path).name)
            out[key][name] = min(r["graph_us"], out[key].get(name, math.inf))
    return {k: v for k, v in out.items() if len(v) >= 2}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpu", default="h100,h200")
    p.add_argument("--show", type=int, default=15, help="disagreements to print per GPU")
    args = p.parse_args()
    from test_tune import _problem  # (tests/cpu: a problem description without tensors)

    for gpu in args.gpu.split(","):
        table = groups(gpu)
        score = {"estimate": [0, 0.0], "stream": [0, 0.0]}
        disagree = []
        for (m, n, k, f), times in sorted(table.items()):
            best = min(times.values())
            problem = _problem(m, n, k, layouts="rc")
            est = dispatch.pick_config(SPEC, problem, SLOTS, among=tuple(times)).name
            stream = min(times, key=lambda c: stream_cost(CONFIGS[c], m, n, k))
            for model, pick in (("estimate", est), ("stream", stream)):
                score[model][0] += times[pick] <= 1.02 * best
                score[model][1] += times[pick] / best - 1
            if est != stream:
                disagree.append((m, n, k, f, est, times[est] / best, stream, times[stream] / best))
        count = len(table)
        if not count:
            print(f"{gpu}: no groups")
            continue
        print(f"{gpu}: {count} groups (one shape, one process, 2+ configs)")
        for model, (hits, excess) in score.items():
            print(f"  {model:8s} pick within 2% of the best {hits}/{count}, mean excess {100 * excess / count:.1f}%")
        print(f"  they disagree at {len(disagree)}; first {args.show}:")
        for m, n, k, f, est, te, st, ts in disagree[: args.show]:
            print(f"    {m:4d} x {n:5d} x {k:5d}  estimate {est:16s} {te:5.2f}  stream {st:16s} {ts:5.2f}  ({f})")


if __name__ == "__main__":
    main()
