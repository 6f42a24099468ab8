"""``tcgemm.gemm``, ``tcgemm.matmul`` and ``tcgemm.explain``: the public entry, above the core.

A plain call (torch tensors, nothing to differentiate, not traced) goes straight down to the core
(:func:`tcgemm.api._gemm`: describe -> plan -> stage -> launch, with the repeat-call memo in front). Above
that path this module adds what a user's call may need first: DLPack arrays in and out (tcgemm.interop),
and the operator ``torch.ops.tcgemm.gemm`` (tcgemm.ops: autograd, torch.compile) for calls that are
differentiated or traced. The core never imports this module, the operator or interop.
"""

from __future__ import annotations

from typing import Any

import torch

from . import api, epilogue, interop
from .fastpath import PLAIN


def gemm(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    out: torch.Tensor | None = None,
    out_dtype: torch.dtype | None = None,
    precision: str | None = None,
    kernel: str = "auto",
    config: str | None = None,
    scale_a: float | torch.Tensor | None = None,
    scale_b: float | torch.Tensor | None = None,
    activation: str | None = None,
) -> torch.Tensor:
    """``D = alpha * a @ b + beta * c`` on the GPU with a hand-written kernel.

    a: (M, K) or (batch, M, K); b: (K, N) or (batch, K, N); a batch of 1 (or a
    2-D operand) broadcasts. Row- and column-major operands, and slices of wider
    tensors, are read in place. c broadcasts to the output (a bias row (N,) or
    column (M, 1) works) and is only read when beta != 0. out, if given, must be
    row- or column-major and must not overlap a or b (out may be c itself).
    precision: None (from the dtype: float32 -> exact "fp32") or "tf32" for
    float32 inputs on tensor cores. kernel: "auto" or a name from
    :func:`tcgemm.kernels`; config: a tile config name of that kernel.
    scale_a, scale_b: fp8 inputs only (torch.float8_e4m3fn / float8_e5m2), per-tensor scales as in
    torch._scaled_mm: ``D = alpha * (a * scale_a) @ (b * scale_b) + beta * c``, accumulated in fp32,
    written as bfloat16 (default), float16 or float32 (out_dtype). Python numbers are folded into
    alpha; one-element float32 tensors are read by the kernel on the device (no synchronisation).
    activation: "relu", "gelu", "gelu_tanh" or "silu" gives ``act(alpha * a @ b + beta * c)`` (c a bias:
    ``act(x W^T + b)``); a gated pair, "swiglu", "geglu", "geglu_tanh" or "reglu", reads b's N columns as
    gate then up and returns the N / 2 columns ``act(gate) * up``. fp16/bf16 on the Hopper kernel compute it
    in the GEMM's epilogue (:mod:`tcgemm.epilogue`); elsewhere, and under autograd, the GEMM then torch's ops.

    Differentiable: when a, b or c requires grad (and grad mode is on), and under torch.compile, the
    call goes through ``torch.ops.tcgemm.gemm`` (:mod:`tcgemm.ops`: autograd, fake implementation);
    ``out=`` and fp8 scales are not differentiable, and torch.compile does not trace calls with them.
    DLPack: a, b, c and out may be CuPy, JAX or other ``__dlpack__`` arrays (zero-copy); the result
    comes back in the caller's array type (:mod:`tcgemm.interop`).
    """
    if (type(a) in PLAIN and type(b) in PLAIN and (c is None or type(c) in PLAIN)
            and (out is None or type(out) in PLAIN)
            and not (torch.is_grad_enabled() and (a.requires_grad or b.requires_grad
                                                  or (isinstance(c, torch.Tensor) and c.requires_grad)))
            and not torch.compiler.is_compiling()):
        return api._gemm(a, b, c, alpha=alpha, beta=beta, out=out, out_dtype=out_dtype, precision=precision,
                         kernel=kernel, config=config, scale_a=scale_a, scale_b=scale_b, activation=activation)
    a, b, c, out, back = interop.to_torch(a, b, c, out)
    epi = epilogue.parse(activation)
    if epi.fused and (torch.compiler.is_compiling() or (torch.is_grad_enabled() and any(
            isinstance(t, torch.Tensor) and t.requires_grad for t in (a, b, c)))):
        # Differentiated or traced: the operator's GEMM, then torch's ops (autograd keeps what the backward needs).
        if out is not None or scale_a is not None or scale_b is not None:
            raise ValueError("out= and scale_a/scale_b do not support autograd or torch.compile with activation=; "
                             "drop them or call under torch.no_grad()")
        d = epilogue.apply(_op_gemm(a, b, c, alpha, beta, out_dtype, precision, kernel, config), epi)
        return d if back is None else back(d)
    if epi.fused:
        d = api._gemm(a, b, c, alpha=alpha, beta=beta, out=out, out_dtype=out_dtype, precision=precision,
                      kernel=kernel, config=config, scale_a=scale_a, scale_b=scale_b, activation=activation)
        return d if back is None else back(d)
    scaled = scale_a is not None or scale_b is not None
    if torch.compiler.is_compiling() and out is None and not scaled:
        d = _op_gemm(a, b, c, alpha, beta, out_dtype, precision, kernel, config)
    elif torch.is_grad_enabled() and any(isinstance(t, torch.Tensor) and t.requires_grad for t in (a, b, c)):
        if out is not None or scaled:
            what = "out=" if out is not None else "scale_a/scale_b"
            raise ValueError(f"{what} does not support autograd, but an input requires grad; "
                             f"drop {what} or call under torch.no_grad() (or pass detached inputs)")
        d = _op_gemm(a, b, c, alpha, beta, out_dtype, precision, kernel, config)
    else:
        d = api._gemm(a, b, c, alpha=alpha, beta=beta, out=out, out_dtype=out_dtype, precision=precision,
                      kernel=kernel, config=config, scale_a=scale_a, scale_b=scale_b)
    return d if back is None else back(d)


def _op_gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
             out_dtype: torch.dtype | None, precision: str | None, kernel: str, config: str | None) -> torch.Tensor:
    from . import ops  # registers torch.ops.tcgemm.gemm on first use

    return ops.gemm(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype, precision=precision, kernel=kernel,
                    config=config)


def explain(a: Any, b: Any, c: Any = None, **kwargs: Any) -> api.Choice:
    """Which kernel and tile config :func:`gemm` picks for these arguments (same signature), and why.

    Nothing is launched or written; the arguments are validated as ``gemm`` validates them, so an
    error here is the error the call would raise. Example::

        tcgemm.explain(x, layer.weight.t(), layer.bias, beta=1.0).label   # 'wgmma_tma_store:s4b2o'
    """
    a, b, c, out, _back = interop.to_torch(a, b, c, kwargs.get("out"))
    if out is not None:
        kwargs["out"] = out
    return api.explain(a, b, c, **kwargs)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` through :func:`gemm`, like :func:`torch.matmul` for 2-D and 3-D inputs."""
    return gemm(a, b)
