"""A model's decode step as it runs: the Linear layers of several decoder layers, one after the other, in
one CUDA graph; tcgemm.nn.Linear against torch.nn.functional.linear on the same weights, and both against
a read-only streaming kernel over the same weight bytes (issue 27's bandwidth criterion).

Every layer of the step has its own weights (``--layers`` decoder layers, at least enough that one step
touches 3x the L2), so nothing a GEMM reads was left in L2 by the one before: the weights stream from HBM
as in a model. Each side's graph holds the whole step; it is replayed back to back, sides interleaved
A/B/S/S/B/A, median of ``--rounds``. The streaming reference is kernels/util/stream_read.cu over each
weight (reads every byte once, 16-byte evict-first loads, four in flight per thread, writes nothing).
Attention and norms are left out: the GEMMs are what is compared.

    python tools/decode_step.py --model llama3-8b,llama3-70b-tp8 --tokens 1,16 --json out.json

Reports per (model, M): step time of each side, weight bytes / time in TB/s, tcgemm's fraction of the
streaming kernel's rate, and the kernels tcgemm ran (launch.trace()).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Callable

import numpy as np
import torch

import tcgemm
import tcgemm.nn
from tcgemm import driver, jit, launch, models
from tcgemm.bench import environment


def _stream_reader(device: int = 0) -> Callable[[torch.Tensor], None]:
    """A call that streams a tensor's bytes through kernels/util/stream_read.cu on the current stream."""
    cc = jit._cuda_core()
    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    kernel = jit.load_kernel("util/stream_read.cu", "stream_read", jit.as_defines([("TCGEMM_STREAM_READ", 1)]),
                             arch, device)
    sink = torch.zeros(1, dtype=torch.int32, device=f"cuda:{device}")
    grid = 4 * torch.cuda.get_device_properties(device).multi_processor_count
    config = cc.LaunchConfig(grid=(grid, 1, 1), block=(512, 1, 1))

    def read(t: torch.Tensor) -> None:
        assert t.is_contiguous() and t.data_ptr() % 16 == 0 and t.nbytes % 16 == 0
        stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
        cc.launch(stream, config, kernel, t.data_ptr(), np.int64(t.nbytes // 16), sink.data_ptr())

    return read


def _graph(fn: Callable[[], object]) -> torch.cuda.CUDAGraph:
    fn()  # eager once: plans, loads, sizes scratch
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


def _replay_us(graph: torch.cuda.CUDAGraph, replays: int) -> float:
    graph.replay()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(replays):
        graph.replay()
    end.record()
    end.synchronize()
    return 1e3 * start.elapsed_time(end) / replays


def bench(name: str, m: int, layers: int, rounds: int, replays: int, dtype: torch.dtype,
          configs: tuple[str, ...] = ()) -> dict[str, object]:
    shapes = models.get(name)
    per_layer = sum(lay.in_features * lay.out_features for lay in shapes.layers) * dtype.itemsize
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    count = max(layers, math.ceil(3 * l2 / per_layer))
    gen = torch.Generator(device="cuda").manual_seed(0)
    weights = [[(torch.randn(lay.out_features, lay.in_features, device="cuda", generator=gen) * 0.02).to(dtype)
                for lay in shapes.layers] for _ in range(count)]
    inputs = {k: torch.randn(m, k, device="cuda", generator=gen).to(dtype)
              for k in {lay.in_features for lay in shapes.layers}}
    mods = []
    for ws in weights:
        row = []
        for lay, w in zip(shapes.layers, ws, strict=True):
            t = torch.nn.Linear(lay.in_features, lay.out_features, bias=False, device="cuda", dtype=dtype)
            t.weight = torch.nn.Parameter(w, requires_grad=False)
            row.append(tcgemm.nn.Linear.from_torch(t))
        mods.append(row)
    ks = [lay.in_features for lay in shapes.layers]

    def run_torch() -> None:
        for ws in weights:
            for k, w in zip(ks, ws, strict=True):
                torch.nn.functional.linear(inputs[k], w)

    def run_tcgemm() -> None:
        for row in mods:
            for k, mod in zip(ks, row, strict=True):
                mod(inputs[k])

    read = _stream_reader()

    def run_stream() -> None:
        for ws in weights:
            for w in ws:
                read(w)

    def run_config(spec_config: str) -> Callable[[], None]:
        kernel, _, config = spec_config.partition(":")

        def run() -> None:
            for ws in weights:
                for k, w in zip(ks, ws, strict=True):
                    tcgemm.gemm(inputs[k], w.t(), kernel=kernel, config=config or None)

        return run

    with torch.inference_mode():
        for ws, row in zip(weights, mods, strict=True):  # correctness of every layer against torch
            for k, w, mod in zip(ks, ws, row, strict=True):
                ref = torch.nn.functional.linear(inputs[k], w).float()
                err = ((mod(inputs[k]).float() - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
                if not err < 2e-2:
                    raise SystemExit(f"{name} M={m}: tcgemm differs from torch by {err:.2e}")
        with launch.trace() as seen:
            run_tcgemm()
        kernels = sorted(set(seen))
        graphs = {"torch": _graph(run_torch), "tcgemm": _graph(run_tcgemm), "stream": _graph(run_stream)}
        for c in configs:  # named kernel:config sides, to compare configs in the step
            graphs[c] = _graph(run_config(c))
        times: dict[str, list[float]] = {k: [] for k in graphs}
        order = ["torch", "tcgemm", *configs, "stream", "stream", *reversed(configs), "tcgemm", "torch"]
        for _ in range(rounds):
            for side in order:
                times[side].append(_replay_us(graphs[side], replays))
    med = {k: statistics.median(v) for k, v in times.items()}
    step_bytes = per_layer * count
    tbps = {k: step_bytes / (us * 1e-6) / 1e12 for k, us in med.items()}
    return {
        "model": name, "tokens": m, "layers_in_step": count, "weight_bytes": step_bytes,
        "us": med, "us_min": {k: min(v) for k, v in times.items()}, "tbps": tbps,
        "ratio_torch_over_tcgemm": med["torch"] / med["tcgemm"],
        "tcgemm_fraction_of_stream": med["stream"] / med["tcgemm"],
        "torch_fraction_of_stream": med["stream"] / med["torch"],
        "kernels": kernels,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="llama3-8b,llama3-70b-tp8", help="comma list (tcgemm.models names)")
    parser.add_argument("--tokens", default="1,16", help="comma list of tokens per step (M)")
    parser.add_argument("--layers", type=int, default=4, help="decoder layers per step (at least; default 4)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per side (median; default 5)")
    parser.add_argument("--replays", type=int, default=20, help="graph replays per round (default 20)")
    parser.add_argument("--configs", default="", help="comma list of kernel:config to time as extra sides")
    parser.add_argument("--json", help="write the rows and the environment here")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("decode_step: needs a CUDA GPU", file=sys.stderr)
        return 2
    rows = []
    for name in models.parse_names(args.model):
        for m in (int(t) for t in args.tokens.split(",")):
            row = bench(name, m, args.layers, args.rounds, args.replays, torch.bfloat16,
                        tuple(filter(None, args.configs.split(","))))
            rows.append(row)
            us, tb = row["us"], row["tbps"]
            sides = " | ".join(f"{k} {us[k]:8.1f} us {tb[k]:.2f} TB/s" for k in us)
            print(f"{name:16s} M={m:<3d} {row['layers_in_step']} layers {row['weight_bytes'] / 1e9:.2f} GB: {sides} | "
                  f"torch/tcgemm {row['ratio_torch_over_tcgemm']:.2f}x, tcgemm "
                  f"{100 * row['tcgemm_fraction_of_stream']:.0f}% of stream "
                  f"(torch {100 * row['torch_fraction_of_stream']:.0f}%)  {', '.join(row['kernels'])}", flush=True)
            torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "benchmark": "decode step (tools/decode_step.py)",
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
