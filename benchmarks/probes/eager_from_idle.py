"""What does one GEMM call cost when it starts an idle GPU, beside the same call replayed from a CUDA graph?

The tensor-parallel bench times each eager call after a barrier (the GPU idle), and there tcgemm's GEMM alone
took ~120 µs more than its graph replay at 2048-4096 x 8192 x 14336 where torch.matmul took ~70 µs more
(2026-11-28-h200-tp2-graphs-61e351e-p1.json). This probe times, per shape, tcgemm.gemm against torch.matmul on the
same operands (the weight K x N as a transposed N x K tensor, as the bench's), alternating, three ways:

  idle    one call after torch.cuda.synchronize() and 2 ms of host sleep, CUDA events around it (the bench's form);
          also the host's time inside the call (perf_counter), and the GPU's work of one such call (torch.profiler:
          each kernel's start after a marker kernel run just before the call, and its duration)
  back    back-to-back calls between two events, per call
  graph   one call captured in a CUDA graph, replayed back to back, per call

    PYTHONPATH=src python3 benchmarks/probes/eager_from_idle.py [--shapes 2048x8192x14336,...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import torch
from torch.profiler import ProfilerActivity, profile

import tcgemm
from tcgemm.bench import capture, environment, time_graphs
from tcgemm.model_bench import CudaTimer


def _idle(fn: Callable[[], object]) -> tuple[float, float]:
    """(µs between events around one call from an idle GPU, µs of host time inside the call)."""
    torch.cuda.synchronize()
    time.sleep(0.002)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    t0 = time.perf_counter()
    fn()
    host = time.perf_counter() - t0
    end.record()
    end.synchronize()
    return 1e3 * start.elapsed_time(end), 1e6 * host


def _back(fn: Callable[[], object], calls: int = 20) -> float:
    """µs per call of back-to-back calls between two events (tcgemm.model_bench.CudaTimer's block)."""
    return CudaTimer._block_us(lambda _i: fn(), 0, calls, 1)


def _graph(fn: Callable[[], object]) -> float:
    """µs per replay of a CUDA graph of one call (tcgemm.bench.capture / time_graphs)."""
    graph = capture(lambda _i: fn(), 1)
    if graph is None:
        return float("nan")
    return time_graphs(graph, None, 1, rounds=5, replays=20)[0]


def _kernels_after_idle(fn: Callable[[], object]) -> list[tuple[str, float, float]]:
    """The call's GPU work from an idle GPU (torch.profiler, one call): (name, µs from the end of a marker kernel run
    just before the call to the start of this one, µs it ran), in order."""
    marker = torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    time.sleep(0.002)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        marker.zero_()  # a kernel the GPU runs at once: the clock's zero
        fn()
        torch.cuda.synchronize()
    gpu = sorted((e for e in prof.events() if e.device_type.name == "CUDA"), key=lambda e: e.time_range.start)
    if not gpu:
        return []
    zero = gpu[0].time_range.end
    return [(e.name[:60], float(e.time_range.start - zero), float(e.time_range.end - e.time_range.start))
            for e in gpu[1:6]]


def run(shape: tuple[int, int, int], rounds: int) -> dict:
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    x = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    w = (torch.randn(n, k, device="cuda", generator=gen) / k**0.5).to(torch.bfloat16).t()
    sides = {"torch": lambda: torch.matmul(x, w), "tcgemm": lambda: tcgemm.gemm(x, w)}
    for fn in sides.values():
        for _ in range(5):
            fn()
    idle: dict[str, list[float]] = {s: [] for s in sides}
    host: dict[str, list[float]] = {s: [] for s in sides}
    for r in range(rounds):
        for name in (sides if r % 2 == 0 else reversed(list(sides))):
            t, h = _idle(sides[name])
            idle[name].append(t)
            host[name].append(h)
    row: dict = {"m": m, "n": n, "k": k}
    for name, fn in sides.items():
        row[name] = {"idle_us": statistics.median(idle[name]), "host_us": statistics.median(host[name]),
                     "back_us": _back(fn), "graph_us": _graph(fn), "kernels_after_idle": _kernels_after_idle(fn)}
        row[name]["idle_over_graph_us"] = row[name]["idle_us"] - row[name]["graph_us"]
    print(f"{m} x {n} x {k}: " + " | ".join(
        f"{s}: idle {v['idle_us']:.1f} back {v['back_us']:.1f} graph {v['graph_us']:.1f} us (idle - graph "
        f"{v['idle_over_graph_us']:.1f}, host in call {v['host_us']:.1f}; GPU after idle "
        f"{[(n[:24], round(t0, 1), round(d, 1)) for n, t0, d in v['kernels_after_idle']]})"
        for s, v in ((s, row[s]) for s in sides)), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="2048x8192x14336,4096x8192x14336,4096x14336x8192,1024x1024x1024")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = [run(tuple(int(v) for v in s.split("x")), args.rounds) for s in args.shapes.split(",")]  # type: ignore[arg-type]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
