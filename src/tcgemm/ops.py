"""``torch.ops.tcgemm.gemm``: tcgemm as a PyTorch operator, with autograd and torch.compile support.

Importing this module registers the operator (``tcgemm.nn`` and a differentiable or compiled
:func:`tcgemm.gemm` import it for you)::

    torch.ops.tcgemm.gemm(a, b, c=None, alpha=1.0, beta=0.0, out_dtype=None, precision=None,
                          kernel_name="auto", config=None) -> Tensor     # alpha * a @ b + beta * c

- The real implementation is :func:`tcgemm.api._gemm` (the kernels); it always returns a new
  row-major tensor, so the operator has no aliasing and no mutation.
- The fake implementation (``register_fake``) gives the result's shape and dtype from the inputs'
  shapes and dtypes alone (:func:`tcgemm.problem.result_meta`), so ``torch.compile(fullgraph=True)``
  traces through the operator without a graph break.
- Autograd (``register_autograd``): for ``D = alpha * A @ B + beta * C`` and incoming ``dD``::

      dA = alpha * dD @ Bᵀ      dB = alpha * Aᵀ @ dD      dC = beta * dD (summed over broadcast dims)

  both products are tcgemm GEMMs of transposed *views* (``.mT``): the kernels read column-major
  operands in place, so the backward copies nothing. Each gradient is computed in the layout of
  its input (a column-major input, such as ``weight.t()`` in :class:`tcgemm.nn.Linear`, gets a
  column-major gradient, as ``(Bᵀ @ dDᵀ)ᵀ``), so autograd never has to re-lay it out. The backward
  GEMMs use the forward's ``precision`` and ``kernel="auto"`` (a forced forward kernel may not
  serve the backward's shapes). With ``out_dtype=torch.float32`` for 16-bit inputs, ``dD`` is
  rounded to the inputs' dtype first (both operands of a GEMM share one dtype). The backward is
  itself made of this operator, so double backward works too.
"""

from __future__ import annotations

from typing import Any

import torch

from . import api
from .problem import layout_of, result_meta

__all__ = ["gemm"]

_SCHEMA = (
    "(Tensor a, Tensor b, Tensor? c=None, float alpha=1.0, float beta=0.0, ScalarType? out_dtype=None, "
    'str? precision=None, str kernel_name="auto", str? config=None) -> Tensor'
)
# (kernel_name, not kernel: inductor's fallback lowering passes its own `kernel` keyword to the op's arguments)


@torch.library.custom_op("tcgemm::gemm", mutates_args=(), schema=_SCHEMA)
def _gemm_op(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, alpha: float = 1.0,
             beta: float = 0.0, out_dtype: torch.dtype | None = None, precision: str | None = None,
             kernel_name: str = "auto", config: str | None = None) -> torch.Tensor:
    return api._gemm(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype, precision=precision,
                     kernel=kernel_name, config=config)


@_gemm_op.register_fake
def _gemm_fake(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, alpha: float = 1.0,
               beta: float = 0.0, out_dtype: torch.dtype | None = None, precision: str | None = None,
               kernel_name: str = "auto", config: str | None = None) -> torch.Tensor:
    shape, dtype = result_meta(a, b, c, beta=beta, out_dtype=out_dtype, precision=precision)
    return a.new_empty(shape, dtype=dtype)  # row-major, as the kernels write it


def _setup_context(ctx: Any, inputs: tuple[Any, ...], output: torch.Tensor) -> None:
    a, b, c, alpha, beta, _out_dtype, precision, _kernel, _config = inputs
    need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    ctx.save_for_backward(a if need_b else None, b if need_a else None)
    ctx.alpha, ctx.beta, ctx.precision = alpha, beta, precision
    ctx.a_shape, ctx.b_shape = a.shape, b.shape
    ctx.a_col, ctx.b_col = _column_major(a), _column_major(b)
    ctx.in_dtype = a.dtype
    ctx.c_shape = c.shape if c is not None else None


def _column_major(t: torch.Tensor) -> bool:
    return t.dim() >= 2 and t.stride(-2) == 1 and t.stride(-1) != 1


def _backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
    a, b = ctx.saved_tensors
    g = grad if grad.dtype == ctx.in_dtype else grad.to(ctx.in_dtype)
    if layout_of(g) is None:  # e.g. the expanded ones of loss.sum(): the kernels need a row or column layout
        g = g.contiguous()
    args = dict(alpha=ctx.alpha, precision=ctx.precision)
    grad_a = grad_b = grad_c = None
    if ctx.needs_input_grad[0]:  # dA = alpha dD Bᵀ (as (B dDᵀ)ᵀ for a column-major A)
        grad_a = gemm(b, g.mT, **args).mT if ctx.a_col else gemm(g, b.mT, **args)
        grad_a = grad_a.sum_to_size(ctx.a_shape)
    if ctx.needs_input_grad[1]:  # dB = alpha Aᵀ dD (as (dDᵀ A)ᵀ for a column-major B)
        grad_b = gemm(g.mT, a, **args).mT if ctx.b_col else gemm(a.mT, g, **args)
        grad_b = grad_b.sum_to_size(ctx.b_shape)
    # (the dispatcher drops trailing arguments left at their defaults, so needs_input_grad may be shorter)
    if ctx.c_shape is not None and len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
        grad_c = (grad if ctx.beta == 1.0 else grad * ctx.beta).sum_to_size(ctx.c_shape)
    return grad_a, grad_b, grad_c, None, None, None, None, None, None


_gemm_op.register_autograd(_backward, setup_context=_setup_context)


def gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, *, alpha: float = 1.0,
         beta: float = 0.0, out_dtype: torch.dtype | None = None, precision: str | None = None,
         kernel: str = "auto", config: str | None = None) -> torch.Tensor:
    """``alpha * a @ b + beta * c`` through ``torch.ops.tcgemm.gemm``: differentiable, traceable by
    torch.compile. Arguments as in :func:`tcgemm.gemm` (no ``out``, no fp8 scales)."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    return torch.ops.tcgemm.gemm(a, b, c, float(alpha), float(beta), out_dtype, precision, kernel, config)
