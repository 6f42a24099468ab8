"""Fused epilogues: an activation, or a gated pair, applied to D while the tile is in registers.

``tcgemm.gemm(a, b, c, beta=1, activation="gelu")`` computes ``act(alpha * a @ b + beta * c)``: with ``c`` a
bias row that is ``act(x W^T + b)``. A *gated* activation reads b's N columns as two halves, gate then up (how
Llama's ``gate_up`` weight is stored: ``torch.cat([gate, up])``), and returns the N / 2 columns
``act(gate) * up`` (SwiGLU for silu, GeGLU for gelu).

On the Hopper production kernel (``wgmma_tma_store``, fp16/bf16) the activation is compiled into the epilogue
(``kernels/include/epilogue_act.cuh``): no second kernel reads D back, and a gated GEMM writes half the bytes.
Elsewhere (other GPUs, precisions and layouts, an output that is not row-major, a gated call with c) the same
formula runs unfused, as the GEMM then torch's elementwise ops: slower, never different in meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

# Activation -> EPI_ACT's code (kernels/include/epilogue_act.cuh).
ACTIVATIONS = {"none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}
NAMES = {code: name for name, code in ACTIVATIONS.items()}  # EPI_ACT's code -> the activation
# Gated names -> the activation applied to the gate.
GATED = {"swiglu": "silu", "geglu": "gelu", "geglu_tanh": "gelu_tanh", "reglu": "relu"}


@dataclass(frozen=True)
class Epilogue:
    act: str = "none"  # a key of ACTIVATIONS
    gated: bool = False

    @property
    def code(self) -> int:
        return ACTIVATIONS[self.act]

    @property
    def fused(self) -> bool:
        """Whether there is anything beyond alpha * a @ b + beta * c."""
        return self.gated or self.act != "none"

    @property
    def name(self) -> str:
        if self.gated:
            return next(k for k, v in GATED.items() if v == self.act)
        return self.act


def parse(activation: str | None) -> Epilogue:
    """The epilogue named by ``activation`` (None: none). Raises ValueError naming the choices."""
    if activation is None:
        return Epilogue()
    if not isinstance(activation, str):
        raise TypeError(f"activation must be a string or None, got {type(activation).__name__}")
    if activation in ACTIVATIONS:
        return Epilogue(activation)
    if activation in GATED:
        return Epilogue(GATED[activation], gated=True)
    raise ValueError(f"activation={activation!r} is unknown; use one of {', '.join(ACTIVATIONS)} or a gated pair "
                     f"({', '.join(GATED)}: b's N columns are gate then up, the result act(gate) * up)")


def activate(x: torch.Tensor, act: str) -> torch.Tensor:
    """torch's ``act(x)``: the unfused path, and the reference the tests compare with."""
    if act == "none":
        return x
    if act == "relu":
        return F.relu(x)
    if act == "gelu":
        return F.gelu(x)
    if act == "gelu_tanh":
        return F.gelu(x, approximate="tanh")
    if act == "silu":
        return F.silu(x)
    raise ValueError(f"activation {act!r} is unknown; use one of {', '.join(ACTIVATIONS)}")


def apply(d: torch.Tensor, epi: Epilogue) -> torch.Tensor:
    """``epi`` applied to a finished D with torch ops (a gated D: its last dimension halves)."""
    if epi.gated:
        half = d.shape[-1] // 2
        return activate(d[..., :half], epi.act) * d[..., half:]
    return activate(d, epi.act)


def gated_halves(n: int, name: str = "b") -> int:
    """The width of each half of a gated operand with ``n`` columns; an odd n raises."""
    if n % 2:
        raise ValueError(f"a gated activation splits {name}'s {n} columns into gate and up halves; N must be even")
    return n // 2
