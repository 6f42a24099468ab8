#!/usr/bin/env bash
# Everything GPU-side in one call on the device machine:
#   environment -> compile all kernels (parallel) -> pytest (CPU + GPU tests)
#   -> first-call latency (cold and warm disk cache) -> benchmarks (JSON).
# Usage: tools/gpu_suite.sh OUT_DIR [quick]
# Runs from the checkout with PYTHONPATH=src; needs no network.
set -uo pipefail
OUT=${1:-${OUT:-out}}
MODE=${2:-full}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
export TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
status=0
step() { echo; echo "=== $* ==="; }

step info
python3 -m tcgemm info 2>&1 | tee "$OUT/info.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$OUT/info.txt"

step "first call, cold disk cache"
rm -rf "$TCGEMM_CACHE_DIR"
python3 tools/first_call.py 2>&1 | tee "$OUT/first_call_cold.json"

step "compile every kernel build"
python3 -m tcgemm compile --jobs 16 2>&1 | tail -2

step "first call, warm disk cache"
python3 tools/first_call.py 2>&1 | tee "$OUT/first_call_warm.json"

step pytest
python3 -m pytest tests -q -x -p no:cacheprovider --junitxml="$OUT/pytest.xml" 2>&1 | tee "$OUT/pytest.log" | tail -25
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

step "bench (fp32 ladder)"
if [ "$MODE" = quick ]; then shapes=1024,4096; else shapes=1024,4096,4096x10240x4096; fi
python3 -m tcgemm bench --kernels all --shapes "$shapes" --json "$OUT/bench_fp32.json" 2>&1 | tee "$OUT/bench.log" | grep -v "━"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
