"""The grouped GEMM off the GPU: the benchmark's routing (counts of a top-k routing sum to tokens x k and differ), its
command line, and the walk's prefix."""

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


def test_group_prefix_reference():
    """The grouped walk's prefix (torch ops off the GPU, as kernels/util/group_prefix.cu computes it): cluster rows
    with tokens per expert, counts clamped to [0, rows]."""
    import torch

    from tcgemm.grouped import group_prefix

    counts = torch.tensor([0, 1, 17, 40, 99, -3, 64, 65], dtype=torch.int32)
    assert group_prefix(counts, 80, 64).tolist() == [0, 0, 1, 2, 3, 5, 5, 6, 8]


def test_prefix_kernel_compiles():
    jit = pytest.importorskip("tcgemm.jit")
    from tcgemm import grouped, sass

    try:
        cubin = jit.cubin("util/group_prefix.cu", grouped.PREFIX_DEFINES, "sm_90a")
    except jit.JitUnavailable as exc:
        pytest.skip(str(exc))
    assert not sass.has_local_memory(sass.disassemble(cubin))
