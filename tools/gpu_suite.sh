#!/usr/bin/env bash
# Everything GPU-side in one call on the device machine:
#   environment -> compile all kernels (parallel) -> first-call latency (cold and warm cache)
#   -> pytest (CPU + GPU tests) -> benchmarks per precision (JSON).
# Usage: [TESTS_K=expr] [TESTS_PATH=tests/gpu] [SKIP_TESTS=1] [SKIP_SANITIZE=1] [SANITIZE_TOOLS=list]
#        [SANITIZE_FILTER=substring of 'kernel:config-precision' (tools/sanitize_driver.py --list)]
#        [SKIP_COMPILE=1 (no up-front build of every kernel: the JIT compiles what runs)] [COMPILE_KERNELS=list]
#        [BENCH_KERNELS=list] [BENCH_SHAPES=list]
#        [BENCH_BUDGET=s] [BENCH_LAYOUTS=rr] [EXTRA_RUNS="precision/layouts/kernels/shapes ..."]
#        [MODELS=1 (host time per call, the model-shape benchmark, the transformers example; issue 25)]
#        [MODEL_RUNS=3 [ODD_TOKENS=3,48,300,3000] (the model benchmark alone, in N processes)]
#        [MODEL_NAMES=all] [MODEL_BUDGET=s]
#        [LLAMA_RUNS=3 (the transformers Llama, --fuse-mlp --train 1x2048, in N processes: llama-p<i>.json)]
#        [TESTS_TIMEOUT=s (SIGINT: the summary still prints)] [TESTS_K2=expr TESTS_PATH2=paths TESTS_TIMEOUT2=s]
#        [TESTS_WORKERS=N (pytest-xdist: N test processes sharing the GPU, compiling N builds at once)]
#        [FUSED=1 [FUSED_MAX_AUTOTUNE=1] [FUSED_RUNS=N] [FUSED_ARGS="..."] (fused epilogues against torch, torch.compile, cuBLASLt: fused.json;
#         cuBLASLt needs nvmath-python 1.x: carry its wheel in .whl/ (`carry: [".whl"]`); the step installs it
#         with `python3 -m pip install --no-deps` (a bare `pip` there may belong to another Python))]
#        [FP8=1 (fp8 per-tensor and row-wise scales against torch._scaled_mm: fp8.json)]
#        [SWEEP=1 (auto against cuBLAS at issue 27's sweep, every precision, rr and rc: sweep.json; SWEEP_SHAPES=list,
#         SWEEP_PROCESSES=N: each pair N times, medians)]
#        [C_EPI=1 (what a whole C costs, tcgemm against torch.mm / addmm: c_epilogue.json; C_EPI_SHAPES=list)]
#        [BUILD_AB="ROUNDS PRECISION LAYOUTS SHAPES ARM..." (benchmarks/probes/build_ab.sh: processes alternating whole
#         builds, ARM = name=SRC_DIR[@DEFINES], e.g. "3 bf16 rc 512x1280x8192 head=src ep0=src@EARLY_PRODUCER=0";
#         build-ab.json, build-ab.txt)]
#        [TIMELINE_AB="OLD_DEFINES CASES" (benchmarks/probes/cta_timeline_ab.sh: each CTA's timeline and the call's
#         time beside cuBLAS, processes alternating the build as it is and one with OLD_DEFINES, e.g.
#         "EARLY_PRODUCER=0 300x768x3072:auto,512x1280x8192:auto"; timeline-ab.json / .txt)]
#        [TP=1 (tensor parallel over every GPU of the machine: torchrun -m tcgemm.distributed.bench, tp.json;
#         the 2-GPU tests in tests/gpu run with the pytest step on any machine with 2+ GPUs)]
#        tools/gpu_suite.sh OUT_DIR [quick|full|release] [PRECISIONS]
#   PRECISIONS "none" runs no benchmark.
#   PRECISIONS: comma list (default: every precision some kernel computes)
# At most 8 files come back from the device: info.txt, pytest.log, hostile.json, sanitize.json, bench.log,
# bench_<precision>.json
# (merged into bench_all.json when there are more than 5 precisions).
# Runs from the checkout with PYTHONPATH=src; needs no network.
set -uo pipefail
# NVLink multicast stays off in every process (the device machines' rule): NCCL, torch symmetric memory, NVSHMEM.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${1:-${OUT:-out}}
MODE=${2:-full}
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
export TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
PRECISIONS=${3:-$(python3 -c "from tcgemm.problem import available_precisions as a; print(','.join(a()))")}
status=0
step() { echo; echo "=== $* [$(date +%T)] ==="; }

step info
python3 -m tcgemm info 2>&1 | tee "$OUT/info.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a "$OUT/info.txt"

step "first call, cold disk cache"
rm -rf "$TCGEMM_CACHE_DIR"
echo -n "cold cache: " >> "$OUT/info.txt"
python3 tools/first_call.py 2>&1 | tee -a "$OUT/info.txt"

# COMPILE_KERNELS=list (with SKIP_COMPILE=1): compile just these kernels' builds, in parallel, before the tests
# (which otherwise compile one build at a time: ~1 s a test at 7e5a7a1).
if [ -n "${COMPILE_KERNELS:-}" ]; then
step "compile the builds of $COMPILE_KERNELS"
python3 -m tcgemm compile --jobs 16 --kernels "$COMPILE_KERNELS" 2>&1 | tail -1
fi
if [ -z "${SKIP_COMPILE:-}" ]; then
step "compile every kernel build"
python3 -m tcgemm compile --jobs 16 2>&1 | tail -2

step "first call, warm disk cache"
echo -n "warm cache: " >> "$OUT/info.txt"
python3 tools/first_call.py 2>&1 | tee -a "$OUT/info.txt"
fi

step "mma.sync ceiling (registers only; issue 3 reads the ladder against it)"
python3 tools/mma_sync_peak.py 2>&1 | tee -a "$OUT/info.txt"

if [ -z "${SKIP_TESTS:-}" ]; then
step pytest
# A hung kernel must not take the whole run: each test gets a wall-clock limit, after which
# pytest-timeout (present on the GPU machine) ends the process and the suite moves on.
timeout_opts=""
python3 -c "import pytest_timeout" 2>/dev/null && timeout_opts="--timeout=240 --timeout-method=thread"
# TESTS_K: optional pytest -k expression to run a subset (default: everything)
# TCGEMM_ALL_BUILDS: the CPU compile tests check every build (CI samples one per config), from the cache
# `tcgemm compile` just filled. TCGEMM_HOSTILE_JSON: the property test's counts (inputs tried, failures).
# TESTS_TIMEOUT=s: interrupt pytest after s seconds with SIGINT, so that it still prints its summary (what passed,
# failed and was not reached) before the device call's own limit ends everything silently.
# TESTS_K2 (with TESTS_PATH2): a second pytest run after the first, e.g. one config family of test_correctness,
# with TESTS_TIMEOUT2; its log is pytest2.log.
# TESTS_WORKERS=N: N pytest processes on the one GPU (pytest-xdist, in the GPU machine's image). The GPU suite is
# bound by compiling the builds its tests run (NVRTC, one at a time in one process; ~2300 builds in all), so N
# processes compile N at once; their kernels share the GPU by time slices (a kernel's CTAs stay co-resident as
# alone), the kernel cache is written atomically (tcgemm.jit), and each test keeps its own limit. Default 1.
workers_opts=""
if [ "${TESTS_WORKERS:-1}" -gt 1 ] && python3 -c "import xdist" 2>/dev/null; then
  workers_opts="-n ${TESTS_WORKERS}"
fi
run_pytest() {  # log path, test paths, -k expression, timeout
  TCGEMM_HOSTILE_JSON="$OUT/hostile.json" TCGEMM_ALL_BUILDS=1 ${4:+timeout -s INT "$4"} \
    python3 -m pytest $2 -q -p no:cacheprovider $timeout_opts $workers_opts ${3:+-k "$3"} 2>&1 \
    | tee "$1" | grep -v "^\.\+ *\[" | tail -40
  return "${PIPESTATUS[0]}"
}
run_pytest "$OUT/pytest.log" "${TESTS_PATH:-tests}" "${TESTS_K:-}" "${TESTS_TIMEOUT:-}" || status=1
if [ -n "${TESTS_K2:-}${TESTS_PATH2:-}" ]; then
  step "pytest, second selection"
  run_pytest "$OUT/pytest2.log" "${TESTS_PATH2:-tests}" "${TESTS_K2:-}" "${TESTS_TIMEOUT2:-}" || status=1
fi
fi

if [ -z "${SKIP_SANITIZE:-}" ]; then
step "compute-sanitizer: memcheck, racecheck, synccheck over every kernel"
bash tools/sanitize.sh "$OUT/sanitize.json" "${SANITIZE_TOOLS:-memcheck,racecheck,synccheck}" ${SANITIZE_FILTER:+"$SANITIZE_FILTER"} \
  || status=1
fi

# MODEL_RUNS=N: only the model benchmark, N processes (the README's table is the median of three) at the
# default token counts and, with ODD_TOKENS=list (e.g. 3,48,300,3000), N more there: models-p<i>.json and
# odd-p<i>.json (no host-time, plot or transformers runs: the device returns 8 files at most).
if [ -n "${MODEL_RUNS:-}" ]; then
for i in $(seq "$MODEL_RUNS"); do
  step "model shapes, process $i of $MODEL_RUNS"
  timeout 300 python3 -m tcgemm bench --model "${MODEL_NAMES:-all}" --no-train ${MODEL_BUDGET:+--budget "$MODEL_BUDGET"} \
    --json "$OUT/models-p$i.json" 2>&1 | grep -v "━" | tail -3 || status=1
  if [ -n "${ODD_TOKENS:-}" ]; then
    timeout 300 python3 -m tcgemm bench --model "${MODEL_NAMES:-all}" --no-train --tokens "$ODD_TOKENS" \
      --json "$OUT/odd-p$i.json" 2>&1 | grep -v "━" | tail -3 || status=1
  fi
done
fi

# LLAMA_RUNS=N: the transformers Llama with --fuse-mlp and a 1 x 2048 training step, N processes (issue 28's
# model rows: median of three): llama-p<i>.json.
if [ -n "${LLAMA_RUNS:-}" ]; then
for i in $(seq "$LLAMA_RUNS"); do
  step "transformers Llama, --fuse-mlp --train 1x2048, process $i of $LLAMA_RUNS"
  timeout 300 python3 examples/llama_transformers.py --fuse-mlp --train 1x2048 --json "$OUT/llama-p$i.json" 2>&1 \
    | grep -E "ratio|done|rror" || status=1
done
fi

# FUSED=1: the fused-epilogue benchmark (issue 28): SwiGLU gate_up and bias + GELU against torch, torch.compile
# (FUSED_MAX_AUTOTUNE=1: its max-autotune mode too, minutes of autotuning) and cuBLASLt's GELU_BIAS where
# nvmath-python imports; fused.json.
if [ -n "${FUSED:-}" ]; then
step "fused epilogues: tcgemm.fused_bench"
if ls .whl/nvmath_python-*.whl >/dev/null 2>&1; then
  python3 -m pip install --no-deps -q .whl/nvmath_python-*.whl 2>&1 | grep -v -i warn
fi
python3 -c "import nvmath; print('nvmath-python', nvmath.__version__)" || echo "no nvmath-python: no cuBLASLt rows"
# FUSED_RUNS=N: N processes (fused-p<i>.json); FUSED_ARGS: more arguments, e.g. "--cases bias_gelu --shapes
# 4096x14336 --sides 'tcgemm fused,cuBLASLt'" for the head-to-head with cuBLASLt alone.
for i in $(seq "${FUSED_RUNS:-1}"); do
  name=fused; [ -n "${FUSED_RUNS:-}" ] && name=fused-p$i
  eval "timeout 600 python3 -m tcgemm.fused_bench $([ -z "${FUSED_MAX_AUTOTUNE:-}" ] && echo --no-max-autotune) \
    ${FUSED_ARGS:-} --json \"$OUT/$name.json\"" 2>&1 | grep -v "━" | tee -a "$OUT/fused.log" | tail -40
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
fi

# C_EPI=1: D = A B + C against D = A B, tcgemm (C staged, and C read from L2) beside torch.mm and torch.addmm
# (issue 28's residual add; benchmarks/probes/c_epilogue.py): c_epilogue.json.
if [ -n "${C_EPI:-}" ]; then
step "a whole C: benchmarks/probes/c_epilogue.py"
timeout 300 python3 benchmarks/probes/c_epilogue.py --runs 60 \
  --shapes "${C_EPI_SHAPES:-2048x8192x14336,4096x8192x7168,4096x8192x14336,4096x4096x4096}" \
  --json "$OUT/c_epilogue.json" 2>&1 | tee "$OUT/c_epilogue.log" | cut -c1-220
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

# FP8=1: fp8 with per-tensor and row-wise scales against torch._scaled_mm (issue 31), eager and CUDA graphs; fp8.json.
if [ -n "${FP8:-}" ]; then
step "fp8 scales: tcgemm.fp8_bench"
timeout 600 python3 -m tcgemm.fp8_bench --json "$OUT/fp8.json" 2>&1 | grep -v "━" | tee "$OUT/fp8.log" | tail -30
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

# SWEEP=1: auto against cuBLAS for fp32, tf32, bf16, fp16 and int8, rr and rc, at the sweep's shapes (issue 27: none
# below 0.9x); one JSON, the rows below 0.9x printed (tools/precision_sweep.py).
if [ -n "${SWEEP:-}" ]; then
step "precision sweep: tools/precision_sweep.py"
timeout 900 python3 tools/precision_sweep.py ${SWEEP_SHAPES:+--shapes "$SWEEP_SHAPES"} --processes "${SWEEP_PROCESSES:-1}" --json "$OUT/sweep.json" 2>&1 \
  | tee "$OUT/sweep.log" | tail -30
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ -n "${BUILD_AB:-}" ]; then
step "builds alternating in processes: benchmarks/probes/build_ab.sh $BUILD_AB"
# shellcheck disable=SC2086  # (the arguments are words by design)
# (the per-process files stay out of $OUT: the device returns 8 files; the log stays only if the run failed)
if timeout 600 bash benchmarks/probes/build_ab.sh "$OUT/build-ab" $BUILD_AB > "$OUT/build-ab.log" 2>&1; then
  rm -f "$OUT/build-ab.log"
else
  status=1; tail -20 "$OUT/build-ab.log"
fi
cp "$OUT/build-ab/ab.json" "$OUT/build-ab.json" 2>/dev/null; cp "$OUT/build-ab/ab-summary.txt" "$OUT/build-ab.txt" 2>/dev/null
cat "$OUT/build-ab.txt" 2>/dev/null; rm -rf "$OUT/build-ab"
fi

if [ -n "${TIMELINE_AB:-}" ]; then
step "CTA timelines, A/B: benchmarks/probes/cta_timeline_ab.sh"
OLD_DEFINES=${TIMELINE_AB%% *} ROUNDS=${TIMELINE_ROUNDS:-2} timeout 600 bash benchmarks/probes/cta_timeline_ab.sh \
  "$OUT/timeline-ab.json" "${TIMELINE_AB#* }" > "$OUT/timeline-ab.txt" 2>&1 || status=1
grep -E "first: graph" "$OUT/timeline-ab.txt" | cut -c1-140
fi

if [ -n "${TP:-}" ]; then
step "tensor parallel: all-gather + GEMM and GEMM + reduce-scatter over $(nvidia-smi -L | wc -l) GPUs"
timeout 600 torchrun --nproc_per_node="$(nvidia-smi -L | wc -l)" -m tcgemm.distributed.bench --json "$OUT/tp.json" 2>&1 \
  | grep -v Warning | tee "$OUT/tp.log" | tail -20
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ -n "${MODELS:-}" ]; then
step "host time per call: tcgemm.nn.Linear vs torch.nn.Linear, scaled fp8 vs torch._scaled_mm"
python3 tools/host_time.py --json "$OUT/host_time.json" 2>&1 | tee -a "$OUT/models.log" || status=1
step "model shapes: every Linear of a decoder layer, eager and CUDA graphs, weights rotated past L2"
timeout 900 python3 -m tcgemm bench --model "${MODEL_NAMES:-all}" ${MODEL_BUDGET:+--budget "$MODEL_BUDGET"} \
  --json "$OUT/models.json" --plot "$OUT/models.png" 2>&1 | grep -v "━" | tee -a "$OUT/models.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
step "a transformers Llama with and without tcgemm (examples/llama_transformers.py)"
timeout 600 python3 examples/llama_transformers.py --json "$OUT/llama_transformers.json" 2>&1 \
  | tee -a "$OUT/models.log" || status=1
fi

[ "$PRECISIONS" = none ] && PRECISIONS=""
for precision in ${PRECISIONS//,/ }; do
  step "bench $precision"
  case "$precision:$MODE" in
    fp32:quick) shapes=1024,4096 ;;
    fp32:*) shapes=1024,4096,4096x10240x4096 ;;
    *:quick) shapes=4096 ;;
    fp16:*|bf16:*) shapes=${BENCH_SHAPES:-1024,4096,8192,4095,4096x14336x4096,4096x4096x14336,8192x8192x1024,128x4096x4096,16x4096x4096} ;;
    *) shapes=${BENCH_SHAPES:-1024,4096,8192,4095} ;;
  esac
  # fp8: cuBLAS (torch._scaled_mm) reads B column-major only, so bench the K-major layouts. int8 and
  # tf32: wgmma reads them K-major only, so rc (B = W.t() of a row-major weight, as in nn.Linear) is
  # read in place while rr pays a transposing copy of B per call; bench both.
  case "$precision" in fp8*) layouts=rc ;; int8|tf32) layouts=${BENCH_LAYOUTS:-rc,rr} ;;
    *) layouts=${BENCH_LAYOUTS:-rr} ;; esac
  for lay in ${layouts//,/ }; do
    suffix=$([ "$lay" = "${layouts%%,*}" ] && echo "" || echo "_$lay")
    if [ "$MODE" = release ]; then
      # release: every ladder stage (default tile) at 4096^3, then auto against cuBLAS at every shape
      # (the "all" mode times every tile config at every shape: minutes per precision).
      others=$(echo ",$shapes," | sed 's/,4096,/,/; s/^,//; s/,$//')
      runs="ladder,auto:4096${others:+ auto:$others}"
    else
      runs="${BENCH_KERNELS:-all,auto}:$shapes"
    fi
    i=0
    for run in $runs; do
      i=$((i + 1))
      timeout 900 python3 -m tcgemm bench --precision "$precision" --kernels "${run%%:*}" \
        --shapes "${run#*:}" --budget "${BENCH_BUDGET:-1.0}" --layouts "$lay" \
        --json "$OUT/bench_$precision${suffix}_$i.json" 2>&1 | tee -a "$OUT/bench.log" | grep -v "━"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done
done
# EXTRA_RUNS: exploratory rows beside the release ones, space-separated precision/layouts/kernels/shapes
# entries, e.g. "tf32/rc/mma_pipeline:256x128x32s3,mma_pipeline:256x128x32g16/4096,8192".
e=0
for extra in ${EXTRA_RUNS:-}; do
  e=$((e + 1))
  IFS=/ read -r precision lay kernels shapes <<< "$extra"
  step "extra bench $e: $precision $lay $kernels $shapes"
  timeout 900 python3 -m tcgemm bench --precision "$precision" --kernels "$kernels" --shapes "$shapes" \
    --budget "${BENCH_BUDGET:-1.0}" --layouts "$lay" --json "$OUT/bench_extra_$e.json" 2>&1 | tee -a "$OUT/bench.log" \
    | grep -v "━"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
done
# The device returns at most 8 files: with more than 5 precisions, one bench_all.json holds every
# row (each row names its precision; tools/results_table.py and tcgemm plot read it as it is).
if [ "$(ls "$OUT"/bench_*.json 2>/dev/null | wc -l)" -gt "${MAX_BENCH_FILES:-5}" ]; then
  python3 - "$OUT" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
files = sorted(out.glob("bench_*.json"))
merged = {"environment": None, "rows": []}
for f in files:
    data = json.loads(f.read_text())
    merged["environment"] = merged["environment"] or data["environment"]
    merged["rows"] += data["rows"]
(out / "bench_all.json").write_text(json.dumps(merged, indent=1))
for f in files:
    f.unlink()
PY
fi
exit $status
