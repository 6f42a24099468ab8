"""tools/readme_tables.py: a shape's row in the auto table is the median process of the newest commit."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "tools" / "readme_tables.py"
_spec = importlib.util.spec_from_file_location("readme_tables", _PATH)
assert _spec is not None and _spec.loader is not None
readme_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readme_tables)


def _write(path: Path, commit: str, pct: float, tflops: float) -> Path:
    row = {"kernel": "auto (wgmma_tma_store)", "config": "128x256x64 s4 b2o", "m": 4096, "n": 4096, "k": 4096,
           "precision": "bf16", "ms": 0.2, "tflops": tflops, "pct_cublas": pct, "error": 1e-3, "layouts": "rr",
           "cublas_ms": 0.2 * pct / 100}
    env = {"gpu": "H100", "driver": "x", "cuda": "13.0", "torch": "2", "commit": commit, "date": "d"}
    path.write_text(json.dumps({"environment": env, "rows": [row]}))
    return path


def test_auto_row_is_the_median_process_of_the_newest_commit(tmp_path):
    files = [_write(tmp_path / "a.json", "new", 99.0, 690.0), _write(tmp_path / "b.json", "new", 101.0, 700.0),
             _write(tmp_path / "c.json", "new", 100.0, 695.0), _write(tmp_path / "d.json", "old", 90.0, 600.0)]
    rows, _ = readme_tables._load(files)
    table = "\n".join(readme_tables.auto_vs_cublas(rows, "bf16"))
    line = next(x for x in table.splitlines() if x.startswith("| 4096³"))
    assert "| 695.0 |" in line and "1.00×" in line  # the median process (c), not the first file (a)
    assert "(0.99–1.01× over 3 runs)" in line  # the old commit's run is not in the range
