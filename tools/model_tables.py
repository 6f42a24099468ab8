"""Markdown tables of a `tcgemm bench --model` JSON file, for the README and docs/models.md.

    python3 tools/model_tables.py benchmarks/results/<date>-h100-models-<commit>.json [--layers]

Layer sums per model and M (torch time / tcgemm time, CUDA graph and eager), the training rows, and with
--layers the decode rows (M = 1) with their bandwidth against the copy bandwidth measured in the same run.
Several files (one per process, the same runs): each layer sum is their median, the lowest in brackets;
the training and decode rows are the first file's.

    python3 tools/model_tables.py RUN1.json RUN2.json RUN3.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys


def sums_table(record: dict, others: tuple[dict, ...] = ()) -> list[str]:
    """One row per model and mode; with ``others`` (more processes of the same run) median (lowest)."""
    ms = record["config"]["tokens"]
    extra = [{(m["model"]["name"], s["m"]): s for m in o["models"] for s in m["sums"]} for o in others]
    lines = ["| decoder layer (torch ÷ tcgemm) | " + " | ".join(f"M = {m}" for m in ms) + " |",
             "|---|" + "---:|" * len(ms)]
    for model in record["models"]:
        name = model["model"]["name"]
        by_m = {s["m"]: s for s in model["sums"]}
        for mode in ("graph", "eager"):
            label = "CUDA graph" if mode == "graph" else "eager"
            cells = []
            for m in ms:
                if m not in by_m:
                    cells.append("–")
                    continue
                vals = [by_m[m][f"{mode}_ratio"]] + [e[(name, m)][f"{mode}_ratio"] for e in extra if (name, m) in e]
                cells.append(f"{statistics.median(vals):.2f}" + (f" ({min(vals):.2f})" if len(vals) > 1 else ""))
            lines.append(f"| {name}, {label} | " + " | ".join(cells) + " |")
    return lines


def train_table(record: dict) -> list[str]:
    lines = ["| MLP training step (forward + backward) | tokens | torch ms | tcgemm ms | torch ÷ tcgemm |",
             "|---|---:|---:|---:|---:|"]
    for model in record["models"]:
        for t in model["train"]:
            lines.append(f"| {t['model']} ({' → '.join(t['layers'])}, {t['activation']}) | {t['tokens']} | "
                         f"{t['ms_torch']:.3f} | {t['ms_tcgemm']:.3f} | {t['ratio']:.2f} |")
    return lines


def decode_table(record: dict) -> list[str]:
    bw = record["copy_bandwidth_tbps"]
    lines = [f"| M = 1 (graph) | K → N | torch µs | tcgemm µs | torch TB/s | tcgemm TB/s (of {bw:.2f} copy) | "
             "tcgemm kernel |", "|---|---|---:|---:|---:|---:|---|"]
    for r in record["rows"]:
        if r["m"] != 1:
            continue
        lines.append(f"| {r['model']} {r['layer']} | {r['k']} → {r['n']} | {r['graph_us_torch']:.1f} | "
                     f"{r['graph_us_tcgemm']:.1f} | {r['tbps_torch']:.2f} | {r['tbps_tcgemm']:.2f} "
                     f"({100 * r['copy_fraction_tcgemm']:.0f}%) | `{r['kernel']}` |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", nargs="+", help="`tcgemm bench --model ... --json` files (one per process)")
    parser.add_argument("--layers", action="store_true", help="also the decode rows (M = 1)")
    args = parser.parse_args(argv)
    records = []
    for path in args.json:
        with open(path) as f:
            records.append(json.load(f))
    record = records[0]
    out = [*sums_table(record, tuple(records[1:])), "", *train_table(record)]
    if args.layers:
        out += ["", *decode_table(record)]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
