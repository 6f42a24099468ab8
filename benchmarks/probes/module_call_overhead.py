"""Host time per eager call of a Linear: torch.nn.functional.linear, torch.nn.Linear called as a module, and
tcgemm.nn.Linear called as a module, under inference_mode, least and median of ten blocks of repeat calls
over ``--sets`` copies of the layer (weights and inputs rotating, as the model benchmark's are). Per call:
the host's time (perf_counter around the block, no synchronisation inside it) and the block's time between
CUDA events (host and GPU together, what the model benchmark's eager figure is). ``--profile`` adds
cProfile's top functions of tcgemm.nn.Linear's calls.

The model benchmark (tcgemm bench --model) compared tcgemm.nn.Linear (a module) with F.linear (a function)
until 2026-11-27; a model that swaps torch.nn.Linear for tcgemm.nn.Linear compares module with module.

    python3 benchmarks/probes/module_call_overhead.py [--shapes 1x768x2304,64x1024x8192] [--sets 8]
        [--profile] [--json OUT]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import time
from collections.abc import Callable

import torch

import tcgemm.nn


def per_call(fn: Callable[[int], object], sets: int, calls: int = 400, blocks: int = 10) -> dict[str, float]:
    for i in range(50):
        fn(i % sets)
    torch.cuda.synchronize()
    host, events = [], []
    for _ in range(blocks):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t = time.perf_counter()
        for i in range(calls):
            fn(i % sets)
        host.append((time.perf_counter() - t) / calls * 1e6)
        end.record()
        end.synchronize()
        events.append(start.elapsed_time(end) * 1e3 / calls)
    host.sort()
    events.sort()
    return {"host_us_least": host[0], "host_us_median": host[len(host) // 2],
            "event_us_least": events[0], "event_us_median": events[len(events) // 2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default="1x768x2304,1x4096x4096,64x1024x8192,128x1024x8192,128x768x768",
                        help="comma-separated MxKxN (tokens x in_features x out_features)")
    parser.add_argument("--sets", type=int, default=8, help="copies of each layer the calls rotate over")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions of tcgemm's calls")
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for shape in args.shapes.split(","):
        m, k, n = (int(v) for v in shape.lower().split("x"))
        lins = [torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16) for _ in range(args.sets)]
        ours = [tcgemm.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16) for _ in range(args.sets)]
        for lin, our in zip(lins, ours, strict=True):
            our.load_state_dict(lin.state_dict())
        xs = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for _ in range(args.sets)]
        sides = (("F.linear", lambda i, lins=lins, xs=xs: torch.nn.functional.linear(xs[i], lins[i].weight,
                                                                                      lins[i].bias)),
                 ("torch.nn.Linear", lambda i, lins=lins, xs=xs: lins[i](xs[i])),
                 ("tcgemm.nn.Linear", lambda i, ours=ours, xs=xs: ours[i](xs[i])))
        with torch.inference_mode():
            for name, fn in sides:
                r = per_call(fn, args.sets)
                rows.append({"m": m, "k": k, "n": n, "sets": args.sets, "call": name, **r})
                print(f"{m}x{k}x{n} {name}: host {r['host_us_least']:.2f} us per call (median "
                      f"{r['host_us_median']:.2f}), events {r['event_us_least']:.2f} ({r['event_us_median']:.2f})")
            if args.profile:
                prof = cProfile.Profile()
                prof.enable()
                for i in range(2000):
                    ours[i % args.sets](xs[i % args.sets])
                prof.disable()
                torch.cuda.synchronize()
                out = io.StringIO()
                pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
                print(out.getvalue())
    if args.json:
        from tcgemm.bench import environment

        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
