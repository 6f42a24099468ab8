"""How long does a tensor-parallel call of tcgemm.distributed keep the host before its first GEMM is launched?

The bench (tcgemm.distributed.bench) times each eager call after a barrier, so the GPU idles until the call's first
kernel is enqueued; eager the reduce-scatter at M = 4096 pays ~0.12 of the GEMM's time over its CUDA graph where
NCCL then cuBLAS pays ~0 (docs/tensor-parallel.md), and one GEMM from an idle GPU costs tcgemm and torch alike
(benchmarks/probes/eager_from_idle.py). Per rank, after a barrier and a synchronize, the host microseconds from the
call's entry to the call of its first GEMM (tcgemm's default GEMM wrapped: the copy transport's path is unchanged)
and to its return; beside them the same for the sequential forms, marked when their first operation (the
collective, or torch's GEMM) has returned. Medians of 15 calls after 3.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=src \\
        torchrun --nproc_per_node=2 benchmarks/probes/tp_host_first_launch.py [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist
from tp_timeline import init_nccl  # (the probes' directory is the script's: on sys.path)

from tcgemm.bench import environment
from tcgemm.distributed import all_gather_gemm, decomposed, gemm_reduce_scatter

for key, value in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                   "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ.setdefault(key, value)

_marks: list[float] = []
_plain_gemm = decomposed.default_gemm


def _marking_gemm(*args: Any, **kwargs: Any) -> Any:
    _marks.append(time.perf_counter())
    return _plain_gemm(*args, **kwargs)


def host_times(fn: Callable[[], Any], calls: int = 15) -> tuple[float, float]:
    """(µs from entry to the first mark, µs to return): medians over ``calls`` after three."""
    first, total = [], []
    for i in range(calls + 3):
        dist.barrier()
        torch.cuda.synchronize()
        _marks.clear()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        if i >= 3:
            first.append(1e6 * ((_marks[0] if _marks else t1) - t0))
            total.append(1e6 * (t1 - t0))
    return statistics.median(first), statistics.median(total)


def at_m(m: int, hidden: int, ffn_r: int, device: torch.device, rank: int, world: int) -> list[dict]:
    bf = torch.bfloat16
    x = torch.randn(m // world, hidden, device=device, dtype=bf)
    w = (torch.randn(ffn_r, hidden, device=device, dtype=bf) / 90).t()
    xr = torch.randn(m, ffn_r, device=device, dtype=bf)
    wr = (torch.randn(hidden, ffn_r, device=device, dtype=bf) / 120).t()
    gathered = torch.empty(m, hidden, device=device, dtype=bf)
    summed = torch.empty(m // world, hidden, device=device, dtype=bf)

    def seq_ag() -> None:
        dist.all_gather_into_tensor(gathered, x)
        _marks.append(time.perf_counter())
        torch.matmul(gathered, w)

    def seq_rs() -> None:
        y = torch.matmul(xr, wr)
        _marks.append(time.perf_counter())
        dist.reduce_scatter_tensor(summed, y)

    rows = []
    for name, fn in (("all_gather_gemm tcgemm", lambda: all_gather_gemm(x, w)),
                     ("all_gather_gemm nccl+torch", seq_ag),
                     ("gemm_reduce_scatter tcgemm", lambda: gemm_reduce_scatter(xr, wr)),
                     ("gemm_reduce_scatter torch+nccl", seq_rs)):
        first, total = host_times(fn)
        every: list[Any] = [None] * world
        dist.all_gather_object(every, (round(first, 1), round(total, 1)))
        rows.append({"m": m, "mode": name, "per_rank_first_launch_us_and_return_us": every})
        if rank == 0:
            print(f"M={m} {name:32s} " + "  ".join(f"r{r}: first launch {f} us, return {t} us"
                                                   for r, (f, t) in enumerate(every)), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    args = ap.parse_args()
    device, rank, world = init_nccl()
    hidden, ffn_r = 8192, 28672 // world
    decomposed.default_gemm = _marking_gemm  # (own_gemm compares against this name: the queue path still runs)
    rows = [row for m in (4096, 8192) for row in at_m(m, hidden, ffn_r, device, rank, world)]
    if rank == 0 and args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
