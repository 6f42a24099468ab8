"""tcgemm.warmup: which builds a model's layer shapes run for M = 1 .. max_m (on the fake H100, no GPU)."""

from __future__ import annotations

import pytest
import torch

from tcgemm import api, precompile


def test_m_candidates_cover_every_tile_boundary():
    ms = precompile._m_candidates(1000)
    assert ms[:256] == list(range(1, 257)) and ms[-1] == 1000
    for top in range(320, 1000, 64):  # both ends of every 64-row step past 256
        assert top - 63 in ms and top in ms


def test_builds_for_matches_what_auto_picks(fake_gpu):
    layer = precompile.LayerShape(k=4096, n=1280, dtype=torch.bfloat16)
    found = precompile.builds_for(layer, 2048, 0)
    assert found, "no build found"
    w = torch.randn(1280, 4096, dtype=torch.bfloat16)
    for m in (1, 16, 100, 777, 2048):  # every M's choice is one of the builds prepared, at an M no smaller
        choice = api.explain(torch.randn(m, 4096, dtype=torch.bfloat16), w.t())
        tops = [top for (kernel, config, _d), top in found.items() if (kernel, config) == (choice.kernel,
                                                                                             choice.config)]
        assert tops and max(tops) >= m


def test_long_k_shape_prepares_the_gpc_order_build(fake_gpu):
    found = precompile.builds_for(precompile.LayerShape(k=14336, n=4096, dtype=torch.bfloat16), 8192, 0)
    assert any(config.endswith("g") for (_k, config, _d) in found), found  # GPC_ORDER (s4b2og) at long K


def test_warmup_refuses_a_bad_bound():
    with pytest.raises(ValueError, match="max_m"):
        precompile.warmup([precompile.LayerShape(8, 8, torch.float16)], max_m=0)
