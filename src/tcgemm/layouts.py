"""Register fragment layouts as tables: which thread, register and element holds which matrix element.

Every table is derived from :mod:`tcgemm.fragments`' coordinate functions (the formulas the CUDA
headers use), so what ``tcgemm layout NAME`` prints is what the kernels assume, and
tests/cpu/test_layouts.py checks these very tables against the PTX ISA's figures by emulating
a warp's mma.sync.

A table maps a *slot* ``(lane, reg, elem)`` — thread ``lane`` (0..31 for a warp, 0..127 for a
warpgroup), its 32-bit register ``reg`` and element ``elem`` inside it (low bits first) — to
the ``(row, col)`` of the matrix element it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import fragments as fr

if TYPE_CHECKING:
    from rich.table import Table

Slot = tuple[int, int, int]  # (lane, reg, elem)


@dataclass(frozen=True)
class Layout:
    name: str
    summary: str
    rows: int
    cols: int
    row_axis: str  # what a row index means: "m", "k", "row (8 per matrix)"
    col_axis: str
    threads: int
    regs: int  # 32-bit registers per thread
    elems: int  # elements per register
    coords: dict[Slot, tuple[int, int]]

    def label(self, slot: Slot) -> str:
        """'T<lane>:r<reg>', plus '.e<elem>' when a register holds several elements."""
        lane, reg, elem = slot
        return f"T{lane}:r{reg}" + (f".e{elem}" if self.elems > 1 else "")

    def grid(self) -> list[list[Slot]]:
        """grid[row][col] = the slot holding that element; ValueError unless every element has exactly one."""
        cells: list[list[Slot | None]] = [[None] * self.cols for _ in range(self.rows)]
        for slot, (row, col) in self.coords.items():
            if not (0 <= row < self.rows and 0 <= col < self.cols):
                raise ValueError(f"layout {self.name}: {self.label(slot)} maps outside the "
                                 f"{self.rows}x{self.cols} matrix to ({row}, {col})")
            if cells[row][col] is not None:
                raise ValueError(f"layout {self.name}: ({row}, {col}) held by both "
                                 f"{self.label(cells[row][col])} and {self.label(slot)}")
            cells[row][col] = slot
        missing = [(r, c) for r in range(self.rows) for c in range(self.cols) if cells[r][c] is None]
        if missing:
            raise ValueError(f"layout {self.name}: no thread holds {missing[:4]}")
        return cells  # type: ignore[return-value]  # every cell filled above


def _table(name: str, summary: str, shape: tuple[int, int], axes: tuple[str, str], threads: int, regs: int,
           elems: int, coord: Callable[[int, int, int], tuple[int, int]]) -> Layout:
    coords = {(lane, reg, elem): coord(lane, reg, elem)
              for lane in range(threads) for reg in range(regs) for elem in range(elems)}
    return Layout(name, summary, shape[0], shape[1], axes[0], axes[1], threads, regs, elems, coords)


# mma.sync shape -> (input types, elements per 32-bit register)
MMA_SHAPES = {"m16n8k16": ("f16/bf16", 2), "m16n8k8": ("tf32", 1), "m16n8k32": ("s8", 4)}


def _mma(shape: str, operand: str) -> Layout:
    types, epw = MMA_SHAPES[shape]
    k = 8 * epw
    name = f"mma.{shape}.{operand}"
    if operand == "a":
        return _table(name, f"mma.sync {shape} A ({types}, 16 x {k}, row-major fragment), 4 registers",
                      (16, k), ("m", "k"), 32, 4, epw, lambda ln, r, e: fr.a_coord(ln, r, e, epw))
    if operand == "b":
        return _table(name, f"mma.sync {shape} B ({types}, {k} x 8, column-major fragment), 2 registers",
                      (k, 8), ("k", "n"), 32, 2, epw, lambda ln, r, e: fr.b_coord(ln, r, e, epw))
    acc = "s32" if types == "s8" else "f32"
    return _table(name, f"mma.sync {shape} C/D ({acc} accumulator, 16 x 8), 4 registers",
                  (16, 8), ("m", "n"), 32, 4, 1, lambda ln, r, _e: fr.c_coord(ln, r))


LDMATRIX_COUNTS = {"x1": 1, "x2": 2, "x4": 4}


def _ldmatrix(count: str, trans: bool) -> Layout:
    n = LDMATRIX_COUNTS[count]
    name = f"ldmatrix.{count}" + (".trans" if trans else "")

    def coord(lane: int, reg: int, elem: int) -> tuple[int, int]:
        row, col = fr.ldmatrix_piece(lane, trans)[elem]
        return 8 * reg + row, col

    summary = (f"ldmatrix.sync.aligned.m8n8.{count}{'.trans' if trans else ''}.b16: {n} 8x8 b16 matri"
               f"{'x' if n == 1 else 'ces'} as stored in shared memory, matrix q in rows 8q..8q+7 (row r's "
               f"address from lane 8q+r), register q of every lane from matrix q"
               + ("; .trans: each lane gets a column pair" if trans else ""))
    return _table(name, summary, (8 * n, 8), ("row", "col"), 32, n, 2, coord)


def _wgmma_d(n: int) -> Layout:
    return _table(f"wgmma.m64n{n}k16.d",
                  f"wgmma.mma_async m64n{n}k16 f32 accumulator (64 x {n}) of a warpgroup: T = thread 0..127 "
                  f"(warp T/32 owns rows 16w..16w+15), {n // 2} registers",
                  (64, n), ("m", "n"), 128, n // 2, 1, lambda t, r, _e: fr.wgmma_d_coord(t, r))


_BUILDERS: dict[str, Callable[[], Layout]] = {}
for _shape in MMA_SHAPES:
    for _op in "abc":
        _BUILDERS[f"mma.{_shape}.{_op}"] = lambda s=_shape, o=_op: _mma(s, o)
for _count in LDMATRIX_COUNTS:
    _BUILDERS[f"ldmatrix.{_count}"] = lambda c=_count: _ldmatrix(c, False)
    _BUILDERS[f"ldmatrix.{_count}.trans"] = lambda c=_count: _ldmatrix(c, True)
_BUILDERS["wgmma.m64n64k16.d"] = lambda: _wgmma_d(64)


def names() -> list[str]:
    return list(_BUILDERS)


def get(name: str) -> Layout:
    """The layout called ``name`` (see :func:`names`); ValueError listing the names otherwise."""
    try:
        return _BUILDERS[name]()
    except KeyError:
        raise ValueError(f"unknown layout {name!r}: NAME must be one of {', '.join(names())}") from None


def rich_table(layout: Layout) -> Table:
    """The layout as a grid: a row per matrix row, a column per matrix column, the slot in each cell."""
    from rich.table import Table

    table = Table(title=f"{layout.name}: {layout.summary}", title_justify="left")
    table.add_column(f"{layout.row_axis} \\ {layout.col_axis}", justify="right", style="bold")
    for col in range(layout.cols):
        table.add_column(str(col), justify="center", no_wrap=True)
    for row, cells in enumerate(layout.grid()):
        table.add_row(str(row), *(layout.label(s) for s in cells))
    return table


def table_width(layout: Layout) -> int:
    """Characters a terminal needs for :func:`rich_table` without folding cells."""
    cell = len(layout.label((layout.threads - 1, layout.regs - 1, layout.elems - 1)))
    return 14 + layout.cols * (cell + 3)
