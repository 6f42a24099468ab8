"""How many of a wave's reads of the operand a cluster does not multicast could the L2's request
coalescer merge, if it merged exactly the requests of one GPC for one strip (kernels/include/gpc_order.cuh)?

    python3 benchmarks/probes/gpc_coalescing_model.py benchmarks/results/2026-11-24-h100-sm-placement-11c8ebf.json

For 4096 x 4096 outputs (16 x 16 cluster units of 256 x 256) on 66 clusters: per wave, one request per
(GPC, strip) instead of one per unit; the fraction saved, for the cluster-id -> GPC placements of the
JSON (benchmarks/probes/sm_placement.py) and groups of 1 .. 16 unit rows, sharing along rows (A, clusters along M)
or columns (B, clusters along N); and for GPC_ORDER's placement (each GPC on one row).
"""

from __future__ import annotations

import json
import sys


def unit(u: int, units_m: int, units_n: int, group: int) -> tuple[int, int]:
    per_group = group * units_n
    first = (u // per_group) * group
    rows = min(units_m - first, group)
    in_group = u - (u // per_group) * per_group
    return first + in_group % rows, in_group // rows


def merged(gpc_of_position: list[int], units_m: int, units_n: int, group: int, share: str) -> float:
    clusters = len(gpc_of_position)
    total = distinct = 0
    for w0 in range(0, units_m * units_n, clusters):
        keys = set()
        for p in range(min(clusters, units_m * units_n - w0)):
            um, un = unit(w0 + p, units_m, units_n, group)
            keys.add((gpc_of_position[p], um if share == "rows" else un))
            total += 1
        distinct += len(keys)
    return 1 - distinct / total


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    data = json.load(open(argv[0]))
    gpc_of = {s: i for i, g in enumerate(data["gpcs"]) for s in g}
    placements = {run: [gpc_of[pair[0]] for pair in data[run]] for run in ("pairs_1", "pairs_2")}
    clusters = len(placements["pairs_1"])
    placements["gpc_order (groups of 8)"] = [p % 8 for p in range(clusters)]  # one row class per GPC
    for name, gpcs in placements.items():
        for group in (1, 2, 4, 8, 16):
            print(f"{name:24s} group {group:2d} unit rows: rows {merged(gpcs, 16, 16, group, 'rows'):.3f}  "
                  f"columns {merged(gpcs, 16, 16, group, 'columns'):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
