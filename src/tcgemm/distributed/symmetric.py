"""The copy-engine schedules: operands and partial sums move through PyTorch symmetric memory with
``cudaMemcpyAsync`` (the GPU's copy engines, over NVLink), so the transfers take no SM from the GEMMs.

Each rank keeps one symmetric buffer per (group, device), mapped into every peer's address space
(``torch.distributed._symmetric_memory``). The calling stream runs the GEMMs; a side stream runs the copies
and the barriers that order them. A barrier is a one-block kernel: launched while a persistent GEMM fills every
SM it waits for the GEMM's end. Where a GEMM waits for the barrier's result, the GEMM before it leaves SMs free
(:func:`tcgemm.reserve_sms`, ``reserve`` below; all-gather at W > 2: step s's barrier frees step s + 1's copy);
copies need none. Reduce-scatter waits for its barriers only after its last GEMM, and all-gather at W = 2 for its
first only, which the GPU starts beside the first GEMM when both are launched onto an idle GPU: there the GEMMs
keep every SM (two H100s, CUDA graphs / eager, M = 4096 / 8192 / 16384: reduce-scatter 1.03 / 1.04 / 1.03x
against 1.02 / 1.05 / 1.05x with two SMs left free, eager 1.11 / 1.08 / 1.03x against 1.18 / 1.14 / 1.08x;
all-gather 1.01 / 1.00 / 1.03x, eager 1.09 / 1.04 / 1.03x against 1.12 / 1.07 / 1.04x,
benchmarks/results/2026-11-27-h100-tp2-graphs-0a05dae.json, modes tcgemm_r0 and tcgemm).

Copies go to a peer (push): a copy within one GPU's memory is an SM kernel, which would crawl beside a GEMM
that fills the SMs; a copy to or from a peer runs on a copy engine. The first GEMM is launched before the
transfers are set up, so the GPU computes while the host enqueues them.

all-gather + GEMM (push). Rank r's buffer has an inbox per sender. Calling stream: the GEMM of the own shard at
once. Side stream: barrier (every rank's last GEMMs on its inbox are done), then per step s = 1 .. W - 1 a
copy of the own shard into inbox[r] of rank r + s and a barrier (every rank's step-s copy has landed, so rank
r holds rank r - s's shard). Calling stream: the GEMM of rank r - s's shard after step s, read where it
landed. One copy at a time per rank: each shard arrives after one shard's transfer time, not after all W - 1.

GEMM + reduce-scatter (push). Rank r's buffer has an inbox per sender for rank r's row block. Rank r computes
its partial products of blocks r + 1, r + 2, ..., each pushed into the owner's inbox by a copy as soon as its
GEMM ends, then its own block's while they travel; a barrier says every partial has landed, and one pass sums
the own block's product and the inbox in rank order, fp32 sums rounded once (tcgemm.distributed.reduce: the
result repeats bitwise). That last pass is exposed: W + 1 blocks' bytes over HBM (the slot-by-slot adds it
replaced moved 3 (W - 1): ~3% of the GEMM at M = 8192 on two H100s, 3 times that at four ranks); with
``splits`` > 1 the blocks are cut into row parts instead and the own part's GEMM adds the landed part in its
epilogue (``c``), which hides the pass but launches twice as many GEMMs and reads C in their epilogues
(measured slower on two H100s: 1.05-1.09x against 1.03-1.05x in CUDA graphs,
benchmarks/results/2026-11-26-h100-tp2-graphs-*.json).
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

RESERVED_SMS = 2  # one TPC: the barrier kernels' room beside a persistent GEMM (clusters of two stay whole)


def default_reserve(operation: str, world: int) -> int:
    """SMs the GEMMs of ``operation`` leave free by default (module docstring): only all-gather beyond two ranks
    has a GEMM wait for a barrier that runs beside the GEMM before it."""
    return RESERVED_SMS if operation == "all_gather_gemm" and world > 2 else 0


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


def all_gather_gemm(x_shard: torch.Tensor, w: torch.Tensor, out: torch.Tensor, group: dist.ProcessGroup | None,
                    gemm: Any, reserve: int) -> torch.Tensor:
    world, rank = dist.get_world_size(group), dist.get_rank(group)
    m, k = x_shard.shape
    x_shard = x_shard.contiguous()
    handle = workspace(group, x_shard.device, world * x_shard.numel() * x_shard.element_size())  # inbox[sender]
    current, side = torch.cuda.current_stream(x_shard.device), _side(x_shard.device)
    ready = current.record_event()  # x_shard written; the last call's GEMMs on the inbox enqueued before
    with reserve_sms(reserve):  # launched first: the GPU computes while the host sets up the transfers
        gemm(x_shard, w, out=out[rank * m:(rank + 1) * m])
    side.wait_event(ready)
    landed = []
    with torch.cuda.stream(side):
        handle.barrier(channel=0)  # every rank's last GEMMs on its inbox are done
        for step in range(1, world):  # one peer at a time: step s brings rank r - s's shard, the next GEMM's
            target = (rank + step) % world
            handle.get_buffer(target, (m, k), x_shard.dtype, rank * m * k).copy_(x_shard)
            handle.barrier(channel=1)  # every rank's step-s shard has landed
            landed.append(side.record_event())
    for step in range(1, world):  # the shards in place, in the inbox
        source = (rank - step) % world
        current.wait_event(landed[step - 1])
        with reserve_sms(reserve if step < world - 1 else 0):  # (the next steps' barriers)
            gemm(handle.get_buffer(rank, (m, k), x_shard.dtype, source * m * k), w,
                 out=out[source * m:(source + 1) * m])
    current.wait_stream(side)
    return out


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
