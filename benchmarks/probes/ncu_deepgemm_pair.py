"""DeepGEMM's and tcgemm's block-scaled fp8 GEMM on the same inputs, a few calls each, for Nsight Compute.

Run under ``ncu`` (one process, both kernels), e.g. on the GPU machine with ``carry`` ``[".dg"]``:

    PYTHONPATH=src:benchmarks/probes ncu --kernel-name regex:"fp8_gemm|wgmma" --launch-skip 4 --launch-count 2 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \\
        python3 benchmarks/probes/ncu_deepgemm_pair.py 128x4096x7168

Each side runs 3 warm-up calls, then 1 profiled call, alternating over CALLS copies of the operands (so the profiled
calls read operands not left in L2 by the call before: ncu flushes caches between kernels by default anyway).
"""

import sys

import deepgemm_runner as R
import torch

import tcgemm


def main() -> None:
    m, n, k = (int(v) for v in sys.argv[1].split("x"))
    dg = R.setup()
    copies, _ = R.make_problem(dg, m, n, k, 2)
    out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
    for i in range(4):  # DeepGEMM's four calls (the kernel filter skips the first three of each name)
        (a, sa), (b, sb), o = copies[i % 2]
        dg.gemm_fp8_fp8_bf16_nt((a, sa), (b, sb), o)
    for i in range(4):
        (a, sa), (b, sb), _ = copies[i % 2]
        tcgemm.gemm(a, b.t(), scale_a=sa, scale_b=sb, out=out)
    torch.cuda.synchronize()
    with tcgemm.launch.trace() as seen:
        tcgemm.gemm(a, b.t(), scale_a=sa, scale_b=sb, out=out)
    print("tcgemm kernel:", seen[-1] if seen else None)


if __name__ == "__main__":
    main()
