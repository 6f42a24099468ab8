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

import sys
from collections.abc import Callable
from typing import Any

import torch

from . import api, entry, epilogue, fastpath, gating, ops  # noqa: F401  (ops: registers torch.ops.tcgemm.gemm for torch.compile)
from .problem import layout_of

__all__ = ["Conv1D", "Linear", "linear", "replace_linear", "restore_linear", "warmup"]


def _check(x: torch.Tensor, weight: torch.Tensor) -> None:
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out_features, in_features); got shape {tuple(weight.shape)}")
    if x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(
            f"input has shape {tuple(x.shape)} but the layer takes in_features={weight.shape[1]} "
            f"(the input's last dimension)"
        )


def _needs_grad(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None) -> bool:
    return torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad
                                        or (bias is not None and bias.requires_grad))


def _gemm(x2: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, precision: str | None) -> torch.Tensor:
    """``x2 @ weight.T (+ bias)`` without autograd; the bias is fused where its dtype is the output's."""
    fused = bias is not None and bias.dtype == x2.dtype
    y = entry.gemm(x2, weight.t(), bias if fused else None, beta=1.0 if fused else 0.0, precision=precision)
    if bias is not None and not fused:
        y = y + bias.to(y.dtype)  # not fused: the bias's dtype is not the output's
    return y


class _LinearFunction(torch.autograd.Function):
    """Autograd of ``x @ weight.T + bias`` in eager mode, with tcgemm GEMMs both ways. (torch.compile
    traces torch.ops.tcgemm.gemm instead; this avoids the custom operator's Python dispatch, which cost
    more host time per call than the whole torch.nn.Linear call.) ``launch``: a layer's repeat entry
    (prepared launch, weight and bias addresses, output shape) or the precision for a first call."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, precision: str | None,
                repeat: tuple[Any, ...] | None, main_grad: bool = False) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.precision, ctx.has_bias, ctx.main_grad = precision, bias is not None, main_grad
        if repeat is not None:
            return repeat[0].new_output(x.data_ptr(), repeat[1], repeat[2], repeat[3])
        return linear(x, weight, bias, precision=precision)  # (grad is off in here: the repeat path)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        g = grad if grad.dim() == 2 else grad.reshape(-1, grad.shape[-1])
        if layout_of(g) is None:  # e.g. the expanded ones of loss.sum(): the kernels need a row or column layout
            g = g.contiguous()
        grad_x = grad_w = grad_b = None
        needs = ctx.needs_input_grad
        if needs[0]:  # dX = dY W: (M, N) @ (N, K), W read row-major as stored
            grad_x = _mm(g, weight, ctx.precision)
            if grad.dim() != 2:
                grad_x = grad_x.reshape(*grad.shape[:-1], weight.shape[1])
        if needs[1]:  # dW = dYᵀ X: (N, M) @ (M, K), dYᵀ read in place (column-major)
            x2 = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
            if ctx.main_grad:  # added into the fp32 weight.main_grad in the GEMM's epilogue; no .grad
                entry.gemm(g.mT, x2, weight.main_grad, beta=1.0, out=weight.main_grad, precision=ctx.precision)
            else:
                grad_w = _mm(g.mT, x2, ctx.precision)
        if ctx.has_bias and needs[2]:
            grad_b = g.sum(0)  # (in the gradient's dtype, as torch.nn.Linear's backward sums it)
        return grad_x, grad_w, grad_b, None, None, None


# torch.autograd.Function.apply without its Python wrapper, which maps a pytree over the arguments on every
# call (for functorch transforms: with one active, the wrapper runs as usual). The C++ apply it ends in.
_apply_raw = super(torch.autograd.Function, _LinearFunction).apply


def _linear_autograd(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, precision: str | None,
           repeat: tuple[Any, ...] | None, main_grad: bool = False) -> torch.Tensor:
    if torch._C._are_functorch_transforms_active():
        return _LinearFunction.apply(x, weight, bias, precision, repeat, main_grad)
    return _apply_raw(x, weight, bias, precision, repeat, main_grad)


def _check_main_grad(weight: torch.Tensor) -> None:
    mg = getattr(weight, "main_grad", None)
    if not isinstance(mg, torch.Tensor) or mg.dtype != torch.float32 or mg.shape != weight.shape or (
            mg.device != weight.device) or not mg.is_contiguous():
        raise ValueError("accumulate_main_grad=True adds dW into weight.main_grad, which must be a contiguous float32 "
                         f"tensor of the weight's shape {tuple(weight.shape)} on its device; create it with "
                         "layer.weight.main_grad = torch.zeros_like(layer.weight, dtype=torch.float32)")


class _GatedFunction(torch.autograd.Function):
    """Autograd of a gated layer, ``act(x Wg^T + bg) * (x Wu^T + bu)`` with ``[Wg; Wu]`` one stacked weight, in
    training. The forward is one GEMM into gu = [g | u] and tcgemm.gating's kernel for act(g) * u; the backward's
    kernel writes [dg | du] side by side, so dx = [dg du] W and dW = [dg du]^T x are one GEMM each (dW straight
    into the stacked gradient): 0.61 ms a Llama-3-8B-shaped training step (4 layers, 2048 tokens) where torch's
    silu, muls and silu_backward take 1.20 (2026-11-26-h100-train-kernels-166345e.txt). Before: two GEMMs of the
    weight's halves each way and torch's elementwise ops; earlier still, torch's ops on the stacked output's
    strided halves (3.7 ms of strided kernels against torch's 1.6, -03eb044)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, act: str,
                precision: str | None, main_grad: bool = False) -> torch.Tensor:
        gu = linear(x, weight, bias, precision=precision)
        ctx.save_for_backward(x, weight, gu)
        ctx.act, ctx.precision, ctx.has_bias, ctx.main_grad = act, precision, bias is not None, main_grad
        return gating.forward(gu, act)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, weight, gu = ctx.saved_tensors
        dgu = gating.backward(grad.contiguous(), gu, ctx.act)
        needs = ctx.needs_input_grad
        grad_x = grad_w = grad_b = None
        if needs[0]:  # dx = [dg du] [Wg; Wu]
            grad_x = _mm(dgu, weight, ctx.precision)
        if needs[1] and ctx.main_grad:  # dW added into the fp32 weight.main_grad; no .grad
            entry.gemm(dgu.mT, x, weight.main_grad, beta=1.0, out=weight.main_grad, precision=ctx.precision)
        elif needs[1]:
            grad_w = _mm(dgu.mT, x, ctx.precision)
        if ctx.has_bias and needs[2]:
            grad_b = dgu.sum(0)
        return grad_x, grad_w, grad_b, None, None, None


# The backward's GEMMs seen before: signature of (a, b, precision) -> (prepared launch, output shape).
_mm_repeat: dict[tuple[Any, ...], tuple[fastpath.Prepared, tuple[int, ...]]] = {}


def _mm(a: torch.Tensor, b: torch.Tensor, precision: str | None) -> torch.Tensor:
    """``a @ b`` for the backward: from a prepared launch and raw addresses when this signature ran before
    (and nothing is differentiated: a double backward goes through tcgemm.gemm's operator)."""
    if torch.is_grad_enabled():
        return entry.gemm(a, b, precision=precision)
    signature = (a.shape, a.stride(), a.dtype, a.data_ptr() & 15, a.get_device(),
                 b.shape, b.stride(), b.dtype, b.data_ptr() & 15, b.get_device(), precision)
    found = _mm_repeat.get(signature)
    if found is not None:
        return found[0].new_output(a.data_ptr(), b.data_ptr(), 0, found[1])
    y = api._gemm(a, b, precision=precision)
    if a.is_cuda:
        prepared = fastpath.lookup(fastpath.key(a, b, None, None, 1.0, 0.0, None, precision, "auto", None))
        if prepared is not None and prepared.direct:
            if len(_mm_repeat) >= 4096:
                _mm_repeat.clear()
            _mm_repeat[signature] = (prepared, tuple(y.shape))
    return y


_PLAIN = (torch.Tensor, torch.nn.Parameter)
# Repeat calls of tcgemm.nn.linear: the operands' signature -> (prepared launch, output shape).
_repeat: dict[tuple[Any, ...], tuple[fastpath.Prepared, tuple[int, ...]]] = {}


def _signature(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
               precision: str | None) -> tuple[Any, ...]:
    return (x.shape, x.stride(), x.dtype, x.data_ptr() & 15, x.get_device(),
            weight.shape, weight.stride(), weight.dtype, weight.data_ptr() & 15, weight.get_device(),
            None if bias is None else (bias.shape, bias.stride(), bias.dtype, bias.data_ptr() & 15,
                                       bias.get_device()), precision)


def _prepared_for(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                  precision: str | None) -> fastpath.Prepared | None:
    """The prepared launch a call of ``linear`` just left behind (tcgemm.fastpath), if it can serve repeat
    calls from raw addresses: a CUDA input of the weight's dtype, flattened in place, bias fused or absent."""
    if not x.is_cuda or x.dtype != weight.dtype or (bias is not None and bias.dtype != x.dtype):
        return None
    x2 = x.reshape(-1, x.shape[-1])
    # (a flattening that copies: the full path each time. A strided input whose flattening is a view, such as the
    # v slice of a fused qkv output, repeats too: its signature fixes the view's strides. Until d35d62a it took the
    # full path on every call: GPT-2's out_proj in the block benchmark, which passes v on without attention.)
    if x2.data_ptr() != x.data_ptr() or layout_of(x2) is None:
        return None
    key = fastpath.key(x2, weight.t(), bias, None, 1.0, 1.0 if bias is not None else 0.0, None, precision,
                       "auto", None)
    prepared = fastpath.lookup(key)
    return prepared if prepared is not None and prepared.direct else None


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None, *,
           precision: str | None = None) -> torch.Tensor:
    """``x @ weight.T + bias`` with tcgemm, like :func:`torch.nn.functional.linear`."""
    # The repeat call (operands of a signature seen before, nothing to differentiate, no autocast, not
    # traced): one dict lookup, then the prepared launch from raw addresses.
    repeat = (type(x) is torch.Tensor and type(weight) in _PLAIN and (bias is None or type(bias) in _PLAIN)
              and not (torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad
                                                    or (bias is not None and bias.requires_grad)))
              and not torch.compiler.is_compiling() and not torch.is_autocast_enabled("cuda"))
    if repeat:
        signature = _signature(x, weight, bias, precision)
        found = _repeat.get(signature)
        if found is not None:
            prepared, shape = found
            return prepared.new_output(x.data_ptr(), weight.data_ptr(), 0 if bias is None else bias.data_ptr(),
                                       shape)
    _check(x, weight)
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
    # The output dtype is the input's (float32 for float32, float16 for float16, ...).
    if _needs_grad(x, weight, bias) and not torch.compiler.is_compiling():
        return _linear_autograd(x, weight, bias, precision, None)
    # (under torch.compile tcgemm.gemm goes through torch.ops.tcgemm.gemm, which the compiler traces)
    y = _gemm(x if x.dim() == 2 else x.reshape(-1, x.shape[-1]), weight, bias, precision)
    y = y if x.dim() == 2 else y.reshape(*x.shape[:-1], weight.shape[0])
    if repeat:
        prepared = _prepared_for(x, weight, bias, precision)
        if prepared is not None:
            if len(_repeat) >= 4096:
                _repeat.clear()
            _repeat[signature] = (prepared, tuple(y.shape))
    return y


class Linear(torch.nn.Linear):
    """``torch.nn.Linear`` computed by tcgemm: same parameters and state dict; see :mod:`tcgemm.nn`."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device: torch.device | None = None,
                 dtype: torch.dtype | None = None, *, precision: str | None = None,
                 activation: str | None = None, accumulate_main_grad: bool = False) -> None:
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.precision = precision
        # Megatron-style training: the backward adds dW into weight.main_grad (float32, the weight's shape) in the
        # weight-gradient GEMM's epilogue (beta = 1) and leaves weight.grad None.
        self.accumulate_main_grad = accumulate_main_grad
        # act(x W^T + b) in the GEMM's epilogue; a gated pair (swiglu, ...) halves the output: act(gate) * up of
        # the weight's two halves of rows (tcgemm.epilogue). None: a plain Linear.
        self.activation = None if epilogue.parse(activation).name == "none" else activation
        if self.activation and epilogue.parse(activation).gated:
            epilogue.gated_halves(out_features, "out_features")
        self._repeat: dict[tuple[Any, ...], tuple[fastpath.Prepared, int, int, tuple[int, ...], torch.Size]] = {}

    @classmethod
    def from_torch(cls, linear: torch.nn.Linear, *, precision: str | None = None,
                   activation: str | None = None) -> Linear:
        """A tcgemm Linear that shares ``linear``'s parameters (no copy: training either trains both)."""
        if not isinstance(linear, torch.nn.Linear):
            raise TypeError(f"from_torch takes a torch.nn.Linear, got {type(linear).__name__}")
        new = cls(linear.in_features, linear.out_features, bias=linear.bias is not None, device="meta",
                  dtype=linear.weight.dtype, precision=precision, activation=activation)
        new.weight = linear.weight
        new.bias = linear.bias
        new.train(linear.training)
        return new

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        # The repeat call: an input of a signature seen before, weight and bias where they were, no autocast,
        # not traced. One dict lookup, then the prepared launch from raw addresses (tcgemm.fastpath): no view
        # of the weight, no flattening, no signature of three tensors; under autograd the same launch inside
        # a torch.autograd.Function.
        weight, bias = self.weight, self.bias
        if self.activation:
            return self._forward_activation(input)
        if (self.accumulate_main_grad and _needs_grad(input, weight, bias) and not torch.compiler.is_compiling()
                and not torch.is_autocast_enabled("cuda")):
            _check_main_grad(weight)
            _check(input, weight)
            return _linear_autograd(input, weight, bias, self.precision, None, True)
        if type(input) is torch.Tensor and not torch.compiler.is_compiling() and not torch.is_autocast_enabled("cuda"):
            found = self._repeat.get((input.shape, input.stride(), input.dtype, input.data_ptr() & 15,
                                      input.get_device(), self.precision))
            grad = torch.is_grad_enabled() and (input.requires_grad or weight.requires_grad
                                                or (bias is not None and bias.requires_grad))
            # (the weight and bias where the prepared launch saw them: same address, and the weight's shape,
            # so that a parameter swapped for another at a reused address cannot take a stale launch)
            if found is not None and weight.data_ptr() == found[1] and (
                    0 if bias is None else bias.data_ptr()) == found[2] and weight.shape == found[4]:
                if grad:
                    return _linear_autograd(input, weight, bias, self.precision, found)
                return found[0].new_output(input.data_ptr(), found[1], found[2], found[3])
            y = linear(input, weight, bias, precision=self.precision)
            self._remember(input, weight, bias, y)
            return y
        return linear(input, weight, bias, precision=self.precision)

    def _forward_activation(self, x: torch.Tensor) -> torch.Tensor:
        """act(x W^T + b): one GEMM with the activation in its epilogue (tcgemm.gemm(activation=)); under autograd,
        torch.compile or autocast the layer's GEMM, then torch's ops (autograd keeps the pre-activation)."""
        epi = epilogue.parse(self.activation)
        weight, bias = self.weight, self.bias
        plain = (type(x) is torch.Tensor and x.dtype == weight.dtype and x.dim() >= 1
                 and (bias is None or bias.dtype == x.dtype) and not _needs_grad(x, weight, bias)
                 and not torch.compiler.is_compiling() and not torch.is_autocast_enabled("cuda"))
        if not plain:
            if (epi.gated and type(x) is torch.Tensor and _needs_grad(x, weight, bias) and x.dtype == weight.dtype
                    and not torch.compiler.is_compiling() and not torch.is_autocast_enabled("cuda")):
                _check(x, weight)
                if self.accumulate_main_grad:
                    _check_main_grad(weight)
                x2 = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
                y = _GatedFunction.apply(x2, weight, bias, epi.act, self.precision, self.accumulate_main_grad)
                return y if x.dim() == 2 else y.reshape(*x.shape[:-1], y.shape[-1])
            if (self.accumulate_main_grad and _needs_grad(x, weight, bias) and not torch.compiler.is_compiling()
                    and not torch.is_autocast_enabled("cuda")):
                _check_main_grad(weight)
                _check(x, weight)
                return epilogue.apply(_linear_autograd(x, weight, bias, self.precision, None, True), epi)
            return epilogue.apply(linear(x, weight, bias, precision=self.precision), epi)
        # The repeat call, as forward's: the prepared launch (tcgemm.fastpath) from raw addresses.
        signature = (x.shape, x.stride(), x.dtype, x.data_ptr() & 15, x.get_device(), self.precision)
        found = self._repeat.get(signature)
        b_ptr = 0 if bias is None else bias.data_ptr()
        if found is not None and weight.data_ptr() == found[1] and b_ptr == found[2] and weight.shape == found[4]:
            return found[0].new_output(x.data_ptr(), found[1], found[2], found[3])
        _check(x, weight)
        x2 = x if x.dim() == 2 else x.reshape(-1, x.shape[-1])
        beta = 1.0 if bias is not None else 0.0
        y = entry.gemm(x2, weight.t(), bias, beta=beta, precision=self.precision, activation=self.activation)
        y = y if x.dim() == 2 else y.reshape(*x.shape[:-1], y.shape[-1])
        key = fastpath.key(x2, weight.t(), bias, None, 1.0, beta, None, self.precision, "auto", None)
        prepared = fastpath.lookup((*key, epi) if key is not None else None)
        if prepared is not None and prepared.direct and x2.data_ptr() == x.data_ptr():
            if len(self._repeat) >= 64:
                self._repeat.clear()
            self._repeat[signature] = (prepared, weight.data_ptr(), b_ptr, tuple(y.shape), weight.shape)
        return y

    def _remember(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, y: torch.Tensor) -> None:
        """Keep the prepared launch the call just left behind, when it can serve this layer's repeat calls."""
        prepared = _prepared_for(x, weight, bias, self.precision)
        if prepared is None:
            return
        if len(self._repeat) >= 64:
            self._repeat.clear()
        self._repeat[(x.shape, x.stride(), x.dtype, x.data_ptr() & 15, x.get_device(), self.precision)] = (
            prepared, weight.data_ptr(), 0 if bias is None else bias.data_ptr(), tuple(y.shape), weight.shape)

    def _apply(self, fn: Any, recurse: bool = True) -> Linear:
        self._repeat.clear()  # .to(), .half(), .cuda(): new parameter storage, maybe a new dtype
        return super()._apply(fn, recurse)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.__dict__.setdefault("_repeat", {})
        self.__dict__.setdefault("activation", None)
        self.__dict__.setdefault("accumulate_main_grad", False)

    def extra_repr(self) -> str:
        text = super().extra_repr()
        text += f", precision={self.precision!r}" if self.precision is not None else ""
        return text + (f", activation={self.activation!r}" if getattr(self, "activation", None) else "")


def warmup(module: torch.nn.Module, max_tokens: int = 8192, *, progress: bool = False) -> list[str]:
    """Prepare every tcgemm kernel build ``module``'s tcgemm.nn.Linear layers run for 1..``max_tokens`` tokens
    (compile, load, scratch for captured launches: :func:`tcgemm.warmup`), so that capturing the model
    in CUDA graphs (``torch.cuda.graph``, ``torch.compile(mode="reduce-overhead")``) prepares nothing inside
    capture. Returns the "kernel:config" labels prepared."""
    from .precompile import LayerShape
    from .precompile import warmup as run

    layers = [LayerShape(m.in_features, m.out_features, m.weight.dtype, m.bias is not None
                         and m.bias.dtype == m.weight.dtype, m.precision)
              for m in module.modules() if isinstance(m, Linear) and m.weight.is_cuda]
    if not layers:
        raise ValueError("no tcgemm.nn.Linear on a CUDA device in this module: swap its layers first "
                         "(tcgemm.nn.Linear.from_torch) and move it to the GPU")
    report = (lambda done, total: print(f"\rtcgemm warmup: {done}/{total} builds", end="", flush=True)) \
        if progress else None
    labels = run(layers, max_tokens, device=next(iter(module.parameters())).get_device(), progress=report)
    if progress:
        print()
    return labels


# --- whole models: swap every torch.nn.Linear (and transformers' Conv1D) for tcgemm's, and back ------------------

class Conv1D(torch.nn.Module):
    """transformers' ``Conv1D`` (GPT-2's projections) computed by tcgemm: ``y = x @ weight + bias``.

    The parameters are transformers.pytorch_utils.Conv1D's — ``weight`` (nx, nf) = (in, out), ``bias``
    (nf,) — so the state dict is the same. ``weight`` is read in place as the row-major B operand and
    the bias is fused as in :class:`Linear`. Made by :func:`replace_linear` (or :meth:`from_hf`); this
    class does not subclass transformers' (tcgemm never imports transformers on its own), so
    ``isinstance(m, transformers.pytorch_utils.Conv1D)`` is False for it.
    """

    def __init__(self, nf: int, nx: int, bias: bool = True, device: torch.device | str | None = None,
                 dtype: torch.dtype | None = None, *, precision: str | None = None) -> None:
        super().__init__()
        self.nf, self.nx = nf, nx
        self.weight = torch.nn.Parameter(torch.empty(nx, nf, device=device, dtype=dtype))
        self.bias = torch.nn.Parameter(torch.zeros(nf, device=device, dtype=dtype)) if bias else None
        self.precision = precision
        self.hf_class: type[torch.nn.Module] | None = None  # the class restore_linear gives back

    @classmethod
    def from_hf(cls, conv: torch.nn.Module, *, precision: str | None = None) -> Conv1D:
        """A tcgemm Conv1D that shares ``conv``'s parameters (a transformers Conv1D; no copy)."""
        weight = getattr(conv, "weight", None)
        if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
            raise TypeError(f"from_hf takes a transformers Conv1D (a 2-D weight (in, out)), got {type(conv).__name__}")
        bias = getattr(conv, "bias", None)
        new = cls(weight.shape[1], weight.shape[0], bias=bias is not None, device="meta", dtype=weight.dtype,
                  precision=precision)
        new.weight, new.bias = weight, bias
        new.hf_class = type(conv)
        new.train(conv.training)
        return new

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # weight.t() is an (out, in) view of the (in, out) weight: linear reads weight.t().T = weight in place.
        return linear(x, self.weight.t(), self.bias, precision=self.precision)

    def extra_repr(self) -> str:
        text = f"nf={self.nf}, nx={self.nx}"
        return text + (f", precision={self.precision!r}" if self.precision is not None else "")


_COMPUTED_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# The hook tables a layer carries, handed to its replacement (shared, so existing handles still remove them).
_HOOK_TABLES = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
                "_forward_pre_hooks_with_kwargs", "_backward_hooks", "_backward_pre_hooks", "_is_full_backward_hook")
Include = Callable[[str, torch.nn.Module], bool]


def _hf_conv1d_class() -> type[torch.nn.Module] | None:
    """transformers' Conv1D if transformers is already imported (no instance can exist otherwise)."""
    module = sys.modules.get("transformers.pytorch_utils")
    return getattr(module, "Conv1D", None)


def _to_tcgemm(layer: torch.nn.Module, precision: str | None) -> torch.nn.Module | None:
    """The tcgemm module for ``layer``, or None where it is not one that replace_linear swaps."""
    if "forward" in vars(layer):  # forward patched on the instance (e.g. accelerate's offload hooks): leave it
        return None
    weight = getattr(layer, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.dtype not in _COMPUTED_DTYPES:
        return None
    if type(layer) is torch.nn.Linear:
        return Linear.from_torch(layer, precision=precision)
    hf_conv1d = _hf_conv1d_class()
    if hf_conv1d is not None and type(layer) is hf_conv1d:
        return Conv1D.from_hf(layer, precision=precision)
    return None


def _to_torch(layer: torch.nn.Module) -> torch.nn.Module | None:
    """The torch (or transformers) module for a tcgemm ``layer``, or None where it is not one of tcgemm's."""
    if type(layer) is Linear:
        new = torch.nn.Linear(layer.in_features, layer.out_features, bias=layer.bias is not None, device="meta",
                              dtype=layer.weight.dtype)
    elif type(layer) is Conv1D:
        cls = layer.hf_class or _import_hf_conv1d()
        with torch.device("meta"):
            new = cls(layer.nf, layer.nx)
    else:
        return None
    new.weight, new.bias = layer.weight, layer.bias
    new.train(layer.training)
    return new


def _import_hf_conv1d() -> type[torch.nn.Module]:
    try:
        from transformers.pytorch_utils import Conv1D as HFConv1D
    except ImportError as exc:
        raise ImportError("restore_linear turns a tcgemm.nn.Conv1D back into transformers' Conv1D, and transformers "
                          "is not importable; install it (pip install transformers)") from exc
    return HFConv1D


def _swap(module: torch.nn.Module, convert: Callable[[torch.nn.Module], torch.nn.Module | None],
          include: Include | None, what: str) -> int:
    """Replace, in place, every child that ``convert`` converts and ``include`` accepts; the count replaced.

    Each layer object is converted once (tracked by id) and every reference to it — a layer shared by
    two parents or held under two names — points to the one new module."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"{what} takes a torch.nn.Module (a model), got {type(module).__name__}")
    if convert(module) is not None:
        raise TypeError(f"{what} swaps the layers inside a module; the module given is itself a layer it swaps — "
                        f"convert it directly (tcgemm.nn.Linear.from_torch(layer)) or pass a module that holds it")
    named = list(module.named_modules())  # each module once, by its first name (its state dict prefix)
    new_for = {id(layer): _converted(layer, name, convert, include) for name, layer in named[1:]}
    for _name, parent in named:
        for child_name, child in list(parent._modules.items()):
            new = new_for.get(id(child)) if child is not None else None
            if new is not None:
                parent._modules[child_name] = new
    return sum(new is not None for new in new_for.values())


def _converted(layer: torch.nn.Module, name: str, convert: Callable[[torch.nn.Module], torch.nn.Module | None],
               include: Include | None) -> torch.nn.Module | None:
    new = convert(layer)
    if new is None or (include is not None and not include(name, layer)):
        return None
    _carry_hooks(layer, new)
    return new


def _carry_hooks(old: torch.nn.Module, new: torch.nn.Module) -> None:
    for table in _HOOK_TABLES:
        if hasattr(old, table):
            setattr(new, table, getattr(old, table))


def replace_linear(module: torch.nn.Module, *, precision: str | None = None, include: Include | None = None) -> int:
    """Swap, in place, the linear layers inside ``module`` for tcgemm's; returns how many layers were replaced.

    Replaced: every layer whose type is exactly ``torch.nn.Linear`` (by :class:`Linear`) and, when
    transformers is imported, exactly ``transformers.pytorch_utils.Conv1D`` (GPT-2's, by :class:`Conv1D`),
    with a float32, float16 or bfloat16 weight. The new layers *share* the old ones' parameters (the
    same ``Parameter`` objects: no copy, no extra memory; training one trains the other), so the
    state dict keys and values are unchanged; ``training`` and forward/backward hooks carry over.

    Not replaced: layers already tcgemm's; subclasses of Linear (they may change ``forward`` — e.g.
    ``NonDynamicallyQuantizableLinear``, whose owner ``nn.MultiheadAttention`` reads ``.weight`` without
    calling it, LoRA or quantized layers); weights of other dtypes (tcgemm computes none of them);
    layers whose ``forward`` was patched on the instance (accelerate's offload hooks); ``module``
    itself (TypeError: convert a single layer with :meth:`Linear.from_torch`).

    A layer reached under several names (shared or tied modules) is replaced once, and every
    reference points to the same new layer. ``include(qualified_name, layer) -> bool`` chooses
    layers; it is asked once per layer, with the first name it is reached by (its state dict prefix).
    ``precision`` (e.g. ``"tf32"`` for float32 on tensor cores) goes to every new layer.

    Layers on the CPU or the meta device are swapped too; their forward raises tcgemm's error (CUDA
    tensors only) when called. :func:`restore_linear` undoes the swap, for A/B comparisons.
    """
    return _swap(module, lambda layer: _to_tcgemm(layer, precision), include, "replace_linear")


def restore_linear(module: torch.nn.Module, *, include: Include | None = None) -> int:
    """The inverse of :func:`replace_linear`, in place; returns how many layers were restored.

    Every :class:`Linear` (exact type) becomes a ``torch.nn.Linear`` and every :class:`Conv1D` a
    transformers Conv1D (the class it came from, or ``transformers.pytorch_utils.Conv1D``), sharing
    the parameters (no copy; state dict unchanged); shared layers are restored once, as in
    :func:`replace_linear`, and ``include`` chooses layers the same way.
    """
    return _swap(module, _to_torch, include, "restore_linear")

