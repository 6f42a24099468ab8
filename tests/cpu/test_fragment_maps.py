"""The mma_sync kernels' fragment maps, emulated with NumPy (no GPU).

For one warp tile the test lays out an A and a B tile in "shared memory" exactly
as the kernels store them (source layout or K-major, padding or XOR swizzle),
computes each lane's fragment registers with the kernels' address formulas and
ldmatrix / ld.shared semantics, executes every mma.sync as the PTX ISA defines
it (tcgemm.fragments: a_coord, b_coord, c_coord), writes each accumulator to
the (row, col) the kernel's epilogue would, and compares with A @ B. It also
checks that the shared-memory accesses the swizzle promises conflict-free are.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcgemm import fragments as fr

DTYPES = {"fp16": np.float16, "bf16": np.float16, "tf32": np.float32, "int8": np.int8}
LAYOUTS = ("rr", "rc", "cr", "cc")


# --- the PTX fragment figures on their own ---

@pytest.mark.parametrize("precision", ["fp16", "tf32", "int8"])
def test_fragment_maps_are_bijections(precision):
    epw = fr.ELEMS_PER_WORD[precision]
    k = fr.mma_k(precision)
    a = {fr.a_coord(lane, r, e, epw) for lane in range(32) for r in range(4) for e in range(epw)}
    b = {fr.b_coord(lane, r, e, epw) for lane in range(32) for r in range(2) for e in range(epw)}
    c = {fr.c_coord(lane, r) for lane in range(32) for r in range(4)}
    assert a == {(i, j) for i in range(16) for j in range(k)}
    assert b == {(i, j) for i in range(k) for j in range(8)}
    assert c == {(i, j) for i in range(16) for j in range(8)}


def test_byte_transpose():
    w = [0x03020100, 0x13121110, 0x23222120, 0x33323130]
    assert fr.transpose_bytes_4x4(w) == [0x30201000, 0x31211101, 0x32221202, 0x33231303]


# --- emulation machinery ---

class Smem:
    """A byte array with the kernels' element and register views."""

    def __init__(self, nbytes: int, dtype):
        self.buf = np.zeros(nbytes, np.uint8)
        self.dtype = np.dtype(dtype)

    def put(self, addr: int, values: np.ndarray) -> None:
        raw = np.ascontiguousarray(values.astype(self.dtype)).view(np.uint8)
        self.buf[addr:addr + raw.size] = raw

    def word(self, addr: int) -> bytes:
        assert addr % 4 == 0
        return self.buf[addr:addr + 4].tobytes()


def ldmatrix(smem: Smem, addrs: list[int], trans: bool) -> list[list[bytes]]:
    """ldmatrix.x4 (.trans): regs[lane][q]; row r of matrix q starts at addrs[8q + r]."""
    for a in addrs:
        assert a % 16 == 0, "ldmatrix rows are 16-byte aligned"
    regs = []
    for lane in range(32):
        out = []
        for q in range(4):
            halves = b"".join(
                smem.buf[addrs[8 * q + r] + 2 * c: addrs[8 * q + r] + 2 * c + 2].tobytes()
                for r, c in fr.ldmatrix_piece(lane, trans)
            )
            out.append(halves)
        regs.append(out)
    return regs


def ldmatrix_conflict_free(addrs: list[int]) -> bool:
    return all(len({(addrs[8 * q + r] % 128) // 16 for r in range(8)}) == 8 for q in range(4))


def decode(word: bytes, dtype) -> np.ndarray:
    return np.frombuffer(word, dtype=dtype).astype(np.float64)


def run_mma(a_regs, b_regs, epw: int, dtype) -> np.ndarray:
    """Executes one mma.sync as the PTX ISA defines it; returns acc[lane][reg]."""
    k = 8 * epw
    amat = np.full((16, k), np.nan)
    bmat = np.full((k, 8), np.nan)
    for lane in range(32):
        for r in range(4):
            for e, v in enumerate(decode(a_regs[lane][r], dtype)):
                amat[fr.a_coord(lane, r, e, epw)] = v
        for r in range(2):
            for e, v in enumerate(decode(b_regs[lane][r], dtype)):
                bmat[fr.b_coord(lane, r, e, epw)] = v
    assert not np.isnan(amat).any() and not np.isnan(bmat).any()
    cmat = amat @ bmat
    return np.array([[cmat[fr.c_coord(lane, r)] for r in range(4)] for lane in range(32)])


class Operand:
    """One operand tile in shared memory as a kernel stores it.

    ``outer`` is BLOCK_M (A) or BLOCK_N (B); ``kmajor`` says how shared memory holds it;
    ``addr(row, chunk)`` maps a stored (row, 16-byte chunk) to a byte address."""

    def __init__(self, tile: np.ndarray, kmajor: bool, dtype, addr_fn, nbytes: int):
        # tile is outer x BLOCK_K (A as m x k, B as n x k)
        self.kmajor, self.addr = kmajor, addr_fn
        self.smem = Smem(nbytes, dtype)
        self.esize = np.dtype(dtype).itemsize
        stored = tile if kmajor else tile.T  # rows of the stored layout
        per_chunk = 16 // self.esize
        for row in range(stored.shape[0]):
            for chunk in range(stored.shape[1] // per_chunk):
                self.smem.put(addr_fn(row, chunk), stored[row, chunk * per_chunk:(chunk + 1) * per_chunk])

    def element_addr(self, row: int, col: int) -> int:
        """Byte address of stored element (row, col)."""
        e = self.esize
        return self.addr(row, (col * e) // 16) + (col * e) % 16


def emulate_warp(precision, kernel, layouts, block_m, block_n, block_k, warp_m, warp_n, warp, seed=0):
    epw = fr.ELEMS_PER_WORD[precision]
    mk = fr.mma_k(precision)
    dtype = DTYPES[precision]
    e = np.dtype(dtype).itemsize
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=(block_m, block_k)).astype(dtype)
    b = rng.integers(-3, 4, size=(block_k, block_n)).astype(dtype)
    src_a_kmajor, src_b_kmajor = layouts[0] == "r", layouts[1] == "c"

    a_perm = b_perm = False
    if kernel == "pipeline":
        a_kmajor, b_kmajor = src_a_kmajor, src_b_kmajor
        a_perm, b_perm = not a_kmajor and e != 2, not b_kmajor and e != 2
        rpt = 1 if e == 4 else 4

        def make_addr(row_bytes, perm):
            return lambda row, chunk: fr.swizzled_offset(row_bytes, rpt if perm else 0, row, chunk)
        a_row_bytes = (block_k if a_kmajor else block_m) * e
        b_row_bytes = (block_k if b_kmajor else block_n) * e
        a_addr, b_addr = make_addr(a_row_bytes, a_perm), make_addr(b_row_bytes, b_perm)
    else:  # 01_mma_ldmatrix: padded rows; tf32/s8 MN-major sources transposed to K-major by the copy
        a_kmajor, b_kmajor = src_a_kmajor or e != 2, src_b_kmajor or e != 2
        a_row_bytes = (block_k if a_kmajor else block_m) * e + 16
        b_row_bytes = (block_k if b_kmajor else block_n) * e + 16
        a_addr = lambda row, chunk: row * a_row_bytes + 16 * chunk  # noqa: E731
        b_addr = lambda row, chunk: row * b_row_bytes + 16 * chunk  # noqa: E731
    nbytes = 2 * max(block_m, block_n) * max(block_k, block_m, block_n) * e + 4096
    A = Operand(a, a_kmajor, dtype, a_addr, nbytes)
    B = Operand(b.T, b_kmajor, dtype, b_addr, nbytes)
    a_paired, b_paired = a_perm and e == 4, b_perm and e == 4
    threads = 32 * (block_m // warp_m) * (block_n // warp_n)
    if kernel == "pipeline":
        for op, rows, row_bytes, paired in ((A, block_m if a_kmajor else block_k, a_row_bytes, a_paired),
                                            (B, block_n if b_kmajor else block_k, b_row_bytes, b_paired)):
            cpr = row_bytes // 16
            owned = [fr.chunk_coords(it, tid, threads, rows, cpr, paired)
                     for tid in range(threads) for it in range(rows * cpr // threads)]
            assert sorted(owned) == [(r, c) for r in range(rows) for c in range(cpr)], "chunk ownership"
            if paired:  # round_tile_tf32's re-interleave of rows k and k + 4
                for tid in range(threads):
                    for u in range(rows * cpr // threads // 2):
                        row, chunk = fr.chunk_coords(2 * u, tid, threads, rows, cpr, True)
                        assert row % 8 < 4
                        dx, dy = op.addr(row, chunk), op.addr(row + 4, chunk)
                        assert dy == dx + 4 * row_bytes
                        x = op.smem.buf[dx:dx + 16].view(np.uint32).copy()
                        y = op.smem.buf[dy:dy + 16].view(np.uint32).copy()
                        if op is A:
                            nx, ny = [x[0], x[1], y[0], y[1]], [x[2], x[3], y[2], y[3]]
                        else:
                            nx, ny = [x[0], y[0], x[1], y[1]], [x[2], y[2], x[3], y[3]]
                        op.smem.buf[dx:dx + 16] = np.array(nx, np.uint32).view(np.uint8)
                        op.smem.buf[dy:dy + 16] = np.array(ny, np.uint32).view(np.uint8)

    # cp.async stores: 8 consecutive chunks of a pipeline tile fill 8 different bank groups.
    if kernel == "pipeline":
        for op, rows, row_bytes in ((A, block_m if a_kmajor else block_k, a_row_bytes),
                                    (B, block_n if b_kmajor else block_k, b_row_bytes)):
            cpr = row_bytes // 16
            for first in range(0, rows * cpr, 8):
                pos = {(op.addr(i // cpr, i % cpr) % 128) // 16 for i in range(first, first + 8)}
                assert len(pos) == 8, "cp.async stores conflict"

    warps_n = block_n // warp_n
    wm, wn = (warp // warps_n) * warp_m, (warp % warps_n) * warp_n
    mt, nt = warp_m // 16, warp_n // 8
    acc = np.zeros((32, mt, nt, 4))
    for s in range(block_k // mk):
        a_regs = [[[b""] * 4 for _ in range(mt)] for _ in range(32)]
        b_regs = [[[b""] * 2 for _ in range(nt)] for _ in range(32)]
        # ---- A fragments
        if a_paired:
            for grp in range(mt // 4):
                for q2 in range(2):
                    for v in range(2):
                        addrs = []
                        for lane in range(32):
                            g, t = divmod(lane, 4)
                            addrs.append(A.element_addr(s * mk + t + 4 * v, wm + 64 * grp + 32 * q2 + 4 * g))
                            a_regs[lane][4 * grp + 2 * q2 + v] = [A.smem.word(addrs[-1] + 4 * w) for w in range(4)]
                        check_perm_conflicts(addrs, e)
        elif a_perm:
            for grp in range(mt // 4):
                for h in range(2):
                    for kh in range(2):
                        addrs = []
                        for lane in range(32):
                            g, t = divmod(lane, 4)
                            k = s * mk + (t + 4 * kh) * epw
                            m = wm + 64 * grp + 32 * h + 4 * g
                            addrs.append(A.element_addr(k, m))
                            words = perm_words(A, addrs[-1], a_row_bytes, e)
                            for jj in range(4):
                                a_regs[lane][4 * grp + jj][h + 2 * kh] = words[jj]
                        check_perm_conflicts(addrs, e)
        else:
            for i in range(mt):
                addrs = []
                for lane in range(32):
                    row, chunk = fr.ldmatrix_a_rows(lane, a_kmajor)
                    if a_kmajor:
                        addrs.append(A.addr(wm + 16 * i + row, 2 * s + chunk))
                    else:
                        addrs.append(A.addr(s * mk + row, (wm + 16 * i) * e // 16 + chunk))
                assert ldmatrix_conflict_free(addrs), "A ldmatrix conflicts"
                regs = ldmatrix(A.smem, addrs, trans=not a_kmajor)
                for lane in range(32):
                    a_regs[lane][i] = regs[lane]
        # ---- B fragments
        if b_paired:
            for grp in range(nt // 4):
                for v in range(2):
                    addrs = []
                    for lane in range(32):
                        g, t = divmod(lane, 4)
                        addrs.append(B.element_addr(s * mk + t + 4 * v, wn + 32 * grp + 4 * g))
                        words = [B.smem.word(addrs[-1] + 4 * w) for w in range(4)]
                        b_regs[lane][4 * grp + 2 * v] = words[0:2]
                        b_regs[lane][4 * grp + 2 * v + 1] = words[2:4]
                    check_perm_conflicts(addrs, e)
        elif b_perm:
            for grp in range(nt // 4):
                for kh in range(2):
                    addrs = []
                    for lane in range(32):
                        g, t = divmod(lane, 4)
                        k = s * mk + (t + 4 * kh) * epw
                        addrs.append(B.element_addr(k, wn + 32 * grp + 4 * g))
                        words = perm_words(B, addrs[-1], b_row_bytes, e)
                        for jj in range(4):
                            b_regs[lane][4 * grp + jj][kh] = words[jj]
                    check_perm_conflicts(addrs, e)
        else:
            for j in range(0, nt, 2):
                addrs = []
                for lane in range(32):
                    row, chunk = fr.ldmatrix_b_rows(lane, b_kmajor)
                    if b_kmajor:
                        addrs.append(B.addr(wn + 8 * j + row, 2 * s + chunk))
                    else:
                        addrs.append(B.addr(s * mk + row, (wn + 8 * j) * e // 16 + chunk))
                assert ldmatrix_conflict_free(addrs), "B ldmatrix conflicts"
                regs = ldmatrix(B.smem, addrs, trans=not b_kmajor)
                for lane in range(32):
                    b_regs[lane][j] = regs[lane][0:2]
                    b_regs[lane][j + 1] = regs[lane][2:4]
        for i in range(mt):
            for j in range(nt):
                acc[:, i, j, :] += run_mma([a_regs[lane][i] for lane in range(32)],
                                           [b_regs[lane][j] for lane in range(32)], epw, dtype)
    # ---- epilogue: each accumulator to its actual (row, col)
    d = np.full((warp_m, warp_n), np.nan)
    for lane in range(32):
        for i in range(mt):
            for j in range(nt):
                for r in range(4):
                    row, col = fr.c_coord(lane, r)
                    if a_paired:
                        row = fr.perm_row_paired(i, row)
                    else:
                        row = fr.perm_row(i, row) if a_perm else 16 * i + row
                    col = fr.perm_col(j, col) if b_perm else 8 * j + col
                    assert np.isnan(d[row, col]), "two accumulators map to one output"
                    d[row, col] = acc[lane, i, j, r]
    want = a.astype(np.float64)[wm:wm + warp_m] @ b.astype(np.float64)[:, wn:wn + warp_n]
    np.testing.assert_array_equal(d, want)


def perm_words(op: Operand, addr: int, row_bytes: int, e: int) -> list[bytes]:
    """load_perm4: tf32 one 16-byte load; s8 four words of rows k..k+3, byte-transposed."""
    if e == 4:
        assert addr % 16 == 0
        return [op.smem.word(addr + 4 * jj) for jj in range(4)]
    words = [int.from_bytes(op.smem.word(addr + ii * row_bytes), "little") for ii in range(4)]
    return [w.to_bytes(4, "little") for w in fr.transpose_bytes_4x4(words)]


def check_perm_conflicts(addrs: list[int], e: int) -> None:
    if e == 4:  # 16-byte loads: 4 phases of 8 lanes, each a full 128-byte set of bank groups
        for p in range(4):
            assert len({(a % 128) // 16 for a in addrs[8 * p:8 * p + 8]}) == 8, "PERM LDS.128 conflicts"
    else:  # 32-bit loads: one wavefront for 32 distinct banks
        assert len({(a % 128) // 4 for a in addrs}) == 32, "PERM LDS.32 conflicts"


# Pipeline configs as in the registry: (precision, BLOCK_M, BLOCK_N, BLOCK_K, WARP_M, WARP_N).
PIPELINE = [
    ("fp16", 128, 256, 64, 64, 64), ("fp16", 256, 128, 64, 64, 64), ("fp16", 128, 128, 64, 64, 64),
    ("fp16", 128, 64, 32, 64, 32),
    ("tf32", 128, 256, 32, 64, 64), ("tf32", 256, 128, 32, 64, 64), ("tf32", 128, 128, 16, 64, 64),
    ("tf32", 128, 64, 16, 64, 32),
    ("int8", 128, 256, 128, 64, 64), ("int8", 256, 128, 128, 64, 64), ("int8", 128, 128, 128, 64, 64),
]
LDMATRIX = [("fp16", 128, 128, 32, 64, 32), ("tf32", 128, 128, 16, 64, 32), ("int8", 128, 128, 64, 64, 32)]


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("cfg", PIPELINE, ids=lambda c: f"{c[0]}-{c[1]}x{c[2]}x{c[3]}")
def test_pipeline_warp_tile(cfg, layouts):
    precision, bm, bn, bk, wm, wn = cfg
    warps = (bm // wm) * (bn // wn)
    emulate_warp(precision, "pipeline", layouts, bm, bn, bk, wm, wn, warp=warps - 1)


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("cfg", LDMATRIX, ids=lambda c: c[0])
def test_ldmatrix_warp_tile(cfg, layouts):
    precision, bm, bn, bk, wm, wn = cfg
    warps = (bm // wm) * (bn // wn)
    emulate_warp(precision, "ldmatrix", layouts, bm, bn, bk, wm, wn, warp=warps - 2)


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("cfg", PIPELINE, ids=lambda c: f"{c[0]}-{c[1]}x{c[2]}x{c[3]}")
def test_pipeline_copy_offsets(cfg, layouts):
    """TileCopy (02_cp_async_pipeline.cu) walks a thread's chunks as row0 + delta(it) in one chunk
    column and, when STRAIGHT, addresses them as offset(0) + delta(it) * ROW_BYTES: both must agree
    with chunk_coords and the swizzle for every thread and iteration."""
    precision, bm, bn, bk, wm, wn = cfg
    e = np.dtype(DTYPES[precision]).itemsize
    threads = 32 * (bm // wm) * (bn // wn)
    rpt = 1 if e == 4 else 4
    for kmajor, outer in ((layouts[0] == "r", bm), (layouts[1] == "c", bn)):
        perm = not kmajor and e != 2
        paired = perm and e == 4
        rows, row_bytes = (outer, bk * e) if kmajor else (bk, outer * e)
        cpr = row_bytes // 16
        iters = rows * cpr // threads
        assert threads % cpr == 0
        rpi = threads // cpr
        period = 4 * rpt if perm else 8
        straight = paired or rpi % period == 0 or iters == 1

        def delta(it):
            return (it // 2) * 2 * rpi + 4 * (it % 2) if paired else it * rpi  # noqa: B023

        for tid in range(threads):
            row0, chunk0 = fr.chunk_coords(0, tid, threads, rows, cpr, paired)
            off0 = fr.swizzled_offset(row_bytes, rpt if perm else 0, row0, chunk0)
            for it in range(iters):
                assert fr.chunk_coords(it, tid, threads, rows, cpr, paired) == (row0 + delta(it), chunk0)
                if straight:
                    want = fr.swizzled_offset(row_bytes, rpt if perm else 0, row0 + delta(it), chunk0)
                    assert off0 + delta(it) * row_bytes == want
