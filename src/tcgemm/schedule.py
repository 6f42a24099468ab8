"""Work schedules of the persistent Hopper kernels that the host must know too.

The tail split (kernels/include/tail_split.cuh) decides on the device which units of the last,
partial wave to cut along k; the host sizes the workspace for it (tcgemm.launch) and weighs it when
picking a config (tcgemm.dispatch) by the same rule, mirrored here.
"""

from __future__ import annotations

# k-tiles a second part costs a helper beyond its own, most parts per helper, least k-tiles per part
# (tail_split.cuh: OVERHEAD, MAX_PARTS, MIN_PART).
TAIL_OVERHEAD, TAIL_MAX_PARTS, TAIL_MIN_PART = 4, 2, 4


def cluster_units(m: int, n: int, batch: int, block_m: int, block_n: int, ctas_m: int, ctas_n: int) -> int:
    """Work units of a persistent launch: blocks of ctas_m x ctas_n output tiles (one cluster's), per
    batch entry (the kernel's units_m x units_n x batch)."""
    tiles_m, tiles_n = -(-m // block_m), -(-n // block_n)
    return -(-tiles_m // ctas_m) * -(-tiles_n // ctas_n) * batch


def tail_split(units: int, ktiles: int, clusters: int) -> tuple[int, int] | None:
    """(tail units, first k-tile of their second part) of a TAIL_SPLIT launch of ``units`` cluster
    units of ``ktiles`` k-tiles on ``clusters`` clusters, or None where the kernel runs no tail split.
    The same rule as tail_split() in kernels/include/tail_split.cuh: the host sizes the workspace by
    it, and passes none (the kernel then splits nothing) where it says None."""
    if units <= clusters:
        return None
    rem = units % clusters
    helpers = clusters - rem
    parts = -(-rem // helpers)
    part = (ktiles - parts * TAIL_OVERHEAD) // (parts + 1)
    if rem == 0 or parts > TAIL_MAX_PARTS or part < TAIL_MIN_PART:
        return None
    return rem, ktiles - part


# Fewest 128-byte weight boxes in a stream-K CTA's run: more CTAs than that buys no bandwidth (each CTA's
# first load pays the full latency anyway) and costs fixup work (more contributors per tile).
STREAM_K_MIN_BOXES = 4


def stream_k_shape(m: int, n: int, k: int, batch: int, block_m: int, block_n: int, block_k: int,
                   slots: int) -> tuple[int, int, int]:
    """(CTAs, output tiles, k-tiles per tile) of a stream-K launch (kernels/include/stream_k.cuh) with
    ``slots`` CTA places on the GPU and k-tiles of ``block_k`` (the kernel's BLOCK_K x KSUB): one CTA per
    place, but runs of at least STREAM_K_MIN_BOXES boxes of 64 16-bit k (never fewer than one k-tile)."""
    tiles = -(-m // block_m) * -(-n // block_n) * batch
    ktiles = max(1, -(-k // block_k))
    min_run = max(1, STREAM_K_MIN_BOXES * 64 // block_k)
    return max(1, min(slots, -(-tiles * ktiles // min_run))), tiles, ktiles


def stream_k_scratch(m: int, n: int, k: int, batch: int, block_m: int, block_n: int, block_k: int,
                     slots: int) -> tuple[int, int]:
    """(workspace floats, counters) of a stream-K launch: two partial-tile slots per CTA (the first and
    the last tile of its run), one arrival counter per output tile."""
    ctas, tiles, _ = stream_k_shape(m, n, k, batch, block_m, block_n, block_k, slots)
    return 2 * ctas * block_m * block_n, tiles
