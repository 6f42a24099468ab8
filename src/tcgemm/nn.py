"""``tcgemm.nn.Linear``: a drop-in for ``torch.nn.Linear`` whose matmul and bias run in one tcgemm kernel.

It *is* a ``torch.nn.Linear`` (a subclass): the same parameters (``weight`` (out, in), ``bias``
(out,)), the same state dict, the same initialisation; only ``forward`` differs::

    y = x @ weight.T + bias      # one GEMM: weight.T is read in place (column-major), bias fused

- ``x`` of any leading dims is flattened to (tokens, in) — a view when ``x`` is contiguous — and the
  result is reshaped back; 1-D inputs work as in torch.
- The bias is passed to the GEMM as ``c`` with ``beta=1``: the kernels' epilogue broadcasts a (N,)
  row, so bias costs no extra pass. Where that fused path cannot serve — a bias whose dtype differs
  from the output's — the bias is added after the GEMM in a separate, visible ``y + bias.to(y.dtype)``.
- Under ``torch.autocast`` the input, weight and bias are cast to the autocast dtype first, as
  ``torch.nn.Linear`` is; otherwise ``x`` must have the weight's dtype (TypeError naming the fix).
- Autograd and ``torch.compile(fullgraph=True)`` work through ``torch.ops.tcgemm.gemm``
  (:mod:`tcgemm.ops`); the backward GEMMs are tcgemm's too. Inference calls skip the operator.
- ``precision`` (e.g. ``"tf32"`` for float32 on tensor cores) is a module attribute, not state.
"""

from __future__ import annotations

import torch

from . import api, ops  # noqa: F401  (ops: registers torch.ops.tcgemm.gemm for autograd and torch.compile)

__all__ = ["Linear", "linear"]


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
           precision: str | None = None) -> torch.Tensor:
    """``x @ weight.T + bias`` with tcgemm, like :func:`torch.nn.functional.linear`."""
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out_features, in_features); got shape {tuple(weight.shape)}")
    if x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"input has shape {tuple(x.shape)} but the layer takes in_features={weight.shape[1]} "
            f"(the input's last dimension)"
        )
    device_type = x.device.type
    if torch.is_autocast_enabled(device_type) and x.dtype.is_floating_point:
        dtype = torch.get_autocast_dtype(device_type)
        x, weight = x.to(dtype), weight.to(dtype)
        bias = bias.to(dtype) if bias is not None else None
    if x.dtype != weight.dtype:
        raise TypeError(
            f"input is {x.dtype} but weight is {weight.dtype}; convert the input (x.to({weight.dtype})) "
            f"or the layer (.to({x.dtype})), or run under torch.autocast"
        )
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    # The output dtype is the input's (float32 for float32, float16 for float16, ...).
    fused = bias is not None and bias.dtype == x.dtype
    # api.gemm goes through torch.ops.tcgemm.gemm when autograd or torch.compile needs the operator,
    # and straight to the kernels (a few µs less per call) in inference.
    y = api.gemm(x2, weight.t(), bias if fused else None, beta=1.0 if fused else 0.0, precision=precision)
    if bias is not None and not fused:
        y = y + bias.to(y.dtype)  # not fused: the bias's dtype is not the output's
    return y.reshape(*lead, weight.shape[0])


class Linear(torch.nn.Linear):
    """``torch.nn.Linear`` computed by tcgemm: same parameters and state dict; see :mod:`tcgemm.nn`."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: torch.device | None = None,
                 dtype: torch.dtype | None = None, *, precision: str | None = None) -> None:
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.precision = precision

    @classmethod
    def from_torch(cls, linear: torch.nn.Linear, *, precision: str | None = None) -> Linear:
        """A tcgemm Linear that shares ``linear``'s parameters (no copy: training either trains both)."""
        if not isinstance(linear, torch.nn.Linear):
            raise TypeError(f"from_torch takes a torch.nn.Linear, got {type(linear).__name__}")
        new = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, device="meta",
                  dtype=linear.weight.dtype, precision=precision)
        new.weight = linear.weight
        new.bias = linear.bias
        new.train(linear.training)
        return new

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return linear(input, self.weight, self.bias, precision=self.precision)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        return text + (f", precision={self.precision!r}" if self.precision is not None else "")
