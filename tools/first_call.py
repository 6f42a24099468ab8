"""Time a fresh process's first tcgemm.gemm (after torch's own CUDA start-up) and
its second call, to show the disk cache and the in-memory cache at work.
Prints one JSON line."""

from __future__ import annotations

import json
import time

import torch

torch.cuda.init()
a = torch.randn(1024, 1024, device="cuda")
b = torch.randn(1024, 1024, device="cuda")
torch.cuda.synchronize()

import tcgemm  # noqa: E402 - imported after CUDA start-up on purpose: we time tcgemm, not torch

t0 = time.perf_counter()
tcgemm.gemm(a, b)
torch.cuda.synchronize()
first = time.perf_counter() - t0
t0 = time.perf_counter()
tcgemm.gemm(a, b)
torch.cuda.synchronize()
second = time.perf_counter() - t0
print(json.dumps({"first_call_s": round(first, 4), "second_call_s": round(second, 5)}))
