"""Host time per eager tcgemm.gemm call on one GPU: repeat calls (prepared launches) of one problem, timed
before and after synchronising, for B read in place (column-major, "rc") and B copied to a K-major buffer
on every call (row-major, "rr": int8 and tf32 read K-major operands only). The repeat path's host work is
what an eager caller of a small GEMM waits for.

    python3 benchmarks/probes/host_per_call.py [SIZE] [--json OUT] [--label NAME]

A/B of two builds on one machine: run it twice in one session, PYTHONPATH pointing at each build's src/.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

import tcgemm


def per_call(a: torch.Tensor, b: torch.Tensor, calls: int, blocks: int = 10, **kw) -> tuple[float, float, float]:
    """(least and median host µs per call over ``blocks`` blocks of ``calls`` calls, µs per call of the
    whole run with the GPU): the least block is the host's own cost, the others carry interference."""
    for _ in range(50):
        tcgemm.gemm(a, b, **kw)
    torch.cuda.synchronize()
    per_block = []
    start = time.perf_counter()
    for _ in range(blocks):
        t = time.perf_counter()
        for _ in range(calls):
            tcgemm.gemm(a, b, **kw)
        per_block.append((time.perf_counter() - t) / calls * 1e6)
    torch.cuda.synchronize()
    total = (time.perf_counter() - start) / (calls * blocks) * 1e6
    per_block.sort()
    return per_block[0], per_block[len(per_block) // 2], total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", nargs="?", type=int, default=1024)
    parser.add_argument("--calls", type=int, default=200, help="calls per timed block (10 blocks)")
    parser.add_argument("--json")
    parser.add_argument("--label", default="", help="a name for this build in the rows (A/B runs)")
    args = parser.parse_args()
    n = args.size
    rows = []
    for precision in ("int8", "tf32", "bf16"):
        if precision == "int8":
            a = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
            b = torch.randint(-8, 8, (n, n), device="cuda", dtype=torch.int8)
        else:
            dtype = torch.float32 if precision == "tf32" else torch.bfloat16
            a, b = (torch.randn(n, n, device="cuda").to(dtype) for _ in range(2))
        kw = {"precision": "tf32"} if precision == "tf32" else {}
        for layouts in ("rc", "rr"):
            bb = b.t().contiguous().t() if layouts == "rc" else b
            least, median, total = per_call(a, bb, args.calls, **kw)
            rows.append({"build": args.label, "precision": precision, "layouts": layouts, "m": n, "n": n, "k": n,
                         "host_us_per_call_least": least, "host_us_per_call_median": median, "us_per_call": total})
            print(f"{args.label} {precision} {layouts} {n}^3: host {least:.1f} us/call (median {median:.1f}), "
                  f"with the GPU {total:.1f}")
    if args.json:
        from tcgemm.bench import environment

        env = environment()
        with open(args.json, "w") as f:
            json.dump({"environment": env, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
