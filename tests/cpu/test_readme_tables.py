"""tools/readme_tables.py: a shape's row in the auto table is the median process of the newest commit; it writes
docs/ladder.md's tables, linked relative to that file, and the committed tables are what it writes."""

from __future__ import annotations

import importlib.util
import json
import os
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


_ROOT = _PATH.parents[1]
_LADDER = _ROOT / "docs" / "ladder.md"


def _sources(text: str) -> list[str]:
    """The result files a tables block lists under 'Sources', in order."""
    block = text.partition("<!-- tables:begin -->")[2].partition("<!-- tables:end -->")[0]
    return [line.split("`")[1] for line in block.splitlines() if line.startswith("- [`")]


def test_write_links_relative_to_the_written_file(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    results = tmp_path / "benchmarks" / "results"
    results.mkdir(parents=True)
    src = _write(results / "a.json", "new", 100.0, 695.0)
    target = docs / "ladder.md"
    target.write_text("# t\n\n<!-- tables:begin -->\nold\n<!-- tables:end -->\n\nafter\n")
    assert readme_tables.main([str(src), "--write", str(target)]) == 0
    text = target.read_text()
    assert "](../benchmarks/results/a.json)" in text and "old" not in text and text.endswith("after\n")
    no_markers = docs / "other.md"
    no_markers.write_text("nothing here\n")
    assert readme_tables.main([str(src), "--write", str(no_markers)]) == 2


def test_docs_ladder_tables_are_what_the_tool_writes(tmp_path, monkeypatch):
    """docs/ladder.md's tables are generated: rendering its listed sources gives the committed text."""
    text = _LADDER.read_text()
    sources = _sources(text)
    assert len(sources) > 10 and all((_ROOT / s).is_file() for s in sources)
    monkeypatch.chdir(_ROOT)  # the sources are listed relative to the repository root
    copy = tmp_path / "docs" / "ladder.md"
    copy.parent.mkdir()
    copy.write_text(text)
    assert readme_tables.main([*sources, "--write", str(copy)]) == 0
    rendered = copy.read_text().replace(os.path.relpath(_ROOT, copy.parent), "..")
    assert rendered == text
