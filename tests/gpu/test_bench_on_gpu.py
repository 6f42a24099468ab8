"""The benchmark's timing paths on the GPU (tests assert what is measured, never how fast)."""

from __future__ import annotations

import pytest

from tcgemm import bench

pytestmark = pytest.mark.gpu


def test_short_calls_get_graph_times_for_both_sides():
    """A call under GRAPH_BELOW_MS is also replayed from a CUDA graph, for cuBLAS and for the kernel
    (the prepared launch path and the fp16 kernels must be capturable), and the graph time is a
    plausible per-call time: positive, and not above the per-call event time plus slack."""
    rows = bench.bench_shape(128, 512, 256, ["auto"], precision="fp16", budget_s=0.05)
    assert [r.kernel.split(" ")[0] for r in rows] == ["cublas", "auto"]
    for r in rows:
        assert r.graph_us is not None and 0 < r.graph_us < 1e3 * r.ms * 3, r
        assert r.cublas_graph_us is not None, r
    assert rows[1].passed


def test_long_calls_are_not_graph_timed():
    rows = bench.bench_shape(4096, 4096, 4096, ["auto"], precision="fp16", budget_s=0.05)
    if rows[0].ms >= bench.GRAPH_BELOW_MS:
        assert all(r.graph_us is None for r in rows)
