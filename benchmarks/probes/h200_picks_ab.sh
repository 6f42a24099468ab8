#!/usr/bin/env bash
# Do the picks made on an H200 hold on an H100? Four sessions (2026-11-28) had only H200s: the configs auto took
# there at 1-128 rows (docs/findings.md, the sections "The H200 as the machine", "The H200 again", "The H200 a
# third time", "The H200 a fourth time") were never timed on an H100, where issue 27's done-when is measured. Each
# group below times auto (the H200 pick) beside the configs it replaced, bf16 rc, in one process, CUDA graphs beside
# cuBLAS (`tcgemm bench`); a pick that loses on the H100 should be bounded to the H200 or undone before the model
# bench. The decode group matters most: on the H100 the L2 hint had measured ahead (registry, swap_ab_stream_k).
#
#   PYTHONPATH=src benchmarks/probes/h200_picks_ab.sh OUT_DIR [BUDGET_S]     (~3 minutes after the builds)
#
# Writes OUT_DIR/picks-<group>.json, one per group.
set -uo pipefail
OUT=${1:?usage: h200_picks_ab.sh OUT_DIR [BUDGET_S]}
BUDGET=${2:-0.3}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
W=wgmma_tma_store
S=swap_ab_stream_k
# group | the configs the H200 picks replaced | shapes (M x N x K: the models' layers at the rows where auto moved)
GROUPS=(
  "qkv8b|$W:128x64x64h,$W:128x64x64|72x6144x4096,96x6144x4096,128x6144x4096"
  "gateup8b|$W:128x256x64c1,$W:128x104x64T|72x28672x4096,96x28672x4096,112x28672x4096,128x28672x4096"
  "qkv70b|$S:48x64x64q4s3g1,$S:64x64x64q4s3g1,$W:64x64x64c2s13|48x1280x8192,64x1280x8192,96x1280x8192,128x1280x8192"
  "gateup70b|$W:128x64x64,$W:64x64x64,$W:64x144x64c2l,$W:128x64x64h|72x7168x8192,96x7168x8192,112x7168x8192,128x7168x8192"
  "gateup70b48|$W:64x64x64|33x7168x8192,40x7168x8192,48x7168x8192"
  "down70|$W:128x64x64h|72x8192x3584,96x8192x3584"
  "gateupqwen|$W:128x104x64T,$W:128x96x64n|72x37888x3584,96x37888x3584,112x37888x3584"
  "decode|$S:8x64x64q8s3g1,$S:16x64x64q8s2g1|1x4608x3584,3x4608x3584,16x4608x3584,1x8192x3584,3x8192x3584,1x28672x4096,3x28672x4096"
  "halves|$W:128x64x64,$W:128x64x64k2,$W:64x64x64c2s13|72x8192x3584,96x4096x14336,120x4096x14336"
  "k2down|$W:64x64x64c2s13,$W:64x64x64|64x4096x14336,128x4096x14336,128x3584x18944"
)
python3 -m tcgemm compile --precision bf16 --layouts rc --kernels "$W,$S" > "$OUT/compile.log" 2>&1
for group in "${GROUPS[@]}"; do
  IFS='|' read -r name old shapes <<< "$group"
  echo "== $name: auto against $old"
  python3 -m tcgemm bench --precision bf16 --layouts rc --budget "$BUDGET" --kernels "auto,$old" \
    --shapes "$shapes" --json "$OUT/picks-$name.json" || echo "$name failed (rc $?)"
done
