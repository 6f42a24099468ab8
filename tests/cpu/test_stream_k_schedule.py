"""The stream-K split (kernels/include/stream_k.cuh) mirrored in Python: the CTAs' runs cover every
k-tile once, each tile's contributors are the consecutive CTAs cta_of() names, and no two partial sums
share a workspace slot; the host sizes the grid and the scratch by the same rule (tcgemm.schedule)."""

from __future__ import annotations

import itertools

import torch

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
    # Llama-3-70B TP8 qkv at M = 1, 64-row tiles of 8 boxes (512 k): 20 tiles, 6 CTAs each on 132 SMs.
    assert stream_k_shape(1, 1280, 8192, 1, 8, 64, 512, 132) == (120, 20, 16)
    # Its o-proj: 128 whole tiles, no fixup; its gate_up too (112 of 132 places).
    assert stream_k_shape(1, 8192, 1024, 1, 8, 64, 256, 132, 2) == (256, 128, 4)
    assert stream_k_shape(1, 7168, 8192, 1, 8, 64, 512, 132) == (112, 112, 16)
    # Llama-3-8B qkv: 96 whole tiles (73% of the places) beat stream-K's fixups; 60 tiles: 2 CTAs each.
    assert stream_k_shape(1, 6144, 4096, 1, 8, 64, 512, 132) == (96, 96, 8)
    assert stream_k_shape(1, 3840, 4096, 1, 8, 64, 512, 132) == (120, 60, 8)
    # More tiles than places (Llama-3-8B gate_up: 448): stream-K.
    assert stream_k_shape(1, 28672, 4096, 1, 8, 64, 512, 132) == (132, 448, 8)
    # Few k-tiles: runs of at least four boxes.
    assert stream_k_shape(1, 768, 768, 1, 8, 128, 64, 132, 2) == (18, 6, 12)
    assert stream_k_scratch(120, 20, 8, 64) == (2 * 120 * 8 * 64, 20)


def test_whole_tiles_from_a_configs_fill():
    # fp8's decode configs (WHOLE_FILL_PCT 40): 64 tiles of 4096 rows whole (48% of 132 places), not two CTAs each.
    assert stream_k_shape(16, 4096, 4096, 1, 16, 64, 512, 132, 1, 0.4) == (64, 64, 8)
    assert stream_k_shape(16, 4096, 4096, 1, 16, 64, 512, 132, 1) == (128, 64, 8)
    # Below the fill (20 tiles, 15%): the aligned split as before; above the places: stream-K.
    assert stream_k_shape(16, 1280, 8192, 1, 16, 64, 512, 132, 1, 0.4) == (120, 20, 16)
    assert stream_k_shape(16, 14336, 4096, 1, 16, 64, 512, 132, 1, 0.4) == (132, 224, 8)


def test_fp8_decode_configs_by_width():
    """auto's fp8 decode config: two CTAs an SM where the tiles outnumber the SMs (N > 8448), else one CTA an SM
    with whole tiles from 40% of the SMs."""
    from tcgemm import dispatch, registry
    from tcgemm.problem import GemmProblem, Operand

    spec = registry.get("swap_ab_stream_k_fp8")

    def pick(m: int, n: int, k: int) -> str:
        e4m3 = torch.float8_e4m3fn
        a, b = Operand("row", k, 0, True), Operand("col", k, 0, True)
        p = GemmProblem(m, n, k, 1, "fp8e4m3", e4m3, torch.bfloat16, a, b, None, n, 0, 1.0, 0.0, False)
        return dispatch.pick_config(spec, p, 132).name

    assert pick(16, 14336, 4096) == "16x64x128q4" and pick(1, 28672, 4096) == "16x64x128q4"
    assert pick(16, 4096, 4096) == "16x64x128q4s5g1" and pick(4, 4096, 14336) == "8x64x128q4s5g1"
    assert pick(32, 1280, 8192) == "32x64x128q4s4g1"


def test_aligned_grids_keep_every_run_inside_one_tile():
    for n, k, bk in ((1280, 8192, 512), (4096, 4096, 512), (4096, 14336, 512), (8192, 3584, 512), (2304, 768, 256)):
        ctas, tiles, ktiles = stream_k_shape(1, n, k, 1, 8, 64, bk, 132)
        total = tiles * ktiles
        if ctas % tiles == 0:
            for c in range(ctas):
                first, last = _begin(c, total, ctas), _begin(c + 1, total, ctas) - 1
                assert first // ktiles == last // ktiles, (n, k, c)
