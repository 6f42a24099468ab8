"""Run one kernel a few times on one problem, for a profiler (ncu, nsys, compute-sanitizer) to watch.

    ncu --launch-skip 2 --launch-count 1 python3 tools/profile_one.py wgmma_ws 4096 4096 4096 bf16
"""

from __future__ import annotations

import sys

import torch

import tcgemm
from tcgemm.check import random_operand

_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "tf32": torch.float32,
           "int8": torch.int8}


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__)
        return 2
    kernel, m, n, k = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    precision = argv[4]
    layouts = argv[5] if len(argv) > 5 else "rr"
    name, _, config = kernel.partition(":")
    dtype = _DTYPES[precision]
    a = random_operand(m, k, "row" if layouts[0] == "r" else "col", None, dtype, "cuda")
    b = random_operand(k, n, "row" if layouts[1] == "r" else "col", None, dtype, "cuda")
    for _ in range(4):
        tcgemm.gemm(a, b, kernel=name, config=config or None, precision="tf32" if precision == "tf32" else None)
    torch.cuda.synchronize()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
