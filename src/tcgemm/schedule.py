"""Work schedules of the persistent Hopper kernels that the host must know too.

The tail split (kernels/include/tail_split.cuh) decides on the device which units of the last,
partial wave to cut along k; the host sizes the workspace for it (tcgemm.launch) and weighs it when
picking a config (tcgemm.dispatch) by the same rule, mirrored here.
"""

from __future__ import annotations

import os

# k-tiles a second part costs a helper beyond its own, most parts per helper (a config's TAIL_PARTS, this
# unless named), least k-tiles per part (tail_split.cuh: OVERHEAD, MAX_PARTS, MIN_PART).
TAIL_OVERHEAD, TAIL_MAX_PARTS, TAIL_MIN_PART = 4, 2, 4


# The estimate (tcgemm.dispatch.pick_config) counts a tail split only where a tile has at least this many
# k-tiles. Below, the split's fixed costs (the helper's second pipeline fill, the partial tile written and
# read back) are no longer small next to a part: at K = 768 (12 k-tiles) the tail-split 128 x 256 config ran
# slower than without it and than 128 x 128 tiles, which the estimate had ranked last (CUDA graphs, H200:
# 2048 x 2304 x 768 over 20.9 us against 19.1 and 16.2; 8192 x 768 x 768 22.4 against 19.4 and 17.2;
# 2026-11-25-h200-explore-configs-45eec90.json), while at K = 4096 it ties (512 x 28672: 203.8 against
# 202.4). At K = 3072 (48 k-tiles) it lost too: 8192 x 768 x 3072 (GPT-2's fc2) 0.86x cuBLAS against 0.99x
# for 128 x 128 and 1.02x for 192 x 128 tiles (CUDA graphs, H100; 2026-11-26-h100-explore-gpt2-8192-6bd15ac.json);
# at K = 3584 (56) it still wins (512 x 37888 x 3584: 0.97x against 0.93x for 128 x 192). The kernel's own rule
# is unchanged: a named TAIL_SPLIT config still splits.
TAIL_ESTIMATE_MIN_KTILES = 56
# What the estimate adds to a split tail, in k-tiles beside the owner's part: the partial tile written and read
# back, the helper's second pipeline fill. Counted as free, the split took 512 x 28672 x 4096 and 2048 x 7168 x
# 8192 (a third of a round of tail) where it ran 0.91x / 0.94x cuBLAS against 0.96x / 0.98x for 128 x 128
# ping-pong tiles and 0.95x for 128 x 224 (2026-11-26-h100-explore-pingpong-128-e3bfb7c.json,
# ...-explore-176-224-b70b1b9.json); 16 keeps it where it measured ahead (4096 x 14336 x 4096, 8192^3).
TAIL_ESTIMATE_FIXED_KTILES = 16


def cluster_units(m: int, n: int, batch: int, block_m: int, block_n: int, ctas_m: int, ctas_n: int) -> int:
    """Work units of a persistent launch: blocks of ctas_m x ctas_n output tiles (one cluster's), per
    batch entry (the kernel's units_m x units_n x batch)."""
    tiles_m, tiles_n = -(-m // block_m), -(-n // block_n)
    return -(-tiles_m // ctas_m) * -(-tiles_n // ctas_n) * batch


def tail_split(units: int, ktiles: int, clusters: int, max_parts: int = TAIL_MAX_PARTS) -> tuple[int, int] | None:
    """(tail units, first k-tile of their second part) of a TAIL_SPLIT launch of ``units`` cluster
    units of ``ktiles`` k-tiles on ``clusters`` clusters, or None where the kernel runs no tail split.
    ``max_parts``: the config's TAIL_PARTS (second parts one idle cluster takes at most).
    The same rule as tail_split() in kernels/include/tail_split.cuh: the host sizes the workspace by
    it, and passes none (the kernel then splits nothing) where it says None."""
    if units <= clusters:
        return None
    rem = units % clusters
    helpers = clusters - rem
    parts = -(-rem // helpers)
    part = (ktiles - parts * TAIL_OVERHEAD) // (parts + 1)
    if rem == 0 or parts > max_parts or part < TAIL_MIN_PART:
        return None
    return rem, ktiles - part


# Fewest 128-byte weight boxes in a stream-K CTA's run: more CTAs than that buys no bandwidth (each CTA's
# first load pays the full latency anyway) and costs fixup work (more contributors per tile).
STREAM_K_MIN_BOXES = 4
# Aligned splits: where some number s of CTAs per tile fills at least this fraction of the CTA places,
# the grid is tiles x s, so that every CTA's run lies inside one tile (s = 1: whole tiles, no fixup at
# all). Stream-K's runs otherwise start inside one tile and end inside another: a fixup at both ends,
# the first in the middle of the CTA's stream, which stalls its ring. Measured (CUDA-graph µs, H100, bf16,
# 2026-11-25-h100-explore-swap-ab-fill-a7883c2.json): 1 x 6144 x 4096 (96 tiles of 64 rows on 132 SMs)
# 19.8 as whole tiles against 23.0 as stream-K, 1 x 4608 x 3584 (72 tiles) 13.5 against 16.2 (cuBLAS
# 20.9 and 14.4): an SM streams its whole tile faster than its share of the GPU, and the fixups cost more
# than the idle SMs. Since tiles x floor(places / tiles) always fills half of the places, stream-K proper
# runs only where there are more tiles than places (Llama-3-8B gate_up: 448). TCGEMM_STREAM_K_FILL
# overrides (above 1: always stream-K).
STREAM_K_FILL = float(os.environ.get("TCGEMM_STREAM_K_FILL", "0.5"))
# Whole tiles (one CTA each, no fixup) from this fraction of the places on, below STREAM_K_FILL too: a config's
# WHOLE_FILL_PCT (registry) says where it measured so. fp8 at 16 x 4096 x 4096 (64 tiles of 64 rows, 48% of
# 132 SMs): 7.6 us as whole tiles against 9.4 split in two (_scaled_mm 8.7; CUDA graphs, H100,
# 2026-11-27-h100-explore-fp8-decode-whole-ec52c43.json): a CTA streams its whole 256 KB tile faster than two
# CTAs stream halves and meet in the fixup. TCGEMM_STREAM_K_WHOLE_FILL sets it for every config (measuring).
STREAM_K_WHOLE_FILL = os.environ.get("TCGEMM_STREAM_K_WHOLE_FILL")


def stream_k_shape(m: int, n: int, k: int, batch: int, block_m: int, block_n: int, block_k: int,
                   sms: int, per_sm: int = 1, whole_fill: float = 0.0) -> tuple[int, int, int]:
    """(CTAs, output tiles, k-tiles per tile) of a stream-K launch (kernels/include/stream_k.cuh) on ``sms``
    SMs, ``per_sm`` CTAs each, with k-tiles of ``block_k`` (the kernel's BLOCK_K x KSUB): whole tiles where
    they fill ``whole_fill`` of the places (0: not below STREAM_K_FILL; STREAM_K_WHOLE_FILL overrides), else
    tiles x s CTAs where that fills STREAM_K_FILL of the places (see above), else one CTA per place; never runs
    of fewer than STREAM_K_MIN_BOXES boxes of 64 16-bit k (nor fewer than one k-tile)."""
    tiles = -(-m // block_m) * -(-n // block_n) * batch
    ktiles = max(1, -(-k // block_k))
    slots = sms * per_sm
    min_run = max(1, STREAM_K_MIN_BOXES * 64 // block_k)
    ctas = min(slots, -(-tiles * ktiles // min_run))
    per_tile = min(slots // tiles, max(1, ktiles // min_run)) if tiles <= slots else 0
    if STREAM_K_WHOLE_FILL is not None:
        whole_fill = float(STREAM_K_WHOLE_FILL)
    if per_tile and whole_fill and tiles >= whole_fill * slots:
        ctas = tiles
    elif per_tile and tiles * per_tile >= STREAM_K_FILL * slots:
        ctas = tiles * per_tile
    return max(1, ctas), tiles, ktiles


def stream_k_scratch(ctas: int, tiles: int, block_m: int, block_n: int, consumers: int = 1) -> tuple[int, int]:
    """(workspace floats, counters) of a stream-K launch of ``ctas`` CTAs over ``tiles`` output tiles: two
    partial-tile slots per CTA (the first and the last tile of its run), one arrival counter per tile and
    consumer warpgroup (each sums its own rows of the tile: kernels/include/stream_k.cuh)."""
    return 2 * ctas * block_m * block_n, tiles * consumers
