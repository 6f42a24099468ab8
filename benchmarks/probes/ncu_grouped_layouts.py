"""One grouped GEMM (DeepSeek-V3's gate_up experts at 512 tokens each) in the masked or the contiguous layout, for
Nsight Compute: the same routing, weights and tokens either way, so that the two kernels' DRAM bytes and L2 hit
rates can be set side by side (docs/findings.md, grouped GEMMs).

    ncu --kernel-name regex:wgmma --launch-skip 2 --launch-count 1 --section SpeedOfLight \\
        --section MemoryWorkloadAnalysis python3 benchmarks/probes/ncu_grouped_layouts.py LAYOUT [WALK] [COUNTS]

LAYOUT: masked or contiguous; WALK: auto, entries or pairs (tcgemm.grouped.WALK); COUNTS: as routed, `round`
(each rounded up to a multiple of 128) or `min129` (at least 129: no segment shorter than a tile).
"""

import sys

import torch

import tcgemm
from tcgemm import grouped
from tcgemm.grouped_bench import routed_counts

layout = sys.argv[1]
grouped.WALK = sys.argv[2] if len(sys.argv) > 2 else "auto"
experts, n, k, tpe = 32, 4096, 7168, 512
counts = routed_counts(experts, 8, tpe, seed=tpe)
if len(sys.argv) > 3 and sys.argv[3] == "round":
    counts = [-(-c // 128) * 128 for c in counts]
if len(sys.argv) > 3 and sys.argv[3] == "min129":
    counts = [max(c, 129) for c in counts]
m = max(64, -(-max(counts) // 64) * 64)
a = torch.randn(experts, m, k, device="cuda").to(torch.bfloat16)
b = (torch.randn(experts, n, k, device="cuda") * k**-0.5).to(torch.bfloat16).transpose(1, 2)
ct = torch.tensor(counts, dtype=torch.int32, device="cuda")
x = torch.cat([a[e, :r] for e, r in enumerate(counts)])
offs = ct.cumsum(0).to(torch.int32)


def call() -> torch.Tensor:
    return tcgemm.grouped_gemm(x, b, offsets=offs) if layout == "contiguous" else tcgemm.grouped_gemm(a, b, ct)


for _ in range(3):
    call()
torch.cuda.synchronize()
with tcgemm.launch.trace() as seen:
    call()
print(layout, grouped.WALK, seen)
