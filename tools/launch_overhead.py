"""Where does a GEMM's time go: host overhead per call, and GPU time with and without it.

For each (kernel, shape): the host time of one tcgemm.gemm call (no synchronisation: what the
CPU spends before the launch is queued), the median GPU time per launch timed with events
around each call (the benchmark's method), and the GPU time per launch of a CUDA graph of 20
calls replayed (no host work between launches). cuBLAS (torch.matmul) alongside.

    python3 tools/launch_overhead.py [--json FILE] [--profile] kernel[:config] ...

--profile: also print where each tcgemm call's host time goes (cProfile over 500 calls, top entries
by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time

import torch

import tcgemm
from tcgemm.check import random_operand


def _events(fn, runs: int = 50) -> float:
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def _graph(fn, calls: int = 20, replays: int = 10) -> float:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        graph.replay()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / calls)
    return statistics.median(times)


def _host_us(fn, calls: int = 200) -> float:
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t) / calls * 1e6
    torch.cuda.synchronize()
    return host


def _profile(fn, calls: int = 500, top: int = 18) -> str:
    torch.cuda.synchronize()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernels", nargs="+")
    parser.add_argument("--shapes", default="4096,1024,128x4096x4096")
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    parser.add_argument("--json")
    parser.add_argument("--profile", action="store_true", help="cProfile the host side of each tcgemm call")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    rows = []
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x")) if "x" in shape else (int(shape),) * 3
        a = random_operand(m, k, "row", None, dtype, "cuda")
        b = random_operand(k, n, "row", None, dtype, "cuda")
        out = torch.empty(m, n, dtype=dtype, device="cuda")
        fns = {"cublas": lambda a=a, b=b, out=out: torch.matmul(a, b, out=out)}
        for name in args.kernels:
            kernel, _, config = name.partition(":")
            fns[name] = lambda a=a, b=b, out=out, kernel=kernel, config=config: tcgemm.gemm(
                a, b, out=out, kernel=kernel, config=config or None)
        for name, fn in fns.items():
            try:
                fn()
            except ValueError as exc:  # e.g. a TMA kernel asked for unaligned operands
                print(f"{name:32s} {m}x{n}x{k}: skipped ({exc})")
                continue
            for _ in range(4):
                fn()
            row = {"kernel": name, "m": m, "n": n, "k": k, "host_us": _host_us(fn),
                   "events_us": 1e3 * _events(fn), "graph_us": 1e3 * _graph(fn)}
            rows.append(row)
            if args.profile and name != "cublas":
                print(_profile(fn))
            print(f"{name:32s} {m}x{n}x{k}: host {row['host_us']:7.1f} us/call, events {row['events_us']:8.1f} us, "
                  f"graph {row['graph_us']:8.1f} us  ({2 * m * n * k / row['graph_us'] / 1e6:.0f} TFLOP/s in a graph)")
    if args.json:
        from tcgemm.bench import environment

        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
