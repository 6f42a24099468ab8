"""Regenerate the pictures of the README and docs/ladder.md from committed benchmark JSON files.

    python tools/make_plots.py [RESULTS_DIR] [--only GLOB ...]   # default benchmarks/results, every *.json

--only keeps the files matching any of the globs (e.g. the latest release run and the fp32 ladder),
so that one figure does not mix runs whose cuBLAS ran at different clocks.

Writes RESULTS_DIR/h100-ladder.png (each ladder stage's fastest config next to cuBLAS at 4096^3,
one panel per precision) and RESULTS_DIR/h100-auto-vs-cublas.png (kernel="auto" vs cuBLAS for
every shape measured). Needs matplotlib (`pip install tcgemm[plot]`); no GPU.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "src"))  # a checkout works without `pip install -e .`
    from tcgemm.plot import auto_figure, ladder_figure, load_rows

    only: list[str] = []
    if "--only" in argv:
        i = argv.index("--only")
        only, argv = argv[i + 1:], argv[:i]
    results = Path(argv[0]) if argv else ROOT / "benchmarks" / "results"
    files = sorted({f for pattern in (only or ["*.json"]) for f in results.glob(pattern)})
    if not files:
        print(f"no *.json in {results}: pass the folder holding `tcgemm bench --json` files", file=sys.stderr)
        return 2
    rows = load_rows(files)
    print(f"wrote {ladder_figure(rows, results / 'h100-ladder.png')}")
    print(f"wrote {auto_figure(rows, results / 'h100-auto-vs-cublas.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
