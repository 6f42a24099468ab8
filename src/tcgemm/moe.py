"""``tcgemm.moe.GroupedExperts``: the experts of a mixture-of-experts layer as two grouped GEMMs.

    experts = tcgemm.moe.GroupedExperts(8, 4096, 14336, device="cuda", dtype=torch.bfloat16)   # Mixtral's shape
    y = experts(x, counts)    # x (E, M, hidden): expert e's tokens in its first counts[e] rows; y (E, M, hidden)
    y = experts(xs, offsets=offs)  # xs (T, hidden) sorted by expert, offs (E,) int32 segment ends; y (T, hidden)

Each expert computes ``down(act(gate(x)) * up(x))`` (SwiGLU by default, as Mixtral, DeepSeek and Qwen-MoE do) for
its rows: ``tcgemm.grouped_gemm`` of the tokens with the stacked ``gate_up`` weights (E, 2 x intermediate, hidden:
each expert's gate rows, then its up rows), the gating by torch's ops, then the grouped ``down`` GEMM (E, hidden,
intermediate). The counts stay on the GPU (the router's), so a CUDA graph captures the layer once for every routing;
rows past a count come out unspecified. With ``offsets`` instead (the contiguous layout, prefill: the tokens sorted by
expert in one (T, hidden) tensor, as ``torch._grouped_mm`` takes them) both GEMMs read and write each expert's
segment in place; rows past ``offsets[-1]`` come out unspecified. Routing (top-k, gathering each expert's tokens into
either layout and combining the outputs) is the caller's.

``GroupedExperts.from_linears(gates, ups, downs)`` stacks per-expert weights as models store them (Mixtral's
``w1``, ``w3``, ``w2`` of each expert; ``gate_proj``, ``up_proj``, ``down_proj``). Inference only: the grouped GEMMs
have no backward yet, so a call that would need gradients raises.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from . import epilogue
from .grouped import grouped_gemm

__all__ = ["GroupedExperts"]


class GroupedExperts(torch.nn.Module):
    """E experts, each ``down(act(gate(x)) * up(x))``, over tokens in the masked layout (see :mod:`tcgemm.moe`)."""

    def __init__(self, experts: int, hidden: int, intermediate: int, *, activation: str = "swiglu",
                 device: torch.device | str | None = None, dtype: torch.dtype | None = torch.bfloat16) -> None:
        super().__init__()
        if not epilogue.parse(activation).gated:
            raise ValueError(f"activation={activation!r} is not a gated pair; use one of {', '.join(epilogue.GATED)}")
        if dtype not in (torch.bfloat16, torch.float16):
            raise TypeError(f"GroupedExperts runs bf16 or fp16 experts, not {dtype}")
        self.experts, self.hidden, self.intermediate, self.activation = experts, hidden, intermediate, activation
        self.gate_up = torch.nn.Parameter(torch.empty(experts, 2 * intermediate, hidden, device=device, dtype=dtype))
        self.down = torch.nn.Parameter(torch.empty(experts, hidden, intermediate, device=device, dtype=dtype))
        for w in (self.gate_up, self.down):  # (nn.Linear's default, per expert)
            bound = w.shape[-1] ** -0.5
            torch.nn.init.uniform_(w, -bound, bound)

    @classmethod
    def from_linears(cls, gates: Sequence[torch.nn.Linear], ups: Sequence[torch.nn.Linear],
                     downs: Sequence[torch.nn.Linear], *, activation: str = "swiglu") -> GroupedExperts:
        """The experts of a model that stores them as Linear layers (no biases), their weights copied and stacked."""
        if not (len(gates) == len(ups) == len(downs)) or not gates:
            raise ValueError(f"give one gate, up and down Linear per expert; got {len(gates)}, {len(ups)}, "
                             f"{len(downs)}")
        if any(m.bias is not None for m in (*gates, *ups, *downs)):
            raise ValueError("GroupedExperts has no biases; the given experts' Linear layers have some")
        w = gates[0].weight
        module = cls(len(gates), w.shape[1], w.shape[0], activation=activation, device=w.device, dtype=w.dtype)
        with torch.no_grad():
            for e, (g, u, d) in enumerate(zip(gates, ups, downs, strict=True)):
                module.gate_up[e, :module.intermediate].copy_(g.weight)
                module.gate_up[e, module.intermediate:].copy_(u.weight)
                module.down[e].copy_(d.weight)
        return module

    def forward(self, x: torch.Tensor, counts: torch.Tensor | None = None, *,
                offsets: torch.Tensor | None = None) -> torch.Tensor:
        if torch.is_grad_enabled() and (x.requires_grad or self.gate_up.requires_grad):
            raise NotImplementedError("GroupedExperts runs inference only (the grouped GEMMs have no backward yet): "
                                      "call it under torch.no_grad() or torch.inference_mode()")
        if (counts is None) == (offsets is None):
            raise ValueError("give counts (masked: x (experts, rows, hidden)) or offsets (contiguous: x (tokens, "
                             "hidden) sorted by expert), one of the two")
        if offsets is not None:
            if x.dim() != 2 or x.shape[1] != self.hidden:
                raise ValueError(f"with offsets, x must be (tokens, hidden={self.hidden}), each expert's tokens one "
                                 f"segment; got {tuple(x.shape)}")
            layout = {"offsets": offsets}
        else:
            if x.dim() != 3 or x.shape[0] != self.experts or x.shape[2] != self.hidden:
                raise ValueError(f"x must be (experts={self.experts}, rows, hidden={self.hidden}), each expert's "
                                 f"tokens in its first counts[e] rows; got {tuple(x.shape)}")
            layout = {"counts": counts}
        h = grouped_gemm(x, self.gate_up.transpose(1, 2), **layout)
        gated = epilogue.apply(h, epilogue.Epilogue(epilogue.GATED[self.activation], gated=True))
        return grouped_gemm(gated, self.down.transpose(1, 2), **layout)

    def extra_repr(self) -> str:
        return (f"experts={self.experts}, hidden={self.hidden}, intermediate={self.intermediate}, "
                f"activation={self.activation!r}")
