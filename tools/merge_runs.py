"""Merge the JSON files of several ``tcgemm bench`` processes into one, each row tagged with its process.

    python3 tools/merge_runs.py OUT.json "RUNS/*.json"

Same-process comparisons repeated over processes (the ratios move 1-3% between processes) land in one
file; the environment is the first file's. Prints each non-cuBLAS row: process, precision, shape,
kernel, config, % of cuBLAS.
"""

from __future__ import annotations

import glob
import json
import sys


def main(out: str, pattern: str) -> None:
    rows: list[dict] = []
    env = None
    for i, path in enumerate(sorted(glob.glob(pattern))):
        with open(path) as f:
            data = json.load(f)
        env = env or data.get("environment")
        rows += [{**r, "process": i} for r in data["rows"]]
    with open(out, "w") as f:
        json.dump({"environment": env, "rows": rows}, f, indent=1)
    for r in rows:
        if r["kernel"] != "cublas":
            print(r["process"], r["precision"], (r["m"], r["n"], r["k"]), r["kernel"], r["config"],
                  round(r["pct_cublas"], 1) if r.get("pct_cublas") is not None else None)


if __name__ == "__main__":
    main(*sys.argv[1:3])
