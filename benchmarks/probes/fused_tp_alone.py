"""How fast are the fused transport's kernels (tcgemm.distributed.fused, kernels/include/peer_rows.cuh) alone?

One GPU, no peers: each PEER_ROWS launch of the bench's shapes (Llama-3-70B's MLP split W ways, env W, default 4)
with every flag preset, as rank 0 and rank 1 (another walk order), against the plain GEMM of the same shape
(default config, and forced to the fused plan's config), and the reduce-scatter's sum pass alone: medians of
CUDA-graph replays of 5 calls each. Not interleaved: repeats of one timing differ by up to ~7% on one H100.

    W=4 PYTHONPATH=src python benchmarks/probes/fused_tp_alone.py   # writes $OUT/probe_fused.json (OUT: /tmp)

Answer (2026-11-27-h100-probe-fused-afb3f6f.json, W = 4): the fused kernels ran within that spread of the plain
GEMM; the sum pass took 62 us at M = 8192 (160 MB).
"""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
from collections.abc import Callable
from typing import Any

import torch

import tcgemm
from tcgemm import launch, tma
from tcgemm.api import device_info
from tcgemm.distributed import fused
from tcgemm.distributed.reduce import sum_blocks
from tcgemm.problem import describe

HIDDEN, FFN = 8192, 28672


def graph_time(fn: Callable[[], Any], reps: int = 30) -> float:
    """Median microseconds per call over ``reps`` replays of a graph of 5 calls."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(5):
            fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 5 * 1e3)
    return statistics.median(times)


def one(kind: str, m: int, world: int, dev: torch.device, arch: str, sms: int) -> dict[str, Any]:
    rows, ffn_r = m // world, FFN // world
    k = HIDDEN if kind == "gather" else ffn_r
    full = torch.randn(m, k, device=dev).to(torch.bfloat16)
    w = (torch.randn(HIDDEN if kind == "scatter" else ffn_r, k, device=dev) / 90).to(torch.bfloat16).t()
    prob, _ = describe(full, w, None, alpha=1.0, beta=0.0, out=None, out_dtype=None, precision=None)
    prob = dataclasses.replace(prob, peer_rows=1 if kind == "gather" else 2)
    spec, cfg = fused._config(prob, rows, sms)
    plan = launch.plan(prob, spec, cfg, sms)
    kernel = launch.kernel_for(plan, arch, dev.index)
    clusters = launch.resident_grid(plan, kernel, dev.index)[0] // spec.cluster_of(cfg)
    tail_floats = launch._tail_need(prob, spec, cfg, clusters)[0] if cfg.get("TAIL_SPLIT") else 0
    tail = torch.empty(max(tail_floats, 1), device=dev)
    tail_ptr = tail.data_ptr() if tail_floats else 0
    flags = torch.ones(96, dtype=torch.int32, device=dev)
    out = torch.empty(m, w.shape[1], dtype=torch.bfloat16, device=dev)
    result: dict[str, Any] = {"kind": kind, "m": m, "world": world, "config": cfg.name}
    for rank in (0, 1):
        if kind == "gather":
            inbox_map = tma.encode_typed(full.data_ptr(), tma.operand_map_type(prob), *tma.geometry(prob, cfg, "a"))
            block = fused._peer_block(dev, inbox_map, (world, rank, rows, rank), flags.data_ptr(), tail_ptr)
            a = full[rank * rows:(rank + 1) * rows]
        else:
            block = fused._peer_block(dev, None, (world, rank, rows, (rank + 1) % world), flags.data_ptr(), tail_ptr)
            a = full
        result[f"fused_rank{rank}_us"] = graph_time(
            lambda a=a, block=block: launch.run(plan, prob, a, w, None, out, arch, peer=block))
    result["plain_default_us"] = graph_time(lambda: tcgemm.gemm(full, w, out=out))
    result["plain_same_config_us"] = graph_time(lambda: tcgemm.gemm(full, w, out=out, kernel=spec.name,
                                                                     config=cfg.name))
    if kind == "scatter":
        inbox = torch.randn(m, HIDDEN, device=dev).to(torch.bfloat16)
        summed = torch.empty(rows, HIDDEN, dtype=torch.bfloat16, device=dev)
        result["sum_us"] = graph_time(
            lambda: sum_blocks(out[:rows], inbox, rows * HIDDEN, world, 0, summed, dev.index))
    return result


def main() -> None:
    dev = torch.device("cuda", 0)
    _, sms, arch = device_info(0)
    world = int(os.environ.get("W", "4"))
    results = []
    for m in (4096, 8192, 16384):
        for kind in ("gather", "scatter"):
            results.append(one(kind, m, world, dev, arch, sms))
            print(json.dumps(results[-1]), flush=True)
    path = os.path.join(os.environ.get("OUT", "/tmp"), "probe_fused.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
