"""How many clusters of a persistent cluster kernel's config fit on this GPU at once, and the grid a
launch gets (launch.resident_grid): clusters live inside one GPC, so clusters of 4 CTAs of ~227 KB may
leave SMs idle.

    python3 benchmarks/probes/cluster_occupancy.py KERNEL:CONFIG [PRECISION] [M N K]
"""

from __future__ import annotations

import sys

import torch

from tcgemm import driver, launch, registry
from tcgemm.api import device_info
from tcgemm.check import random_operand
from tcgemm.problem import describe

_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp8e4m3": torch.float8_e4m3fn, "int8": torch.int8}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    name, _, config = argv[0].partition(":")
    precision = argv[1] if len(argv) > 1 else "bf16"
    m, n, k = (int(x) for x in argv[2:5]) if len(argv) >= 5 else (8192, 8192, 8192)
    spec = registry.get(name)
    cfg = spec.config(config or None, precision)
    dtype = _DTYPES[precision]
    b_layout = "row" if "rr" in spec.layouts else "col"
    a = random_operand(m, k, "row", None, torch.bfloat16, "cuda").to(dtype)
    b = random_operand(k, n, b_layout, None, torch.bfloat16, "cuda").to(dtype)
    problem = describe(a, b, precision=precision)[0]
    _, sms, arch = device_info(0)
    plan = launch.plan(problem, spec, cfg, sms)
    driver.ensure_context(0)
    kernel = launch.kernel_for(plan, arch, 0)
    cluster = spec.cluster_of(cfg)
    driver._allow_dynamic_smem(kernel, cfg.smem_bytes, 0)
    fit = launch._max_active_clusters(kernel.handle, plan.block, cfg.smem_bytes, cluster)
    print(f"{name}:{cfg.name} cluster {cluster}, {cfg.smem_bytes} B shared: {fit} clusters resident at once "
          f"({sms} SMs); planned grid {plan.grid[0]}, launched {launch.resident_grid(plan, kernel, 0)[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
