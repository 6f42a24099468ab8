"""The grouped-GEMM benchmark's routing (no GPU): counts of a top-k routing sum to tokens x k, differ, and its
command line teaches."""

from __future__ import annotations

import pytest

from tcgemm import grouped_bench


@pytest.mark.parametrize("experts,top_k,tokens", [(8, 2, 1), (8, 2, 512), (32, 8, 32)])
def test_routed_counts(experts, top_k, tokens):
    counts = grouped_bench.routed_counts(experts, top_k, tokens, seed=0)
    assert len(counts) == experts and sum(counts) == max(1, experts * tokens // top_k) * top_k
    assert counts == grouped_bench.routed_counts(experts, top_k, tokens, seed=0)
    if tokens >= 32:
        assert len(set(counts)) > 1  # skewed: not all equal


def test_help(capsys):
    with pytest.raises(SystemExit):
        grouped_bench.main(["--help"])
    assert "torch._grouped_mm" in capsys.readouterr().out
