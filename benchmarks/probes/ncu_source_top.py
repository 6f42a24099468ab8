"""Summarise an Nsight Compute report's source page: the SASS lines with the most warp-stall samples.

    ncu -i report.ncu-rep --page source --print-source sass --csv > src.csv
    python3 benchmarks/probes/ncu_source_top.py src.csv [TOP]

Each line: its share of all samples, the instruction, and its two largest stall reasons. A per-tile cost
(the epilogue, a barrier, the ring's waits) shows up as the instructions it stalls on.
"""

from __future__ import annotations

import csv
import sys


def _num(x: str) -> float:
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    top_n = int(argv[1]) if len(argv) > 1 else 40
    with open(argv[0], errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if any(c.strip() == "Source" for c in r)), None)
    if head is None:
        print("no source page in the report")
        return 0
    cols = rows[head]
    src = cols.index("Source")
    samp = next((i for i, c in enumerate(cols) if "Sampling (All" in c), None)
    if samp is None:
        print("no stall-sampling column:", cols)
        return 0
    reasons = [i for i, c in enumerate(cols) if i != samp and (c.startswith("stall_") or "Stall" in c)]
    body = [r for r in rows[head + 1:] if len(r) == len(cols)]
    total = sum(_num(r[samp]) for r in body) or 1.0
    print(f"{int(total)} samples over {len(body)} SASS lines")
    for r in sorted(body, key=lambda r: -_num(r[samp]))[:top_n]:
        top = sorted(((_num(r[i]), cols[i]) for i in reasons), reverse=True)[:2]
        why = ", ".join(f"{c} {v:.0f}" for v, c in top if v > 0)
        print(f"{100 * _num(r[samp]) / total:5.1f}%  {r[src].strip()[:90]:90s}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
