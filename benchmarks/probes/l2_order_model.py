"""DRAM traffic of the Hopper kernels' tile orders under an LRU model of the L2 (no GPU needed).

The persistent 2-CTA-cluster kernels (stage 4; include/hopper_sched.cuh) walk cluster units (two tile
rows of one tile column) in waves of one unit per cluster; the model lets each wave walk k in step,
every CTA reading its A block and the cluster its B block per k-tile, and each tile's D allocating
lines at its end. What misses the LRU is read from DRAM (D's writes are counted as misses too: subtract
M * N * bytes of D for the reads alone). It ignores timing, the L2's two partitions and its hashing,
so read it for differences between orders, not absolute figures (bf16 4096^3 in groups of 8 tile rows:
188 MB of reads here, 187 MB measured by Nsight Compute).

    python3 benchmarks/probes/l2_order_model.py                       # the README's shapes, each order
    python3 benchmarks/probes/l2_order_model.py --shape 4096x4096x4096 --bytes 4 --group 16
"""

from __future__ import annotations

import argparse
from collections import OrderedDict


def units_in_order(units_m: int, units_n: int, group_units: int, snake: bool) -> list[tuple[int, int]]:
    """unit_coord of include/hopper_sched.cuh: groups of unit rows, column-major inside a group."""
    order = []
    per_group = group_units * units_n
    for r in range(units_m * units_n):
        g, in_group = divmod(r, per_group)
        first = g * group_units
        rows = min(units_m - first, group_units)
        col = in_group // rows
        order.append((first + in_group % rows, units_n - 1 - col if snake and g % 2 else col))
    return order


def dram_mb(m: int, n: int, k: int, elem_bytes: int, group_m: int, snake: bool, block_m: int = 128,
            block_n: int = 256, clusters: int = 66, l2_bytes: float = 40e6, d_bytes: int | None = None) -> float:
    """Bytes that miss an LRU of ``l2_bytes`` (MB), D's allocations included."""
    d_bytes = d_bytes or elem_bytes
    block_k = 128 // elem_bytes
    units_m, units_n, ktiles = -(-m // block_m) // 2, -(-n // block_n), -(-k // block_k)
    order = units_in_order(units_m, units_n, group_m // 2, snake)
    cache: OrderedDict[tuple, int] = OrderedDict()
    size = misses = 0

    def touch(key: tuple, nbytes: int) -> None:
        nonlocal size, misses
        if key in cache:
            cache.move_to_end(key)
            return
        misses += nbytes
        cache[key] = nbytes
        size += nbytes
        while size > l2_bytes:
            size -= cache.popitem(last=False)[1]

    for w, start in enumerate(range(0, len(order), clusters)):
        wave = order[start:start + clusters]
        backwards = snake and w % 2 == 1
        for step in range(ktiles):
            kt = ktiles - 1 - step if backwards else step
            for um, un in wave:
                touch(("A", 2 * um, kt), block_m * 128)
                touch(("A", 2 * um + 1, kt), block_m * 128)
                touch(("B", un, kt), block_n * 128)
        for um, un in wave:
            for r in range(2):
                touch(("D", 2 * um + r, un, w), block_m * block_n * d_bytes)
    return misses / 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", action="append", help="MxNxK (default: the README's large shapes)")
    ap.add_argument("--bytes", type=int, action="append", help="input element bytes: 2 (16-bit), 4 (tf32)")
    ap.add_argument("--group", type=int, action="append", help="tile rows per group (GROUP_M; default 8 and 16)")
    ap.add_argument("--l2-mb", type=float, default=40.0, help="the L2 the LRU model may use (default 40 of 50 MB)")
    args = ap.parse_args()
    shapes = args.shape or ["4096x4096x4096", "8192x8192x8192", "4096x14336x4096", "4096x4096x14336"]
    print(f"{'shape':>16} {'bytes':>5} {'group':>5} {'forward MB':>11} {'snake MB':>9}  (D writes included)")
    for shape in shapes:
        m, n, k = (int(x) for x in shape.lower().split("x"))
        for elem in args.bytes or [2, 4]:
            for group in args.group or [8, 16]:
                fwd, snake = (dram_mb(m, n, k, elem, group, s, l2_bytes=args.l2_mb * 1e6) for s in (False, True))
                print(f"{shape:>16} {elem:>5} {group:>5} {fwd:>11.0f} {snake:>9.0f}")


if __name__ == "__main__":
    main()
