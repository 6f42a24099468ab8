"""Does cuBLAS overlap consecutive calls (programmatic dependent launch), and by how much?

For a few shapes: microseconds per call of CUDA graphs holding, per rotating input set,
  (a) one GEMM,  (b) one GEMM then a one-element add (which no GEMM can overlap),  (c) the add alone,
for cuBLAS (torch.matmul) and tcgemm (auto). (b) - (c) - (a) is what a call gains from following
another GEMM directly. Then the edges of a captured two-matmul graph: a programmatic edge type
means the second launch may start before the first ends.
Usage: [PROBE_SETS=n] python3 benchmarks/probes/probe_pdl.py [MxNxK ...]   (prints a table; GPU only)
"""

from __future__ import annotations

import os
import sys

import torch

import tcgemm


def graph_us(body, reps: int = 200) -> float:
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        body()  # warm-up outside the capture (JIT, plans)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        body()
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000 / reps)
    return sorted(times)[len(times) // 2]


def edge_types() -> str:
    try:
        from cuda.bindings import driver
    except ImportError as e:
        return f"no cuda.bindings ({e})"
    a = torch.randn(128, 4096, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    torch.matmul(a, b)
    try:
        g = torch.cuda.CUDAGraph(keep_graph=True)
    except TypeError:
        return "torch.cuda.CUDAGraph has no keep_graph"
    with torch.cuda.graph(g):
        torch.matmul(a, b)
        torch.matmul(a, b)
    raw = driver.CUgraph(g.raw_cuda_graph())
    try:
        err, _src, _dst, data, count = driver.cuGraphGetEdges(raw, 16)
    except Exception as e:  # noqa: BLE001 - report whatever the binding says
        return f"cuGraphGetEdges failed: {e!r}"
    if err != driver.CUresult.CUDA_SUCCESS:
        return f"cuGraphGetEdges: {err}"
    # type 0: default (the next launch waits for the whole kernel); 1: programmatic
    return f"{count} edge(s), types {[int(data[i].type) for i in range(count)]} (1 = programmatic)"


def main() -> None:
    shapes = sys.argv[1:] or ["128x4096x256", "128x4096x4096", "4096x4096x4096"]
    flag = torch.zeros(1, device="cuda")
    tiny = lambda: flag.add_(1)  # noqa: E731
    print("shape            who      gemm   gemm+add   add   gain from following a GEMM (us)")
    for shape in shapes:
        m, n, k = map(int, shape.split("x"))
        # Rotating input sets (together beyond the L2) unless PROBE_SETS says how many (1: B stays in L2).
        sets = int(os.environ.get("PROBE_SETS", 0)) or max(2, min(16, (200 << 20) // (2 * (m * k + k * n))))
        ab = [(torch.randn(m, k, device="cuda", dtype=torch.bfloat16),
               torch.randn(k, n, device="cuda", dtype=torch.bfloat16)) for _ in range(sets)]
        add = graph_us(lambda ab=ab: [tiny() for _ in ab])
        for who, fn in (("cublas", torch.matmul), ("tcgemm", lambda x, y: tcgemm.matmul(x, y))):
            plain = graph_us(lambda ab=ab, fn=fn: [fn(x, y) for x, y in ab]) / sets
            mixed = graph_us(lambda ab=ab, fn=fn: [(fn(x, y), tiny()) for x, y in ab]) / sets
            per_add = add / sets
            print(f"{shape:16s} {who:7s} {plain:7.2f} {mixed:9.2f} {per_add:6.2f} {mixed - per_add - plain:8.2f}")
    print("edges of a two-matmul graph:", edge_types())


if __name__ == "__main__":
    main()
