#!/usr/bin/env bash
# Where a kernel's warps wait, tcgemm's and cuBLAS's on the same problem: Nsight Compute's warp-state
# statistics (stall reasons averaged over the kernel) and per-instruction stall samples, the SASS lines
# with the most samples first (benchmarks/probes/ncu_source_top.py). cuBLAS's SASS lines show how its main loop is
# built too (where it waits, how many wgmmas between waits).
# Usage (GPU machine): [CUBLAS_RE=regex] [NO_CUBLAS=1] [TOP=40] [WITH_C=1] benchmarks/probes/ncu_stalls.sh OUT_DIR KERNEL[:CONFIG] "M N K" [PRECISION] [LAYOUTS]
# WITH_C=1: D = A B + C, C of D's shape (tools/profile_one.py's seventh argument; cuBLAS: torch.addmm).
# PRECISION as tools/profile_one.py (fp8e4m3: cuBLAS is torch._scaled_mm; pass
# CUBLAS_RE='regex:^(nvjet|sm90|cutlass)', torch's randn kernels come first otherwise).
set -uo pipefail
out=${1:?usage: benchmarks/probes/ncu_stalls.sh OUT_DIR KERNEL[:CONFIG] "M N K" [PRECISION] [LAYOUTS]}
kernel=${2:?kernel}
shape=${3:?shape}
precision=${4:-bf16}
layouts=${5:-rr}
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD/src TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
# The kernel's entry point (several registry names share one, e.g. wgmma_tma_store_kmajor's is wgmma_tma_store).
entry=$(python3 -c "import sys; from tcgemm import registry; print(registry.get(sys.argv[1]).entry)" "${kernel%%:*}")
log="$out/stalls.txt"
runs=("$kernel|regex:$entry")
[ -z "${NO_CUBLAS:-}" ] && runs+=("cublas|${CUBLAS_RE:-regex:nvjet}")
for run in "${runs[@]}"; do
  who=${run%%|*}
  filter=${run#*|}
  report="/tmp/stalls-$(echo "$who-${shape// /x}-$precision${WITH_C:+-c}" | tr ':' '-')"  # reports stay on the GPU machine
  echo "=== $who ${shape// /x} $precision $layouts${WITH_C:+ with C} ($filter): warp states" | tee -a "$log"
  # tools/profile_one.py runs the kernel 4 times (the first compiles); the third launch is profiled.
  timeout 300 ncu --section WarpStateStats --section SourceCounters --import-source no -k "$filter" \
    --launch-skip 2 --launch-count 1 -o "$report" -f \
    python3 tools/profile_one.py "$who" $shape "$precision" "$layouts" ${WITH_C:+c} > /tmp/stalls-run.log 2>&1 \
    || tail -5 /tmp/stalls-run.log | tee -a "$log"
  ncu -i "$report.ncu-rep" --page raw --csv --metrics launch__grid_size,launch__block_size 2>/dev/null \
    | tail -1 | cut -c1-400 | tee -a "$log"
  ncu -i "$report.ncu-rep" --section WarpStateStats --print-details all 2>&1 \
    | grep -E "Stall|Warp Cycles|Issued" | tee -a "$log"
  echo "=== $who: SASS lines by stall samples (top ${TOP:-40})" | tee -a "$log"
  ncu -i "$report.ncu-rep" --page source --print-source sass --csv 2>/dev/null > "$report-source.csv"
  python3 benchmarks/probes/ncu_source_top.py "$report-source.csv" "${TOP:-40}" | tee -a "$log"
  # The whole SASS listing with samples, for reading the main loop in order.
  [ -n "${KEEP_SOURCE:-}" ] && cp "$report-source.csv" "$out/$(basename "$report")-source.csv"
done
