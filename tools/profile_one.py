"""Run one kernel a few times on one problem, for a profiler (ncu, nsys, compute-sanitizer) to watch.

    ncu --launch-skip 2 --launch-count 1 python3 tools/profile_one.py wgmma_ws 4096 4096 4096 bf16
    ncu -k regex:nvjet --launch-skip 2 --launch-count 1 python3 tools/profile_one.py cublas 4096 4096 4096 bf16

KERNEL is a registry name (optionally :config) or `cublas` (torch.matmul; for fp8 torch._scaled_mm
with unit scales and bf16 D, B column-major as it requires). PRECISION: fp16, bf16, fp32, tf32, int8,
fp8e4m3, fp8e5m2; LAYOUTS rr/rc/cr/cc (fp8: B is always column-major). A seventh argument ``c`` adds a C of
D's shape with beta = 1 (cuBLAS: torch.addmm), fp16 / bf16 / fp32 only:

    ncu --launch-skip 2 --launch-count 1 python3 tools/profile_one.py auto 4096 8192 14336 bf16 rc c
"""

from __future__ import annotations

import sys

import torch

import tcgemm
from tcgemm.check import random_operand

_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "tf32": torch.float32,
           "int8": torch.int8, "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}


def main(argv: list[str]) -> int:
    if len(argv) < 5 or argv[4] not in _DTYPES:
        print(__doc__)
        return 2
    kernel, m, n, k = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    precision = argv[4]
    layouts = argv[5] if len(argv) > 5 else "rr"
    with_c = len(argv) > 6 and argv[6] == "c"
    fp8 = precision.startswith("fp8")
    if fp8:
        layouts = layouts[0] + "c"
    dtype = _DTYPES[precision]
    make = torch.float32 if fp8 else dtype  # random_operand draws floats, then casts
    a = random_operand(m, k, "row" if layouts[0] == "r" else "col", None, make, "cuda").to(dtype)
    b = random_operand(k, n, "row" if layouts[1] == "r" else "col", None, make, "cuda")
    b = b.t().contiguous().to(dtype).t() if fp8 else b
    one = torch.ones((), device="cuda")
    c = torch.randn(m, n, device="cuda").to(dtype) if with_c else None
    if with_c and (fp8 or precision in ("int8", "tf32")):
        print("a C is for fp16, bf16 and fp32 here")
        return 2
    name, _, config = kernel.partition(":")
    for _ in range(4):
        if name == "cublas" and fp8:
            torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        elif name == "cublas" and c is not None:
            torch.addmm(c, a, b)
        elif name == "cublas":
            torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
            torch._int_mm(a, b) if precision == "int8" else torch.matmul(a, b)
        elif fp8:
            tcgemm.gemm(a, b, kernel=name, config=config or None, scale_a=one, scale_b=one)
        elif c is not None:
            tcgemm.gemm(a, b, c, beta=1.0, kernel=name, config=config or None)
        else:
            tcgemm.gemm(a, b, kernel=name, config=config or None, precision="tf32" if precision == "tf32" else None)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
