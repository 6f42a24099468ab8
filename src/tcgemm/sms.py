"""How many SMs tcgemm's persistent kernels may fill: all of them, unless a caller leaves some to work that
must run beside the GEMM.

A persistent kernel launches one CTA per SM (or per SM pair) and each CTA holds its SM's registers and shared
memory to the end. A kernel launched on another stream meanwhile — a communication kernel, a barrier of
PyTorch's symmetric memory — finds no room and waits for the GEMM, so the transfer it starts is no longer
hidden under the GEMM. :func:`reserve_sms` shrinks the grids of the GEMMs launched inside it by ``count`` SMs,
which stay free for such kernels (``tcgemm.distributed`` uses it around the GEMMs its transfers overlap).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_RESERVED: ContextVar[int] = ContextVar("tcgemm_reserved_sms", default=0)


@contextmanager
def reserve_sms(count: int) -> Iterator[None]:
    """Leave ``count`` SMs free of the GEMMs launched inside the block (nested blocks: the innermost count).

    The choice of kernel and tile sees the smaller GPU too. Read when a GEMM is launched or captured into a CUDA
    graph, so a graph replays the grids it captured."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"reserve_sms: count must be an int >= 0 (SMs left free), got {count!r}")
    token = _RESERVED.set(count)
    try:
        yield
    finally:
        _RESERVED.reset(token)


def reserved() -> int:
    """The SMs the innermost :func:`reserve_sms` block leaves free (0 outside any)."""
    return _RESERVED.get()


def usable(sms: int) -> int:
    """The SMs a GEMM launched now may fill on a GPU of ``sms``: at least 2 (one cluster of two)."""
    count = _RESERVED.get()
    if count and count > sms - 2:
        raise ValueError(f"reserve_sms({count}) leaves fewer than 2 of this GPU's {sms} SMs to the GEMM; "
                         f"reserve at most {sms - 2}")
    return sms - count
