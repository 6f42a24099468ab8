#!/usr/bin/env bash
# A/B/C of whole builds: processes alternate between arms, each timing `tcgemm bench --kernels auto` beside cuBLAS
# (same process, interleaved) at the same shapes; the ratio to cuBLAS is what compares across arms, since the
# processes differ. An arm is name=SRC_DIR[@DEFINES]: the package at SRC_DIR (an older commit's `src`, e.g. from
# `git archive COMMIT src | tar x -C DIR`), built with TCGEMM_DEFINES=DEFINES (e.g. EARLY_PRODUCER=0).
#   benchmarks/probes/build_ab.sh OUT_DIR ROUNDS PRECISION LAYOUTS SHAPES ARM...
#   benchmarks/probes/build_ab.sh out 3 bf16 rr 4096,8192 head=src head_ep0=src@EARLY_PRODUCER=0 old=/tmp/e31b9c5/src
# Writes OUT_DIR/<arm>-<round>.json, all of them merged in OUT_DIR/ab.json (the arms' sources and defines beside
# their rows), and prints each arm's median ratio per shape (ab-summary.txt).
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
python3 - "$out" "$@" <<'PY' | tee "$out/ab-summary.txt"
import json, pathlib, statistics, sys
from collections import defaultdict
out = pathlib.Path(sys.argv[1])
arms = dict(a.split("=", 1) for a in sys.argv[2:])
ratios, graphs = defaultdict(list), defaultdict(list)
merged = {"environment": None, "arms": arms, "runs": []}
for f in sorted(out.glob("*-[0-9]*.json")):
    arm, rnd = f.stem.rsplit("-", 1)
    data = json.loads(f.read_text())
    merged["environment"] = merged["environment"] or data["environment"]
    merged["runs"].append({"arm": arm, "round": int(rnd), "rows": data["rows"]})
    for row in data["rows"]:
        if row["kernel"] != "cublas":
            ratios[(row["m"], row["n"], row["k"], arm)].append(row["pct_cublas"] / 100)
            if row.get("graph_us"):  # calls under 0.1 ms: CUDA-graph replay too (the GPU alone)
                graphs[(row["m"], row["n"], row["k"], arm)].append(row["cublas_graph_us"] / row["graph_us"])
for key, rs in sorted(ratios.items()):
    (m, n, k, arm), gs = key, graphs.get(key)
    graph = f"; graphs {statistics.median(gs):.3f} ({min(gs):.3f}-{max(gs):.3f})" if gs else ""
    print(f"{m}x{n}x{k} {arm:12s} median {statistics.median(rs):.3f} (range {min(rs):.3f}-{max(rs):.3f}, "
          f"{len(rs)} processes){graph}")
(out / "ab.json").write_text(json.dumps(merged, indent=1))
PY
