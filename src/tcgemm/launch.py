"""From (KernelSpec, TileConfig, GemmProblem) to a launch on torch's current stream.

:func:`plan` is pure (defines, grid, block) and is what the CPU tests and the
benchmark table read; :func:`run` loads the kernel through :mod:`tcgemm.jit`
and launches it. ``_launch`` is the single place that touches the driver, so
tests can replace it with a recorder.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from . import jit, placement, registry
from .driver import _allow_dynamic_smem, _raw_stream, _stream, ensure_context
from .problem import GemmProblem
from .registry import KernelSpec, TileConfig
from .schedule import TAIL_MAX_PARTS, cluster_units, stream_k_scratch, stream_k_shape, tail_split

_C_TYPES = {
    torch.float32: "float",
    torch.float16: "__half",
    torch.bfloat16: "__nv_bfloat16",
    torch.int8: "signed char",
    torch.int32: "int",
    torch.float8_e4m3fn: "__nv_fp8_e4m3",
    torch.float8_e5m2: "__nv_fp8_e5m2",
}
_FP8 = (torch.float8_e4m3fn, torch.float8_e5m2)
MAX_GRID_YZ = 65535

# Open trace() lists: every launch (full path or prepared) appends "kernel:config" to each.
_tracers: list[list[str]] = []


@contextlib.contextmanager
def trace() -> Iterator[list[str]]:
    """``with launch.trace() as seen:`` collects ``"kernel:config"`` of every GEMM launched inside
    (on this process, any thread), in launch order: what really ran, prepared repeat calls included.
    Tests use it to check that a CUDA graph captures the kernel eager calls ran; costs nothing when
    no trace is open."""
    seen: list[str] = []
    _tracers.append(seen)
    try:
        yield seen
    finally:
        _tracers.remove(seen)


def note_launch(spec: KernelSpec, cfg: TileConfig) -> None:
    label = f"{spec.name}:{cfg.name}"
    for seen in _tracers:
        seen.append(label)


def _precision_outputs(precision: str) -> list[tuple[torch.dtype, torch.dtype]]:
    """(input, output) dtype pairs compiled for a precision: 16-bit inputs may write fp32."""
    return {
        "fp32": [(torch.float32, torch.float32)],
        "tf32": [(torch.float32, torch.float32)],
        "fp16": [(torch.float16, torch.float16), (torch.float16, torch.float32)],
        "bf16": [(torch.bfloat16, torch.bfloat16), (torch.bfloat16, torch.float32)],
        "int8": [(torch.int8, torch.int32)],
        "fp8e4m3": [(torch.float8_e4m3fn, out) for out in (torch.bfloat16, torch.float16, torch.float32)],
        "fp8e5m2": [(torch.float8_e5m2, out) for out in (torch.bfloat16, torch.float16, torch.float32)],
    }[precision]


@dataclass(frozen=True)
class LaunchPlan:
    spec: KernelSpec
    config: TileConfig
    defines: jit.Defines
    grid: tuple[int, int, int]
    block: int


@lru_cache(maxsize=4096)
def _defines(spec: KernelSpec, cfg: TileConfig, layouts: str, vec: int,
             in_dtype: torch.dtype, out_dtype: torch.dtype, precision: str = "fp32",
             activation: int = 0, gated: bool = False, row_scales: bool = False,
             block_scales: bool = False, grouped: int = 0, c_matrix: bool = False,
             peer_rows: int = 0) -> jit.Defines:
    items: dict[str, object] = dict(cfg.params)
    if c_matrix:  # the code for a whole row-major C (kernels/include/hopper_config.cuh: C_MATRIX)
        items["C_MATRIX"] = 1
    if row_scales:  # fp8's row-wise scales (kernels/include/hopper_epilogue.cuh: scale_rows_cols)
        items["SCALE_ROWWISE"] = 1
    if block_scales:  # fp8's block-wise scales, at every k-tile's promotion (kernels/include/block_scales.cuh)
        items.update(BLOCK_SCALES=1, PROMOTE_EVERY=1)  # (cfg: registry.with_block_scales, its ring resized)
    if grouped:  # a grouped GEMM, masked (1) or contiguous (2): rows per batch entry on the device (group_rows.cuh)
        items["GROUP_ROWS"] = int(grouped)
    if peer_rows:  # a tensor-parallel GEMM in one launch (kernels/include/peer_rows.cuh; tcgemm.distributed.fused)
        items["PEER_ROWS"] = int(peer_rows)
    if activation:  # the fused epilogue (kernels/include/epilogue_act.cuh; tcgemm.epilogue)
        items["EPI_ACT"] = activation
    if gated:
        items["EPI_GATED"] = 1
    items.update(spec.defines)
    if spec.scale_args:
        items["SCALE_ARGS"] = 1  # the entry point takes the scale pointers (kernels/include/tma.cuh)
    items["PRECISION_" + precision.upper()] = 1
    items.update(
        ELEM_A=_C_TYPES[in_dtype], ELEM_B=_C_TYPES[in_dtype],
        ELEM_C=_C_TYPES[out_dtype], ELEM_D=_C_TYPES[out_dtype],
        A_LAYOUT=0 if layouts[0] == "r" else 1, B_LAYOUT=0 if layouts[1] == "r" else 1,
        MIN_BLOCKS=spec.min_blocks,
    )
    if spec.vector_loads:
        items["VEC"] = vec
    if torch.float16 in (in_dtype, out_dtype) or torch.bfloat16 in (in_dtype, out_dtype):
        items["TCGEMM_NEEDS_FP16"] = 1
    if in_dtype in _FP8:
        items["TCGEMM_NEEDS_FP8"] = 1
    items.update(extra_defines())
    return jit.as_defines(items.items())


def extra_defines() -> dict[str, str]:
    """``TCGEMM_DEFINES`` ("GROUP_M=16,STAGES=5"): defines laid over every kernel build, for measuring
    a variant without a registry entry (a developer's knob: the host plans as the config says, so only
    defines the host does not read are safe, e.g. GROUP_M; nothing checks the variant's results)."""
    raw = os.environ.get("TCGEMM_DEFINES", "").strip()
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier() or not value:
            raise ValueError(f"TCGEMM_DEFINES item {item!r}: write NAME=VALUE, comma-separated (e.g. GROUP_M=16)")
        out[name] = value
    return out


DEFAULT_SMS = 132  # an H100 SXM: what plan assumes when the caller does not say (CPU tests, inspection)
_INT32_MAX = 2**31 - 1


def persistent_grid(problem: GemmProblem, spec: KernelSpec, cfg: TileConfig, sms: int) -> tuple[int, int, int]:
    """Grid of a persistent kernel: at most one CTA per SM, no more than there is work for.

    Work comes in clusters of ``spec.cluster_of(cfg)`` CTAs that stack their tiles along M (or
    lay them side by side along N: CLUSTER_ALONG_N, or 2 x 2: CLUSTER_2D), so the grid is a
    multiple of the cluster size (at least one cluster)."""
    cluster = spec.cluster_of(cfg)
    tiles_m = -(-problem.m // cfg["BLOCK_M"])
    tiles_n = -(-problem.n // cfg["BLOCK_N"])
    if cfg.get("STREAM_K"):  # one CTA per place (CTAS_PER_SM of them on each SM), none without work
        return (_stream_k(problem, cfg, sms)[0], 1, 1)
    if tiles_m * tiles_n * problem.batch * cfg.get("SPLIT_K", 1) > _INT32_MAX:
        raise ValueError(f"{tiles_m * tiles_n * problem.batch} output tiles: too many for kernel {spec.name!r}")
    units = cluster_units(problem.m, problem.n, problem.batch, cfg["BLOCK_M"], cfg["BLOCK_N"],
                          *spec.cluster_shape(cfg)) * cfg.get("SPLIT_K", 1)  # split-K: per tile
    clusters = max(1, min(sms // cluster, units))
    return (clusters * cluster, 1, 1)


def _stream_k(problem: GemmProblem, cfg: TileConfig, sms: int) -> tuple[int, int, int]:
    """(CTAs, tiles, k-tiles per tile) of a STREAM_K config (kernels/include/stream_k.cuh)."""
    ctas, tiles, ktiles = stream_k_shape(problem.m, problem.n, problem.k, problem.batch, cfg["BLOCK_M"],
                                         cfg["BLOCK_N"], cfg["BLOCK_K"] * cfg.get("KSUB", 1), sms,
                                         cfg.get("CTAS_PER_SM", 1), cfg.get("WHOLE_FILL_PCT") / 100)
    if tiles * ktiles > _INT32_MAX:
        raise ValueError(f"{tiles} output tiles of {ktiles} k-tiles: too many for a stream-K launch")
    return ctas, tiles, ktiles


def adds_c_matrix(problem: GemmProblem) -> bool:
    """Whether a launch adds a whole row-major C (a residual, a partial sum; not a bias row, whose row stride is 0):
    kernels with ``c_matrix`` then run their build with the code for one (C_MATRIX)."""
    if problem.c_strides is None or problem.d_transposed:  # (a transposed tile reads its C otherwise)
        return False
    row, col, _ = problem.c_strides
    return col == 1 and row != 0


def plan(problem: GemmProblem, spec: KernelSpec, cfg: TileConfig, sms: int = DEFAULT_SMS) -> LaunchPlan:
    """Defines, grid and block of one launch; ``sms`` (the GPU's SM count) sizes persistent grids."""
    if problem.layouts not in spec.layouts and not (cfg.layouts and problem.layouts in cfg.layouts):
        raise ValueError(f"kernel {spec.name!r} serves layouts {', '.join(spec.layouts)}, not {problem.layouts}")
    if not cfg.serves_layouts(problem.layouts):
        raise ValueError(f"config {cfg.name!r} of {spec.name} serves layouts {', '.join(cfg.layouts or ())}, "
                         f"not {problem.layouts}; use kernel='auto' or another config")
    vec = 4 if spec.vector_loads and problem.a.aligned16 and problem.b.aligned16 else 1
    if (problem.activation or problem.gated) and not spec.epilogues:
        raise ValueError(f"kernel {spec.name!r} has no fused epilogue (activation); tcgemm.epilogue")
    if problem.row_scales and not spec.row_scales:
        raise ValueError(f"kernel {spec.name!r} takes per-tensor fp8 scales only, not row-wise ones")
    if problem.block_scales:
        if not (spec.block_scales and cfg.serves_block_scales()):
            raise ValueError(f"kernel {spec.name!r} config {cfg.name!r} does not take block-wise fp8 scales")
        cfg = registry.with_block_scales(cfg)
    if problem.grouped and not (spec.grouped and cfg.grouped):
        raise ValueError(f"kernel {spec.name!r} config {cfg.name!r} does not run masked grouped GEMMs")
    refused = peer_rows_refuses(spec, cfg) if problem.peer_rows else None
    if refused is not None:
        raise ValueError(f"kernel {spec.name!r} config {cfg.name!r} cannot run a tensor-parallel GEMM in one launch: "
                         f"{refused}")
    defines = _defines(spec, cfg, problem.layouts, vec, problem.in_dtype, problem.out_dtype, problem.precision,
                       problem.activation, problem.gated, problem.row_scales, problem.block_scales, problem.grouped,
                       c_matrix=spec.c_matrix and adds_c_matrix(problem), peer_rows=problem.peer_rows)
    if spec.persistent:
        return LaunchPlan(spec, cfg, defines, persistent_grid(problem, spec, cfg, sms), cfg.threads)
    grid = (-(-problem.n // cfg["BLOCK_N"]), -(-problem.m // cfg["BLOCK_M"]), problem.batch)
    if grid[1] > MAX_GRID_YZ or grid[2] > MAX_GRID_YZ:
        raise ValueError(
            f"M={problem.m} or batch={problem.batch} needs a grid of {grid}, beyond CUDA's {MAX_GRID_YZ} "
            f"in y/z for kernel {spec.name!r}; split the batch or use a kernel with a larger BLOCK_M"
        )
    return LaunchPlan(spec, cfg, defines, grid, cfg.threads)


PEER_ROWS_KERNEL = "wgmma_tma_store"  # (kernels/include/peer_rows.cuh: the production Hopper kernel's policy)


def peer_rows_refuses(spec: KernelSpec, cfg: TileConfig) -> str | None:
    """Why ``cfg`` cannot run with PEER_ROWS (kernels/include/peer_rows.cuh: whole tiles, D through TMA), or None."""
    if spec.name != PEER_ROWS_KERNEL:
        return f"only {PEER_ROWS_KERNEL} has the policy, not {spec.name}"
    if cfg.get("SPLIT_K", 1) > 1:
        return "its tiles are split along k (SPLIT_K)"
    for name in ("D_TRANSPOSED", "BLOCK_SCALES", "STREAM_K"):
        if cfg.get(name, 0):
            return f"it uses {name}"
    return None


def all_builds(only: set[str] | None = None) -> list[tuple[KernelSpec, jit.Defines]]:
    """Every (kernel, defines) the launcher can ask for: configs x served layouts x VEC x dtypes. ``only``:
    kernel names, or ``kernel:config``, to keep (``tcgemm compile --kernels``)."""
    builds = []
    for spec in registry.all_specs():
        for cfg in spec.configs:
            if only is not None and spec.name not in only and f"{spec.name}:{cfg.name}" not in only:
                continue
            for layouts in (lay for lay in spec.layouts if cfg.serves_layouts(lay)):
                for vec in (1, 4) if spec.vector_loads else (1,):
                    for precision in (p for p in spec.precisions if cfg.serves(p)):
                        for in_dtype, out_dtype in _precision_outputs(precision):
                            if not cfg.writes(out_dtype.itemsize):
                                continue  # (writes a 16-bit D only: dispatch refuses the others)
                            builds.append(
                                (spec, _defines(spec, cfg, layouts, vec, in_dtype, out_dtype, precision))
                            )
                            if spec.c_matrix and not cfg.get("D_TRANSPOSED"):  # (and for a whole C)
                                builds.append((spec, _defines(spec, cfg, layouts, vec, in_dtype, out_dtype, precision,
                                                              c_matrix=True)))
                            if spec.row_scales and precision.startswith("fp8"):  # (and row-wise scales)
                                builds.append((spec, _defines(spec, cfg, layouts, vec, in_dtype, out_dtype, precision,
                                                              row_scales=True)))
                            if spec.grouped and cfg.grouped and layouts[0] == "r":  # (grouped_gemm: a row-major)
                                if precision in ("fp16", "bf16"):  # (masked and contiguous experts)
                                    for mode in (1, 2):
                                        builds.append((spec, _defines(spec, cfg, layouts, vec, in_dtype, out_dtype,
                                                                      precision, grouped=mode)))
                                elif precision.startswith("fp8") and cfg.serves_block_scales():  # (block-scaled)
                                    for mode in (1, 2):
                                        builds.append((spec, _defines(spec, registry.with_block_scales(cfg), layouts,
                                                                      vec, in_dtype, out_dtype, precision,
                                                                      block_scales=True, grouped=mode)))
                            if spec.block_scales and precision.startswith("fp8") and cfg.serves_block_scales():
                                builds.append((spec, _defines(spec, registry.with_block_scales(cfg), layouts, vec,
                                                              in_dtype, out_dtype, precision, block_scales=True)))
    return builds


@lru_cache(maxsize=4096)
def _launch_config(grid: tuple[int, int, int], block: int, smem: int) -> Any:
    return jit._cuda_core().LaunchConfig(grid=grid, block=block, shmem_size=smem)


def _launch(kernel: Any, grid: tuple[int, int, int], block: int, smem: int, args: tuple, device: int) -> None:
    cc = jit._cuda_core()
    _allow_dynamic_smem(kernel, smem, device)
    stream = _stream(torch.cuda.current_stream(device).cuda_stream, device)
    cc.launch(stream, _launch_config(grid, block, smem), kernel, *args)


# C types of the TCGEMM_KERNEL parameters, for the driver's own argument packing.
_ARG_CTYPES = (
    ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_float, ctypes.c_float,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
    ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
)


def pdl_enabled(spec: KernelSpec, cfg: TileConfig | None = None) -> bool:
    """Launch ``spec`` (config ``cfg``) with programmatic dependent launch (``KernelSpec.pdl`` and
    ``TileConfig.pdl``; TCGEMM_PDL=0 turns it off)."""
    return spec.pdl and (cfg is None or cfg.pdl) and os.environ.get("TCGEMM_PDL", "1") != "0"


class _LaunchAttributeValue(ctypes.Union):  # CUlaunchAttributeValue (cuda.h): 64 bytes; the int flags come first
    _fields_ = (("pad", ctypes.c_char * 64), ("flag", ctypes.c_int))


class _LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute (cuda.h): an id, padded to 8 bytes, the value
    _fields_ = (("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _LaunchAttributeValue))


class _LaunchConfig(ctypes.Structure):  # CUlaunchConfig (cuda.h)
    _fields_ = (("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_LaunchAttribute)), ("numAttrs", ctypes.c_uint))


_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION = 6  # CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION


@lru_cache(maxsize=1)
def libcuda() -> tuple[Any, Any] | None:
    """(cuLaunchKernel, cuLaunchKernelEx) of the driver library through ctypes, or None where it cannot be
    loaded (TCGEMM_CTYPES_LAUNCH=0 also says None). A repeat call's launch is most of its host time through
    cuda.bindings (argument objects converted on every call); through ctypes the parameter block and the
    launch config are built once and only the stream changes."""
    if os.environ.get("TCGEMM_CTYPES_LAUNCH", "1") == "0":
        return None
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    launch, launch_ex = lib.cuLaunchKernel, lib.cuLaunchKernelEx
    launch.argtypes = [ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    launch.restype = ctypes.c_int
    launch_ex.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    launch_ex.restype = ctypes.c_int
    return launch, launch_ex


class RawLaunch:
    """One kernel, grid and block launched through ctypes (:func:`libcuda`): cuLaunchKernelEx with the
    programmatic-stream-serialization attribute when ``pdl`` (kernels/include/pdl.cuh), else cuLaunchKernel.
    ``launch(stream, params)``: torch's raw stream handle and the address of the parameter block; returns
    the CUresult as an int (0: success)."""

    def __init__(self, handle: Any, grid: tuple[int, int, int], block: int, smem: int, pdl: bool) -> None:
        self._fn, self._fn_ex = libcuda()
        self._handle = int(handle)
        self._grid, self._block, self._smem = grid, block, smem
        self._cfg = None
        if pdl:
            self._attr = _LaunchAttribute(id=_ATTR_PROGRAMMATIC_STREAM_SERIALIZATION)
            self._attr.value.flag = 1  # programmaticStreamSerializationAllowed
            cfg = _LaunchConfig(*grid, block, 1, 1, smem, None, ctypes.pointer(self._attr), 1)
            self._cfg = cfg
            self._cfg_ref = ctypes.byref(cfg)

    def __call__(self, stream: int, params: int) -> int:
        if self._cfg is not None:
            self._cfg.hStream = stream
            return self._fn_ex(self._cfg_ref, self._handle, params, None)
        gx, gy, gz = self._grid
        return self._fn(self._handle, gx, gy, gz, self._block, 1, 1, self._smem, stream, params, None)


class LaunchEx:
    """cuLaunchKernelEx of one kernel and grid with the programmatic-stream-serialization attribute
    (kernels/include/pdl.cuh), its launch config built once; a call sets the stream and launches."""

    def __init__(self, handle: Any, grid: tuple[int, int, int], block: int, smem: int) -> None:
        from cuda.bindings import driver

        cfg = driver.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block, 1, 1
        cfg.sharedMemBytes = smem
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attr.value.programmaticStreamSerializationAllowed = 1
        cfg.attrs = [attr]
        cfg.numAttrs = 1
        self._cfg = cfg
        self._handle = handle
        self._launch = driver.cuLaunchKernelEx

    def __call__(self, stream: Any, params: Any) -> Any:
        self._cfg.hStream = stream
        return self._launch(self._cfg, self._handle, params, 0)


def _launch_tma(kernel: Any, grid: tuple[int, int, int], block: int, smem: int, maps: tuple[Any, ...],
                args: tuple, device: int, pdl: bool = False) -> None:
    """Launch a TCGEMM_TMA_KERNEL: the CUtensorMaps (A, B and, for TMA-store kernels, D; 128 bytes
    each, by value) go first.

    cuda.core's launch cannot pass a driver CUtensorMap, so this goes through
    cuLaunchKernel, whose argument packer copies objects with ``getPtr()`` (type
    None) by value and the scalars by their ctypes."""
    from cuda.bindings import driver

    _allow_dynamic_smem(kernel, smem, device)
    stream = driver.CUstream(torch.cuda.current_stream(device).cuda_stream)
    values = (*maps, *(a.item() if isinstance(a, np.generic) else a for a in args))
    # Extra arguments after the common ones: scale pointers (scaled kernels, Python ints) or the
    # batch count (persistent kernels, np.int32).
    extra_types = tuple(ctypes.c_int if isinstance(x, np.int32) else ctypes.c_void_p
                        for x in args[len(_ARG_CTYPES):])
    types = (*(None for _ in maps), *_ARG_CTYPES, *extra_types)
    if pdl:
        (err,) = LaunchEx(kernel.handle, grid, block, smem)(stream, (values, types))
    else:
        (err,) = driver.cuLaunchKernel(kernel.handle, *grid, block, 1, 1, smem, stream, (values, types), 0)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{'cuLaunchKernelEx' if pdl else 'cuLaunchKernel'} failed: {err}")


class GraphCaptureError(RuntimeError):
    """A tcgemm call met CUDA graph capture before it could prepare what the captured launch needs."""


# Scratch memory of split-K, the tail split and GPC_ORDER (kernels/include/split_k.cuh, tail_split.cuh,
# gpc_order.cuh) comes from cuMemAlloc, outside torch's caching allocator: a buffer that outlives the call
# must never land in a CUDA graph's private pool (torch.compile's cudagraph trees then refuse the graph:
# "tensors in the cudagraph pool not tracked as outputs"), and nothing may be allocated or copied from the
# host during capture. So each buffer is made outside capture and kept for the process:
# - per (device, stream) for eager launches: launches on one stream run in order, so one workspace (fp32
#   partial tiles, written before they are read within a launch) serves them all, and the arrival
#   counters, which must start at zero, are left at zero by every launch;
# - one set per device, GRAPH, for captured launches (a graph may be replayed on any stream). Every eager
#   launch of a scratch config also sizes GRAPH's buffers for itself, so capturing a call that ran once
#   before (torch's warm-up recipe, or tcgemm.warmup) allocates nothing.
# Two launches in flight at once on one buffer would mix their counts: two graphs replayed concurrently on
# two streams, or one graph replayed on two streams at once. Not supported (docs/models.md, "CUDA graphs").
GRAPH = "graph"
_scratch_lock = threading.Lock()
# (device, owner) -> [workspace address, floats, counters address, ints]
_split_k_scratch: dict[tuple[int, object], list[int]] = {}
# (device, owner, unit rows per group) -> (address, ints): GPC_ORDER's counts and tables, then the tail
# split's counters. A buffer per table (rows), written once when made, so no launch ever rewrites one.
_gpc_scratch: dict[tuple[int, object, int], tuple[int, int]] = {}
_retired: list[int] = []  # outgrown buffers: launches still queued may read them, so never freed


def _capturing() -> bool:
    return torch.cuda.is_current_stream_capturing()


def _device_alloc(device: int, nbytes: int) -> int:
    """cuMemAlloc of ``nbytes`` (at least 16) on ``device``; the address."""
    from cuda.bindings import driver

    ensure_context(device)
    err, ptr = driver.cuMemAlloc(max(16, nbytes))
    if err != driver.CUresult.CUDA_SUCCESS:
        raise torch.OutOfMemoryError(f"tcgemm scratch: cuMemAlloc of {nbytes} bytes on cuda:{device} failed: {err}")
    return int(ptr)


def _upload(device: int, ptr: int, values: np.ndarray) -> None:
    """Synchronous host-to-device copy into a buffer no launch uses yet (done when this returns)."""
    from cuda.bindings import driver

    ensure_context(device)
    values = np.ascontiguousarray(values)
    (err,) = driver.cuMemcpyHtoD(ptr, values.ctypes.data, values.nbytes)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"tcgemm scratch: cuMemcpyHtoD on cuda:{device} failed: {err}")


def _not_prepared(what: str) -> GraphCaptureError:
    return GraphCaptureError(
        f"this GEMM needs {what} that is made on its first call outside CUDA graph capture, and this call is "
        "being captured first: run the same call once before capturing (torch's warm-up recipe), or call "
        "tcgemm.warmup(...) / tcgemm.nn.warmup(model, ...) for the shapes first")


def _split_k_reserve(device: int, owner: object, need_ws: int, need_counters: int, capturing: bool) -> list[int]:
    entry = _split_k_scratch.get((device, owner))
    if entry is not None and entry[1] >= need_ws and entry[3] >= need_counters:
        return entry
    if capturing:
        raise _not_prepared("scratch memory (split-K or tail-split workspace)")
    ws, ws_n, counters, counters_n = entry or (0, 0, 0, 0)
    if ws_n < need_ws:
        if ws:
            _retired.append(ws)
        ws_n = max(need_ws, 2 * ws_n)
        ws = _device_alloc(device, 4 * ws_n)
    if counters_n < need_counters or not counters:
        if counters:
            _retired.append(counters)
        counters_n = max(need_counters, 2 * counters_n, 1)
        counters = _device_alloc(device, 4 * counters_n)
        _upload(device, counters, np.zeros(counters_n, dtype=np.int32))
    entry = _split_k_scratch[(device, owner)] = [ws, ws_n, counters, counters_n]
    return entry


def _gpc_reserve(device: int, owner: object, rows: int, ints: int, capturing: bool) -> int:
    """GPC_ORDER's buffer (kernels/include/gpc_order.cuh) for tables of ``rows`` unit rows per group, at least
    ``ints`` long: counts (zero), tables (tcgemm.placement) for a full persistent grid, a cluster of 2 per TPC
    (smaller launches skip the positions past their own), then zeros for the tail split's counters."""
    found = _gpc_scratch.get((device, owner, rows))
    if found is not None and found[1] >= ints:
        return found[0]
    if capturing:
        raise _not_prepared("GPC_ORDER's placement table")
    if found is not None:
        _retired.append(found[0])
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    values = np.zeros(ints, dtype=np.int32)
    values[:placement.GPC_INTS] = placement.table([list(g) for g in placement.gpcs(device)], sms // 2, rows)
    ptr = _device_alloc(device, 4 * ints)
    _upload(device, ptr, values)
    _gpc_scratch[(device, owner, rows)] = (ptr, ints)
    return ptr


def _tail_need(problem: GemmProblem, spec: KernelSpec, cfg: TileConfig, clusters: int) -> tuple[int, int]:
    """(workspace floats, counters) of a TAIL_SPLIT launch on ``clusters`` clusters: two parts of
    BLOCK_M x BLOCK_N floats per CTA of each tail unit, a counter per consumer warpgroup; (0, 0): no split."""
    units = cluster_units(problem.m, problem.n, problem.batch, cfg["BLOCK_M"], cfg["BLOCK_N"], *spec.cluster_shape(cfg))
    tail = tail_split(units, -(-problem.k // cfg["BLOCK_K"]), clusters, cfg.get("TAIL_PARTS", TAIL_MAX_PARTS))
    if tail is None:
        return 0, 0
    ctas = tail[0] * spec.cluster_of(cfg)
    return ctas * 2 * cfg["BLOCK_M"] * cfg["BLOCK_N"], ctas * cfg.consumers


def split_k_buffers(problem: GemmProblem, spec: KernelSpec, cfg: TileConfig,
                    device: int, clusters: int = 0) -> tuple[int, int, bool]:
    """(workspace address, counters address, True) of a split-K launch (kernels/include/split_k.cuh), of a
    TAIL_SPLIT launch on ``clusters`` clusters (tail_split.cuh) or of a GPC_ORDER launch (gpc_order.cuh:
    counters = its tables, then the tail split's counters); (0, 0, False) for configs with none of them, and
    for tail-split launches whose last wave needs no split (the kernel then splits nothing).

    Eager launches use their stream's buffers, captured ones the device's GRAPH set (see above); nothing is
    allocated or copied while the current stream is capturing (GraphCaptureError if the call never ran
    before capture). (Allocating the workspace per call cost ~15 us of host time per call: at M = 128 more
    than the split saves on the GPU.)"""
    splits = cfg.get("SPLIT_K", 1)
    gpc_order = bool(cfg.get("GPC_ORDER"))
    if cfg.get("STREAM_K"):  # (clusters: the launch's CTAs, one per place)
        tiles = -(-problem.m // cfg["BLOCK_M"]) * -(-problem.n // cfg["BLOCK_N"]) * problem.batch
        need_ws, need_counters = stream_k_scratch(clusters, tiles, cfg["BLOCK_M"], cfg["BLOCK_N"],
                                                  cfg["THREADS"] // 128 - 1)
    elif cfg.get("TAIL_SPLIT"):
        need_ws, need_counters = _tail_need(problem, spec, cfg, clusters)
        if need_ws == 0 and not gpc_order:
            return 0, 0, False
    elif splits == 1:
        if not gpc_order:
            return 0, 0, False
        need_ws, need_counters = 0, 0
    else:
        block_m, block_n = cfg["BLOCK_M"], cfg["BLOCK_N"]
        cluster = spec.cluster_of(cfg)
        tile_rows = -(-problem.m // block_m)
        tiles_m = -(-tile_rows // cluster) * cluster  # whole clusters: a cluster's last CTA may lie below M
        tiles = tiles_m * -(-problem.n // block_n) * problem.batch
        need_ws, need_counters = tiles * splits * block_m * block_n, tiles * (block_m // 64)
    rows = cfg.get("GROUP_M", 8) // spec.cluster_shape(cfg)[0] if gpc_order else 0
    capturing = _capturing()
    owner: object = GRAPH if capturing else _raw_stream(device)
    with _scratch_lock:
        owners = (owner,) if capturing else (GRAPH, owner)  # (an eager call prepares its capture too)
        for who in owners:
            ws = _split_k_reserve(device, who, need_ws, 0 if gpc_order else need_counters, capturing)[0]
            counters = _split_k_scratch[(device, who)][2]
            if gpc_order:
                counters = _gpc_reserve(device, who, rows, placement.GPC_INTS + need_counters, capturing)
    return ws if need_ws else 0, counters, True


@lru_cache(maxsize=256)
def _max_active_clusters(handle: Any, block: int, smem: int, cluster: int) -> int | None:
    """How many clusters of ``cluster`` CTAs of this kernel fit on the GPU at once (the driver's
    cuOccupancyMaxActiveClusters), or None if the driver cannot say. Clusters live inside one GPC, so
    with 4 CTAs of ~227 KB each a GPC of 18 SMs holds 4 clusters and 2 SMs stay idle: fewer clusters than
    SMs / 4 can be resident."""
    from cuda.bindings import driver

    try:
        func = handle
        if isinstance(handle, driver.CUkernel):
            err, func = driver.cuKernelGetFunction(handle)
            if err != driver.CUresult.CUDA_SUCCESS:
                return None
        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = cluster, 1, 1
        config.blockDimX, config.blockDimY, config.blockDimZ = block, 1, 1
        config.sharedMemBytes = smem
        attr = driver.CUlaunchAttribute()
        attr.id = driver.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster, 1, 1
        config.attrs = [attr]
        config.numAttrs = 1
        err, count = driver.cuOccupancyMaxActiveClusters(func, config)
        return int(count) if err == driver.CUresult.CUDA_SUCCESS and count > 0 else None
    except (AttributeError, TypeError, RuntimeError):  # an older cuda.bindings: keep the planned grid
        return None


def resident_grid(p: LaunchPlan, kernel: Any, device: int) -> tuple[int, int, int]:
    """The grid of a persistent launch, cut to the clusters that can be resident at once: a cluster
    that waits for another to finish would run its share of the tiles after all the others (twice the
    time). The kernel strides over its work units by the cluster count, so any grid is correct."""
    cluster = p.spec.cluster_of(p.config)
    if not p.spec.persistent or cluster < 4:  # clusters of 1 and 2 tile every GPC (132 SMs: 66 pairs fit)
        return p.grid
    _allow_dynamic_smem(kernel, p.config.smem_bytes, device)
    fit = _max_active_clusters(kernel.handle, p.block, p.config.smem_bytes, cluster)
    if fit is None or fit * cluster >= p.grid[0]:
        return p.grid
    return (fit * cluster, p.grid[1], p.grid[2])


def kernel_for(p: LaunchPlan, arch: str, device: int) -> Any:
    return jit.load_kernel(p.spec.source, p.spec.entry, p.defines, arch, device)


def run(p: LaunchPlan, problem: GemmProblem, a: torch.Tensor, b: torch.Tensor,
        c: torch.Tensor | None, d: torch.Tensor, arch: str,
        scales: tuple[torch.Tensor | None, torch.Tensor | None] = (None, None),
        group_rows: torch.Tensor | None = None, peer: torch.Tensor | None = None) -> None:
    """Launch ``p``. ``scales``: one-element float32 tensors (or None: 1) for kernels with
    ``scale_args`` (fp8), read by the kernel on the device. ``group_rows``: a masked grouped GEMM's int32 rows per
    batch entry (problem.grouped), read on the device. ``peer``: a tensor-parallel launch's PeerRows block
    (problem.peer_rows; kernels/include/peer_rows.cuh) on the device; with peer_rows = 1, ``a`` is the own shard of
    A's rows."""
    if bool(problem.peer_rows) != (peer is not None):
        raise ValueError("a tensor-parallel problem (peer_rows) launches with its PeerRows block, and only such a one")
    if bool(problem.grouped) != (group_rows is not None):
        raise ValueError("a grouped problem launches with its group_rows tensor, and only a grouped one")
    if p.spec.tma_store and p.config.tma_d_only and d.data_ptr() % 16:
        # This config writes D only through TMA stores, whose base must be 16-byte aligned (dispatch
        # checked D's strides): run into an aligned buffer of D's strides and copy it over.
        staged = torch.empty_strided(d.size(), d.stride(), dtype=d.dtype, device=d.device)
        run(p, problem, a, b, c, staged, arch, scales, group_rows)
        d.copy_(staged)
        return
    if _tracers:
        note_launch(p.spec, p.config)
    device = d.device.index if d.device.index is not None else torch.cuda.current_device()
    ensure_context(device)
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
    if p.spec.scale_args:
        args += tuple(s.data_ptr() if s is not None else 0 for s in scales)
    elif any(s is not None for s in scales):
        raise ValueError(f"kernel {p.spec.name!r} takes no scale tensors")
    if p.spec.persistent:
        args = (*args, np.int32(problem.batch))
    if p.spec.tma:
        from . import tma

        # (peer_rows = 1: A's map is the own shard's, of a.shape[0] rows; the peers' rows have theirs in `peer`)
        maps = tma.maps(dataclasses.replace(problem, m=a.shape[0]) if problem.peer_rows == 1 else problem, p.config,
                        a, b)
        grid = resident_grid(p, kernel, device)
        if p.spec.tma_store:
            d_map = tma.d_map(problem, d, p.config)
            if d_map is None and p.config.tma_d_only:
                raise ValueError(f"config {p.config.name!r} of {p.spec.name} writes D through TMA stores only "
                                 "and cannot write this D (not 16-byte aligned); use kernel='auto'")
            maps = (*maps, d_map if d_map is not None else maps[0])  # a placeholder when the flag says 0
            workspace, counters, _keep = split_k_buffers(problem, p.spec, p.config, device,
                                                         grid[0] // p.spec.cluster_of(p.config))
            if group_rows is not None:  # (the counters argument: kernels/include/group_rows.cuh)
                counters = group_rows.data_ptr()
            if peer is not None:  # (the workspace argument: kernels/include/peer_rows.cuh)
                workspace = peer.data_ptr()
            args = (*args, np.int32(d_map is not None), workspace, counters)
        _launch_tma(kernel, grid, p.block, p.config.smem_bytes, maps, args, device, pdl=pdl_enabled(p.spec, p.config))
    else:
        _launch(kernel, p.grid, p.block, p.config.smem_bytes, args, device)
