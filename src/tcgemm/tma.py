"""TMA tensor maps for the Hopper kernels (``KernelSpec.tma``).

A tensor map (``CUtensorMap``, 128 opaque bytes) tells the TMA unit where an
operand lives (base address, extents, byte strides), which box one load copies
and how to swizzle it in shared memory. The kernels receive the maps of A and
B as their first two (``__grid_constant__``) parameters; see
``kernels/include/tma.cuh``.

Each operand is described as a 3-D tensor, innermost dimension first:

* K-major (A row-major, B column-major): ``(K, M|N, batch)``, box
  ``(BLOCK_K, BLOCK_M|N, 1)`` (for B: ``(BLOCK_K, B_BOX_N, 1)`` when the config sets
  ``B_BOX_N``, the rows of B one CTA of a cluster loads and multicasts; for A likewise ``A_BOX_M``);
* MN-major (A column-major, B row-major): ``(M|N, K, batch)``, box
  ``(64, BLOCK_K, 1)`` (one load per 64 columns of the tile; ``(64, B_BOX_K, 1)`` when a cluster shares a
  tile of one such box and each CTA loads ``B_BOX_K`` of its k rows; for A ``A_BOX_K``).

Byte strides are ``ld * size`` and ``batch_stride * size`` (element size: 2 for fp16/bf16,
4 for the tf32 kernels' float32, 1 for int8; a box row is 128 bytes in every case). A batch stride of 0 (an
operand broadcast over the batch) is not describable (TMA strides must be
positive multiples of 16), so such an operand gets a batch extent of 1 and
the kernel reads its batch entry 0 (it checks ``batch_a``/``batch_b``).

Encoding goes through ``cuTensorMapEncodeTiled`` of the driver
(``cuda.bindings``); the driver only reads the arguments, so no context or
stream is involved. Maps are cached by (address, geometry, box): a repeated
call with the same tensors costs a dict lookup. A cached map stays valid even
when the memory behind the address is freed and reused: it describes the
address range, not the tensor.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import torch

from .problem import GemmProblem, Operand
from .registry import TileConfig

SWIZZLE_BYTES = 128  # CU_TENSOR_MAP_SWIZZLE_128B: box rows of at most 128 bytes
# How much the L2 fetches around a TMA access (CU_TENSOR_MAP_L2_PROMOTION_*: NONE, L2_64B, L2_128B,
# L2_256B). A box row is 128 bytes; at 256 the bf16 128 x 256 kernel at 4096^3 moved 1.34 GB through
# the L2 and 8.7 M sectors between its two halves, at 128 1.20 GB and 6.0 M (Nsight Compute, cuBLAS
# 1.04 GB and 4.9 M; 2026-11-23-h100-ncu-bf16-4096-l2-128-10132fd.txt). Old build (256) against new,
# two rounds: bf16 4096^3 / 8192^3 / 4096x14336x4096 98.6 / 105.0 / 101.1% of cuBLAS against 98.6 /
# 103.7 / 99.1%, fp8 4096^3 / 8192^3 97.0 / 100.6 against 96.7 / 100.8 (...-ab-l2-promotion-128-vs-256-
# 10132fd.json); NONE within the spread of 128.
L2_PROMOTION = "L2_128B"

# Tensor-map element types by torch dtype name (int8 and fp8 are copied as raw bytes).
_MAP_TYPES = {"float16": "FLOAT16", "bfloat16": "BFLOAT16", "float32": "FLOAT32", "int32": "INT32", "int8": "UINT8",
              "float8_e4m3fn": "UINT8", "float8_e5m2": "UINT8"}
_MAP_BYTES = {"FLOAT16": 2, "BFLOAT16": 2, "FLOAT32": 4, "TFLOAT32": 4, "INT32": 4, "UINT8": 1}


def _element_bytes(problem: GemmProblem) -> int:
    return problem.in_dtype.itemsize


def why_not(problem: GemmProblem) -> str | None:
    """None when TMA can describe A and B of ``problem``, else the reason."""
    if not (problem.a.aligned16 and problem.b.aligned16):
        return (
            "its TMA loads need 16-byte aligned operands (base address, leading dimension and batch "
            "stride multiples of 8 elements for 16-bit types)"
        )
    for name, op, rows in (("a", problem.a, _outer(problem, problem.a, "a")),
                           ("b", problem.b, _outer(problem, problem.b, "b"))):
        if op.batch_stride and op.batch_stride < rows * op.ld:
            return f"{name}'s batch stride {op.batch_stride} is smaller than one matrix ({rows} x ld {op.ld})"
    return None


def _outer(problem: GemmProblem, op: Operand, name: str) -> int:
    """Number of ``ld``-strided lines of the operand (the tensor map's second extent)."""
    k_major = _k_major(op, name)
    if name == "a":
        return problem.m if k_major else problem.k
    return problem.n if k_major else problem.k


def _k_major(op: Operand, name: str) -> bool:
    return op.layout == "row" if name == "a" else op.layout == "col"


@lru_cache(maxsize=1)
def _driver() -> Any:
    from cuda.bindings import driver

    return driver


@lru_cache(maxsize=4096)
def encode(ptr: int, bf16: bool, dims: tuple[int, int, int], strides: tuple[int, int],
           box: tuple[int, int, int]) -> Any:
    """A ``cuda.bindings.driver.CUtensorMap`` for a 3-D 16-bit tensor at ``ptr``.

    ``dims`` in elements (innermost first), ``strides`` in bytes of dims 1 and 2,
    ``box`` in elements; 128-byte swizzle, zero fill out of bounds."""
    return encode_typed(ptr, "BFLOAT16" if bf16 else "FLOAT16", dims, strides, box)


@lru_cache(maxsize=4096)
def encode_typed(ptr: int, map_type: str, dims: tuple[int, int, int], strides: tuple[int, int],
                 box: tuple[int, int, int]) -> Any:
    """Like :func:`encode` for any element type: ``map_type`` names a ``CU_TENSOR_MAP_DATA_TYPE_*``
    (``"FLOAT16"``, ``"FLOAT32"``, ``"UINT8"``, ...).
    The swizzle spans the box's inner row: 128 bytes (every operand box), or 64 / 32 bytes (D's boxes for
    tiles of 96 or 144 columns, kernels/include/epilogue_tma.cuh)."""
    row_bytes = box[0] * _MAP_BYTES[map_type]
    if row_bytes not in (128, 64, 32):
        raise ValueError(f"a TMA box row of {row_bytes} bytes has no swizzle mode (128, 64 or 32 bytes)")
    d = _driver()
    dtype = getattr(d.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + map_type)
    err, tensor_map = d.cuTensorMapEncodeTiled(
        dtype,
        3,
        ptr,
        [d.cuuint64_t(x) for x in dims],
        [d.cuuint64_t(x) for x in strides],
        [d.cuuint32_t(x) for x in box],
        [d.cuuint32_t(1)] * 3,
        d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(d.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{row_bytes}B"),
        getattr(d.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" + L2_PROMOTION),
        d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
    )
    if err != d.CUresult.CUDA_SUCCESS:
        raise RuntimeError(
            f"cuTensorMapEncodeTiled failed ({err}) for address 0x{ptr:x}, dims {dims}, byte strides {strides}, "
            f"box {box}"
        )
    return tensor_map


def geometry(problem: GemmProblem, cfg: TileConfig, name: str) -> tuple[tuple[int, int, int],
                                                                        tuple[int, int], tuple[int, int, int]]:
    """(dims, byte strides, box) of operand ``name`` ("a" or "b") for ``cfg``'s tiles."""
    op = problem.a if name == "a" else problem.b
    mn = problem.m if name == "a" else problem.n
    block_mn = cfg["BLOCK_M"] if name == "a" else cfg["BLOCK_N"]
    block_k = cfg["BLOCK_K"]
    if _k_major(op, name):
        inner, outer = problem.k, mn
        # A cluster kernel loads its shared operand in parts, one per CTA (multicast to all of them):
        # B in B_BOX_N rows (clusters along M), or A in A_BOX_M rows (clusters along N).
        # (A_HALVES: one box per consumer's WG_M rows, kernels/include/hopper_config.cuh)
        rows = (cfg.get("B_BOX_N", block_mn) if name == "b"
                else cfg.get("A_BOX_M", cfg.get("WG_M", 64) if cfg.get("A_HALVES") else block_mn))
        box = (block_k, rows, 1)
    else:
        inner, outer = mn, problem.k
        # One 64-column box shared by a cluster is split along k instead: B_BOX_K (A_BOX_K) k rows.
        k_rows = cfg.get("B_BOX_K" if name == "b" else "A_BOX_K", block_k)
        box = (SWIZZLE_BYTES // _element_bytes(problem), k_rows, 1)
    row_bytes = op.ld * _element_bytes(problem)
    if name == "b" and problem.gated:
        # The gate and up halves of B's N rows as a third dimension (one matrix: no batch), boxes of at most half
        # a tile (kernels/include/hopper_cluster.cuh: load_gated_b).
        half = problem.n // 2
        return (inner, half, 2), (row_bytes, half * row_bytes), (block_k, min(box[1], block_mn // 2), 1)
    if op.batch_stride:
        batch, batch_bytes = problem.batch, op.batch_stride * _element_bytes(problem)
    else:  # broadcast: one entry; the stride only has to be a legal value
        batch, batch_bytes = 1, outer * row_bytes
    return (inner, outer, batch), (row_bytes, batch_bytes), box


def operand_map_type(problem: GemmProblem) -> str:
    """The ``CU_TENSOR_MAP_DATA_TYPE_*`` of A's and B's maps. tf32 reads them as TFLOAT32: the TMA unit
    rounds each fp32 value to tf32 (to nearest) as it copies, so shared memory holds tf32 values with
    their 13 low mantissa bits zero and the wgmma reads them as they are. As FLOAT32 the copy keeps
    every bit and the tensor cores drop the low 13, truncating: on random data 7.7e-4 relative error
    at K = 4096 against 2.9e-4 rounded, cuBLAS's figure. The zero low bits also cost the tensor cores'
    operand traffic less energy, which under the power cap is speed (registry, config es4)."""
    if problem.precision == "tf32":
        return "TFLOAT32"
    return _MAP_TYPES[str(problem.in_dtype).removeprefix("torch.")]


def maps(problem: GemmProblem, cfg: TileConfig, a: torch.Tensor, b: torch.Tensor) -> tuple[Any, Any]:
    """The tensor maps of A and B for one launch (cached)."""
    map_type = operand_map_type(problem)
    return (encode_typed(a.data_ptr(), map_type, *geometry(problem, cfg, "a")),
            encode_typed(b.data_ptr(), map_type, *geometry(problem, cfg, "b")))


D_BOX = 64  # the TMA-store epilogue writes boxes of 64 rows x one swizzled row (128 B: 64 16-bit or 32 fp32 columns)


def d_geometry(problem: GemmProblem, cfg: TileConfig | None = None) -> tuple[tuple[int, int, int], tuple[int, int],
                                                                            tuple[int, int, int]] | None:
    """(dims, byte strides, box) of D for ``cfg``'s TMA-store epilogue, or None when TMA cannot write it:
    D must be 16-bit or 32-bit with 16-byte aligned rows and batch entries. A box is 64 rows of D_BOX_BYTES
    (128, or 64 / 32 for tiles of 96 or 144 columns) of 16- or 32-bit elements; with D_TRANSPOSED (the
    problem's m and n are D's columns and rows: problem.d_transposed) BLOCK_N rows (tokens) of 64 16-bit
    columns, or 8 rows where the tile is staged in a ring slot (D_IN_RING). (A kernel built without a staging
    buffer for its D type ignores the map.)"""
    size = problem.out_dtype.itemsize
    if problem.out_dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.int32):
        return None
    if (problem.d_ld * size) % 16 or (problem.d_batch_stride * size) % 16:
        return None
    transposed = cfg is not None and bool(cfg.get("D_TRANSPOSED"))
    if transposed and size != 2:
        return None
    cols, rows = (problem.m, problem.n) if problem.d_transposed else (problem.n_out, problem.m)
    row_bytes = problem.d_ld * size
    batch_bytes = problem.d_batch_stride * size if problem.d_batch_stride else rows * row_bytes
    # (D_IN_RING: the tile is staged in 8-token blocks of a ring slot, each stored as its own box)
    tokens = 8 if transposed and cfg.get("D_IN_RING") else cfg["BLOCK_N"] if transposed else 0
    box = (64, tokens, 1) if transposed else (d_box_bytes(cfg) // size, D_BOX, 1)
    return (cols, rows, problem.batch), (row_bytes, max(batch_bytes, row_bytes)), box


def d_box_bytes(cfg: TileConfig | None) -> int:
    """The bytes of one row of ``cfg``'s staged D boxes (D_BOX_BYTES; 128 unless the tile's width needs less)."""
    return cfg.get("D_BOX_BYTES", 128) if cfg is not None else 128


def d_map(problem: GemmProblem, d: torch.Tensor, cfg: TileConfig) -> Any | None:
    """The tensor map of D for a TMA-store kernel, or None (the kernel then writes from registers)."""
    geo = d_geometry(problem, cfg)
    if geo is None or d.data_ptr() % 16:
        return None
    return encode_typed(d.data_ptr(), _MAP_TYPES[str(problem.out_dtype).removeprefix("torch.")], *geo)
