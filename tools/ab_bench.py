"""A/B timing of two source trees, in alternation, each benchmark in its own process.

Rates drift between minutes on a shared GPU (clocks, temperature), so "old" and "new" are run
in turn (old, new, old, new, ...), and every row is read as its ratio to cuBLAS timed beside it
in the same process on the same inputs (``pct_cublas``). One JSON file comes back with every row,
tagged with its side and round, and a summary (median ratio per side) is printed.

    git archive <old-commit> src | tar -x -C _ab_old     # the old tree (device: carry it)
    python3 tools/ab_bench.py --old _ab_old --rounds 2 --json $OUT/ab.json \\
        --run "bf16 rr auto 4096,4096x14336x4096" \\
        --run "fp8e4m3 rc auto 4096"

``--run`` takes "PRECISION LAYOUTS KERNELS SHAPES [NEW_KERNELS]" (KERNELS, SHAPES as ``tcgemm bench`` reads
them); NEW_KERNELS are timed on the new side only (configs the old tree lacks).
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


def bench(src: Path, spec: str, new: bool, budget: float, out: Path) -> tuple[list[dict], dict]:
    precision, layouts, kernels, shapes, *new_kernels = spec.split()
    if new and new_kernels:
        kernels = f"{kernels},{new_kernels[0]}"
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, "-m", "tcgemm", "bench", "--budget", str(budget), "--precision", precision,
           "--layouts", layouts, "--kernels", kernels, "--shapes", shapes, "--json", str(out)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode:
        print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
        raise SystemExit(f"bench failed in {src}: {' '.join(cmd)}")
    data = json.loads(out.read_text())
    return data["rows"], data["environment"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, type=Path, help="root of the old tree (holding src/)")
    ap.add_argument("--new", default=ROOT, type=Path, help="root of the new tree (default: this checkout)")
    ap.add_argument("--rounds", type=int, default=2, help="old/new pairs (default 2)")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timing per row (tcgemm bench --budget)")
    ap.add_argument("--run", action="append", required=True, help='"PRECISION LAYOUTS KERNELS SHAPES [NEW_KERNELS]"')
    ap.add_argument("--json", required=True, type=Path, help="where every row goes")
    args = ap.parse_args()

    rows: list[dict] = []
    envs: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for rnd in range(args.rounds):
            for side, root in (("old", args.old), ("new", args.new)):
                for i, spec in enumerate(args.run):
                    out = Path(tmp) / f"{side}{rnd}{i}.json"
                    got, env = bench(root.resolve() / "src", spec, side == "new", args.budget, out)
                    envs.setdefault(side, env)
                    rows += [dict(r, side=side, round=rnd) for r in got]
                    print(f"round {rnd} {side} {spec}: {len(got)} rows", flush=True)
    args.json.write_text(json.dumps({"environment": envs.get("new", {}), "old_environment": envs.get("old", {}),
                                     "rows": rows}, indent=1))

    groups: dict[tuple, list[float]] = {}
    for r in rows:
        if r["kernel"] == "cublas" or r.get("pct_cublas") is None:
            continue
        key = (r["precision"], f"{r['m']}x{r['n']}x{r['k']}", r["kernel"], r["config"], r["side"])
        groups.setdefault(key, []).append(r["pct_cublas"])
    print(f"{'precision':10} {'shape':18} {'kernel:config':48} side  % cuBLAS (median; each round)")
    for key in sorted(groups):
        vals = groups[key]
        print(f"{key[0]:10} {key[1]:18} {key[2] + ':' + str(key[3]):48} {key[4]:4} {statistics.median(vals):6.1f}  "
              + " ".join(f"{v:.1f}" for v in vals))


if __name__ == "__main__":
    main()
