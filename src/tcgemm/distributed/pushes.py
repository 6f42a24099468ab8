"""The ``copy`` transport: one GEMM launch per rank's rows, operands and partial sums pushed into the peers'
symmetric-memory inboxes by the GPU's copy engines (``cudaMemcpyAsync`` to a peer: no SM), the ranks ordered by the
flags of :mod:`tcgemm.distributed.flags` (stream memory operations: no SM either). So every GEMM keeps every SM:
nothing that the schedule waits for has to find room beside a persistent GEMM. (Until flags, barrier kernels did
the ordering, and each one waited for the GEMM in flight to end: :mod:`tcgemm.distributed.symmetric` keeps that
form for the ``store`` transport.)

The calling stream runs the GEMMs; a side stream the copies and the flag writes. The first GEMM is launched before
the transfers are enqueued, so the GPU computes while the host works; the transfers are enqueued before any GEMM
that waits for them (were two streams to share one of the GPU's hardware queues, a wait ahead of its own transfer
would never end).

all-gather + GEMM. Calling stream: the own shard's GEMM. Side stream: per step s = 1 .. W - 1, claim rank r + s's
inbox (free), push the own shard into its slot r, set ready[r] there. Calling stream, per step s: wait for
ready[r - s], the GEMM of rank r - s's shard where it landed. Each rank pushes one shard at a time, so shard r - s
arrives after s transfers, in the order the GEMMs take them. Then the ready flags reset and the inbox released.

GEMM + reduce-scatter. Rank r computes its partial products of blocks r + 1, r + 2, ..., each pushed into the
owner's inbox (slot r) as soon as its GEMM ends (claim, copy, landed[r] there), then its own block's while they
travel; one pass (``kernels/util/sum_blocks.cu``, which waits for the landed flags itself) sums the own product and
the inbox in rank order, fp32 sums rounded once: the same bits on every call. That pass is exposed (W + 1 blocks'
bytes over HBM after the last GEMM). With ``QUEUE_SUM`` (by default on two ranks), where tcgemm's own GEMM runs the
own block, the sum runs under that GEMM instead, tile by tile as the GEMM announces its stored tiles
(:mod:`tcgemm.distributed.tilequeue`): what is left exposed is the sum of the GEMM's last round of tiles. On two
ranks with ``splits`` > 1 the blocks are cut into row parts instead, and each of the own block's parts adds the
landed part of the peer in its GEMM's epilogue (``c``, beta = 1): no
pass, twice the launches (:func:`gemm_reduce_scatter_parts`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from . import symmetric, tilequeue
from .flags import FLAGS_BYTES, LANDED, MAX_WORLD, READY, Flags, buffer, copy_async
from .reduce import sum_blocks

# The own block's sum under its GEMM (tcgemm.distributed.tilequeue) where it can run, else the GEMM, then the pass.
# None (the default): on two ranks only. Three runs on two H200s, CUDA graphs: 0.3-1.2% faster at M = 4096-16384,
# every time; four ranks level or 1% behind (a quarter of the rows leaves its last round too few SMs for W + 1
# blocks' bytes); eager within the runs' spread (docs/tensor-parallel.md). True / False: always / never
# (TCGEMM_TP_QUEUE=1 / 0 at import).
QUEUE_SUM: bool | None = {"1": True, "0": False}.get(os.environ.get("TCGEMM_TP_QUEUE", ""))


@dataclass
class _Views:
    """One call shape's flags and inbox views, made once (a call's host time before its first GEMM is time the GPU
    idles when the call starts an idle stream; creating the views took ~10 us each)."""

    fl: Flags
    pushes: tuple[torch.Tensor | None, ...]  # [target]: this rank's slot in rank target's inbox
    inbox: tuple[torch.Tensor | None, ...]  # [source]: rank source's slot in this rank's inbox
    whole: torch.Tensor  # this rank's inbox, every slot


_views: dict[tuple, _Views] = {}


def _views_for(kind: str, group: dist.ProcessGroup | None, device: torch.device, world: int, rank: int,
               rows: int, cols: int, dtype: torch.dtype) -> _Views:
    """Slots of ``rows`` x ``cols`` elements of ``dtype``, one per rank, in the ``kind`` buffer's inbox."""
    size = torch.empty((), dtype=dtype).element_size()
    handle = buffer(kind, group, device, FLAGS_BYTES + world * rows * cols * size)
    key = (kind, symmetric._group_name(group), device.index, rows, cols, dtype)
    found = _views.get(key)
    if found is None or found.fl.handle is not handle:
        head = FLAGS_BYTES // size

        def slot(owner: int, source: int) -> torch.Tensor:
            return handle.get_buffer(owner, (rows, cols), dtype, head + source * rows * cols)

        found = _views[key] = _Views(Flags(handle, rank),
                                     tuple(slot(t, rank) if t != rank else None for t in range(world)),
                                     tuple(slot(rank, s) if s != rank else None for s in range(world)),
                                     handle.get_buffer(rank, (world * rows, cols), dtype, head))
    return found


def all_gather_gemm(x_shard: torch.Tensor, w: torch.Tensor, out: torch.Tensor, group: dist.ProcessGroup | None,
                    gemm: Any, world: int, rank: int) -> torch.Tensor:
    m, k = x_shard.shape
    x_shard = x_shard.contiguous()
    current, side = torch.cuda.current_stream(x_shard.device), symmetric._side(x_shard.device)
    order, pushed = symmetric._events(x_shard.device)
    written = current.record_event(order)  # x_shard written
    gemm(x_shard, w, out=out[rank * m:(rank + 1) * m])  # first: the GPU computes while the host enqueues the rest
    v = _views_for("copy-gather", group, x_shard.device, world, rank, m, k, x_shard.dtype)
    side.wait_event(written)
    for step in range(1, world):  # step s brings rank r - s's shard here, and r's to r + s
        target = (rank + step) % world
        v.fl.claim(side, target)
        copy_async(side, v.pushes[target], x_shard)
        v.fl.set_at(side, target, READY + rank)
    side.record_event(pushed)
    for step in range(1, world):
        source = (rank - step) % world
        v.fl.wait(current, READY + source)
        gemm(v.inbox[source], w, out=out[source * m:(source + 1) * m])
    v.fl.clear(current, READY, world)  # (after the GEMMs that waited on them)
    v.fl.release(current, side, world, pushed, order)
    return out


def gemm_reduce_scatter(x: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None, gemm: Any,
                        acc: torch.dtype, world: int, rank: int, own_gemm: bool = False) -> torch.Tensor:
    """``own_gemm``: ``gemm`` is tcgemm's own (the sum may then run under the own block's GEMM)."""
    block, n = x.shape[0] // world, w.shape[1]
    current, side = torch.cuda.current_stream(x.device), symmetric._side(x.device)
    partials = torch.empty((world - 1, block, n), dtype=acc, device=x.device)
    first = (rank + 1) % world  # the peers' blocks, block r + 1 first: launched before anything else
    gemm(x[first * block:(first + 1) * block], w, out=partials[0], out_dtype=acc)
    v = _views_for("copy-scatter", group, x.device, world, rank, block, n, acc)
    order, pushed = symmetric._events(x.device)
    for step in range(1, world):
        owner = (rank + step) % world
        if step > 1:
            gemm(x[owner * block:(owner + 1) * block], w, out=partials[step - 1], out_dtype=acc)
        side.wait_event(current.record_event(order))
        v.fl.claim(side, owner)
        copy_async(side, v.pushes[owner], partials[step - 1])
        v.fl.set_at(side, owner, LANDED + rank)
    side.record_event(pushed)
    x_own = x[rank * block:(rank + 1) * block]
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    queue = world == 2 if QUEUE_SUM is None else QUEUE_SUM
    q = (tilequeue.prepare(x_own, w, acc, world, rank) if own_gemm and queue and x_own.data_ptr() % 16 == 0
         and w.data_ptr() % 16 == 0 else None)
    if q is not None:  # the sum under the GEMM, tile by tile (tcgemm.distributed.tilequeue)
        result = tilequeue.run(q, x_own, w, v.whole, v.fl.address(LANDED))
    else:
        own = torch.empty((block, n), dtype=acc, device=x.device)
        result = torch.empty((block, n), dtype=acc, device=x.device)
        gemm(x_own, w, out=own, out_dtype=acc)
        sum_blocks(own, v.whole, block * n, world, rank, result, device,
                   landed=v.fl.address(LANDED))  # (it waits for the landed flags itself)
    v.fl.clear(current, LANDED, world)
    v.fl.release(current, side, world, pushed, order)
    return result


def gemm_reduce_scatter_parts(x: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None, gemm: Any,
                              parts: list[tuple[int, int]], acc: torch.dtype, rank: int) -> torch.Tensor:
    """Two ranks, ``splits`` > 1: the peer block's row parts first, each pushed into the peer's inbox as soon as its
    GEMM ends, then the own block's parts, each GEMM adding the landed part in its epilogue (the own partial sum in
    fp32 plus the peer's, rounded once). Part h's push runs under the GEMM of part h + 1, so the own parts' GEMMs
    find their C landed. Measured slower than the pass in CUDA graphs (docs/tensor-parallel.md): C in the epilogue
    costs more than the pass it saves."""
    peer, block, n = 1 - rank, x.shape[0] // 2, w.shape[1]
    if len(parts) > MAX_WORLD:
        raise ValueError(f"gemm_reduce_scatter: at most {MAX_WORLD} row parts per block on two ranks; got {len(parts)}")
    v = _views_for("copy-parts", group, x.device, 2, rank, block, n, acc)
    current, side = torch.cuda.current_stream(x.device), symmetric._side(x.device)
    partial = torch.empty((block, n), dtype=acc, device=x.device)
    result = torch.empty((block, n), dtype=acc, device=x.device)
    for h, (lo, hi) in enumerate(parts):
        gemm(x[peer * block + lo:peer * block + hi], w, out=partial[lo:hi], out_dtype=acc)
        side.wait_event(current.record_event())
        with torch.cuda.stream(side):
            if h == 0:
                v.fl.claim(side, peer)
            v.pushes[peer][lo:hi].copy_(partial[lo:hi])
            v.fl.set_at(side, peer, LANDED + h)
    pushed = side.record_event()
    own = x[rank * block:(rank + 1) * block]
    for h, (lo, hi) in enumerate(parts):
        v.fl.wait(current, LANDED + h)
        gemm(own[lo:hi], w, v.inbox[peer][lo:hi], out=result[lo:hi], out_dtype=acc)
    v.fl.mine[LANDED:LANDED + len(parts)].zero_()  # (after the GEMMs that waited on them)
    v.fl.release(current, side, 2, pushed)
    return result
