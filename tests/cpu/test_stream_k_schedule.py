"""The stream-K split (kernels/include/stream_k.cuh) mirrored in Python: the CTAs' runs cover every
k-tile once, each tile's contributors are the consecutive CTAs cta_of() names, and no two partial sums
share a workspace slot; the host sizes the grid and the scratch by the same rule (tcgemm.schedule)."""

from __future__ import annotations

import itertools

from tcgemm.schedule import stream_k_scratch, stream_k_shape


def _begin(c: int, total: int, ctas: int) -> int:
    return c * total // ctas


def _cta_of(x: int, total: int, ctas: int) -> int:
    return ((x + 1) * ctas - 1) // total


def _slot(c: int, tile: int, total: int, ctas: int, ktiles: int) -> int:
    return 2 * c + (0 if _begin(c, total, ctas) // ktiles == tile else 1)


def test_runs_partition_and_slots_are_unique():
    for tiles, ktiles, ctas in itertools.product((1, 3, 10, 32, 48), (1, 2, 7, 12, 128), (1, 5, 132, 264)):
        total = tiles * ktiles
        ctas = min(ctas, total)
        owner = {}
        for c in range(ctas):
            for x in range(_begin(c, total, ctas), _begin(c + 1, total, ctas)):
                assert x not in owner
                owner[x] = c
                assert _cta_of(x, total, ctas) == c
        assert len(owner) == total
        slots = {}
        for t in range(tiles):
            first, last = _cta_of(t * ktiles, total, ctas), _cta_of((t + 1) * ktiles - 1, total, ctas)
            contributors = sorted({owner[t * ktiles + k] for k in range(ktiles)})
            assert contributors == list(range(first, last + 1))
            if len(contributors) > 1:
                for c in contributors:
                    s = _slot(c, t, total, ctas, ktiles)
                    assert s not in slots, (tiles, ktiles, ctas, t, c)
                    assert 0 <= s < 2 * ctas
                    slots[s] = (c, t)


def test_host_grid_and_scratch():
    # Llama-3-70B TP8 qkv at M = 1: 10 tiles x 128 k-tiles on 264 places.
    assert stream_k_shape(1, 1280, 8192, 1, 8, 128, 64, 264) == (264, 10, 128)
    assert stream_k_scratch(1, 1280, 8192, 1, 8, 128, 64, 264) == (2 * 264 * 8 * 128, 10)
    # Few k-tiles: runs of at least four.
    assert stream_k_shape(1, 768, 768, 1, 8, 128, 64, 264) == (18, 6, 12)  # runs of >= 4 k-tiles
