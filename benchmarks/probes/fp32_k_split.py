"""fp32 on CUDA cores at few tiles: tcgemm's auto (with its K split), the unsplit SIMT kernel and K cut into 2
or 4 parts (tcgemm.api._fp32_split_k), against cuBLAS's SGEMM, in CUDA graphs (20 calls a graph, median of 15
replays): which problems a split helps, to set tcgemm.api.fp32_k_splits's bounds.

    python3 benchmarks/probes/fp32_k_split.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json

import torch

import tcgemm
from tcgemm import api

SHAPES = [(1024, 1024, 1024), (1024, 1024, 2048), (512, 1024, 1024), (2048, 2048, 1024), (1024, 2048, 1024),
          (16, 4096, 4096), (128, 4096, 4096)]


def graph_us(fn, calls: int = 20) -> float:
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(15):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / calls)
    return sorted(times)[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for m, n, k in SHAPES:
        a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        row = {"m": m, "n": n, "k": k, "auto_splits": api.fp32_k_splits(m, n, k, sms),
               "cublas_us": graph_us(lambda a=a, b=b: torch.matmul(a, b)),
               "auto_us": graph_us(lambda a=a, b=b: tcgemm.gemm(a, b)),
               # unsplit: the kernel named, which takes no split
               "split1_us": graph_us(lambda a=a, b=b: tcgemm.gemm(a, b, kernel="simt_warp_tiling"))}
        for s in (2, 4):
            if k % s == 0:
                row[f"split{s}_us"] = graph_us(lambda a=a, b=b, s=s: api._fp32_split_k(a, b, None, 1.0, 0.0, s, None))
        rows.append(row)
        print({key: round(v, 1) if isinstance(v, float) else v for key, v in row.items()})
    if args.json:
        from tcgemm.bench import environment

        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
