"""From (KernelSpec, TileConfig, GemmProblem) to a launch on torch's current stream.

:func:`plan` is pure (defines, grid, block) and is what the CPU tests and the
benchmark table read; :func:`run` loads the kernel through :mod:`tcgemm.jit`
and launches it. ``_launch`` is the single place that touches the driver, so
tests can replace it with a recorder.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from . import jit, registry
from .problem import GemmProblem
from .registry import KernelSpec, TileConfig

_C_TYPES = {
    torch.float32: "float",
    torch.float16: "__half",
    torch.bfloat16: "__nv_bfloat16",
    torch.int8: "signed char",
    torch.int32: "int",
}
MAX_GRID_YZ = 65535
# precision -> (input dtype, output dtype) compiled by all_builds()
_PRECISION_DTYPES = {
    "fp32": (torch.float32, torch.float32),
    "tf32": (torch.float32, torch.float32),
    "fp16": (torch.float16, torch.float16),
    "bf16": (torch.bfloat16, torch.bfloat16),
    "int8": (torch.int8, torch.int32),
}


@dataclass(frozen=True)
class LaunchPlan:
    spec: KernelSpec
    config: TileConfig
    defines: jit.Defines
    grid: tuple[int, int, int]
    block: int


@lru_cache(maxsize=4096)
def _defines(spec: KernelSpec, cfg: TileConfig, layouts: str, vec: int,
             in_dtype: torch.dtype, out_dtype: torch.dtype) -> jit.Defines:
    items: dict[str, object] = dict(cfg.params)
    items.update(spec.defines)
    items.update(
        ELEM_A=_C_TYPES[in_dtype], ELEM_B=_C_TYPES[in_dtype],
        ELEM_C=_C_TYPES[out_dtype], ELEM_D=_C_TYPES[out_dtype],
        A_LAYOUT=0 if layouts[0] == "r" else 1, B_LAYOUT=0 if layouts[1] == "r" else 1,
        MIN_BLOCKS=spec.min_blocks,
    )
    if spec.vector_loads:
        items["VEC"] = vec
    return jit.as_defines(items.items())


def plan(problem: GemmProblem, spec: KernelSpec, cfg: TileConfig) -> LaunchPlan:
    vec = 4 if spec.vector_loads and problem.a.aligned16 and problem.b.aligned16 else 1
    grid = (-(-problem.n // cfg["BLOCK_N"]), -(-problem.m // cfg["BLOCK_M"]), problem.batch)
    if grid[1] > MAX_GRID_YZ or grid[2] > MAX_GRID_YZ:
        raise ValueError(
            f"M={problem.m} or batch={problem.batch} needs a grid of {grid}, beyond CUDA's {MAX_GRID_YZ} "
            f"in y/z for kernel {spec.name!r}; split the batch or use a kernel with a larger BLOCK_M"
        )
    defines = _defines(spec, cfg, problem.layouts, vec, problem.in_dtype, problem.out_dtype)
    return LaunchPlan(spec, cfg, defines, grid, cfg.threads)


def all_builds() -> list[tuple[KernelSpec, jit.Defines]]:
    """Every (kernel, defines) the launcher can ask for: configs x layouts x VEC x dtypes."""
    builds = []
    for spec in registry.all_specs():
        dtypes = sorted({_PRECISION_DTYPES[p] for p in spec.precisions}, key=str)
        for cfg in spec.configs:
            for layouts in ("rr", "rc", "cr", "cc"):
                for vec in (1, 4) if spec.vector_loads else (1,):
                    for in_dtype, out_dtype in dtypes:
                        builds.append((spec, _defines(spec, cfg, layouts, vec, in_dtype, out_dtype)))
    return builds


class _TorchStream:
    """Hands torch's stream to cuda.core through the __cuda_stream__ protocol."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


@lru_cache(maxsize=64)
def _stream(handle: int, device: int) -> Any:
    cc = jit._cuda_core()
    return cc.Device(device).create_stream(_TorchStream(handle))


@lru_cache(maxsize=4096)
def _launch_config(grid: tuple[int, int, int], block: int, smem: int) -> Any:
    return jit._cuda_core().LaunchConfig(grid=grid, block=block, shmem_size=smem)


def _launch(kernel: Any, grid: tuple[int, int, int], block: int, smem: int, args: tuple, device: int) -> None:
    cc = jit._cuda_core()
    stream = _stream(torch.cuda.current_stream(device).cuda_stream, device)
    cc.launch(stream, _launch_config(grid, block, smem), kernel, *args)


def kernel_for(p: LaunchPlan, arch: str, device: int) -> Any:
    return jit.load_kernel(p.spec.source, p.spec.entry, p.defines, arch, device)


def run(p: LaunchPlan, problem: GemmProblem, a: torch.Tensor, b: torch.Tensor,
        c: torch.Tensor | None, d: torch.Tensor, arch: str) -> None:
    device = d.device.index if d.device.index is not None else torch.cuda.current_device()
    kernel = kernel_for(p, arch, device)
    c_row, c_col, c_batch = problem.c_strides or (0, 0, 0)
    args = (
        np.int32(problem.m), np.int32(problem.n), np.int32(problem.k),
        np.float32(problem.alpha), np.float32(problem.beta),
        a.data_ptr(), np.int64(problem.a.ld), np.int64(problem.a.batch_stride),
        b.data_ptr(), np.int64(problem.b.ld), np.int64(problem.b.batch_stride),
        c.data_ptr() if c is not None else 0, np.int64(c_row), np.int64(c_col), np.int64(c_batch),
        d.data_ptr(), np.int64(problem.d_ld), np.int64(problem.d_batch_stride),
    )
    _launch(kernel, p.grid, p.block, 0, args, device)
