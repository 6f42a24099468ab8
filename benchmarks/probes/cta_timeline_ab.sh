#!/usr/bin/env bash
# A/B of a kernel define with benchmarks/probes/cta_timeline.py: processes alternate new (the build as it is) and
# old (TCGEMM_DEFINES=$OLD_DEFINES), ROUNDS pairs, each timing its cases beside cuBLAS; one merged JSON.
#   OLD_DEFINES=SPLIT_K_PAIRS=0 ROUNDS=2 benchmarks/probes/cta_timeline_ab.sh OUT.json CASES
set -uo pipefail
out=$1 cases=$2
tmp=$(mktemp -d)
for r in $(seq "${ROUNDS:-2}"); do
  for side in new old; do
    defines=""; [ "$side" = old ] && defines=$OLD_DEFINES
    TCGEMM_DEFINES=$defines timeout 300 python3 benchmarks/probes/cta_timeline.py --cases "$cases" \
      --json "$tmp/$side-$r.json" 2>&1 | grep -v -i warn | sed "s/^/[$side $r] /"
  done
done
python3 - "$tmp" "$out" <<'PY'
import json, pathlib, sys
tmp, out = pathlib.Path(sys.argv[1]), sys.argv[2]
merged = {"environment": None, "runs": []}
for f in sorted(tmp.glob("*.json")):
    d = json.loads(f.read_text())
    merged["environment"] = merged["environment"] or d["environment"]
    merged["runs"].append({"side": f.stem.split("-")[0], "round": int(f.stem.split("-")[1]), "defines": d["defines"],
                           "rows": d["rows"]})
pathlib.Path(out).write_text(json.dumps(merged, indent=1))
PY
