"""The elementwise half of a gated layer in training: ``act(gate) * up`` and its backward, one kernel each.

A gated layer under autograd (``tcgemm.nn.Linear(activation="swiglu")`` or :class:`tcgemm.mlp.GatedMLP` while
training) runs its GEMM unfused, since the backward needs gate and up, not only the product:

    gu = x @ [Wg; Wu]^T                # one GEMM, (T, 2n): gate columns, then up
    h  = forward(gu, act)              # act(gate) * up, (T, n)
    dgu = backward(dh, gu, act)        # [dgate | dup], (T, 2n): dx = dgu @ W and dW = dgu^T @ x, one GEMM each

On CUDA tensors of 16 or 32 bits these are ``kernels/util/gated_act.cu`` (5 tensor passes against the 14 of
torch's autograd over ``act(g) * u``; fp32 in between, one rounding per output); elsewhere the same formula in
torch ops. Both run on the current stream and capture in CUDA graphs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch

from . import epilogue

_SOURCE = "util/gated_act.cu"
_ELEM = {torch.bfloat16: "__nv_bfloat16", torch.float16: "__half", torch.float32: "float"}
_THREADS = 256
_MAX_ROW_BLOCKS = 65535  # gridDim.y; the kernel loops over rows beyond it

# act'(g) * grad, by the aten kernels torch's own backward of the activation runs (the path off the GPU).
_ACT_BACKWARD = {
    "silu": lambda grad, g: torch.ops.aten.silu_backward(grad, g),
    "gelu": lambda grad, g: torch.ops.aten.gelu_backward(grad, g, approximate="none"),
    "gelu_tanh": lambda grad, g: torch.ops.aten.gelu_backward(grad, g, approximate="tanh"),
    "relu": lambda grad, g: torch.ops.aten.threshold_backward(grad, g, 0),
}


def _halves(gu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int]:
    if gu.dim() != 2 or gu.shape[1] % 2:
        raise ValueError(f"gu must be 2-D (tokens, 2n) with gate then up columns; got shape {tuple(gu.shape)}")
    n = gu.shape[1] // 2
    return gu[:, :n], gu[:, n:], n


def _kernel_applies(*tensors: torch.Tensor) -> bool:
    first = tensors[0]
    return (first.is_cuda and first.dtype in _ELEM and all(t.dtype == first.dtype for t in tensors)
            and all(t.stride(1) == 1 or t.shape[1] <= 1 for t in tensors))


def forward(gu: torch.Tensor, act: str) -> torch.Tensor:
    """``act(gate) * up`` of a (T, 2n) GEMM output whose columns are gate then up: (T, n), contiguous."""
    gate, up, n = _halves(gu)
    if act not in _ACT_BACKWARD:
        raise ValueError(f"act={act!r}: a gated layer's activation is one of {', '.join(_ACT_BACKWARD)}")
    if not _kernel_applies(gu) or gu.shape[0] == 0 or n == 0:
        return epilogue.activate(gate, act) * up
    h = torch.empty(gu.shape[0], n, dtype=gu.dtype, device=gu.device)
    _launch("gated_forward", act, (gate, up, h), n, [
        gate.data_ptr(), up.data_ptr(), np.int64(gu.stride(0)), h.data_ptr(), np.int64(h.stride(0))])
    return h


def backward(grad: torch.Tensor, gu: torch.Tensor, act: str) -> torch.Tensor:
    """``[dgate | dup]`` (T, 2n), contiguous, for the gradient ``grad`` (T, n) of ``forward(gu, act)``."""
    gate, up, n = _halves(gu)
    if grad.shape != gate.shape:
        raise ValueError(f"grad has shape {tuple(grad.shape)}; the gated output of gu {tuple(gu.shape)} is "
                         f"{tuple(gate.shape)}")
    if not _kernel_applies(grad, gu) or gu.shape[0] == 0 or n == 0:
        dgu = torch.empty_like(gu, memory_format=torch.contiguous_format)
        dgu[:, :n] = _ACT_BACKWARD[act](grad * up, gate)
        dgu[:, n:] = grad * epilogue.activate(gate, act)
        return dgu
    dgu = torch.empty(gu.shape[0], 2 * n, dtype=gu.dtype, device=gu.device)
    _launch("gated_backward", act, (grad, gate, up, dgu[:, :n], dgu[:, n:]), n, [
        grad.data_ptr(), np.int64(grad.stride(0)), gate.data_ptr(), up.data_ptr(), np.int64(gu.stride(0)),
        dgu.data_ptr(), dgu[:, n:].data_ptr(), np.int64(dgu.stride(0))])
    return dgu


def reference(gu: torch.Tensor, grad: torch.Tensor, act: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(h, dgu) in float64 by autograd over torch's formula: what :func:`forward` and :func:`backward` compute
    (the tests' reference)."""
    g64 = gu.detach().double().requires_grad_()
    _gate, _up, n = _halves(g64)
    h = epilogue.activate(g64[:, :n], act) * g64[:, n:]
    h.backward(grad.double())
    return h.detach(), g64.grad


@lru_cache(maxsize=32)
def _kernel(entry: str, dtype: torch.dtype, act: str, device: int) -> Any:
    from . import jit

    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    defines = jit.as_defines([("ELEM", _ELEM[dtype]), ("ACT", epilogue.ACTIVATIONS[act])])
    return jit.load_kernel(_SOURCE, entry, defines, arch, device)


def _launch(entry: str, act: str, tensors: tuple[torch.Tensor, ...], cols: int, args: list[Any]) -> None:
    from . import driver, jit

    first = tensors[0]
    rows = first.shape[0]
    vec = 16 // first.element_size()
    vectors = cols % vec == 0 and all(
        t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0 for t in tensors)
    per_row = -(-cols // vec) if vectors else cols
    device = first.device.index if first.device.index is not None else torch.cuda.current_device()
    kernel = _kernel(entry, first.dtype, act, device)  # (first: loading makes the device current for cuda.core)
    cc = jit._cuda_core()
    config = cc.LaunchConfig(grid=(-(-per_row // _THREADS), min(rows, _MAX_ROW_BLOCKS), 1), block=(_THREADS, 1, 1))
    stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
    cc.launch(stream, config, kernel, *args,
              np.int32(rows), np.int32(cols), np.int32(vectors))
