"""``tcgemm.moe``: mixture-of-experts layers on grouped GEMMs — ``GroupedExperts`` (the experts), ``route`` /
``dispatch`` / ``combine`` (top-k routing into the contiguous layout and back) and ``MoE`` (the whole block).

    moe = tcgemm.moe.MoE(4096, 14336, experts=8, top_k=2, device="cuda")   # Mixtral-8x7B's block
    y = moe(x)                                                              # x (..., 4096)

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

``experts.quantize_fp8()`` turns the experts into DeepSeek-V3's fp8 recipe in place: each weight to e4m3 with one
scale per 128 x 128 block (``tcgemm.quantize_fp8_blocks``), and on every call the tokens, then the gated
intermediate, to e4m3 with one scale per token and 128-deep group (``tcgemm.quantize_fp8(x, group=128)``); both
grouped GEMMs then run block-scaled (``tcgemm.grouped_gemm``), with bf16 between them and out (hidden and
intermediate multiples of 16: fp8 rows of 16-byte strides).

Routing (Mixtral's: softmax of the router's logits, the top k, their weights renormalised to sum to 1):
``route(logits, k)`` sorts the T x k choices by expert (a stable sort, so each expert's rows keep the tokens' order)
and counts them per expert into the segment ends; ``dispatch(x, routing)`` gathers the rows (T x k, hidden) in that
order; ``combine(y, routing)`` puts each expert output back in its token's place and sums the k of a token, weighted,
in float32 in a fixed order (bitwise repeatable, unlike an atomic scatter-add). All of it on the GPU without a host
synchronisation, so ``MoE`` captures in one CUDA graph for every routing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from . import epilogue
from .grouped import grouped_gemm

__all__ = ["GroupedExperts", "MoE", "Routing", "combine", "dispatch", "route"]


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
        self.fp8 = False  # (quantize_fp8: the weights e4m3, with their block scales as buffers)
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

    def quantize_fp8(self) -> GroupedExperts:
        """The experts in fp8 e4m3 with block-wise scales, in place (see :mod:`tcgemm.moe`); returns self."""
        if self.fp8:
            return self
        for name, k in (("gate_up", self.hidden), ("down", self.intermediate)):
            if k % 16:
                raise ValueError(f"quantize_fp8: {name}'s K = {k} is not a multiple of 16 (fp8 rows of 16-byte "
                                 f"strides); keep these experts in {self.gate_up.dtype}")
        with torch.no_grad():
            quantized = {name: _blocks_fp8(getattr(self, name)) for name in ("gate_up", "down")}
        for name, (w8, scales) in quantized.items():
            delattr(self, name)
            self.register_buffer(name, w8)
            self.register_buffer(name + "_scale", scales)
        self.fp8 = True
        return self

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
        act = epilogue.Epilogue(epilogue.GATED[self.activation], gated=True)
        if self.fp8:
            x8, sx = _tokens_fp8(x)
            h = grouped_gemm(x8, self.gate_up.transpose(1, 2), scale_a=sx, scale_b=self.gate_up_scale, **layout)
            g8, sg = _tokens_fp8(epilogue.apply(h, act))
            return grouped_gemm(g8, self.down.transpose(1, 2), scale_a=sg, scale_b=self.down_scale, **layout)
        h = grouped_gemm(x, self.gate_up.transpose(1, 2), **layout)
        return grouped_gemm(epilogue.apply(h, act), self.down.transpose(1, 2), **layout)

    def extra_repr(self) -> str:
        return (f"experts={self.experts}, hidden={self.hidden}, intermediate={self.intermediate}, "
                f"activation={self.activation!r}" + (", fp8 (block-wise scales)" if self.fp8 else ""))


def _blocks_fp8(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(E, N, K) weights to e4m3 with one scale per 128 x 128 block of each expert: (E, ceil(N/128), ceil(K/128))."""
    from .quantize import quantize_blocks_reference, quantize_fp8_blocks

    quantize = quantize_fp8_blocks if w.is_cuda else quantize_blocks_reference
    parts = [quantize(w[e]) for e in range(w.shape[0])]
    return torch.stack([p[0] for p in parts]), torch.stack([p[1] for p in parts])


def _tokens_fp8(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Tokens (T, K), or (E, M, K) in the masked layout, to e4m3 with one scale per token and 128-deep group
    (tcgemm.quantize_fp8): the scales (T, ceil(K/128)) in the layout the grouped GEMM reads in place, (E, M, ...) a
    view of them."""
    from .quantize import quantize_fp8

    x8, sx = quantize_fp8(x.reshape(-1, x.shape[-1]), group=128)
    if x.dim() == 3:
        return x8.view(x.shape), sx.unflatten(0, x.shape[:2])
    return x8, sx


@dataclass(frozen=True)
class Routing:
    """Where T tokens' top-k choices go: rows sorted by expert (the contiguous layout) and back (see the module)."""

    token: torch.Tensor  # (T k,) int64: the token whose hidden state sorted row r carries
    choice: torch.Tensor  # (T k,) int64: sorted row r's place t k + j among the (T, k) choices
    weight: torch.Tensor  # (T, k) float32: each choice's weight
    offsets: torch.Tensor  # (E,) int32: the segments' ends (grouped_gemm's offsets)
    counts: torch.Tensor  # (E,) int32: rows per expert


def route(logits: torch.Tensor, top_k: int, *, renormalize: bool = True) -> Routing:
    """Top-``top_k`` routing of ``logits`` (T, E): softmax in float32, the k largest, their weights renormalised
    to sum to 1 (Mixtral, Qwen-MoE; ``renormalize=False`` keeps the softmax's), sorted by expert."""
    if logits.dim() != 2:
        raise ValueError(f"logits must be (tokens, experts); got {tuple(logits.shape)}")
    experts = logits.shape[1]
    if not 1 <= top_k <= experts:
        raise ValueError(f"top_k must be between 1 and the {experts} experts; got {top_k}")
    weight, expert = logits.float().softmax(-1).topk(top_k, dim=-1)
    if renormalize:
        weight = weight / weight.sum(-1, keepdim=True)
    flat = expert.flatten()
    choice = torch.argsort(flat, stable=True)
    counts = torch.zeros(experts, dtype=torch.int32, device=logits.device)
    counts.index_add_(0, flat, torch.ones_like(flat, dtype=torch.int32))  # (integers: exact in any order)
    return Routing(choice // top_k, choice, weight, counts.cumsum(0, dtype=torch.int32), counts)


def dispatch(x: torch.Tensor, routing: Routing) -> torch.Tensor:
    """The rows of ``x`` (T, hidden) the experts take, expert by expert: (T k, hidden)."""
    return x.index_select(0, routing.token)


def combine(y: torch.Tensor, routing: Routing) -> torch.Tensor:
    """The experts' rows ``y`` (T k, hidden, sorted as dispatched) back to the tokens: each token's k outputs times
    their weights, summed in float32 in choice order; (T, hidden) in y's dtype."""
    tokens, k = routing.weight.shape
    per_choice = torch.empty_like(y).index_copy_(0, routing.choice, y)  # (each row once: no order to depend on)
    return (per_choice.view(tokens, k, -1).float() * routing.weight[..., None]).sum(1).to(y.dtype)


class MoE(torch.nn.Module):
    """A mixture-of-experts feed-forward block: a router (Linear hidden -> E, no bias), top-k routing (``route``),
    E SwiGLU experts (``GroupedExperts``) over the contiguous layout, the weighted sum back (``combine``)."""

    def __init__(self, hidden: int, intermediate: int, experts: int, top_k: int, *, renormalize: bool = True,
                 activation: str = "swiglu", device: torch.device | str | None = None,
                 dtype: torch.dtype | None = torch.bfloat16) -> None:
        super().__init__()
        if not 1 <= top_k <= experts:
            raise ValueError(f"top_k must be between 1 and the {experts} experts; got {top_k}")
        self.top_k, self.renormalize = top_k, renormalize
        self.router = torch.nn.Linear(hidden, experts, bias=False, device=device, dtype=dtype)
        self.experts = GroupedExperts(experts, hidden, intermediate, activation=activation, device=device,
                                      dtype=dtype)

    @classmethod
    def from_linears(cls, router: torch.nn.Linear, gates: Sequence[torch.nn.Linear], ups: Sequence[torch.nn.Linear],
                     downs: Sequence[torch.nn.Linear], top_k: int, *, renormalize: bool = True,
                     activation: str = "swiglu") -> MoE:
        """A model's block from its router and per-expert Linear layers (Mixtral: ``gate``, and each expert's
        ``w1``, ``w3``, ``w2``), the weights copied."""
        experts = GroupedExperts.from_linears(gates, ups, downs, activation=activation)
        if router.bias is not None or router.weight.shape != (experts.experts, experts.hidden):
            raise ValueError(f"the router must be a Linear {experts.hidden} -> {experts.experts} without bias; got "
                             f"{tuple(router.weight.shape)}{' with a bias' if router.bias is not None else ''}")
        if not 1 <= top_k <= experts.experts:
            raise ValueError(f"top_k must be between 1 and the {experts.experts} experts; got {top_k}")
        module = cls.__new__(cls)  # (not __init__: it would allocate a second, random set of expert weights)
        torch.nn.Module.__init__(module)
        module.top_k, module.renormalize = top_k, renormalize
        module.router = torch.nn.Linear(experts.hidden, experts.experts, bias=False, device=router.weight.device,
                                        dtype=router.weight.dtype)
        with torch.no_grad():
            module.router.weight.copy_(router.weight)
        module.experts = experts
        return module

    def quantize_fp8(self) -> MoE:
        """The experts in fp8 with block-wise scales (GroupedExperts.quantize_fp8); the router stays as it is."""
        self.experts.quantize_fp8()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.experts.hidden
        if x.shape[-1] != hidden:
            raise ValueError(f"x must end in hidden={hidden} features; got {tuple(x.shape)}")
        flat = x.reshape(-1, hidden)
        routing = route(self.router(flat), self.top_k, renormalize=self.renormalize)
        y = self.experts(dispatch(flat, routing), offsets=routing.offsets)
        return combine(y, routing).reshape(x.shape)

    def extra_repr(self) -> str:
        return f"top_k={self.top_k}, renormalize={self.renormalize}"
