"""Host time per eager call of one decode-sized Linear (bf16, M = 1 token, GPT-2's qkv 768 -> 2304 and
Llama-3-8B's o-proj 4096 -> 4096): torch.nn.functional.linear, torch.nn.Linear called as a module, and
tcgemm.nn.Linear called as a module, under inference_mode, least and median of ten blocks of repeat
calls. The model benchmark (tcgemm bench --model) compares tcgemm.nn.Linear (a module) with F.linear (a
function); a model that swaps torch.nn.Linear for tcgemm.nn.Linear compares module with module.

    python3 benchmarks/probes/module_call_overhead.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

import tcgemm.nn


def per_call(fn, calls: int = 300, blocks: int = 10) -> tuple[float, float]:
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(blocks):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls * 1e6)
        torch.cuda.synchronize()
    times.sort()
    return times[0], times[len(times) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    for k, n in ((768, 2304), (4096, 4096)):
        lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
        ours = tcgemm.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
        ours.load_state_dict(lin.state_dict())
        x = torch.randn(1, k, device="cuda", dtype=torch.bfloat16)
        with torch.inference_mode():
            for name, fn in (("F.linear", lambda lin=lin, x=x: torch.nn.functional.linear(x, lin.weight, lin.bias)),
                             ("torch.nn.Linear", lambda lin=lin, x=x: lin(x)),
                             ("tcgemm.nn.Linear", lambda ours=ours, x=x: ours(x))):
                least, median = per_call(fn)
                rows.append({"k": k, "n": n, "m": 1, "call": name, "host_us_least": least, "host_us_median": median})
                print(f"{k}->{n} {name}: {least:.2f} us per call (median {median:.2f})")
    if args.json:
        from tcgemm.bench import environment

        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
