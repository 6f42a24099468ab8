"""benchmarks/results/README.md lists every result file, and is what tools/results_index.py writes."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "tools" / "results_index.py"
_spec = importlib.util.spec_from_file_location("results_index", _PATH)
assert _spec is not None and _spec.loader is not None
results_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results_index)


def test_index_lists_every_result_file():
    text = results_index.INDEX.read_text()
    linked = set(re.findall(r"\]\(([^)#]+)\)", text))
    missing = [f for f in results_index.files_here() if f not in linked]
    assert not missing, f"not in the index (run python3 tools/results_index.py): {missing}"


def test_index_is_what_the_tool_writes():
    assert results_index.main(["--check"]) == 0, "run python3 tools/results_index.py"


def test_current_files_exist_and_kinds():
    for _, files in results_index.CURRENT:
        for f in files:
            assert (results_index.RESULTS / f).is_file(), f
    assert results_index.kind("2026-11-24-h100-release-bf16-1-e31b9c5.json") == "release"
    assert results_index.kind("2026-11-23-h100-gpu-tests-stage5.log") == "gpu"
    assert results_index.kind("2026-11-25-h100-host-time-0a77b2f.json") == "models"
    assert results_index.kind("h100-ladder.png") == "other"
