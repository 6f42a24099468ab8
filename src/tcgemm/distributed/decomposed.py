"""The entry points (argument checks, the choice of transport) and the ``nccl`` transport's schedules: per-rank
chunks around a ring of point-to-point transfers of the process group, one GEMM per chunk. (The ``copy`` and
``store`` transports, the default for CUDA tensors of an NCCL group: :mod:`tcgemm.distributed.symmetric`.)

Ring: rank r sends to r + 1 and receives from r - 1 (ranks of ``group``, modulo its size W).

all-gather + GEMM. Step s (0 .. W-1) multiplies the row shard of rank r - s, which arrived at step s - 1,
while that shard travels on to r + 1 and the next one arrives from r - 1: W GEMMs, W - 1 transfers, each
transfer under a GEMM. Two receive buffers alternate (a buffer is refilled two steps after it was filled,
when its send and its GEMM are done).

GEMM + reduce-scatter. Row block j of the sum over ranks ends at rank j. Step s computes rank r's part of
block r - s - 1 and adds the partial sum of that block that rank r - 1 computed at step s - 1, in the GEMM's
epilogue (``c``); at step W - 1 the block is r's own and the sum is complete. Every step waits for the previous
rank's, so each block is cut into ``splits`` row parts that move independently: while part h travels, part
h + 1 is multiplied. Block j's terms are added in the order j + 1, j + 2, ..., j (ranks), the same on every call:
the result repeats bitwise.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from itertools import pairwise
from typing import Any, Protocol

import torch
import torch.distributed as dist

from ..sms import reserve_sms
from ..sms import reserved as reserved_sms
from . import fused, pushes, symmetric

TRANSPORTS = ("auto", "fused", "copy", "store", "nccl")
NCCL_RESERVED_SMS = 8  # room for NCCL's point-to-point kernels (a few blocks per peer) beside the GEMMs


class GemmFn(Protocol):
    """``a @ b (+ c)``, into ``out`` when given, with a result of ``out_dtype`` (default: a's dtype)."""

    def __call__(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, *,
                 out: torch.Tensor | None = None, out_dtype: torch.dtype | None = None) -> torch.Tensor: ...


_entry_gemm: Any = None  # tcgemm.entry.gemm, imported at the first call (the package imports this module)


def default_gemm(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, *, out: torch.Tensor | None = None,
                 out_dtype: torch.dtype | None = None) -> torch.Tensor:
    """tcgemm's GEMM for CUDA tensors (``c`` added in its epilogue); torch's for CPU tensors (gloo runs, tests)."""
    if a.is_cuda:
        global _entry_gemm
        if _entry_gemm is None:
            from ..entry import gemm as _entry_gemm
        return _entry_gemm(a, b, c, beta=1.0 if c is not None else 0.0, out=out, out_dtype=out_dtype)
    dtype = out_dtype or a.dtype
    y = a.to(dtype) @ b.to(dtype)
    if c is not None:
        y = y + c.to(dtype)
    if out is None:
        return y
    out.copy_(y)
    return out


_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


# Per process group (weakly: a group kept alive past destroy_process_group aborts the process at exit):
# (world, rank, next, previous), and why the copy-engine schedules cannot run on CUDA tensors or None. Worked
# out once: a call's host time before its first GEMM launch is time the GPU idles when the call starts an
# idle stream.
_groups: weakref.WeakKeyDictionary[Any, tuple[tuple[int, int, int, int], str | None]] = weakref.WeakKeyDictionary()


def _group_facts(group: dist.ProcessGroup | None) -> tuple[tuple[int, int, int, int], str | None]:
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("tcgemm.distributed needs a process group: call torch.distributed.init_process_group "
                           "first (torchrun sets the environment it reads)")
    pg = group if group is not None else dist.group.WORLD
    found = _groups.get(pg)
    if found is None:
        world, rank = dist.get_world_size(group), dist.get_rank(group)

        def glob(r: int) -> int:
            return r if group is None else dist.get_global_rank(group, r)

        ring = (world, rank, glob((rank + 1) % world), glob((rank - 1) % world))
        found = _groups[pg] = (ring, symmetric.available(group, torch.device("cuda")))
    return found


def _ring(group: dist.ProcessGroup | None) -> tuple[int, int, int, int]:
    """(world size, this rank, next rank, previous rank): ranks of ``group``, next/previous as global ranks."""
    return _group_facts(group)[0]


def _exchange(send: torch.Tensor, recv: torch.Tensor, nxt: int, prev: int, group: dist.ProcessGroup | None,
              tag: int) -> list[dist.Work]:
    """Send ``send`` to the next rank and receive ``recv`` from the previous one, asynchronously. ``tag``
    tells apart transfers in flight together (gloo matches by it; NCCL keeps the order of posting)."""
    return dist.batch_isend_irecv([dist.P2POp(dist.isend, send, nxt, group, tag),
                                   dist.P2POp(dist.irecv, recv, prev, group, tag)])


# gemm_reduce_scatter's ``auto`` takes ``fused`` from this many ranks and rows per rank on (CUDA tensors; ``copy``
# where the fused kernel cannot take the call). Four H200s at 0aa539a (2026-11-28-h200-tp4-graphs-0aa539a.json,
# time over the GEMM alone, M = 8192 / 16384): fused 1.039 / 1.039 in CUDA graphs and 1.064 / 1.060 eager against
# copy's 1.056 / 1.064 and 1.103 / 1.071; at M = 4096 (1024 rows a rank) fused 1.094 / 1.149 against 1.074 / 1.164.
# Two ranks: copy ahead (1.034 against 1.043 at M = 8192 on two H100s, ...-h100-tp2-count-batch-ab-8a82594.json).
FUSED_RS_MIN_WORLD = 4
FUSED_RS_MIN_ROWS = 2048


def fused_by_default(world: int, rows_per_rank: int) -> bool:
    """Whether gemm_reduce_scatter's ``auto`` runs the ``fused`` transport for CUDA tensors (see above)."""
    return world >= FUSED_RS_MIN_WORLD and rows_per_rank >= FUSED_RS_MIN_ROWS


def _transport(transport: str, group: dist.ProcessGroup | None, device: torch.device, name: str) -> str:
    """The transport a call runs: ``copy`` / ``store`` / ``fused`` (symmetric memory) where they can run, else
    ``nccl``. (``fused`` falls back to ``copy`` where its kernel cannot take the call, unless asked for by name.)"""
    if transport not in TRANSPORTS:
        raise ValueError(f"{name}: transport must be one of {', '.join(TRANSPORTS)}; got {transport!r}")
    why_not = _group_facts(group)[1] if device.type == "cuda" else symmetric.available(group, device)
    if transport == "auto":  # (gemm_reduce_scatter may take "fused" instead: fused_by_default)
        return "nccl" if why_not else "copy"
    if transport != "nccl" and why_not:
        raise ValueError(f"{name}: transport={transport!r} needs PyTorch symmetric memory, unavailable here: "
                         f"{why_not}; use transport='nccl' (point-to-point transfers of the process group)")
    return transport


def _within(reserve: int, fn: Callable[..., torch.Tensor], *args: Any, **kwargs: Any) -> torch.Tensor:
    """``fn(*args, **kwargs)`` inside ``reserve_sms(reserve)``, or called as it is where that block would change
    nothing (no SMs to leave free, none left free by an outer block): the context costs host time before the first
    GEMM, time the GPU idles when the call starts an idle stream."""
    if not reserve and not reserved_sms():
        return fn(*args, **kwargs)
    with reserve_sms(reserve):
        return fn(*args, **kwargs)


def _reserve(reserve: int | None, transport: str, x: torch.Tensor, operation: str, world: int) -> int:
    if not x.is_cuda:
        return 0
    if reserve is None:
        return NCCL_RESERVED_SMS if transport == "nccl" else 0
    return reserve


def _check_operands(x: torch.Tensor, w: torch.Tensor, name: str) -> None:
    if x.dim() != 2 or w.dim() != 2:
        raise ValueError(f"{name}: x and w must be 2-D (rows x K and K x N); got {tuple(x.shape)} and "
                         f"{tuple(w.shape)}")
    if x.shape[1] != w.shape[0]:
        raise ValueError(f"{name}: x has K = {x.shape[1]} columns but w has {w.shape[0]} rows; pass w as K x N "
                         "(a torch.nn.Linear weight is N x K: pass weight.t())")
    if x.dtype not in _FLOATS or w.dtype != x.dtype:
        raise TypeError(f"{name}: x and w must share one of float16, bfloat16, float32; got {x.dtype} and {w.dtype}")
    if x.device != w.device:
        raise ValueError(f"{name}: x is on {x.device} and w on {w.device}; put both on this rank's device")


def all_gather_gemm(x_shard: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None = None, *,
                    gemm: GemmFn | None = None, out: torch.Tensor | None = None, transport: str = "auto",
                    reserve: int | None = None) -> torch.Tensor:
    """``all_gather(x_shard, dim=0) @ w``: (W · m) x N, the rows of rank i's shard at rows [i · m, (i + 1) · m).

    ``x_shard``: this rank's m x K rows (every rank the same m); ``w``: K x N (this rank's column shard of a
    column-parallel layer's weight, transposed). ``gemm``: the per-chunk GEMM (default :func:`default_gemm`).
    ``out``: a contiguous (W · m) x N tensor to write, else a new one of x's dtype. ``transport``: ``fused``
    runs one GEMM over all rows that waits in the kernel for each peer's shard to land (pushed by the copy engines
    into symmetric memory; :mod:`tcgemm.distributed.fused`: bf16/fp16 on Hopper, m a multiple of 128, tcgemm's own
    GEMM), ``copy`` (``store`` is the same here) one GEMM per shard as it lands (:mod:`tcgemm.distributed.pushes`),
    ``nccl`` passes the shards around a ring of NCCL point-to-point transfers; ``auto``: ``copy`` for CUDA tensors of
    an NCCL group, else ``nccl`` (``fused`` measured slower eager: its host path; docs/tensor-parallel.md).
    ``reserve``: SMs the GEMMs leave free (default 8 for NCCL's transfer kernels, else 0: copies and flags need no
    SM)."""
    _check_operands(x_shard, w, "all_gather_gemm")
    world, rank, nxt, prev = _ring(group)
    asked, transport = transport, _transport(transport, group, x_shard.device, "all_gather_gemm")
    reserve_arg, reserve = reserve, _reserve(reserve, transport, x_shard, "all_gather_gemm", world)
    gemm = gemm or default_gemm
    m, n = x_shard.shape[0], w.shape[1]
    if out is None:
        out = torch.empty((world * m, n), dtype=x_shard.dtype, device=x_shard.device)
    elif tuple(out.shape) != (world * m, n) or not out.is_contiguous():
        raise ValueError(f"all_gather_gemm: out must be a contiguous {world * m} x {n} tensor; got "
                         f"{tuple(out.shape)}{'' if out.is_contiguous() else ' (not contiguous)'}")
    if transport == "fused" and world > 1:
        try:
            if gemm is not default_gemm:
                raise fused.FusedUnavailable("a gemm of the caller's (the fused launch is tcgemm's own kernel)")
            return fused.all_gather_gemm(x_shard, w, out, group, world, rank)
        except fused.FusedUnavailable as exc:
            if asked == "fused":
                raise ValueError(f"all_gather_gemm: transport='fused' cannot run this call: {exc}; use "
                                 "transport='copy'") from exc
            transport, reserve = "copy", _reserve(reserve_arg, "copy", x_shard, "all_gather_gemm", world)
    if transport != "nccl" and world > 1:
        return _within(reserve, pushes.all_gather_gemm, x_shard, w, out, group, gemm, world, rank)
    current = x_shard.contiguous()
    buffers = [torch.empty_like(current), torch.empty_like(current)] if world > 1 else []
    for step in range(world):
        source = (rank - step) % world
        works = []
        if step < world - 1:  # the shard goes on to the next rank while the one before's arrives
            works = _exchange(current, buffers[step % 2], nxt, prev, group, step)
        with reserve_sms(reserve if works else 0):
            gemm(current, w, out=out[source * m:(source + 1) * m])
        for work in works:
            work.wait()
        if works:
            current = buffers[step % 2]
    return out


def gemm_reduce_scatter(x: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None = None, *,
                        gemm: GemmFn | None = None, splits: int | None = None,
                        accumulate_dtype: torch.dtype | None = None, transport: str = "auto",
                        reserve: int | None = None) -> torch.Tensor:
    """Row block ``rank`` of ``sum over ranks (x @ w)``: (M / W) x N.

    ``x``: M x K_r (this rank's K columns: the input of a row-parallel layer), ``w``: K_r x N; M a multiple of
    the group's size W. Partial sums travel in x's dtype, or in ``accumulate_dtype`` (e.g. torch.float32: the
    result is rounded to x's dtype once, at the end). ``splits``: row parts per block, sent one by one so that
    a part's transfer runs under the next part's GEMM (default 2 for ``nccl``; 1 for the others, whose partial
    sums travel under the own block's GEMM: see :mod:`tcgemm.distributed.pushes`). ``transport``: ``fused``
    runs one GEMM over all M rows whose kernel counts each block out as it is stored, pushed to its owner at once
    (:mod:`tcgemm.distributed.fused`: bf16/fp16 on Hopper, M / W a multiple of 128, tcgemm's own GEMM, splits 1),
    ``copy`` pushes each partial sum into its owner's symmetric-memory inbox with the copy engines, ``store`` has the
    GEMM write it there itself, ``nccl`` passes partial sums around a ring of NCCL point-to-point transfers;
    ``auto``: for CUDA tensors of an NCCL group ``fused`` from four ranks and 2048 rows per rank on
    (:func:`fused_by_default`), else ``copy``; ``nccl`` for the others. ``reserve``: as :func:`all_gather_gemm`'s."""
    _check_operands(x, w, "gemm_reduce_scatter")
    world, rank, nxt, prev = _ring(group)
    asked, transport = transport, _transport(transport, group, x.device, "gemm_reduce_scatter")
    reserve_arg, reserve = reserve, _reserve(reserve, transport, x, "gemm_reduce_scatter", world)
    if x.shape[0] % world:
        raise ValueError(f"gemm_reduce_scatter: M = {x.shape[0]} rows do not split into {world} equal blocks; "
                         f"pad M to a multiple of {world}")
    if splits is None:
        splits = 2 if transport == "nccl" else 1
    if splits < 1:
        raise ValueError(f"gemm_reduce_scatter: splits must be 1 or more, got {splits}")
    gemm = gemm or default_gemm
    acc = accumulate_dtype or x.dtype
    if acc not in _FLOATS:
        raise TypeError(f"gemm_reduce_scatter: accumulate_dtype must be float16, bfloat16 or float32; got {acc}")
    block, n = x.shape[0] // world, w.shape[1]
    if asked == "auto" and transport == "copy" and fused_by_default(world, block):
        transport = "fused"  # (back to copy below where the fused kernel cannot take the call)
    bounds = [block * h // splits for h in range(splits + 1)]
    parts = [(lo, hi) for lo, hi in pairwise(bounds) if hi > lo]
    if transport == "fused" and world > 1:
        try:
            if gemm is not default_gemm or splits > 1:
                raise fused.FusedUnavailable("a gemm of the caller's, or splits > 1 (the fused launch is one GEMM of "
                                             "tcgemm's own)")
            result = fused.gemm_reduce_scatter(x, w, group, acc, world, rank)
            return result if acc == x.dtype else result.to(x.dtype)
        except fused.FusedUnavailable as exc:
            if asked == "fused":
                raise ValueError(f"gemm_reduce_scatter: transport='fused' cannot run this call: {exc}; use "
                                 "transport='copy'") from exc
            transport, reserve = "copy", _reserve(reserve_arg, "copy", x, "gemm_reduce_scatter", world)
    if transport == "copy" and world > 1 and (len(parts) == 1 or world == 2):
        result = (_within(reserve, pushes.gemm_reduce_scatter, x, w, group, gemm, acc, world, rank,
                          own_gemm=gemm is default_gemm) if len(parts) == 1 else
                  _within(reserve, pushes.gemm_reduce_scatter_parts, x, w, group, gemm, parts, acc, rank))
        return result if acc == x.dtype else result.to(x.dtype)
    if transport != "nccl" and world > 1:  # store, or row parts beyond two ranks: barrier kernels
        result = symmetric.gemm_reduce_scatter(x, w, group, gemm, parts if splits > 1 else None, acc, reserve,
                                               store=transport == "store")
        return result if acc == x.dtype else result.to(x.dtype)
    # per part: (the partial sum arriving, the one sent, the transfers): both tensors held until the wait
    arriving: list[tuple[torch.Tensor, torch.Tensor, list[dist.Work]] | None] = [None] * len(parts)
    result = torch.empty((block, n), dtype=acc, device=x.device)
    for step in range(world):
        b = (rank - step - 1) % world  # the block this step adds to
        for h, (lo, hi) in enumerate(parts):
            c = None
            if arriving[h] is not None:
                c, _, works = arriving[h]
                for work in works:
                    work.wait()
            rows = x[b * block + lo:b * block + hi]
            if step == world - 1:
                with reserve_sms(reserve if h < len(parts) - 1 else 0):
                    gemm(rows, w, c, out=result[lo:hi], out_dtype=acc)
                continue
            with reserve_sms(reserve):
                partial = gemm(rows, w, c, out_dtype=acc)
            incoming = torch.empty((hi - lo, n), dtype=acc, device=x.device)
            arriving[h] = (incoming, partial, _exchange(partial, incoming, nxt, prev, group, step * len(parts) + h))
    return result if acc == x.dtype else result.to(x.dtype)
