#!/usr/bin/env bash
# A/B/C of whole builds: processes alternate between arms, each timing `tcgemm bench --kernels auto` beside cuBLAS
# (same process, interleaved) at the same shapes; the ratio to cuBLAS is what compares across arms, since the
# processes differ. An arm is name=SRC_DIR[@DEFINES]: the package at SRC_DIR (an older commit's `src`, e.g. from
# `git archive COMMIT src | tar x -C DIR`), built with TCGEMM_DEFINES=DEFINES (e.g. EARLY_PRODUCER=0).
#   benchmarks/probes/build_ab.sh OUT_DIR ROUNDS PRECISION LAYOUTS SHAPES ARM...
#   benchmarks/probes/build_ab.sh out 3 bf16 rr 4096,8192 head=src head_ep0=src@EARLY_PRODUCER=0 old=/tmp/e31b9c5/src
# Writes OUT_DIR/<arm>-<round>.json and prints each arm's median ratio per shape (ab-summary.txt).
set -uo pipefail
out=$1 rounds=$2 precision=$3 layouts=$4 shapes=$5
shift 5
mkdir -p "$out"
for r in $(seq "$rounds"); do
  for arm in "$@"; do
    name=${arm%%=*} spec=${arm#*=}
    src=${spec%%@*} defines=""
    [ "$src" != "$spec" ] && defines=${spec#*@}
    PYTHONPATH=$(realpath "$src") TCGEMM_DEFINES=$defines timeout 300 python3 -m tcgemm bench --kernels auto \
      --precision "$precision" --layouts "$layouts" --shapes "$shapes" --json "$out/$name-$r.json" 2>&1 \
      | grep "auto" | cut -c1-160 | sed "s/^/[$name $r] /"
  done
done
python3 - "$out" <<'PY' | tee "$out/ab-summary.txt"
import json, pathlib, statistics, sys
from collections import defaultdict
ratios = defaultdict(list)
for f in sorted(pathlib.Path(sys.argv[1]).glob("*-[0-9]*.json")):
    arm = f.stem.rsplit("-", 1)[0]
    for row in json.loads(f.read_text())["rows"]:
        if row["kernel"] != "cublas":
            ratios[(row["m"], row["n"], row["k"], arm)].append(row["pct_cublas"] / 100)
for (m, n, k, arm), rs in sorted(ratios.items()):
    print(f"{m}x{n}x{k} {arm:12s} median {statistics.median(rs):.3f} (range {min(rs):.3f}-{max(rs):.3f}, {len(rs)} processes)")
PY
