"""What does cuBLAS run at 300 tokens, and does it move fewer bytes than tcgemm?

One call of tcgemm and one of torch (F.linear, the same inputs) per shape, each inside an NVTX range named
after the shape, for Nsight Compute to measure: time, DRAM reads, L2-to-SM bytes and the tensor pipe's busy
share (ncu locks the clocks lower than a benchmark runs, so compare the two sides, not the times to others):

    M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_elapsed.avg.per_second
    PYTHONPATH=src ncu --nvtx --nvtx-include "300x6144x4096/" --nvtx-include "300x28672x4096/" \\
        --nvtx-include "4096x4096x4096/" --metrics $M --csv python3 benchmarks/probes/ncu_bytes_m300.py

(The first call per shape, outside the ranges, plans and loads the kernel.)
"""

from __future__ import annotations

import torch

import tcgemm

SHAPES = [(300, 6144, 4096), (300, 28672, 4096), (4096, 4096, 4096)]


def main() -> None:
    torch.manual_seed(0)
    for m, n, k in SHAPES:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        tcgemm.gemm(x, w.t())
        torch.nn.functional.linear(x, w)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(f"{m}x{n}x{k}")
        tcgemm.gemm(x, w.t())
        torch.nn.functional.linear(x, w)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    main()
