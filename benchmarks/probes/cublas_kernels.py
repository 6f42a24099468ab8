"""Which kernel cuBLAS (torch.nn.functional.linear) runs at each shape, and its GPU time, from torch.profiler.

Usage: python3 benchmarks/probes/cublas_kernels.py [--bias] [--dtype bf16] MxNxK [MxNxK ...] [--json FILE]
Prints one line per shape: the kernels launched (name, count, mean µs). Weights are N x K as nn.Linear's.
"""
from __future__ import annotations

import argparse
import json

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def kernels_at(m: int, n: int, k: int, dtype: torch.dtype, bias: bool, calls: int = 20) -> list[dict]:
    x = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype) if bias else None
    for _ in range(5):
        F.linear(x, w, b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            F.linear(x, w, b)
        torch.cuda.synchronize()
    rows = []
    for ev in prof.key_averages():
        if ev.device_type.name == "CUDA" and ev.count:
            total = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
            rows.append({"name": ev.key, "count": ev.count, "mean_us": total / ev.count})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shapes", nargs="+", help="MxNxK")
    ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp16"))
    ap.add_argument("--bias", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    out = []
    for s in args.shapes:
        m, n, k = (int(v) for v in s.split("x"))
        rows = kernels_at(m, n, k, dtype, args.bias)
        out.append({"shape": s, "dtype": args.dtype, "bias": args.bias, "kernels": rows})
        print(s, "; ".join(f"{r['name'][:90]} x{r['count']} {r['mean_us']:.1f}us" for r in rows), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()
