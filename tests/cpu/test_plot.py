"""Pictures from the committed benchmark results (no GPU; the drawing tests skip without matplotlib)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcgemm import cli, plot

RESULTS = sorted(Path(__file__).resolve().parents[2].joinpath("benchmarks", "results").glob("*.json"))


def _png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_ladder_data_from_committed_results():
    assert RESULTS, "no committed results"
    shape, data = plot.ladder_data(plot.load_rows(RESULTS))
    assert shape == (4096, 4096, 4096)
    assert list(data)[:5] == ["fp32", "tf32", "fp16", "bf16", "int8"]  # registry order
    bf16 = data["bf16"]
    assert "cublas" in bf16 and not any(name.startswith("auto") for name in bf16)
    assert bf16["wgmma_ws"]["tflops"] == max(r["tflops"] for r in plot.load_rows(RESULTS)
                                             if r["kernel"] == "wgmma_ws" and r["precision"] == "bf16")
    assert all(r["m"] == r["n"] == r["k"] == 4096 for bars in data.values() for r in bars.values())
    assert {"fp32", "tf32", "int8"} <= plot.ladder_data(plot.load_rows(RESULTS), (1024, 1024, 1024))[1].keys()


def test_ladder_labels_other_layouts_and_default_rr():
    rows = [{"kernel": "k", "m": 8, "n": 8, "k": 8, "precision": "fp16", "tflops": 1.0},
            {"kernel": "k", "m": 8, "n": 8, "k": 8, "precision": "fp16", "tflops": 2.0, "layouts": "rr"},
            {"kernel": "k", "m": 8, "n": 8, "k": 8, "precision": "fp16", "tflops": 3.0, "layouts": "rc"}]
    _shape, data = plot.ladder_data(rows)
    assert {n: r["tflops"] for n, r in data["fp16"].items()} == {"k": 2.0, "k rc": 3.0}


def test_auto_data_from_committed_results():
    data = plot.auto_data(plot.load_rows(RESULTS))
    # (fp32's auto rows: since 2026-11-26-h100-bench-auto-7cf7071.json, a sweep of every precision)
    assert {"fp32", "tf32", "fp16", "bf16", "int8"} <= data.keys()
    labels = [e[0] for e in data["int8"]]
    assert labels[:4] == ["4096x4096x4096", "1024x1024x1024", "8192x8192x8192", "4095x4095x4095"]  # as they appear
    first = data["int8"][0]
    assert first[1]["kernel"].startswith("auto (")  # the fastest auto row at 4096^3
    assert first[2]["kernel"] == "cublas"
    unaligned = [e for e in data["int8"] if e[0].startswith("4095x4095x4095")]
    assert unaligned and all(e[2] is None for e in unaligned)  # torch._int_mm refuses K, N not multiples of 8


def test_bad_inputs_are_errors_naming_the_fix(tmp_path, capsys):
    ladder_only = [p for p in RESULTS if "fp32-ladder" in p.name]
    assert cli.main(["plot", *map(str, ladder_only), "--kind", "auto", "-o", str(tmp_path / "x.png")]) == 2
    assert "--kernels auto" in capsys.readouterr().out
    assert cli.main(["plot", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.png")]) == 2
    assert "does not exist" in capsys.readouterr().out
    assert cli.main(["plot", *map(str, RESULTS), "--shape", "77", "-o", str(tmp_path / "x.png")]) == 2
    assert "--shape" in capsys.readouterr().out


def test_plot_kinds_from_committed_results(tmp_path):
    pytest.importorskip("matplotlib")
    files = list(map(str, RESULTS))
    assert cli.main(["plot", *files, "--kind", "both", "-o", str(tmp_path / "h100.png")]) == 0
    assert _png(tmp_path / "h100-ladder.png") and _png(tmp_path / "h100-auto.png")
    assert cli.main(["plot", *files, "--kind", "auto", "-o", str(tmp_path / "auto.png")]) == 0
    assert _png(tmp_path / "auto.png")
    assert cli.main(["plot", *files, "-o", str(tmp_path / "ladder.png")]) == 0  # default: ladder
    assert _png(tmp_path / "ladder.png")


def test_make_plots_tool(tmp_path):
    pytest.importorskip("matplotlib")
    import importlib.util

    tool = Path(__file__).resolve().parents[2] / "tools" / "make_plots.py"
    spec = importlib.util.spec_from_file_location("make_plots", tool)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for p in RESULTS:
        (tmp_path / p.name).write_text(p.read_text())
    assert module.main([str(tmp_path)]) == 0
    assert _png(tmp_path / "h100-ladder.png") and _png(tmp_path / "h100-auto-vs-cublas.png")


def test_bench_plot_draws_the_rows_it_measured(tmp_path, monkeypatch):
    """`tcgemm bench --plot`, with the GPU parts replaced by the committed bf16 rows."""
    pytest.importorskip("matplotlib")
    from tcgemm import bench

    committed = json.loads(next(p for p in RESULTS if "bf16-4096-hopper" in p.name).read_text())["rows"]

    def fake_bench_shape(m, n, k, names, precision, layouts, budget, on_row=None, out_dtype=None):
        return [bench.BenchRow(**r) for r in committed if (r["m"], r["n"], r["k"]) == (m, n, k)]

    monkeypatch.setattr(cli, "_need_gpu", lambda: None)
    monkeypatch.setattr(bench, "bench_shape", fake_bench_shape)
    monkeypatch.setattr(bench, "environment", lambda: {})
    out = tmp_path / "run.png"
    assert cli.main(["bench", "--precision", "bf16", "--kernels", "auto", "--shapes", "4096", "--plot", str(out)]) == 0
    assert _png(tmp_path / "run-ladder.png") and _png(tmp_path / "run-auto.png")
    assert cli.main(["bench", "--precision", "bf16", "--kernels", "auto", "--shapes", "4096", "--plot", str(out),
                     "--plot-kind", "auto"]) == 0
    assert _png(out)
