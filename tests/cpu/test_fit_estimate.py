"""tools/fit_estimate.py: scores auto's pick against the configs measured at a shape, and --set moves the pick."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tcgemm import registry

_PATH = Path(__file__).resolve().parents[2] / "tools" / "fit_estimate.py"
_spec = importlib.util.spec_from_file_location("fit_estimate", _PATH)
assert _spec is not None and _spec.loader is not None
fit_estimate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fit_estimate)


def _label(name: str) -> str:
    return registry.get("wgmma_tma_store").config(name, "bf16").describe()


def _write(path: Path, rows: list[tuple[str, float]], shape: tuple[int, int, int] = (8192, 768, 3072)) -> str:
    m, n, k = shape
    data = [{"kernel": "wgmma_tma_store", "config": _label(name), "m": m, "n": n, "k": k, "precision": "bf16",
             "layouts": "rc", "ms": us / 1e3, "graph_us": us} for name, us in rows]
    data.append({"kernel": "cublas", "config": "torch.matmul", "m": m, "n": n, "k": k, "precision": "bf16",
                 "layouts": "rc", "ms": 0.06, "graph_us": 60.0})
    path.write_text(json.dumps({"environment": {}, "rows": data}))
    return str(path)


def test_scores_auto_against_the_fastest_measured(tmp_path):
    # Configs timed at GPT-2's fc2 (M = 8192), auto's pick among them measured slower than the fastest.
    times = {"128x128x64b2": 61.0, "128x128x64pp": 60.5, "128x192x64c1": 60.0, "192x128x64": 59.0}
    f = _write(tmp_path / "x.json", list(times.items()))
    data = fit_estimate.load([f])
    assert data == {(8192, 768, 3072, "rc"): times}
    loss, rows = fit_estimate.score(data)
    assert len(rows) == 1 and rows[0][2] in data[(8192, 768, 3072, "rc")]
    assert rows[0][3] == "192x128x64" and abs(loss - (1 - 59.0 / times[rows[0][2]])) < 1e-9


def test_one_config_alone_is_not_scored(tmp_path):
    assert fit_estimate.load([_write(tmp_path / "x.json", [("128x128x64b2", 61.0)])]) == {}


def test_set_rejects_unknown_configs():
    with pytest.raises(SystemExit, match="CONFIG=SPEED"):
        fit_estimate.apply("no_such_config=1.0")


def test_reads_the_graph_timed_entries_of_a_tune_file(tmp_path):
    times = {"128x64x64": 0.0166, "64x80x64c2": 0.0152}
    entry = {"spec": "wgmma_tma_store", "shape": [128, 4608, 3584], "layouts": "rc", "timed_as": "graph",
             "times_ms": times, "best": "64x80x64c2", "heuristic": "128x64x64"}
    events = dict(entry, shape=[128, 6144, 4096], timed_as="events")  # host work in it: not scored
    f = tmp_path / "tune.json"
    f.write_text(json.dumps({"format": 1, "key": {}, "entries": {"bf16:rc:128x4608x3584:b1:a16": entry,
                                                                 "bf16:rc:128x6144x4096:b1:a16": events}}))
    data = fit_estimate.load([str(f)])
    assert data == {(128, 4608, 3584, "rc"): {name: 1e3 * ms for name, ms in times.items()}}
    loss, rows = fit_estimate.score(data)
    assert len(rows) == 1 and rows[0][2:] == ("64x80x64c2", "64x80x64c2") and loss == 0.0  # (34ba827's pick)


def test_a_bare_list_of_rows_loads(tmp_path):
    f = tmp_path / "x.json"
    _write(f, [("128x128x64b2", 61.0), ("128x128x64pp", 60.5)])
    f.write_text(json.dumps(json.loads(f.read_text())["rows"]))  # (a few early files hold the rows alone)
    assert fit_estimate.load([str(f)]) == {(8192, 768, 3072, "rc"): {"128x128x64b2": 61.0, "128x128x64pp": 60.5}}
