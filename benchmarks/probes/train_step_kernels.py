#!/usr/bin/env python3
"""Where does a transformers Llama's training step spend its GPU time, with torch.nn.Linear and with tcgemm?

The model of examples/llama_transformers.py (8B-shaped layers, --layers of them, random weights, bf16), one
forward + backward at BATCH x TOKENS (next-token loss, no optimizer step), each implementation profiled with
torch.profiler over a few steps after warm-up. The CUDA kernels are summed per group: GEMMs (tcgemm's kernels,
or cuBLAS's / CUTLASS's), and everything else by name; the step's wall time per step beside them. Answers
whether a gap between the two is in the GEMMs or elsewhere (the same model, only the Linear class differs).
The wall time less the kernels' is where the GPU waited for the host: the idle time between kernels is summed
per step, and the --gaps largest idle stretches are listed with the kernels before and after them (which part
of the step the host was late for).

    PYTHONPATH=src python benchmarks/probes/train_step_kernels.py [--fuse-mlp] [--train 1x2048] [--gaps 12] [--json F]
"""

from __future__ import annotations

import collections
import json
import re
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import llama_transformers as ex

GEMM_WORDS = ("gemm", "xmma", "cutlass", "wgmma", "swap_ab", "sm90_", "nvjet", "mma_")


def group(name: str) -> str:
    low = name.lower()
    if any(w in low for w in GEMM_WORDS):
        if low.startswith(("wgmma", "swap_ab", "simt", "mma_")):
            return "tcgemm GEMM"
        return "cuBLAS GEMM " + name.removeprefix("void ")[:48]  # (by kernel: which calls stayed on cuBLAS)
    # torch's elementwise kernels share their outer name; the functor or op inside tells them apart
    inner = []
    for word in re.findall(r"(\w+(?:Functor|_kernel(?:_cuda)?|_kernel_impl))\b", name.split("<", 1)[-1]):
        if word not in inner:
            inner.append(word)
    return name[:60] + (" [" + " ".join(inner[:3]) + "]" if inner else "")


def idle(prof: torch.profiler.profile, steps: int,
         top: int) -> tuple[float, list[dict[str, object]], dict[str, float]]:
    """GPU idle time per step between the first and the last kernel (ms), the ``top`` longest idle stretches
    (µs, with the kernels on either side and the stretch's place in the profile, 0 to 1), and the idle time per
    step (µs) summed by the group of the kernel that ended each stretch (what the GPU waited to be given)."""
    spans = sorted((e.time_range.start, e.time_range.end, e.name) for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA and e.time_range.end > e.time_range.start)
    if not spans:
        return 0.0, [], {}
    gaps: list[tuple[float, float, str, str]] = []
    reach, before = spans[0][1], spans[0][2]
    for start, end, name in spans[1:]:
        if start > reach:
            gaps.append((start - reach, reach, before, name))
        if end >= reach:
            reach, before = end, name
    first, last = spans[0][0], reach
    worst = sorted(gaps, reverse=True)[:top]
    by_next: dict[str, float] = collections.defaultdict(float)
    for us, _at, _after, name in gaps:
        by_next[group(name)] += us / steps
    return sum(g[0] for g in gaps) / steps / 1e3, [
        {"us": round(g[0], 1), "at": round((g[1] - first) / max(last - first, 1e-9), 4), "after": g[2][:90],
         "before": g[3][:90]} for g in worst], dict(sorted(by_next.items(), key=lambda kv: -kv[1]))


def profile(model: torch.nn.Module, step, steps: int,
            top: int = 0) -> tuple[dict[str, float], float, dict[str, float], float, list[dict[str, object]],
                          dict[str, float]]:
    for _ in range(2):
        step()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        wall = (time.perf_counter() - t0) / steps * 1e3
    sums: dict[str, float] = collections.defaultdict(float)
    full: dict[str, float] = {}  # every kernel by its whole name (the JSON keeps them: groups can hide a culprit)
    for e in prof.key_averages():
        cuda_us = getattr(e, "self_device_time_total", None) or getattr(e, "self_cuda_time_total", 0)
        if cuda_us:
            sums[group(e.key)] += cuda_us / steps / 1e3
            full[e.key] = full.get(e.key, 0.0) + cuda_us / steps / 1e3
    idle_ms, gaps, by_next = idle(prof, steps, top)
    return dict(sums), wall, full, idle_ms, gaps, by_next


def main() -> int:
    p = ex.parser()
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--gaps", type=int, default=12, help="list this many of the longest GPU idle stretches")
    args = p.parse_args()
    ex.FUSE_MLP["on"] = args.fuse_mlp
    batch, tokens = (args.train or [(1, 2048)])[0]
    model = ex.build_model(args, "cuda")
    step = ex.train_step(model, ex.random_ids(batch, tokens, model.config.vocab_size, "cuda", args.seed))

    out = {}
    for impl in ex.IMPLS:
        ex.switch(model, impl)
        sums, wall, full, idle_ms, gaps, by_next = profile(model, step, args.steps, args.gaps)
        out[impl] = {"wall_ms": wall, "kernels_ms": sums, "kernels_by_name_ms": full, "idle_ms": idle_ms,
                     "longest_idle": gaps, "idle_us_by_next_kernel": by_next}
        top = sorted(sums.items(), key=lambda kv: -kv[1])[:24]
        gemms = {side: sum(v for k, v in sums.items() if k.startswith(side)) for side in ("tcgemm", "cuBLAS")}
        print(f"{impl}: {wall:.2f} ms a step (wall), GPU kernels {sum(sums.values()):.2f} ms; GEMMs: tcgemm "
              f"{gemms['tcgemm']:.3f} ms, cuBLAS {gemms['cuBLAS']:.3f} ms")
        for name, ms in top:
            print(f"    {ms:8.3f} ms  {name[:160]}")
        print(f"  GPU idle between kernels: {idle_ms:.3f} ms a step; longest stretches (us, place in the profile):")
        for g in gaps:
            print(f"    {g['us']:8.1f} us at {g['at']:.3f}  after {g['after'][:60]}  before {g['before'][:60]}")
        print("  idle a step by the kernel the GPU waited for (us):")
        for name, us in list(by_next.items())[:args.gaps]:
            print(f"    {us:8.1f} us  {name[:150]}")
    if args.json:
        from tcgemm import bench

        Path(args.json).write_text(json.dumps({"environment": bench.environment(), "batch": batch, "tokens": tokens,
                                               "fuse_mlp": args.fuse_mlp, "impls": out}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
