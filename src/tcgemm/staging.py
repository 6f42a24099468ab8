"""Aligned staging: copy unaligned operands into padded buffers so TMA kernels can read them.

TMA (and 16-byte vector loads) need every row of an operand to start on a 16-byte boundary.
cuBLAS runs such inputs (e.g. bf16 at 4095^3) on a much slower path. A copy of A and B into
buffers whose leading dimension is rounded up to 16 bytes costs one read and one write of the
operands — microseconds against a GEMM of milliseconds — and lets the fastest kernel run.
"""

from __future__ import annotations

import torch

from .problem import GemmProblem

# Below this many multiply-adds the copy is not worth it (the GEMM itself takes microseconds).
MIN_MACS = 512**3


def worthwhile(problem: GemmProblem, arch: int) -> bool:
    """Stage when auto would otherwise leave the Hopper kernels for lack of alignment."""
    return (
        arch >= 90
        and problem.precision in ("fp16", "bf16")
        and not (problem.a.aligned16 and problem.b.aligned16)
        and problem.m * problem.n * problem.k * problem.batch >= MIN_MACS
    )


def aligned_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy of ``t`` (2-D or 3-D) whose rows, in its own layout, start on 16-byte boundaries.

    A row-major operand keeps row-major with its row length padded; a column-major one keeps
    column-major with its column length padded; the padding is never read."""
    per_vec = 16 // t.element_size()
    rows, cols = t.shape[-2], t.shape[-1]
    column_major = t.stride(-2) == 1 and t.stride(-1) != 1
    lead = t.shape[:-2]
    if column_major:
        ld = -(-rows // per_vec) * per_vec
        buf = torch.empty((*lead, cols, ld), dtype=t.dtype, device=t.device)
        view = buf[..., :rows].transpose(-1, -2)
    else:
        ld = -(-cols // per_vec) * per_vec
        buf = torch.empty((*lead, rows, ld), dtype=t.dtype, device=t.device)
        view = buf[..., :cols]
    view.copy_(t)
    return view
