#!/usr/bin/env bash
# Nsight Compute, one launch of a tcgemm kernel and one of cuBLAS's (nvjet) on the same problem,
# after warm-up: elapsed and active SM cycles (idle SMs: ramp and the last partial wave), the tensor
# pipe's busy share (inside active time: per-tile stalls such as the epilogue), L2 and DRAM bytes.
# Usage (GPU machine): [CUBLAS_RE=regex] [NO_CUBLAS=1] benchmarks/probes/ncu_compare.sh OUT_DIR [KERNEL[:CONFIG]] ["M N K" ...]
# CUBLAS_RE names cuBLAS's kernel (default nvjet, its large-GEMM kernels; skinny shapes may run others,
# e.g. CUBLAS_RE='regex:^(?!wgmma)' takes the first kernel that is not ours). Each profiled kernel's
# name, grid and block are printed above its metrics. PRECISION (default bf16) and LAYOUTS (default rr) as
# tools/profile_one.py takes them, which runs each side: tf32 is torch.matmul with TF32 on; fp8 runs
# torch._scaled_mm (CUBLAS_RE='regex:^(nvjet|sm90|cutlass)': torch's randn kernels come first) against
# tcgemm's scaled GEMM, B column-major as _scaled_mm requires.
set -uo pipefail
out=${1:?usage: benchmarks/probes/ncu_compare.sh OUT_DIR [KERNEL[:CONFIG]] ["M N K" ...]}
kernel=${2:-wgmma_tma_store}
shift $(( $# >= 2 ? 2 : 1 ))
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && shapes=("4096 4096 4096" "8192 8192 8192" "8192 8192 1024")
cd "$(dirname "$0")/../.."
export PYTHONPATH=$PWD/src TCGEMM_CACHE_DIR=${TCGEMM_CACHE_DIR:-/tmp/tcgemm-cache}
# The tensor pipe's metric name differs between ncu versions: take whichever this one has.
pipe=$(ncu --query-metrics 2>/dev/null | grep -o -E "^sm__pipe_tensor_op_(gmma|hmma)_cycles_active" | head -1)
metrics="gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.min"
metrics+=",lts__t_bytes.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct"
metrics+=",dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed"
[ -n "$pipe" ] && metrics+=",$pipe.avg.pct_of_peak_sustained_elapsed,$pipe.avg.pct_of_peak_sustained_active"
# Where the L2's sectors come from, where this ncu has the breakdown: the SMs (TMA included) and the
# fabric between the two L2 partitions (a line homed in the far partition, requested on this side).
# With BREAKDOWN=1, the SMs' sectors and requests by operation (reads, writes, reductions) too.
names="lts__t_sectors_srcunit_tex lts__t_sectors_srcunit_ltcfabric"
[ -n "${BREAKDOWN:-}" ] && names+=" lts__t_sectors_srcunit_tex_op_read lts__t_sectors_srcunit_tex_op_write
  lts__t_sectors_srcunit_tex_op_red lts__t_sectors_srcunit_tex_op_atom lts__t_requests_srcunit_tex_op_read
  lts__t_requests_srcunit_tex_op_write lts__t_sectors_srcunit_tex_lookup_hit lts__t_sectors_srcunit_tex_lookup_miss"
known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
for m in $names; do
  grep -qx "$m" <<< "$known" && metrics+=",$m.sum"
done
# EXTRA_NAMES: more base metric names (e.g. the L2 request coalescer's, lrc__*), each as .sum and .avg
# (their ratio: how many instances of the unit the chip has).
for m in ${EXTRA_NAMES:-}; do
  grep -qx "$m" <<< "$known" && metrics+=",$m.sum,$m.avg"
done
# The kernel's entry point (several registry names share one, e.g. wgmma_tma_store_kmajor's is wgmma_tma_store).
entry=$(python3 -c "import sys; from tcgemm import registry; print(registry.get(sys.argv[1]).entry)" "${kernel%%:*}")
for shape in "${shapes[@]}"; do
  runs=("$kernel|regex:$entry")
  [ -z "${NO_CUBLAS:-}" ] && runs=("cublas|${CUBLAS_RE:-regex:nvjet}" "${runs[@]}")
  for run in "${runs[@]}"; do
    who=${run%%|*} k=${run#*|}
    echo "=== ${shape// /x} ${PRECISION:-bf16} ${LAYOUTS:-rr} $who $k" | tee -a "$out/ncu.txt"
    # tools/profile_one.py runs it 4 times (the first compiles); the third launch is profiled.
    timeout 300 ncu --metrics "$metrics" -k "$k" --launch-skip 2 --launch-count 1 \
      python3 tools/profile_one.py "$who" $shape "${PRECISION:-bf16}" "${LAYOUTS:-rr}" 2>&1 \
      | grep -E "^ +(sm__|gpu__|lts__|lrc__|dram__)|Context [0-9]|==ERR|==WARN" \
      | tee -a "$out/ncu.txt"
  done
done
