#!/usr/bin/env bash
# Where a tcgemm kernel's warps wait: Nsight Compute's warp-state statistics (stall reasons, averaged
# over the kernel) and its per-instruction stall samples, the SASS lines with the most samples first,
# so a per-tile cost (the epilogue, a barrier, the ring's waits) shows up as the instructions it stalls
# on. cuBLAS's kernel on the same problem gets the warp-state statistics for comparison.
# Usage (GPU machine): [CUBLAS_RE=regex] [TOP=40] tools/ncu_stalls.sh OUT_DIR KERNEL[:CONFIG] "M N K" [PRECISION] [LAYOUTS]
set -uo pipefail
out=${1:?usage: tools/ncu_stalls.sh OUT_DIR KERNEL[:CONFIG] "M N K" [PRECISION] [LAYOUTS]}
kernel=${2:?kernel}
shape=${3:?shape}
precision=${4:-bf16}
layouts=${5:-rr}
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
entry=${kernel%%:*}
tag=$(echo "$kernel-${shape// /x}" | tr ':' '-')
report="/tmp/stalls-$tag"  # reports stay on the GPU machine; the log comes back
log="$out/stalls.txt"
# tools/profile_one.py runs the kernel 4 times (the first compiles); the third launch is profiled.
echo "=== $kernel ${shape// /x} $precision $layouts: warp states" | tee -a "$log"
timeout 300 ncu --section WarpStateStats --section SourceCounters --import-source no -k "regex:$entry" \
  --launch-skip 2 --launch-count 1 -o "$report" -f \
  python3 tools/profile_one.py "$kernel" $shape "$precision" "$layouts" > /tmp/stalls-run.log 2>&1 || tail -5 /tmp/stalls-run.log
ncu -i "$report.ncu-rep" --section WarpStateStats --print-details all 2>&1 | grep -E "Stall|Warp Cycles|Issued" \
  | tee -a "$log"
echo "=== $kernel: SASS lines by stall samples (top ${TOP:-40})" | tee -a "$log"
ncu -i "$report.ncu-rep" --page source --print-source sass --csv 2>/dev/null > "$report-source.csv"
python3 - "$report-source.csv" "${TOP:-40}" <<'PY' | tee -a "$log"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head = next((i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r)), None)
if head is None:
    print("no source page in the report"); sys.exit(0)
cols = rows[head]
src = cols.index("Source")
samp = next((i for i, c in enumerate(cols) if "Sampling (All" in c), None)
if samp is None:
    print("no stall-sampling column:", cols); sys.exit(0)
# the stall-reason columns (per-instruction samples by reason), where this ncu version has them
reasons = [i for i, c in enumerate(cols) if c.startswith("stall_") or "Stall" in c and i != samp]
def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0
body = [r for r in rows[head + 1:] if len(r) == len(cols)]
total = sum(num(r[samp]) for r in body) or 1.0
print(f"{int(total)} samples over {len(body)} SASS lines")
for r in sorted(body, key=lambda r: -num(r[samp]))[:int(sys.argv[2])]:
    top = sorted(((num(r[i]), cols[i]) for i in reasons), reverse=True)[:2]
    why = ", ".join(f"{c} {v:.0f}" for v, c in top if v > 0)
    print(f"{100 * num(r[samp]) / total:5.1f}%  {r[src].strip()[:90]:90s}  {why}")
PY
echo "=== cuBLAS (${CUBLAS_RE:-regex:nvjet}) ${shape// /x}: warp states" | tee -a "$log"
timeout 300 ncu --section WarpStateStats -k "${CUBLAS_RE:-regex:nvjet}" --launch-skip 2 --launch-count 1 \
  --print-details all python3 - $shape "$precision" <<'PY' 2>&1 | grep -E "Stall|Warp Cycles|Issued|nvjet|Context [0-9]" | tee -a "$log"
import sys, torch
m, n, k = map(int, sys.argv[1:4])
dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[4]]
a = torch.randn(m, k, device="cuda", dtype=dtype)
b = torch.randn(k, n, device="cuda", dtype=dtype)
for _ in range(4):
    torch.matmul(a, b)
torch.cuda.synchronize()
PY
