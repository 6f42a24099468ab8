"""Where does a tensor-parallel call of tcgemm.distributed spend its time? Per rank, the end time of each GEMM
it launches (CUDA events recorded by a wrapping ``gemm=``) and of the whole call, median of 12 calls after 3,
next to the same GEMMs without communication (halves for all-gather, halves for reduce-scatter).

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONPATH=src \\
        torchrun --nproc_per_node=2 benchmarks/probes/tp_timeline.py

Shapes: the Llama-3-70B MLP split over the ranks (tcgemm.distributed.bench's), M = 8192 and 16384. Output: a line
per (variant, rank): the milliseconds from the call's start to the end of each GEMM, then to the call's end.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from tcgemm.distributed import all_gather_gemm, gemm_reduce_scatter
from tcgemm.distributed.decomposed import default_gemm

for key, value in {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                   "NVSHMEM_DISABLE_NVLS": "1"}.items():
    os.environ.setdefault(key, value)


def timeline(label: str, fn: Callable[[Callable[..., Any]], Any], rank: int, world: int, calls: int = 12) -> None:
    rows = []
    for i in range(calls + 3):
        dist.barrier()
        torch.cuda.synchronize()
        events: list[torch.cuda.Event] = []

        def gemm(*args: Any, events: list[torch.cuda.Event] = events, **kwargs: Any) -> Any:
            result = default_gemm(*args, **kwargs)
            events.append(torch.cuda.Event(enable_timing=True))
            events[-1].record()
            return result

        start = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(gemm)
        events.append(torch.cuda.Event(enable_timing=True))
        events[-1].record()
        torch.cuda.synchronize()
        if i >= 3:
            rows.append([start.elapsed_time(e) for e in events])
    medians = [round(statistics.median(r[j] for r in rows), 3) for j in range(len(rows[0]))]
    every: list[Any] = [None] * world
    dist.all_gather_object(every, medians)
    if rank == 0:
        for r, values in enumerate(every):
            print(f"{label:28s} r{r} " + " ".join(map(str, values)), flush=True)


def shape(m: int, hidden: int, ffn_r: int, device: torch.device, rank: int, world: int) -> None:
    bf = torch.bfloat16
    x = torch.randn(m // world, hidden, device=device, dtype=bf)
    w = (torch.randn(ffn_r, hidden, device=device, dtype=bf) / 90).t()
    xr = torch.randn(m, ffn_r, device=device, dtype=bf)
    wr = (torch.randn(hidden, ffn_r, device=device, dtype=bf) / 120).t()
    if rank == 0:
        print(f"--- M={m}", flush=True)
    timeline("ag halves", lambda g: (g(x, w), g(x, w)), rank, world)
    timeline("ag lib copy", lambda g: all_gather_gemm(x, w, gemm=g), rank, world)
    timeline("rs halves", lambda g: [g(xr[i * (m // 2):(i + 1) * (m // 2)], wr) for i in range(2)], rank, world)
    timeline("rs lib copy", lambda g: gemm_reduce_scatter(xr, wr, gemm=g), rank, world)
    timeline("rs lib store", lambda g: gemm_reduce_scatter(xr, wr, gemm=g, transport="store"), rank, world)
    timeline("rs lib parts", lambda g: gemm_reduce_scatter(xr, wr, gemm=g, splits=2), rank, world)


def init_nccl() -> tuple[torch.device, int, int]:
    """This torchrun process's GPU, its NCCL group joined: (device, rank, world). Shared with
    tp_host_first_launch.py."""
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    return device, dist.get_rank(), dist.get_world_size()


def main() -> None:
    device, rank, world = init_nccl()
    hidden, ffn_r = 8192, 28672 // world
    for m in (8192, 16384):
        shape(m, hidden, ffn_r, device, rank, world)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
