"""``tcgemm.mlp.GatedMLP``: a Llama-style MLP as two tcgemm GEMMs, the gating in the first one's epilogue.

    y = down(act(gate(x)) * up(x))          # Llama, Mistral, Qwen: act = silu (SwiGLU); Gemma: gelu_tanh

torch (and transformers) run three GEMMs and two elementwise kernels; here ``gate_up`` is one GEMM over the
stacked weight ``[gate; up]`` whose epilogue writes ``act(gate) * up`` (half the columns, no read-back), then
``down``. ``forward(x, residual)`` adds a residual in ``down``'s epilogue (``c = residual, beta = 1``).

- The state dict is the usual layout (``gate_proj.weight``, ``up_proj.weight``, ``down_proj.weight`` and biases):
  ``load_state_dict`` takes a transformers MLP's state dict as it is, and ``state_dict`` gives one back.
- ``GatedMLP.from_hf(mlp)`` builds one from a module with ``gate_proj``, ``up_proj``, ``down_proj`` and
  ``act_fn``; ``fuse_mlp(model)`` swaps every such module of a model (transformers' LlamaMLP, MistralMLP,
  Qwen2MLP, GemmaMLP, ...) and returns the count, ``unfuse_mlp(model)`` swaps the originals back.
- The stacked weight is a copy: ``fuse_mlp`` frees the originals' weights unless ``keep_original=True`` (what
  ``unfuse_mlp`` needs; the MLP's weights are then held twice).
- Autograd works (gate and up as two GEMMs of the stacked weight's halves, the gating by torch's ops, so the
  backward has what it needs); inference calls take the fused kernel. ``accumulate_main_grad=True``: the weight
  gradients are added into each weight's float32 ``main_grad`` (Megatron-style) in the GEMMs' epilogues.
"""

from __future__ import annotations

from typing import Any

import torch

from . import entry, epilogue
from .nn import Linear

__all__ = ["GatedMLP", "fuse_mlp", "unfuse_mlp"]

# transformers' activation classes (ACT2FN) and torch's, by class name -> the gated pair they make.
_HF_ACTIVATIONS = {
    "SiLU": "swiglu", "SiLUActivation": "swiglu",
    "GELUActivation": "geglu", "PytorchGELUTanh": "geglu_tanh", "GELUTanh": "geglu_tanh",
    "NewGELUActivation": "geglu_tanh", "GELUPytorchTanh": "geglu_tanh", "ReLU": "reglu",
}


def gated_name(act_fn: Any) -> str | None:
    """The gated pair (swiglu, geglu, ...) of a module's ``act_fn``, or None when tcgemm has no epilogue for it."""
    name = type(act_fn).__name__
    if name == "GELU" and isinstance(act_fn, torch.nn.GELU):
        return "geglu_tanh" if act_fn.approximate == "tanh" else "geglu"
    return _HF_ACTIVATIONS.get(name)


class GatedMLP(torch.nn.Module):
    """``down(act(gate(x)) * up(x))`` (+ residual) in two tcgemm GEMMs; see :mod:`tcgemm.mlp`."""

    def __init__(self, hidden: int, intermediate: int, *, activation: str = "swiglu", bias: bool = False,
                 device: torch.device | str | None = None, dtype: torch.dtype | None = None,
                 precision: str | None = None, accumulate_main_grad: bool = False) -> None:
        super().__init__()
        if not epilogue.parse(activation).gated:
            raise ValueError(f"activation={activation!r} is not a gated pair; use one of {', '.join(epilogue.GATED)}")
        self.hidden, self.intermediate, self.activation = hidden, intermediate, activation
        self.gate_up = Linear(hidden, 2 * intermediate, bias=bias, device=device, dtype=dtype, precision=precision,
                              activation=activation, accumulate_main_grad=accumulate_main_grad)
        self.down = Linear(intermediate, hidden, bias=bias, device=device, dtype=dtype, precision=precision,
                           accumulate_main_grad=accumulate_main_grad)
        self.original: torch.nn.Module | None = None  # what fuse_mlp replaced (keep_original=True)
        self.register_state_dict_post_hook(_split_state)
        self.register_load_state_dict_pre_hook(_stack_state)

    @classmethod
    def from_hf(cls, mlp: torch.nn.Module, *, precision: str | None = None, keep_original: bool = False) -> GatedMLP:
        """From a module with ``gate_proj``, ``up_proj``, ``down_proj`` (Linear-like) and ``act_fn``."""
        for name in ("gate_proj", "up_proj", "down_proj", "act_fn"):
            if not hasattr(mlp, name):
                raise TypeError(f"from_hf takes a gated MLP with gate_proj, up_proj, down_proj and act_fn; "
                                f"{type(mlp).__name__} has no {name}")
        activation = gated_name(mlp.act_fn)
        if activation is None:
            raise ValueError(f"{type(mlp).__name__}.act_fn is {type(mlp.act_fn).__name__}, which tcgemm has no fused "
                             f"epilogue for (silu, gelu, gelu_tanh, relu)")
        gate, up, down = mlp.gate_proj, mlp.up_proj, mlp.down_proj
        w = gate.weight
        new = cls(gate.weight.shape[1], gate.weight.shape[0], activation=activation, bias=gate.bias is not None,
                  device="meta", dtype=w.dtype, precision=precision)
        with torch.no_grad():
            new.gate_up.weight = torch.nn.Parameter(torch.cat([gate.weight, up.weight]),
                                                    requires_grad=w.requires_grad)
            if gate.bias is not None:
                new.gate_up.bias = torch.nn.Parameter(torch.cat([gate.bias, up.bias]), requires_grad=w.requires_grad)
        new.down.weight = down.weight
        new.down.bias = down.bias
        new.train(mlp.training)
        new.original = mlp if keep_original else None
        return new

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None = None) -> torch.Tensor:
        h = self.gate_up(x)
        if residual is None:
            return self.down(h)
        down = self.down
        plain = (type(h) is torch.Tensor and down.bias is None and residual.dtype == h.dtype
                 and residual.shape == (*h.shape[:-1], down.out_features) and not torch.compiler.is_compiling()
                 and not (torch.is_grad_enabled() and (h.requires_grad or residual.requires_grad)))
        if not plain:
            return down(h) + residual
        h2, r2 = h.reshape(-1, h.shape[-1]), residual.reshape(-1, residual.shape[-1])
        y = entry.gemm(h2, down.weight.t(), r2, beta=1.0, precision=down.precision)  # the residual in the epilogue
        return y.reshape(residual.shape)

    def extra_repr(self) -> str:
        return f"hidden={self.hidden}, intermediate={self.intermediate}, activation={self.activation!r}"


def _split_state(module: GatedMLP, state: dict[str, Any], prefix: str, _meta: Any) -> None:
    """state_dict in the usual layout: gate_proj / up_proj / down_proj."""
    n = module.intermediate
    for suffix in ("weight", "bias"):
        stacked = state.pop(f"{prefix}gate_up.{suffix}", None)
        if stacked is not None:
            state[f"{prefix}gate_proj.{suffix}"] = stacked[:n]
            state[f"{prefix}up_proj.{suffix}"] = stacked[n:]
        down = state.pop(f"{prefix}down.{suffix}", None)
        if down is not None:
            state[f"{prefix}down_proj.{suffix}"] = down


def _stack_state(module: GatedMLP, state: dict[str, Any], prefix: str, *_args: Any) -> None:
    """load_state_dict from the usual layout (or this module's own)."""
    for suffix in ("weight", "bias"):
        gate, up = state.pop(f"{prefix}gate_proj.{suffix}", None), state.pop(f"{prefix}up_proj.{suffix}", None)
        if gate is not None and up is not None:
            state[f"{prefix}gate_up.{suffix}"] = torch.cat([gate, up])
        down = state.pop(f"{prefix}down_proj.{suffix}", None)
        if down is not None:
            state[f"{prefix}down.{suffix}"] = down


def fuse_mlp(model: torch.nn.Module, *, precision: str | None = None, keep_original: bool = False) -> int:
    """Swap every gated MLP of ``model`` (a child with gate_proj, up_proj, down_proj and a known act_fn) for a
    :class:`GatedMLP`; returns how many. ``keep_original=True`` keeps the replaced modules for :func:`unfuse_mlp`."""
    count = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, GatedMLP) or not all(hasattr(child, a) for a in ("gate_proj", "up_proj",
                                                                                  "down_proj", "act_fn")):
                continue
            if gated_name(child.act_fn) is None or not isinstance(child.gate_proj.weight, torch.Tensor):
                continue
            setattr(parent, name, GatedMLP.from_hf(child, precision=precision, keep_original=keep_original))
            count += 1
    return count


def unfuse_mlp(model: torch.nn.Module) -> int:
    """Put back the modules :func:`fuse_mlp` replaced with ``keep_original=True``; returns how many."""
    count = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if isinstance(child, GatedMLP) and child.original is not None:
                setattr(parent, name, child.original)
                count += 1
    return count
