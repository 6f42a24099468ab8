"""What a compiled kernel costs: registers, shared memory, spills, occupancy, instruction mix.

Works without a GPU for a named architecture (NVRTC + the PyPI cuobjdump); with a GPU it also
reports occupancy on that GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from . import jit, launch, registry, sass
from .problem import GemmProblem, Operand

# Opcode groups for the instruction mix, by what they do.
GROUPS: dict[str, tuple[str, ...]] = {
    "matrix (tensor core)": ("HMMA", "IMMA", "HGMMA", "QGMMA", "IGMMA", "BGMMA"),
    "fp32 FMA": ("FFMA", "FMUL", "FADD"),
    "shared memory": ("LDS", "STS", "LDSM", "STSM"),
    "global memory": ("LDG", "STG"),
    "async copy": ("LDGSTS", "LDGDEPBAR", "UTMALDG", "UTMASTG", "UBLKCP"),
    "local memory (spills)": ("LDL", "STL"),
    "barriers": ("BAR", "SYNCS", "DEPBAR", "WARPSYNC"),
}


@dataclass
class Inspection:
    kernel: str
    config: str
    arch: str
    defines: dict[str, str]
    registers: int
    static_smem: int
    dynamic_smem: int
    stack: int
    threads: int
    occupancy_ctas: int | None
    mix: dict[str, int]
    sass: str


def _problem(precision: str, layouts: str) -> GemmProblem:
    dtypes = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
              "bf16": torch.bfloat16, "int8": torch.int8,
              "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}
    in_dtype = dtypes[precision]
    out_dtype = {"int8": torch.int32, "fp8e4m3": torch.bfloat16, "fp8e5m2": torch.bfloat16}.get(precision, in_dtype)
    op = Operand("row", 4096, 0, True)
    return GemmProblem(4096, 4096, 4096, 1, precision, in_dtype, out_dtype,
                       op if layouts[0] == "r" else op.flipped(), op if layouts[1] == "r" else op.flipped(),
                       None, 4096, 0, 1.0, 0.0, False)


def inspect_kernel(name: str, *, config: str | None = None, precision: str | None = None,
                   layouts: str | None = None, arch: str | None = None) -> Inspection:
    spec = registry.get(name)
    precision = precision or spec.precisions[0]
    if precision not in spec.precisions:
        raise ValueError(f"kernel {name!r} computes {', '.join(spec.precisions)}, not {precision}")
    cfg = spec.config(config, precision)
    served = cfg.layouts or spec.layouts  # (a config of its own layouts: D_TRANSPOSED ones, the transposed problem's)
    layouts = layouts or ("rr" if "rr" in served else served[0])
    if layouts not in served:
        raise ValueError(f"kernel {name!r} (config {cfg.name}) reads layouts {', '.join(served)}, not {layouts}")
    plan = launch.plan(_problem(precision, layouts), spec, cfg)
    device_arch = None
    if torch.cuda.is_available():
        from .api import device_info

        device_arch = device_info(torch.cuda.current_device())[2]
    arch = arch or device_arch or "sm_90a"
    cubin = jit.cubin(spec.source, plan.defines, arch)
    usage = sass.resource_usage(cubin)
    code = sass.disassemble(cubin)
    raw = sass.instruction_mix(code)
    mix = {group: sum(raw[op] for op in ops) for group, ops in GROUPS.items()}
    mix["total"] = sum(raw.values())
    occupancy = None
    if device_arch == arch:
        kernel = launch.kernel_for(plan, arch, torch.cuda.current_device())
        occupancy = kernel.occupancy.max_active_blocks_per_multiprocessor(plan.block, cfg.smem_bytes)
    return Inspection(spec.name, cfg.describe(), arch, dict(plan.defines), usage.get("REG", 0),
                      usage.get("SHARED", 0), cfg.smem_bytes, usage.get("STACK", 0), plan.block, occupancy, mix,
                      code)
