#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, synccheck) over every kernel of the registry at edge shapes
# (tools/sanitize_driver.py), on the GPU machine. Writes a JSON summary: tool -> errors, launches.
# Usage: tools/sanitize.sh SUMMARY.json [TOOLS] [FILTER]    TOOLS default memcheck,racecheck,synccheck
set -uo pipefail
summary=${1:?usage: tools/sanitize.sh SUMMARY.json [TOOLS] [FILTER]}
tools=${2:-memcheck,racecheck,synccheck}
filter=${3:-}
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD/src
export TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
log=${summary%.json}.log  # the last tool's full report stays beside the summary
: > "$log"
status=0
echo "{" > "$summary"
first=1
for tool in ${tools//,/ }; do
  # Python itself is not under test: only kernels launched through cuLaunchKernel are checked
  # (--check-api-memory-access no, --report-api-errors no: host-side API calls, such as cuda.bindings
  # probing for driver entry points, stay out of the report).
  timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --check-api-memory-access no --report-api-errors no \
    --print-limit 20 python3 tools/sanitize_driver.py ${filter:+--filter "$filter"} > "$log.$tool" 2>&1
  rc=$?
  # memcheck/synccheck end with "ERROR SUMMARY: N errors", racecheck with "... hazards displayed (N errors, ..."
  errors=$(grep -a -oE "ERROR SUMMARY: [0-9]+|\([0-9]+ errors" "$log.$tool" | tail -1 | grep -oE "[0-9]+" || echo "?")
  launches=$(grep -a -oE "[0-9]+ kernel launches checked" "$log.$tool" | grep -oE "^[0-9]+" || echo "?")
  wrong=$(grep -a -oE "checked, [0-9]+ wrong" "$log.$tool" | grep -oE "[0-9]+" || echo "?")
  echo "$tool: errors=$errors launches=$launches wrong_results=$wrong rc=$rc"
  grep -a -E "^========= +(Invalid|Race|Barrier|Error|Program hit|  at |Warning)|FAILED|Traceback" "$log.$tool" \
    | head -12
  { echo "=== $tool (exit $rc)"; grep -a -v "^\s*$" "$log.$tool" | head -300; } >> "$log"
  rm -f "$log.$tool"
  [ "$errors" = "0" ] && [ "$rc" = "0" ] || status=1
  [ $first = 1 ] || echo "," >> "$summary"
  first=0
  printf '  "%s": {"errors": "%s", "kernel_launches": "%s", "wrong_results": "%s", "exit_code": %s}' \
    "$tool" "$errors" "$launches" "$wrong" "$rc" >> "$summary"
done
printf '\n}\n' >> "$summary"
exit $status
