"""Where the host time of an MLP training step goes: torch.nn.Linear against tcgemm.nn.Linear.

    python3 benchmarks/probes/train_host_profile.py [--model gpt2] [--tokens 512] [--steps 300] [--top 25]

The model benchmark's training row (`tcgemm bench --model gpt2`) times forward + backward of a model's MLP
eagerly; at GPT-2's sizes the GPU finishes long before the host has issued the next step, so the row
measures host time. This probe times both steps with the GPU synchronised only at the ends (wall time per
step, host-bound), then the time per step with CUDA's own work alone ruled out (the same steps under
cProfile), and prints the functions where tcgemm's step spends its host time (tottime), so a change to the
Python path can be aimed and checked. Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import torch

from tcgemm import models
from tcgemm.model_bench import MLP, _train_step
from tcgemm.nn import Linear


def _wall_us(step, x: torch.Tensor, steps: int) -> float:
    for _ in range(20):
        step(x)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / steps * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="gpt2", help="a model of `tcgemm bench --model` (default gpt2)")
    ap.add_argument("--tokens", type=int, default=512, help="tokens per step (default 512)")
    ap.add_argument("--steps", type=int, default=300, help="timed steps per side (default 300)")
    ap.add_argument("--top", type=int, default=25, help="functions listed from the profile (default 25)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("train_host_profile.py needs a CUDA GPU")
    shapes = models.get(args.model)
    first, second = (shapes.layer(name) for name in shapes.mlp)
    layers = [torch.nn.Linear(s.in_features, s.out_features, bias=s.bias, device="cuda", dtype=torch.bfloat16)
              for s in (first, second)]
    torch_mlp = MLP(*layers, shapes.activation)
    tc_mlp = MLP(*(Linear.from_torch(t) for t in layers), shapes.activation)
    x = torch.randn(args.tokens, first.in_features, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    def torch_step(t: torch.Tensor) -> None:
        _train_step(torch_mlp, t)

    def tc_step(t: torch.Tensor) -> None:
        _train_step(tc_mlp, t)

    walls = {"torch": [], "tcgemm": []}
    for _ in range(3):  # alternating
        walls["torch"].append(_wall_us(torch_step, x, args.steps))
        walls["tcgemm"].append(_wall_us(tc_step, x, args.steps))
    for name, values in walls.items():
        print(f"{name:7s} wall us per step (host-bound): {', '.join(f'{v:.1f}' for v in values)}")
    for name, step in (("torch", torch_step), ("tcgemm", tc_step)):
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.steps):
            step(x)
        prof.disable()
        torch.cuda.synchronize()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.top)
        print(f"\n=== {name}: cProfile over {args.steps} steps (tottime) ===")
        print(out.getvalue())


if __name__ == "__main__":
    main()
