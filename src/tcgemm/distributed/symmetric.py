"""PyTorch symmetric memory for the copy-engine transports: each rank's buffer per (group, device, purpose),
mapped into every peer's address space (``torch.distributed._symmetric_memory``), and the side stream the copies run
on; and the ``store`` transport's reduce-scatter, ordered by barrier kernels (the ``copy`` transport,
:mod:`tcgemm.distributed.pushes`, orders its ranks by flags instead: :mod:`tcgemm.distributed.flags`).

Copies go to a peer (push): a copy within one GPU's memory is an SM kernel, which would crawl beside a GEMM that
fills the SMs; a copy to or from a peer runs on a copy engine.

GEMM + reduce-scatter (``store``, or row parts beyond two ranks). Rank r computes its partial products of blocks
r + 1, r + 2, ..., each written into the owner's inbox by the GEMM's own epilogue over NVLink (``store``) or pushed
by a copy, then its own block's; a barrier kernel says every partial has landed, and one pass sums the own product
and the inbox in rank order, fp32 sums rounded once (tcgemm.distributed.reduce: the result repeats bitwise). A
barrier is a one-block kernel: launched while a persistent GEMM fills every SM, it waits for the GEMM's end. With
``splits`` > 1 the blocks are cut into row parts and the own part's GEMM adds the landed parts in its epilogue
(``c``; beyond two ranks their sum, made by torch's adds).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.distributed as dist

from ..sms import reserve_sms
from .reduce import sum_blocks

_side_streams: dict[int, torch.cuda.Stream] = {}
_workspaces: dict[tuple[str, int, str], tuple[torch.Tensor, Any]] = {}
_retired: list[tuple[torch.Tensor, Any]] = []  # grown-out buffers: a peer's copy may still read them


def _group_name(group: dist.ProcessGroup | None) -> str:
    return (group or dist.group.WORLD).group_name


def available(group: dist.ProcessGroup | None, device: torch.device) -> str | None:
    """None where the copy-engine schedules can run on ``group`` and ``device``, else why not."""
    if device.type != "cuda":
        return f"tensors on {device} (symmetric memory needs CUDA tensors)"
    if dist.get_backend(group) != "nccl":
        return f"the process group's backend is {dist.get_backend(group)}, not nccl"
    try:
        import torch.distributed._symmetric_memory  # noqa: F401
    except ImportError as exc:
        return f"torch.distributed._symmetric_memory cannot be imported ({exc})"
    return None


_order_events: dict[int, tuple[torch.cuda.Event, torch.cuda.Event]] = {}


def _events(device: torch.device) -> tuple[torch.cuda.Event, torch.cuda.Event]:
    """Two events of ``device`` for the copy transport's stream ordering (the calling stream's point for the side
    stream to wait on; the side stream's pushes done), reused by every call: each record is waited for within the
    call that makes it, so the next call may record them again (creating an event per use cost host time)."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    found = _order_events.get(index)
    if found is None:
        found = _order_events[index] = (torch.cuda.Event(), torch.cuda.Event())
    return found


def _side(device: torch.device) -> torch.cuda.Stream:
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _side_streams:
        _side_streams[index] = torch.cuda.Stream(device=index)
    return _side_streams[index]


def workspace(group: dist.ProcessGroup | None, device: torch.device, nbytes: int, purpose: str = "copy") -> Any:
    """This rank's symmetric buffer of at least ``nbytes`` for ``group`` and ``purpose`` (one buffer each: the
    transports' layouts differ), a collective the first time and when it grows: every rank of the group must call
    it with the same size."""
    from torch.distributed import _symmetric_memory as symm

    key = (_group_name(group), device.index if device.index is not None else torch.cuda.current_device(), purpose)
    found = _workspaces.get(key)
    if found is None or found[0].numel() < nbytes:
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError(f"tcgemm.distributed: the symmetric buffer must grow to {nbytes} bytes, which cannot "
                               "happen during CUDA graph capture; run the same call once before capturing")
        if found is not None:
            _retired.append(found)
        tensor = symm.empty(nbytes, dtype=torch.uint8, device=device)
        found = _workspaces[key] = (tensor, symm.rendezvous(tensor, _group_name(group)))
    return found[1]


def gemm_reduce_scatter(x: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None, gemm: Any,
                        parts: list[tuple[int, int]] | None, acc: torch.dtype, reserve: int,
                        store: bool) -> torch.Tensor:
    """``parts`` None: the peers' blocks, then the own block, then the inbox added (one pass, exposed: a block's
    bytes three times over HBM); else per row part, the own block's GEMM adds the inbox in its epilogue.
    ``store``: each partial GEMM writes straight into the owner's inbox over NVLink (its epilogue's stores),
    instead of into a local buffer that a copy then pushes; its first GEMM then waits for the barrier that
    frees the inboxes (a copy waits on the side stream instead, under the first GEMM)."""
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    block, n = x.shape[0] // world, w.shape[1]
    size = torch.empty((), dtype=acc).element_size()
    handle = workspace(group, x.device, world * block * n * size)  # inbox[sender]: block x n
    current, side = torch.cuda.current_stream(x.device), _side(x.device)
    partials = None if store else torch.empty((world - 1, block, n), dtype=acc, device=x.device)
    result = torch.empty((block, n), dtype=acc, device=x.device)

    def inbox(owner: int, sender: int, lo: int, hi: int) -> torch.Tensor:
        return handle.get_buffer(owner, (hi - lo, n), acc, (sender * block + lo) * n)

    ready = current.record_event()  # the last call's GEMMs and sums on the inbox enqueued before

    def inboxes_free() -> None:
        side.wait_event(ready)
        with torch.cuda.stream(side):
            handle.barrier(channel=0)  # every rank's last call has read its inbox

    if store:  # the first GEMM writes into a peer's inbox itself: not before the peer is done with it
        inboxes_free()
        current.wait_stream(side)
    landed = []
    senders = [(rank - step) % world for step in range(1, world)]  # fixed order: bitwise repeats
    own = x[rank * block:(rank + 1) * block]
    for h, (lo, hi) in enumerate(parts or [(0, block)]):
        for step in range(1, world):
            owner = (rank + step) % world
            target = inbox(owner, rank, lo, hi) if partials is None else partials[step - 1, lo:hi]
            with reserve_sms(reserve):
                gemm(x[owner * block + lo:owner * block + hi], w, out=target, out_dtype=acc)
            if h == 0 and step == 1 and not store:  # (after the first launch: the GPU computes meanwhile)
                inboxes_free()
            side.wait_stream(current)
            if partials is not None:
                with torch.cuda.stream(side):
                    inbox(owner, rank, lo, hi).copy_(target)
        with torch.cuda.stream(side):
            handle.barrier(channel=1)  # every rank's partial of this part has landed
            landed.append(side.record_event())
    if parts is None:
        own_product = torch.empty((block, n), dtype=acc, device=x.device)
        with reserve_sms(reserve):  # (beside the last barrier)
            gemm(own, w, out=own_product, out_dtype=acc)
        current.wait_event(landed[0])
        device = x.device.index if x.device.index is not None else torch.cuda.current_device()
        sum_blocks(own_product, handle.get_buffer(rank, (world * block, n), acc, 0), block * n, world, rank, result,
                   device)
    else:
        for h, (lo, hi) in enumerate(parts):
            current.wait_event(landed[h])
            c = inbox(rank, senders[0], lo, hi)
            if len(senders) > 1:
                c = c.clone()
                for sender in senders[1:]:
                    c += inbox(rank, sender, lo, hi)
            with reserve_sms(reserve if h < len(parts) - 1 else 0):
                gemm(own[lo:hi], w, c, out=result[lo:hi], out_dtype=acc)
    current.wait_stream(side)
    return result
