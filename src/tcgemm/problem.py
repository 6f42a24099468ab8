"""GemmProblem: everything about one call, derived once from the tensors.

This module validates arguments and reads shapes, strides and alignment; it
never touches the GPU, so it is tested on CPU (and ``meta``) tensors.

Layouts. A 2-D operand is *row-major* when its last stride is 1 and
*column-major* when its second-to-last stride is 1; the other stride is the
leading dimension (``ld``), which may exceed the logical width (a slice of a
wider tensor). ``a.t()`` of a row-major tensor is column-major with the same
``ld``: the kernels read it in place. A column-major ``out`` is served by
computing ``D^T = B^T A^T`` (operands swapped, layouts flipped), so kernels
only ever write row-major D.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

import torch

Layout = Literal["row", "col"]

# input dtype -> (default precision, accumulator/output dtype)
_DTYPE_PRECISION: dict[torch.dtype, tuple[str, torch.dtype]] = {
    torch.float32: ("fp32", torch.float32),
    torch.float16: ("fp16", torch.float16),
    torch.bfloat16: ("bf16", torch.bfloat16),
    torch.int8: ("int8", torch.int32),
    torch.float8_e4m3fn: ("fp8e4m3", torch.bfloat16),
    torch.float8_e5m2: ("fp8e5m2", torch.bfloat16),
}
_PRECISION_INPUTS: dict[str, torch.dtype] = {
    "fp32": torch.float32,
    "tf32": torch.float32,
    "fp16": torch.float16,
    "bf16": torch.bfloat16,
    "int8": torch.int8,
    "fp8e4m3": torch.float8_e4m3fn,
    "fp8e5m2": torch.float8_e5m2,
}
# Output dtypes per precision beyond the default: 16-bit inputs may write fp32; fp8 (like
# torch._scaled_mm) writes bf16 (default), fp16 or fp32.
_EXTRA_OUTPUTS: dict[str, tuple[torch.dtype, ...]] = {
    "fp16": (torch.float32,),
    "bf16": (torch.float32,),
    "fp8e4m3": (torch.float16, torch.float32),
    "fp8e5m2": (torch.float16, torch.float32),
}
FP8_PRECISIONS = ("fp8e4m3", "fp8e5m2")


@lru_cache(maxsize=1)
def available_precisions() -> tuple[str, ...]:
    """Precisions that at least one registered kernel computes."""
    from . import registry

    return tuple(p for p in registry.PRECISIONS if any(p in s.precisions for s in registry.all_specs()))


class StrideCopyWarning(UserWarning):
    """An operand's strides fit no kernel, so tcgemm copied it to contiguous memory."""


@dataclass(frozen=True)
class Operand:
    layout: Layout
    ld: int  # leading dimension, in elements
    batch_stride: int  # 0 when broadcast over the batch
    aligned16: bool  # 16-byte vectors along the contiguous dimension stay aligned

    def flipped(self) -> Operand:
        return replace(self, layout="col" if self.layout == "row" else "row")


@dataclass(frozen=True)
class GemmProblem:
    m: int
    n: int
    k: int
    batch: int
    precision: str
    in_dtype: torch.dtype
    out_dtype: torch.dtype
    a: Operand
    b: Operand
    c_strides: tuple[int, int, int] | None  # (row, col, batch); None when beta == 0 or no c
    d_ld: int
    d_batch_stride: int
    alpha: float
    beta: float
    swapped: bool  # True: computing D^T = B^T A^T (a column-major out)
    # True: the kernel computes D^T = B^T A^T (operands swapped, m and n exchanged) and writes each tile
    # transposed into the row-major D (configs with D_TRANSPOSED: the token count as the wgmma's N); see
    # transposed_store. D's ld and batch stride are D's own.
    d_transposed: bool = False
    # The epilogue (tcgemm.epilogue): EPI_ACT's code of the activation applied to each value of D (0: none), and
    # whether B's N columns are a gate half and an up half whose act(gate) * up D holds (N / 2 columns: n_out).
    activation: int = 0
    gated: bool = False
    # fp8 with row-wise scales (the kernel's scale_a has one float per row of A, scale_b one per column of B).
    row_scales: bool = False
    # fp8 with block-wise scales (DeepSeek-V3's: scale_a per row of A and 128-deep k-block, scale_b per 128 x 128
    # block of B; kernels/include/block_scales.cuh).
    block_scales: bool = False
    # A grouped GEMM (tcgemm.grouped_gemm; kernels/include/group_rows.cuh), 0: none. 1, masked: batch entry z's first
    # group_rows[z] rows of A are its rows, the count on the device; D's rows past it are unspecified. 2, contiguous: A
    # and D 2-D (broadcast over the batch), entry z's rows one segment of them, its end on the device.
    grouped: int = 0
    # A tensor-parallel GEMM in one launch (tcgemm.distributed.fused; kernels/include/peer_rows.cuh), 0: none. 1: A's
    # rows come from every rank (the own shard from a, the peers' from the inbox once they land); 2: the row blocks'
    # stores are counted out for the copies to their owners.
    peer_rows: int = 0

    @property
    def n_out(self) -> int:
        """D's columns: N, or N / 2 for a gated epilogue."""
        return self.n // 2 if self.gated else self.n

    @property
    def flops(self) -> float:
        return 2.0 * self.m * self.n * self.k * self.batch

    @property
    def layouts(self) -> str:
        """``"rr"``, ``"rc"``, ``"cr"`` or ``"cc"``: layouts of A and B as the kernel sees them."""
        return self.a.layout[0] + self.b.layout[0]


def layout_of(t: torch.Tensor) -> tuple[Layout, int] | None:
    """Layout and leading dimension of the last two dims of ``t``, or None if neither fits."""
    rows, cols = t.shape[-2], t.shape[-1]
    if rows == 0 or cols == 0:  # nothing is read: any strides will do
        return "row", max(cols, 1)
    s_row, s_col = t.stride(-2), t.stride(-1)
    row = col = None
    # A single row (column) has no real leading dimension: its stride is used when it could be one
    # (it keeps an aligned copy aligned), else the row (column) length.
    if s_col == 1 or cols == 1:
        ld = s_row if rows > 1 or s_row >= max(cols, 1) else max(cols, 1)
        if ld >= max(cols, 1):
            row = ("row", ld)
    if s_row == 1 or rows == 1:
        ld = s_col if cols > 1 or s_col >= max(rows, 1) else max(rows, 1)
        if ld >= max(rows, 1):
            col = ("col", ld)
    # A vector (one row or one column) reads as either; it is column-major when its elements are the
    # ones at stride 1 down a column (e.g. the K-major copy of a K x 1 operand), else row-major.
    if row and col and s_row == 1 and s_col != 1:
        return col
    return row or col


def _aligned16(t: torch.Tensor, ld: int, batch_stride: int) -> bool:
    per_vec = 16 // t.element_size()
    return t.data_ptr() % 16 == 0 and ld % per_vec == 0 and batch_stride % per_vec == 0


def _operand(t: torch.Tensor, name: str) -> tuple[torch.Tensor, Operand]:
    found = layout_of(t)
    if found is None:
        warnings.warn(
            f"{name} has strides {tuple(t.stride())} that are neither row- nor column-major; "
            f"tcgemm copies it to contiguous memory first (an extra read and write of {name}). "
            f"Pass {name}.contiguous() or a transpose of a contiguous tensor to avoid the copy.",
            StrideCopyWarning,
            stacklevel=4,
        )
        t = t.contiguous()
        found = layout_of(t)
        assert found is not None
    layout, ld = found
    batch_stride = t.stride(0) if t.dim() == 3 and t.shape[0] > 1 else 0
    return t, Operand(layout, ld, batch_stride, _aligned16(t, ld, batch_stride))


def resolve_precision(dtype: torch.dtype, precision: str | None, name: str = "a") -> tuple[str, torch.dtype]:
    """(precision, default output dtype) for inputs of ``dtype``."""
    if dtype not in _DTYPE_PRECISION:
        supported = ", ".join(str(d) for d in _DTYPE_PRECISION)
        raise TypeError(f"{name} has dtype {dtype}; tcgemm supports {supported}")
    default, out_dtype = _DTYPE_PRECISION[dtype]
    if precision is None:
        precision = default
    if precision not in _PRECISION_INPUTS:
        raise ValueError(f"precision={precision!r} is unknown; use one of {', '.join(_PRECISION_INPUTS)}")
    if _PRECISION_INPUTS[precision] != dtype:
        raise TypeError(
            f"precision={precision!r} takes {_PRECISION_INPUTS[precision]} inputs but {name} is {dtype}; "
            f"convert the inputs or drop precision="
        )
    if precision not in available_precisions():
        raise NotImplementedError(
            f"precision {precision!r} has no kernel in this version of tcgemm yet "
            f"(available: {', '.join(available_precisions())})"
        )
    return precision, out_dtype


def _check_shapes(a: torch.Tensor, b: torch.Tensor) -> tuple[int, int, int, int]:
    for name, t in (("a", a), ("b", b)):
        if t.dim() not in (2, 3):
            raise ValueError(
                f"{name} must be 2-D (rows, cols) or 3-D (batch, rows, cols); got shape {tuple(t.shape)}"
            )
    m, k = a.shape[-2], a.shape[-1]
    k2, n = b.shape[-2], b.shape[-1]
    if k != k2:
        raise ValueError(
            f"inner dimensions differ: a is {tuple(a.shape)} (K={k}) but b is {tuple(b.shape)} (K={k2}); "
            f"a must be (..., M, K) and b (..., K, N)"
        )
    batch_a = a.shape[0] if a.dim() == 3 else 1
    batch_b = b.shape[0] if b.dim() == 3 else 1
    if batch_a != batch_b and 1 not in (batch_a, batch_b):
        raise ValueError(f"batch sizes differ: a has {batch_a}, b has {batch_b} (one of them may be 1)")
    return m, n, k, max(batch_a, batch_b)


def _out_shape(a: torch.Tensor, b: torch.Tensor, m: int, n: int, batch: int) -> tuple[int, ...]:
    return (batch, m, n) if max(a.dim(), b.dim()) == 3 else (m, n)


def _span(t: torch.Tensor) -> tuple[int, int]:
    """Byte range [start, end) that ``t`` can touch."""
    if t.numel() == 0:
        return (t.data_ptr(), t.data_ptr())
    extent = sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True))
    return (t.data_ptr(), t.data_ptr() + (extent + 1) * t.element_size())


def _overlaps(x: torch.Tensor, y: torch.Tensor) -> bool:
    if x.device != y.device or x.numel() == 0 or y.numel() == 0:
        return False
    (x0, x1), (y0, y1) = _span(x), _span(y)
    return x0 < y1 and y0 < x1


def output_dtypes(precision: str) -> tuple[torch.dtype, ...]:
    """The dtypes D may have for ``precision``: its default first, then the extras."""
    if precision not in _PRECISION_INPUTS:
        raise ValueError(f"precision={precision!r} is unknown; use one of {', '.join(_PRECISION_INPUTS)}")
    default = resolve_precision(_PRECISION_INPUTS[precision], precision)[1]
    return (default, *(d for d in _EXTRA_OUTPUTS.get(precision, ()) if d != default))


def _precision_and_out_dtype(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None,
                             out_dtype: torch.dtype | None, precision: str | None) -> tuple[str, torch.dtype]:
    if a.dtype != b.dtype:
        raise TypeError(f"a is {a.dtype} but b is {b.dtype}; both inputs must have the same dtype")
    precision, default_out = resolve_precision(a.dtype, precision)
    if out_dtype is None:
        out_dtype = out.dtype if out is not None else default_out
    allowed_out = {default_out, *_EXTRA_OUTPUTS.get(precision, ())}
    if out_dtype not in allowed_out:
        allowed = ", ".join(str(d) for d in sorted(allowed_out, key=str))
        raise TypeError(f"out_dtype={out_dtype} is not available for {precision}; use {allowed}")
    if out is not None and out.dtype != out_dtype:
        raise TypeError(f"out is {out.dtype} but out_dtype is {out_dtype}; they must agree")
    return precision, out_dtype


def result_meta(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None = None,
    *,
    beta: float = 0.0,
    out_dtype: torch.dtype | None = None,
    precision: str | None = None,
) -> tuple[tuple[int, ...], torch.dtype]:
    """(shape, dtype) of the result of ``gemm(a, b, c, ...)`` from shapes and dtypes alone.

    Validates what can be validated without memory (dtypes, precision, shapes, c broadcasting), so it
    serves fake and meta tensors, e.g. while torch.compile traces ``torch.ops.tcgemm.gemm``."""
    _precision, dtype = _precision_and_out_dtype(a, b, None, out_dtype, precision)
    m, n, _k, batch = _check_shapes(a, b)
    shape = _out_shape(a, b, m, n, batch)
    _expanded_c(c, beta, dtype, batch, m, n, shape)
    return shape, dtype


def _expanded_c(c: torch.Tensor | None, beta: float, out_dtype: torch.dtype, batch: int, m: int, n: int,
                shape: tuple[int, ...]) -> torch.Tensor | None:
    """``c`` broadcast to (batch, m, n), after checking its dtype and shape and that beta has a c."""
    if c is None:
        if beta != 0.0:
            raise ValueError(f"beta={beta} needs c: pass c= (the matrix that beta scales) or beta=0")
        return None
    if c.dtype != out_dtype:
        raise TypeError(f"c is {c.dtype} but the output is {out_dtype}; pass c.to({out_dtype})")
    try:
        return c.expand(batch, m, n)
    except RuntimeError:
        raise ValueError(
            f"c has shape {tuple(c.shape)}, which does not broadcast to the output shape {shape}"
        ) from None


def describe(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    out: torch.Tensor | None = None,
    out_dtype: torch.dtype | None = None,
    precision: str | None = None,
    row_scales: bool = False,
    block_scales: bool = False,
    grouped: int = 0,
) -> tuple[GemmProblem, dict[str, torch.Tensor | None]]:
    """Validate the arguments of :func:`tcgemm.gemm` and describe the problem.

    ``row_scales``: fp8 scales given per row of a and per column of b (the caller validated them; with a
    column-major out the kernel's A is b, so its scales are exchanged: tcgemm.api). ``block_scales``: fp8 scales
    per 1 x 128 group of a and 128 x 128 block of b (validated by the caller); they are not symmetric in a and b,
    so the output must be row-major (no swap).

    Returns the problem and the tensors the kernel reads and writes
    (``a``, ``b``, ``c`` possibly expanded or made contiguous, ``d`` unallocated
    when ``out`` is None). Raises before anything is launched.
    """
    for name, t in (("a", a), ("b", b), ("c", c), ("out", out)):
        if t is not None and not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    precision, out_dtype = _precision_and_out_dtype(a, b, out, out_dtype, precision)
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if precision == "int8" and (float(value) != int(value) or abs(value) >= 2**24):
            raise ValueError(
                f"{name}={value}: int8 GEMMs accumulate and scale in int32 to stay exact, so {name} must be "
                f"an integer below 2**24; scale the int32 result in floating point yourself for other values"
            )

    m, n, k, batch = _check_shapes(a, b)
    shape = _out_shape(a, b, m, n, batch)

    if out is not None:
        if tuple(out.shape) != shape:
            raise ValueError(
                f"out has shape {tuple(out.shape)}; expected {shape} for a {tuple(a.shape)} @ b {tuple(b.shape)}"
            )
        for name, t in (("a", a), ("b", b)):
            if _overlaps(out, t):
                raise ValueError(f"out overlaps {name} in memory; pass a separate output tensor")
        if c is not None and _overlaps(out, c) and not (
            out.data_ptr() == c.data_ptr() and out.shape == c.shape and out.stride() == c.stride()
        ):
            raise ValueError("out partly overlaps c; pass c=out exactly (in-place update) or separate tensors")

    beta = float(beta)
    c_expanded = _expanded_c(c, beta, out_dtype, batch, m, n, shape)

    a, op_a = _operand(a, "a")
    b, op_b = _operand(b, "b")

    swapped = False
    d_ld, d_batch = n, m * n
    if out is not None:
        out_layout = layout_of(out) if out.numel() else ("row", max(n, 1))
        if out_layout is None:
            raise ValueError(
                f"out has strides {tuple(out.stride())}; it must be row-major or column-major "
                f"(with any leading dimension)"
            )
        swapped = out_layout[0] == "col"
        if swapped and grouped:
            raise ValueError("grouped_gemm writes a row-major out (each expert's rows); pass a row-major out, or none")
        if swapped and block_scales:
            raise ValueError("fp8 with block-wise scales writes a row-major out (the scales of a and b are not "
                             "interchangeable); pass a row-major out, or none")
        d_ld = out_layout[1]
        d_batch = out.stride(0) if out.dim() == 3 and out.shape[0] > 1 else 0

    c_strides = None
    if c_expanded is not None and beta != 0.0:
        # A dimension of one element is read at index 0 only, whatever its stride: 0 then, so that a bias expanded
        # over one row (a (1, N) view of an (N,) bias keeps stride N) is the broadcast row the kernels read once
        # per tile (epilogue_tma.cuh: c_is_bias_row) and not a whole C: at M = 1 GPT-2's qkv with its bias took
        # 5.84 us on 64 x 64 tiles against 4.47 at M = 3 (2026-11-26-h100-models-gpt2-small-m-c1c0f74-p1.json).
        row_stride = c_expanded.stride(1) if m > 1 else 0
        c_strides = (row_stride, c_expanded.stride(2), c_expanded.stride(0) if batch > 1 else 0)

    if swapped:  # D^T (N x M) = B^T (N x K) @ A^T (K x M), all row-major views again
        m, n = n, m
        op_a, op_b = op_b.flipped(), op_a.flipped()
        a, b = b, a
        if c_strides is not None:
            c_strides = (c_strides[1], c_strides[0], c_strides[2])

    problem = GemmProblem(
        m=m, n=n, k=k, batch=batch, precision=precision, in_dtype=a.dtype, out_dtype=out_dtype,
        a=op_a, b=op_b, c_strides=c_strides, d_ld=d_ld, d_batch_stride=d_batch,
        alpha=float(alpha), beta=beta, swapped=swapped, row_scales=row_scales, block_scales=block_scales,
        grouped=grouped,
    )
    return problem, {"a": a, "b": b, "c": c_expanded if c_strides is not None else None, "out": out}


def transposed_layouts_of(layouts: str) -> str:
    """The layouts (A then B) of the transposed problem D^T = B^T A^T of a problem with ``layouts``: B's, then
    A's, each flipped (a row-major B is a column-major B^T)."""
    flip = {"r": "c", "c": "r"}
    return flip[layouts[1]] + flip[layouts[0]]


def transposed_store(problem: GemmProblem, tensors: dict[str, Any]) -> tuple[GemmProblem, dict[str, Any]]:
    """The problem a D_TRANSPOSED config runs for ``problem``: D^T (N x M) = B^T (N x K) @ A^T (K x M), the
    same tensors as views with their roles exchanged (B's is A's, A's B's; layouts flipped), C's strides
    exchanged, D unchanged (the kernel writes its tiles of D^T transposed). ``tensors`` as describe returns."""
    if problem.swapped or problem.d_transposed:
        raise ValueError("transposed_store: the problem is already transposed")
    c = problem.c_strides
    t = dict(tensors)
    t["a"], t["b"] = tensors["b"], tensors["a"]
    return replace(problem, m=problem.n, n=problem.m, a=problem.b.flipped(), b=problem.a.flipped(),
                   c_strides=(c[1], c[0], c[2]) if c is not None else None, d_transposed=True), t
