"""The fragment tables `tcgemm layout` prints (tcgemm.layouts), checked without a GPU.

Each table must be a bijection between (lane, reg, elem) and the matrix. For mma.sync the test
fills each lane's A and B registers *from the printed tables*, runs an emulated mma.sync whose
operand gathering and result scattering follow the PTX ISA's fragment figures (restated below in
the ISA's own per-element form, a0..aN, independently of tcgemm.fragments), reads D back through
the printed C table and compares with A @ B + C. The wgmma accumulator table is checked against
the formula in the header comment of kernels/include/wgmma.cuh.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tcgemm import cli, layouts
from tcgemm import fragments as fr

SHAPES = {"m16n8k16": np.float16, "m16n8k8": np.float32, "m16n8k32": np.int8}  # bf16: same fragments as f16


@pytest.mark.parametrize("name", layouts.names())
def test_every_table_is_a_bijection(name):
    lay = layouts.get(name)
    assert len(lay.coords) == lay.threads * lay.regs * lay.elems == lay.rows * lay.cols
    assert set(lay.coords.values()) == {(r, c) for r in range(lay.rows) for c in range(lay.cols)}
    grid = lay.grid()  # raises on a hole or a double
    assert all(lay.coords[grid[r][c]] == (r, c) for r in range(lay.rows) for c in range(lay.cols))


def test_names_are_the_promised_ones():
    expected = {f"mma.{s}.{o}" for s in SHAPES for o in "abc"}
    expected |= {f"ldmatrix.{x}{t}" for x in ("x1", "x2", "x4") for t in ("", ".trans")}
    assert set(layouts.names()) == expected | {"wgmma.m64n64k16.d"}
    with pytest.raises(ValueError, match=r"mma\.m16n8k16\.a"):
        layouts.get("mma.m16n8k4.a")


# --- the PTX ISA figures, element i of the fragment lives in register i // epw at position i % epw ---

def ptx_a(shape: str, lane: int, i: int) -> tuple[int, int]:
    g, t = divmod(lane, 4)
    if shape == "m16n8k8":  # a0..a3
        return g + 8 * (i in (1, 3)), t + 4 * (i >= 2)
    if shape == "m16n8k16":  # a0..a7
        return (g if i < 2 or 4 <= i < 6 else g + 8), t * 2 + (i & 1) + 8 * (i >= 4)
    return (g if i < 4 or 8 <= i < 12 else g + 8), t * 4 + (i & 3) + 16 * (i >= 8)  # m16n8k32: a0..a15


def ptx_b(shape: str, lane: int, i: int) -> tuple[int, int]:
    g, t = divmod(lane, 4)
    if shape == "m16n8k8":  # b0, b1
        return t + 4 * i, g
    if shape == "m16n8k16":  # b0..b3
        return t * 2 + (i & 1) + 8 * (i >= 2), g
    return t * 4 + (i & 3) + 16 * (i >= 4), g  # m16n8k32: b0..b7


def ptx_c(lane: int, i: int) -> tuple[int, int]:  # c0..c3 / d0..d3, all three shapes
    g, t = divmod(lane, 4)
    return g + 8 * (i >= 2), t * 2 + (i & 1)


def mma_sync(shape: str, a_words: np.ndarray, b_words: np.ndarray, c: np.ndarray, dtype) -> np.ndarray:
    """One warp's mma.sync.aligned.{shape}.row.col: 32-bit registers in, D registers out (acc[lane][i])."""
    epw = 4 // np.dtype(dtype).itemsize
    k = 8 * epw
    amat, bmat, cmat = np.full((16, k), np.nan), np.full((k, 8), np.nan), np.full((16, 8), np.nan)
    for lane in range(32):
        a = a_words[lane].view(dtype).astype(np.float64)  # register r's elements at r*epw .. r*epw+epw-1
        b = b_words[lane].view(dtype).astype(np.float64)
        for i in range(4 * epw):
            amat[ptx_a(shape, lane, i)] = a[i]
        for i in range(2 * epw):
            bmat[ptx_b(shape, lane, i)] = b[i]
        for i in range(4):
            cmat[ptx_c(lane, i)] = c[lane, i]
    assert not (np.isnan(amat).any() or np.isnan(bmat).any() or np.isnan(cmat).any())
    dmat = amat @ bmat + cmat
    return np.array([[dmat[ptx_c(lane, i)] for i in range(4)] for lane in range(32)])


def registers(lay: layouts.Layout, matrix: np.ndarray, dtype) -> np.ndarray:
    """Each lane's 32-bit registers filled through the printed table (element 0 in the low bits)."""
    regs = np.zeros((lay.threads, lay.regs, lay.elems), dtype)
    for (lane, reg, elem), (row, col) in lay.coords.items():
        regs[lane, reg, elem] = matrix[row, col]
    return regs.view(np.uint32)[..., 0]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_mma_sync_emulated_from_the_printed_tables(shape):
    dtype = SHAPES[shape]
    la, lb, lc = (layouts.get(f"mma.{shape}.{op}") for op in "abc")
    assert la.elems == lb.elems == 4 // np.dtype(dtype).itemsize and lc.elems == 1
    rng = np.random.default_rng(7)
    k = la.cols
    a = rng.integers(-8, 9, (16, k)).astype(np.float64)  # exact in f16, tf32 and s8
    b = rng.integers(-8, 9, (k, 8)).astype(np.float64)
    c = rng.integers(-100, 101, (16, 8)).astype(np.float64)
    assert (la.rows, la.cols, lb.rows, lb.cols, lc.rows, lc.cols) == (16, k, k, 8, 16, 8)
    c_regs = np.zeros((32, 4))
    for (lane, reg, _e), (row, col) in lc.coords.items():
        c_regs[lane, reg] = c[row, col]
    d_regs = mma_sync(shape, registers(la, a, dtype), registers(lb, b, dtype), c_regs, dtype)
    d = np.full((16, 8), np.nan)
    for (lane, reg, _e), (row, col) in lc.coords.items():
        d[row, col] = d_regs[lane, reg]
    np.testing.assert_array_equal(d, a @ b + c)


def test_ldmatrix_tables_feed_the_mma_fragments():
    """x4 on a K-major 16x16 A (matrices: rows 0-7/k 0-7, rows 8-15/k 0-7, rows 0-7/k 8-15, rows 8-15/k 8-15)
    is the A fragment; x2.trans on B stored [k][n] and x2 on B stored [n][k] are the B fragment."""
    a, b = layouts.get("mma.m16n8k16.a"), layouts.get("mma.m16n8k16.b")
    x4, x2t, x2 = layouts.get("ldmatrix.x4"), layouts.get("ldmatrix.x2.trans"), layouts.get("ldmatrix.x2")
    for slot, (row, col) in x4.coords.items():
        q, r = divmod(row, 8)
        assert a.coords[slot] == (8 * (q % 2) + r, 8 * (q // 2) + col)
    for slot, (row, col) in x2t.coords.items():  # stored row = k, column = n
        assert b.coords[slot] == (row, col)
    for slot, (row, col) in x2.coords.items():  # matrix q: k 8q..8q+7; stored row = n, column = k % 8
        q, n = divmod(row, 8)
        assert b.coords[slot] == (8 * q + col, n)


# --- wgmma ---

def _header_formula() -> tuple[str, str]:
    text = (Path(fr.__file__).parent / "kernels" / "include" / "wgmma.cuh").read_text()
    row = re.search(r"row = (.+)", text).group(1).strip()
    col = re.search(r"col = (.+)", text).group(1).strip()
    return row, col


def test_wgmma_accumulator_matches_the_header_comment():
    row_expr, col_expr = (re.sub(r"(\d) w\b", r"\1 * w", e).replace("/", "//") for e in _header_formula())
    lay = layouts.get("wgmma.m64n64k16.d")
    for (thread, reg, _e), coord in lay.coords.items():
        env = {"w": thread // 32, "lane": thread % 32, "i": reg}
        assert coord == (eval(row_expr, {}, env), eval(col_expr, {}, env))  # the formula of our own header


@pytest.mark.parametrize("n", [8, 64, 256])
def test_wgmma_accumulator_covers_the_tile_once_warp_by_warp(n):
    hits = np.zeros((64, n), int)
    for thread in range(128):
        w, lane = divmod(thread, 32)
        for reg in range(n // 2):
            row, col = fr.wgmma_d_coord(thread, reg)
            hits[row, col] += 1
            assert 16 * w <= row < 16 * w + 16
            c_row, c_col = fr.c_coord(lane, reg % 4)  # mma.sync's m16n8 C fragment, repeated along N
            assert (row, col) == (16 * w + c_row, 8 * (reg // 4) + c_col)
    assert (hits == 1).all()
    lay = layouts.get("wgmma.m64n64k16.d")
    for w in range(4):
        assert {lay.coords[(t, r, 0)][0] for t in range(32 * w, 32 * w + 32) for r in range(32)} == set(
            range(16 * w, 16 * w + 16))


# --- the command ---

def test_layout_list(capsys):
    assert cli.main(["layout", "--list"]) == 0
    out = capsys.readouterr().out
    for name in layouts.names():
        assert name in out


def test_layout_prints_a_grid(capsys):
    assert cli.main(["layout", "mma.m16n8k16.a"]) == 0
    out = capsys.readouterr().out
    assert "T0:r0.e0" in out and "T31:r3.e1" in out and "m \\ k" in out
    assert cli.main(["layout", "mma.m16n8k8.c"]) == 0
    out = capsys.readouterr().out
    assert "T31:r3" in out and ".e" not in out.split("\n", 2)[-1]  # one element per register: no .e


def test_unknown_layout_is_exit_2_listing_names(capsys):
    assert cli.main(["layout", "mma.m16n8k4.a"]) == 2
    out = capsys.readouterr().out
    assert "unknown layout" in out and "mma.m16n8k16.a" in out and "wgmma.m64n64k16.d" in out
    assert cli.main(["layout"]) == 2
    assert "ldmatrix.x4.trans" in capsys.readouterr().out


def test_layout_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "a.png"
    assert cli.main(["layout", "mma.m16n8k16.a", "--png", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_layout_png_without_matplotlib_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert cli.main(["layout", "mma.m16n8k16.a", "--png", str(tmp_path / "a.png")]) == 2
    assert "pip install matplotlib" in capsys.readouterr().out
    assert not (tmp_path / "a.png").exists()
