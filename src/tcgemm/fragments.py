"""mma.sync fragment layouts and the mma_sync kernels' shared-memory maps, in Python.

The CUDA side (kernels/include/mma.cuh, ldmatrix.cuh, swizzle.cuh and
kernels/mma_sync/*.cu) restates the PTX ISA's fragment figures as index
formulas; this module restates the same formulas so that
tests/cpu/test_fragment_maps.py can emulate a warp's loads and MMAs with NumPy
and compare with ``A @ B`` — layout mistakes show up without a GPU.

Conventions (PTX ISA, "Matrix Fragments for mma.m16n8k*"): ``g = lane // 4``
(groupID), ``t = lane % 4`` (threadID_in_group). A register is 32 bits holding
``epw`` elements (elements per word: 2 for f16/bf16, 1 for tf32, 4 for s8)
consecutive along k; the instruction's K is ``8 * epw``.
"""

from __future__ import annotations

ELEMS_PER_WORD = {"fp16": 2, "bf16": 2, "tf32": 1, "int8": 4}


def mma_k(precision: str) -> int:
    return 8 * ELEMS_PER_WORD[precision]


# --- the PTX fragment figures (mma.cuh: a_frag_row/col, b_frag_row/col, c_frag_row/col) ---

def a_coord(lane: int, reg: int, elem: int, epw: int) -> tuple[int, int]:
    """(row, k) of element ``elem`` of A register ``reg`` (0..3) of ``lane``; A is 16 x 8*epw."""
    g, t = divmod(lane, 4)
    return g + 8 * (reg & 1), (t + 4 * (reg >> 1)) * epw + elem


def b_coord(lane: int, reg: int, elem: int, epw: int) -> tuple[int, int]:
    """(k, col) of element ``elem`` of B register ``reg`` (0..1); B is 8*epw x 8."""
    g, t = divmod(lane, 4)
    return (t + 4 * reg) * epw + elem, g


def c_coord(lane: int, reg: int) -> tuple[int, int]:
    """(row, col) of accumulator register ``reg`` (0..3); C/D is 16 x 8."""
    g, t = divmod(lane, 4)
    return g + 8 * (reg >> 1), 2 * t + (reg & 1)


# --- wgmma (wgmma.cuh) ---

def wgmma_d_coord(thread: int, reg: int) -> tuple[int, int]:
    """(row, col) of accumulator register ``reg`` (0..N/2-1) of ``thread`` (0..127) of the warpgroup
    for wgmma.m64nNk16 with f32 accumulators: warp w = thread // 32 owns rows 16w..16w+15, inside
    which mma.sync's m16n8 C fragment repeats along N (every 4 registers, 8 columns further)."""
    w, lane = divmod(thread, 32)
    return 16 * w + lane // 4 + 8 * ((reg // 2) % 2), 8 * (reg // 4) + 2 * (lane % 4) + reg % 2


# --- ldmatrix (ldmatrix.cuh) ---

def ldmatrix_piece(lane: int, trans: bool) -> list[tuple[int, int]]:
    """Which (row, b16 column) elements of an 8x8 b16 matrix ``lane`` receives, low half first."""
    if trans:
        return [(2 * (lane % 4), lane // 4), (2 * (lane % 4) + 1, lane // 4)]
    return [(lane // 4, 2 * (lane % 4)), (lane // 4, 2 * (lane % 4) + 1)]


def ldmatrix_a_rows(lane: int, kmajor: bool) -> tuple[int, int]:
    """A x4: (row, 16-byte chunk) of the tile as stored that ``lane`` addresses, relative to
    the fragment corner. K-major [m][k]: (m, k-chunk); MN-major [k][m] (.trans): (k, m-chunk)."""
    q, r8 = divmod(lane, 8)
    if kmajor:
        return r8 + 8 * (q % 2), q // 2
    return r8 + 8 * (q // 2), q % 2


def ldmatrix_b_rows(lane: int, kmajor: bool) -> tuple[int, int]:
    """B x4 over two n8 tiles. K-major [n][k]: (n, k-chunk); MN-major [k][n] (.trans): (k, n-chunk).
    Registers: b[j][0], b[j][1], b[j+1][0], b[j+1][1]."""
    q, r8 = divmod(lane, 8)
    if kmajor:
        return r8 + 8 * (q // 2), q % 2
    return r8 + 8 * (q % 2), q // 2


# --- swizzle.cuh ---

def swizzled_offset(row_bytes: int, rows_per_t: int, row: int, chunk: int) -> int:
    """Byte offset of logical 16-byte chunk ``chunk`` of row ``row`` (swizzle.cuh)."""
    if rows_per_t > 0:
        assert row_bytes % 128 == 0
        mask = ((row // rows_per_t) & 3) << 1
    elif row_bytes % 128 == 0:
        mask = row & 7
    elif row_bytes == 64:
        mask = (row >> 1) & 3
    else:
        assert row_bytes == 32
        mask = (row >> 2) & 1
    return row * row_bytes + ((chunk ^ mask) << 4)


# --- the pipeline kernel's interleaved ("PERM") MN-major tf32 / s8 operands ---

def perm_row(i: int, r: int) -> int:
    """Actual row (within the warp tile) of fragment row ``r`` (0..15) of m16 tile ``i``
    for an interleaved A (02_cp_async_pipeline.cu: acc_row)."""
    return 64 * (i // 4) + 32 * (r // 8) + 4 * (r % 8) + i % 4


def perm_row_paired(i: int, r: int) -> int:
    """Actual row of fragment row ``r`` of m16 tile ``i`` for an interleaved tf32 A whose rows
    k and k+4 were re-interleaved by the rounding pass (acc_row with A_PAIRED)."""
    return 64 * (i // 4) + 32 * ((i % 4) // 2) + 4 * (r % 8) + 2 * (i % 2) + r // 8


def chunk_coords(it: int, tid: int, threads: int, rows: int, cpr: int, paired: bool) -> tuple[int, int]:
    """(row, chunk) a thread copies in iteration ``it`` (02_cp_async_pipeline.cu: chunk_coords)."""
    if paired:
        lin = tid + (it // 2) * threads
        p = lin // cpr
        return (p // 4) * 8 + p % 4 + 4 * (it % 2), lin % cpr
    idx = tid + it * threads
    return idx // cpr, idx % cpr


def perm_col(j: int, c: int) -> int:
    """Actual column (within the warp tile) of fragment column ``c`` (0..7) of n8 tile ``j``
    for an interleaved B (acc_col)."""
    return 32 * (j // 4) + 4 * c + j % 4


def byte_perm(x: int, y: int, selector: int) -> int:
    """CUDA __byte_perm / PRMT (default mode): result byte i = byte (selector nibble i) of y:x."""
    pool = (x & 0xFFFFFFFF) | ((y & 0xFFFFFFFF) << 32)
    out = 0
    for i in range(4):
        sel = (selector >> (4 * i)) & 0x7
        out |= ((pool >> (8 * sel)) & 0xFF) << (8 * i)
    return out


def transpose_bytes_4x4(w: list[int]) -> list[int]:
    """The 8-PRMT 4x4 byte transpose of load_perm4: out[j] byte i = w[i] byte j."""
    t0, t1 = byte_perm(w[0], w[1], 0x5140), byte_perm(w[0], w[1], 0x7362)
    t2, t3 = byte_perm(w[2], w[3], 0x5140), byte_perm(w[2], w[3], 0x7362)
    return [byte_perm(t0, t2, 0x5410), byte_perm(t0, t2, 0x7632),
            byte_perm(t1, t3, 0x5410), byte_perm(t1, t3, 0x7632)]
