"""tools/precision_sweep.py: a row's ratio is the graph one where the bench replayed the call, else the eager one;
rows under the floor, and rows whose cuBLAS side could not run, are listed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "tools" / "precision_sweep.py"
_spec = importlib.util.spec_from_file_location("precision_sweep", _PATH)
assert _spec is not None and _spec.loader is not None
precision_sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(precision_sweep)


def _row(m: int, **kw: object) -> dict:
    return {"kernel": "auto (wgmma_tma_store)", "config": "64x64x64", "m": m, "n": 4096, "k": 4096, **kw}


def test_graph_time_wins_over_eager():
    ratio, how = precision_sweep.row_ratio(_row(32, graph_us=18.0, cublas_graph_us=14.4, ms=0.03, cublas_ms=0.03))
    assert how == "graph" and abs(ratio - 0.8) < 1e-9
    ratio, how = precision_sweep.row_ratio(_row(4096, ms=0.2, cublas_ms=0.21))
    assert how == "eager" and abs(ratio - 1.05) < 1e-9
    assert precision_sweep.row_ratio(_row(16, ms=0.02)) == (None, "none")


def test_rows_below_the_floor_and_without_cublas_are_listed():
    runs = {"bf16-rc": [[_row(32, graph_us=18.0, cublas_graph_us=14.4), _row(64, graph_us=15.0, cublas_graph_us=15.2),
                         {"kernel": "cublas", "config": "torch.matmul", "m": 32, "n": 4096, "k": 4096, "ms": 0.03}]],
            "int8-rc": [[_row(16, ms=0.02)]]}
    lines = precision_sweep.below(runs, 0.9)
    assert len(lines) == 2
    assert lines[0].startswith("bf16-rc") and "32x4096x4096" in lines[0] and "0.800 (lowest 0.800, graph)" in lines[0]
    assert lines[1].startswith("int8-rc") and "no cuBLAS time" in lines[1]


def test_a_row_is_the_median_of_its_processes():
    runs = {"bf16-rc": [[_row(32, graph_us=18.0, cublas_graph_us=14.4)],
                        [_row(32, graph_us=15.0, cublas_graph_us=15.0)],
                        [_row(32, graph_us=14.0, cublas_graph_us=14.7)]]}
    median, lowest, how = precision_sweep.medians(runs)[("bf16-rc", "32x4096x4096")]
    assert (round(median, 6), round(lowest, 6), how) == (1.0, 0.8, "graph")
    assert precision_sweep.below(runs, 0.9) == []
