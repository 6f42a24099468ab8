"""Where the time of a staged call goes (issue 4: bf16 at 4095^3, rows not 16-byte aligned).

kernel="auto" copies A and B into row-padded buffers (tcgemm.staging) and runs the Hopper kernel;
D (4095 columns) is written from registers because TMA cannot store rows that are not 16-byte
aligned. This times each part on the GPU with CUDA events (median of repeats, after warm-up):
the copy kernel against torch's copy_, the GEMM on pre-staged operands with the caller's D and with
a row-padded D (TMA-store epilogue), the whole call, and the host time per call.
    python benchmarks/probes/staging_breakdown.py [--size 4095] [--dtype bf16] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path

import torch

import tcgemm
from tcgemm import staging

# tools/launch_overhead.py's CUDA-event median per call (this probe lives in benchmarks/probes/)
_spec = importlib.util.spec_from_file_location(
    "launch_overhead", Path(__file__).resolve().parents[2] / "tools" / "launch_overhead.py")
assert _spec is not None and _spec.loader is not None
_launch_overhead = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_launch_overhead)
_events = _launch_overhead._events


def gpu_ms(fn: Callable[[], object], reps: int = 30) -> float:
    for _ in range(3):  # warm-up: compile, allocate, encode tensor maps
        fn()
    return _events(fn, reps)


def host_us(fn: Callable[[], object], reps: int = 50) -> float:
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / reps * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=4095)
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    parser.add_argument("--json")
    args = parser.parse_args()
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    n = args.size
    a = torch.randn(n, n, device="cuda").to(dtype)
    b = torch.randn(n, n, device="cuda").to(dtype)
    a_st, b_st = staging.aligned_copy(a, "r"), staging.aligned_copy(b, "r")
    pad = -(-n // 8) * 8
    d_padded = torch.empty(n, pad, device="cuda", dtype=dtype)[:, :n]

    def torch_copy() -> None:
        torch.empty(n, pad, device="cuda", dtype=dtype)[:, :n].copy_(a)

    rec = {
        "size": n, "dtype": args.dtype,
        "copy_kernel_ms": gpu_ms(lambda: staging.aligned_copy(a, "r")),
        "copy_torch_ms": gpu_ms(torch_copy),
        "gemm_prestaged_ms": gpu_ms(lambda: tcgemm.gemm(a_st, b_st)),
        "gemm_prestaged_padded_out_ms": gpu_ms(lambda: tcgemm.gemm(a_st, b_st, out=d_padded)),
        "full_call_ms": gpu_ms(lambda: tcgemm.gemm(a, b)),
        "cublas_ms": gpu_ms(lambda: torch.matmul(a, b)),
        "full_call_host_us": host_us(lambda: tcgemm.gemm(a, b)),
    }
    for key, value in rec.items():
        print(f"{key:32s} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rec, f, indent=1)


if __name__ == "__main__":
    main()
