"""How close does tcgemm.quantize_fp8 come to the memory floor? Bytes moved (the input read, the fp8 output and the
scales written) over CUDA-graph replay time, against a device copy's bandwidth in the same process.

    PYTHONPATH=src python benchmarks/probes/quantize_bandwidth.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from functools import partial

import torch

import tcgemm
from tcgemm.bench import environment
from tcgemm.model_bench import CudaTimer

SHAPES = [(8192, 4096), (2048, 14336), (16, 4096), (8192, 14336)]


def _graph_us(calls: list[Callable[[], object]], replays: int = 20, rounds: int = 7) -> float:
    """µs per call: one CUDA graph holding every call (each on its own copy of the input), replayed."""
    for call in calls:
        call()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for call in calls:
            call()
    times = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        end.synchronize()
        times.append(1e3 * start.elapsed_time(end) / (replays * len(calls)))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    copy_tbps = CudaTimer().copy_bandwidth() / 1e12
    rows = []
    for m, k in SHAPES:
        for group in (None, 128):
            copies = max(2, 200 * 2**20 // (2 * m * k))  # inputs rotating past the 50 MB L2
            xs = [torch.randn(m, k, device="cuda").to(torch.bfloat16) for _ in range(copies)]
            us = _graph_us([partial(tcgemm.quantize_fp8, x, group) for x in xs])
            groups = 1 if group is None else -(-k // group)
            moved = m * k * 2 + m * k + 4 * m * groups
            row = {"m": m, "k": k, "group": group, "us": us, "tbps": moved / us / 1e6, "copy_tbps": copy_tbps,
                   "floor_fraction": moved / us / 1e6 / copy_tbps}
            rows.append(row)
            print(f"{m:5d} x {k:5d} group {group!s:4s} {us:8.2f} us  {row['tbps']:.2f} TB/s  "
                  f"{row['floor_fraction']:.0%} of a copy's {copy_tbps:.2f} TB/s", flush=True)
            del xs
    with open(args.json, "w") as f:
        json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
