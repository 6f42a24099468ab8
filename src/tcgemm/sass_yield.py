"""Yield hints in the fp32 add runs of a compiled kernel: a post-pass over the cubin (configs with SASS_YIELD_EVERY).

Why: fp8 main loops promote the tensor cores' partial sums into an fp32 total, a run of 64-96 FADD or FFMA
instructions per consumer thread (kernels/include/hopper_ktile.cuh, block_scales.cuh). While one consumer's warps
add, the other consumer's warps on the same SM sub-partitions wait to issue their next wgmma. ptxas marks nearly
every instruction of such a run "do not yield" (so that operand reuse stays valid), and the scheduler keeps issuing
from the adding warp. Clearing that mark (and the reuse flags that depend on it) on every k-th add lets the
scheduler switch to a waiting warp in between. DeepGEMM found the same lever in ptxas's own output across CUDA
versions (README, "FFMA SASS interleaving"); this is our own pass over our own builds, measured per config.

How: every Hopper/Ampere SASS instruction is 16 bytes; the second 8 hold the control code: stall cycles in bits
41-44, the yield mark in bit 45, barriers in 46-57, operand reuse flags in 58-61 (offsets within that word). Runs
of at least MIN_RUN consecutive FADD / FFMA (register, uniform or immediate forms) in a kernel's .text sections are
patched in place; nothing else changes (no instruction moves, no size changes), so the cubin stays valid. A yield
mark and a reuse flag are scheduling hints: clearing them changes when instructions issue, never what they compute
(tests/cpu/test_sass_yield.py checks the decoding against cuobjdump and that only those bits change).
"""

from __future__ import annotations

import struct

VERSION = "1"  # (part of the build key of patched cubins: a change here recompiles them)
MIN_RUN = 16
YIELD_BIT = 1 << 45
REUSE_BITS = 0xF << 58
_FP32_ADDS = (0x021, 0x023)  # low 9 bits of the opcode: FADD, FFMA (bits 9-11 pick the operand form)
_SHF_EXECINSTR = 0x4


def is_fp32_add(low: int) -> bool:
    """Whether the instruction whose first 8 bytes are ``low`` is an FADD or FFMA (any operand form)."""
    return (low & 0x1FF) in _FP32_ADDS


def text_sections(cubin: bytes) -> list[tuple[str, int, int]]:
    """(name, file offset, size) of each executable section of an ELF64 cubin."""
    if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
        raise ValueError("not an ELF64 cubin")
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)

    def header(i: int) -> tuple[int, int, int, int, int]:
        name, _type, flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", cubin, shoff + i * shentsize)
        return name, flags, offset, size, _type

    strtab = header(shstrndx)[2]
    found = []
    for i in range(shnum):
        name_at, flags, offset, size, _type = header(i)
        end = cubin.index(b"\0", strtab + name_at)
        name = cubin[strtab + name_at:end].decode()
        if flags & _SHF_EXECINSTR and name.startswith(".text"):
            found.append((name, offset, size))
    return found


def interleave_yields(cubin: bytes, every: int) -> tuple[bytes, int]:
    """``cubin`` with the yield mark and reuse flags cleared on every ``every``-th marked instruction of each run of
    at least MIN_RUN FADD / FFMA; and how many instructions changed."""
    if every < 1:
        raise ValueError(f"every must be 1 or more, got {every}")
    out = bytearray(cubin)
    changed = 0
    for _name, offset, size in text_sections(cubin):
        run: list[int] = []
        for at in range(offset, offset + size - 15, 16):
            low, = struct.unpack_from("<Q", out, at)
            if is_fp32_add(low):
                run.append(at)
                continue
            changed += _patch_run(out, run, every)
            run = []
        changed += _patch_run(out, run, every)
    return bytes(out), changed


def _patch_run(out: bytearray, run: list[int], every: int) -> int:
    """Clear the mark on the 1st, (every + 1)-th, ... of the run's marked instructions (ptxas marks all of an FADD
    run, and the FFMAs of a scaled promotion in turn, those that pass an operand on through the reuse cache)."""
    if len(run) < MIN_RUN:
        return 0
    marked = [at for at in run if struct.unpack_from("<Q", out, at + 8)[0] & YIELD_BIT]
    for at in marked[::every]:
        high, = struct.unpack_from("<Q", out, at + 8)
        struct.pack_into("<Q", out, at + 8, high & ~(YIELD_BIT | REUSE_BITS))
    return len(marked[::every])
