"""The ``fused`` transport: each tensor-parallel GEMM in one persistent launch of tcgemm's production Hopper
kernel, which takes the peers' rows as they land (all-gather) or counts its row blocks out as it stores them
(reduce-scatter): ``kernels/include/peer_rows.cuh``. The copies still run on copy engines, as in the ``copy``
transport (:mod:`tcgemm.distributed.pushes`); what goes is one GEMM launch per peer — its ramp, its last
partial wave and a barrier kernel each — which at four ranks cost more than the transfers
(docs/tensor-parallel.md).

No barrier kernel orders the ranks: the flags of :mod:`tcgemm.distributed.flags` do (ready, landed, free), set and
waited for by stream memory operations or waited for by the kernel.

all-gather + GEMM. Calling stream: the GEMM of all W · m rows, own shard first, then the ready flags reset.
Side stream, enqueued before the GEMM: per step s = 1 .. W - 1, for rank t = r - s, wait for free[t], copy
the own shard into inbox[r] of rank t, then set ready[r] at t (stream order, and a fence: after the rows).
Rank r's GEMM walks rank r + 1's rows right after its own: those come first.

GEMM + reduce-scatter. Calling stream: the GEMM of all M rows into a local buffer, block r + 1 first and the
own block last; its kernel adds each stored tile's rows into ready[b]. Side stream: per step s, for rank
t = r + s, wait until ready[t] shows block t whole, wait for free[t], copy the block into inbox[r] of rank t,
then set landed[r] at t. Calling stream, after the GEMM: one pass (a kernel that first waits for every landed
flag itself, so no stream wait stands between it and the GEMM) summing the own block and the inbox in rank
order (``kernels/util/sum_blocks.cu``; fp32 sums rounded once, the same bits on every call), the flags reset.

Both need the rows per rank to be a multiple of a cluster's rows (CTAS_M x BLOCK_M: every tile inside one
rank's rows) and 16-byte aligned rows; elsewhere the entry points fall back to ``copy``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from .. import dispatch, driver, fastpath, launch, registry, tma
from ..api import device_info
from ..problem import GemmProblem, describe
from ..sms import usable as usable_sms
from . import symmetric
from .flags import FLAGS_BYTES, LANDED, MAX_WORLD, READY, Flags, buffer, wait_value
from .reduce import QueueSum, sum_blocks

_BLOCK_BYTES = 256  # a PeerRows block: the inbox's map (128 bytes), world, rank, seg_rows, shift, three pointers
QUEUE_HEAD = 4  # a queue's counters before its entries (peer_rows.cuh)
# The reduce-scatter's own block summed under the launch's last round (PEER_ROWS = 4: peer_rows.cuh, the queue of
# tcgemm.distributed.tilequeue) instead of by a pass after it. TCGEMM_TP_FUSED_QUEUE=1 at import, or set this.
QUEUE_SUM = os.environ.get("TCGEMM_TP_FUSED_QUEUE", "0") == "1"
_FLOATS = (torch.bfloat16, torch.float16)


class FusedUnavailable(ValueError):
    """The fused transport cannot run this call (the reason says why; the entry points fall back to ``copy``)."""


@dataclass
class _State:
    handle: Any  # the symmetric buffer's handle
    problem: GemmProblem
    plan: Any
    arch: str
    block: torch.Tensor  # the PeerRows block (device)
    tail: torch.Tensor | None  # the tail split's partial tiles (the block points to them)
    target: int  # reduce-scatter: ready[b]'s value once block b is stored (seg_rows x tiles along N)
    fl: Flags  # this rank's flags and every rank's head
    gemm: fastpath.Prepared | None = None  # PEER_ROWS = 4: the prepared GEMM (the PeerRows block its workspace)
    sum: QueueSum | None = None  # PEER_ROWS = 4: the own block's sum, consuming the queue
    queue: torch.Tensor | None = None  # PEER_ROWS = 4: the queue (zero between calls: the sum resets it)
    # The views a call pushes into and reads, made once (each get_buffer is ~10 us of host time):
    # [target] this rank's slot in rank target's inbox (None for this rank), and this rank's whole inbox.
    pushes: tuple[torch.Tensor | None, ...] = ()
    inbox: torch.Tensor | None = None


_states: dict[tuple, _State | FusedUnavailable] = {}


def _check(x: torch.Tensor, world: int) -> None:
    if x.dtype not in _FLOATS:
        raise FusedUnavailable(f"dtype {x.dtype} (the fused kernels take bfloat16 and float16)")
    if torch.cuda.get_device_capability(x.device) != (9, 0):
        raise FusedUnavailable("a GPU other than sm_90 (the fused kernels are Hopper's wgmma + TMA)")
    if world > MAX_WORLD:
        raise FusedUnavailable(f"{world} ranks (at most {MAX_WORLD})")


def queue_refuses(cfg: registry.TileConfig) -> str | None:
    """Why ``cfg`` cannot queue its stored tiles (PEER_ROWS = 3, 4), beyond launch.peer_rows_refuses, or None."""
    if cfg.get("PINGPONG", 0):
        return "ping-pong consumers (an entry is one cooperative consumer's rows)"
    if cfg.get("TAIL_SPLIT", 0):  # (its split fills the SMs of the last round that the sum is to take)
        return "the tail split"
    return None


def _config(problem: GemmProblem, rows: int, sms: int) -> tuple[Any, Any]:
    """The production kernel and the config the estimate picks among those that run PEER_ROWS and tile ``rows``."""
    spec = registry.get(launch.PEER_ROWS_KERNEL)
    names = tuple(c.name for c in spec.configs_for(problem.precision)
                  if launch.peer_rows_refuses(spec, c) is None and rows % (c["BLOCK_M"] * spec.cluster_shape(c)[0]) == 0
                  and dispatch.config_refuses(c, problem, spec) is None
                  and (problem.peer_rows < 3 or queue_refuses(c) is None))
    if not names:
        raise FusedUnavailable(f"{rows} rows per rank (a multiple of 128 is needed, of 256 for most configs)")
    return spec, dispatch.pick_config(spec, problem, sms, among=names)


def agree(reason: FusedUnavailable | None, group: dist.ProcessGroup | None,
          device: torch.device) -> FusedUnavailable | None:
    """Every rank of ``group`` takes the fused transport for a shape, or none does (a collective, once per shape):
    a rank that cannot (its rows not 16-byte aligned, say) falls back to ``copy``, whose collectives would
    otherwise meet the others' fused ones and hang. ``reason``: why this rank cannot, or None."""
    flag = torch.tensor([0 if reason is not None else 1], dtype=torch.int32, device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN, group=group)
    if reason is None and int(flag.item()) == 0:
        return FusedUnavailable("another rank cannot run the fused transport for this call")
    return reason


def _peer_block(device: torch.device, inbox_map: Any | None, ints: tuple[int, int, int, int], ready: int,
                tail: int, queue: int = 0) -> torch.Tensor:
    raw = bytearray(_BLOCK_BYTES)
    if inbox_map is not None:
        raw[0:128] = ctypes.string_at(int(inbox_map.getPtr()), 128)
    raw[128:144] = np.array(ints, dtype=np.int32).tobytes()
    raw[144:168] = np.array([ready, tail, queue], dtype=np.uint64).tobytes()
    return torch.frombuffer(raw, dtype=torch.uint8).to(device)


def _state(kind: str, x: torch.Tensor, w: torch.Tensor, out_dtype: torch.dtype, group: dist.ProcessGroup | None,
           world: int, rank: int, rows: int) -> _State:
    """The launch of one shape, made once (a collective the first time: the symmetric buffer). A later, larger
    shape may give the kind a new buffer; the states made before keep theirs (every rank alike). Raises
    FusedUnavailable (remembered: later calls fall back at once, in a CUDA graph's capture too) where the kernel
    cannot take the shape."""
    m_all, k, n = (world * rows if kind == "gather" else x.shape[0]), x.shape[1], w.shape[1]
    index = x.device.index if x.device.index is not None else torch.cuda.current_device()
    key = (kind, symmetric._group_name(group), index, rows, k, n, x.dtype, out_dtype, tuple(x.stride()),
           tuple(w.stride()))
    found = _states.get(key)
    if isinstance(found, FusedUnavailable):
        raise found
    if found is not None:
        return found
    reason: FusedUnavailable | None = None
    try:
        _check(x, world)
        _, sms, arch = device_info(index)
        sms = usable_sms(sms)
        # A as the kernel sees it: x (reduce-scatter), or the inbox of every rank's rows (all-gather), row-major
        a = x if kind != "gather" else torch.empty((m_all, k), dtype=x.dtype, device="meta")
        problem, t = describe(a, w, None, alpha=1.0, beta=0.0, out=None, out_dtype=out_dtype, precision=None)
        if t["a"] is not a or t["b"] is not w or problem.swapped or problem.d_transposed:
            raise FusedUnavailable("operands the kernel cannot read in place (w not contiguous along N or K)")
        problem = dataclasses.replace(problem, peer_rows={"gather": 1, "scatter": 2, "scatter-queue": 4}[kind])
        if tma.why_not(problem) is not None or (n * out_dtype.itemsize) % 16:
            raise FusedUnavailable(f"rows not 16-byte aligned (K = {k}, N = {n})")
        spec, cfg = _config(problem, rows, sms)
    except FusedUnavailable as exc:
        reason = exc
    if not torch.cuda.is_current_stream_capturing():  # (a new shape in a capture is refused below on every rank)
        reason = agree(reason, group, x.device)
    if reason is not None:
        _states[key] = reason
        raise reason
    if torch.cuda.is_current_stream_capturing():
        raise RuntimeError(f"tcgemm.distributed (fused): a new shape ({kind}, {rows} rows per rank x {k} x {n}) must "
                           "be prepared before CUDA graph capture; run the same call once before capturing")
    p = launch.plan(problem, spec, cfg, sms)
    kernel = launch.kernel_for(p, arch, index)  # compiled and loaded now, not between a call's transfers and GEMM
    inbox_bytes = world * rows * (k * x.element_size() if kind == "gather" else n * out_dtype.itemsize)
    handle = buffer("fused-" + kind.removesuffix("-queue"), group, x.device, FLAGS_BYTES + inbox_bytes)
    clusters = launch.resident_grid(p, kernel, index)[0] // spec.cluster_of(cfg)
    tail_floats = launch._tail_need(problem, spec, cfg, clusters)[0] if cfg.get("TAIL_SPLIT") else 0
    tail = torch.empty(tail_floats, dtype=torch.float32, device=x.device) if tail_floats else None
    fl = Flags(handle, rank)
    ready, tail_ptr = fl.mine.data_ptr(), tail.data_ptr() if tail is not None else 0
    if kind == "gather":
        inbox = handle.get_buffer(rank, (m_all, k), x.dtype, FLAGS_BYTES // x.element_size())
        inbox_map = tma.encode_typed(inbox.data_ptr(), tma.operand_map_type(problem),
                                     *tma.geometry(problem, cfg, "a"))
        block = _peer_block(x.device, inbox_map, (world, rank, rows, rank), ready, tail_ptr)
        target = 0
    elif kind == "scatter":
        block = _peer_block(x.device, None, (world, rank, rows, (rank + 1) % world), ready, tail_ptr)
        target = rows * -(-n // cfg["BLOCK_N"])
        # Prepared as the queue's launch is (below): the generic launch path encoded three tensor maps and looked the
        # plan up on every call, host time before the GEMM reaches an idle GPU (eager 1.14-1.35x against copy's
        # 1.05-1.18x at four ranks, 2026-11-28-h200-tp4-graphs-5502e64.json).
        driver._allow_dynamic_smem(kernel, cfg.smem_bytes, index)
        gemm = fastpath.Prepared(p, problem, kernel, index, (m_all, n), x, w, None, None, workspace=block.data_ptr())
        head = FLAGS_BYTES // out_dtype.itemsize
        state = _states[key] = _State(
            handle, problem, p, arch, block, tail, target, fl, gemm,
            pushes=tuple(handle.get_buffer(t, (rows, n), out_dtype, head + rank * rows * n) if t != rank else None
                         for t in range(world)),
            inbox=handle.get_buffer(rank, (world * rows, n), out_dtype, head))
        return state
    else:  # the own block's stored tiles queued for its sum (tcgemm.distributed.tilequeue's protocol)
        consumers = cfg.threads // 128 - 1
        total = rows // cfg["BLOCK_M"] * -(-n // cfg["BLOCK_N"]) * consumers
        queue = torch.zeros(QUEUE_HEAD + total, dtype=torch.int32, device=x.device)
        block = _peer_block(x.device, None, (world, rank, rows, (rank + 1) % world), ready, tail_ptr,
                            queue.data_ptr())
        target = rows * -(-n // cfg["BLOCK_N"])
        driver._allow_dynamic_smem(kernel, cfg.smem_bytes, index)  # (no launch.run comes first)
        gemm = fastpath.Prepared(p, problem, kernel, index, (m_all, n), x, w, None, None,
                                 workspace=block.data_ptr())
        total_sum = QueueSum(out_dtype, index, rows, n, world, rank, queue, total, cfg["BLOCK_M"] // consumers,
                             cfg["BLOCK_N"])
        state = _states[key] = _State(handle, problem, p, arch, block, tail, target, fl, gemm, total_sum, queue)
        return state
    elems = FLAGS_BYTES // x.element_size() + rank * rows * k  # (gather: this rank's slot in each peer's inbox)
    state = _states[key] = _State(handle, problem, p, arch, block, tail, target, fl,
                                  pushes=tuple(handle.get_buffer(t, (rows, k), x.dtype, elems) if t != rank else None
                                               for t in range(world)))
    return state


def all_gather_gemm(x_shard: torch.Tensor, w: torch.Tensor, out: torch.Tensor, group: dist.ProcessGroup | None,
                    world: int, rank: int) -> torch.Tensor:
    m = x_shard.shape[0]
    x_shard = x_shard.contiguous()
    st = _state("gather", x_shard, w, out.dtype, group, world, rank, m)
    current, side = torch.cuda.current_stream(x_shard.device), symmetric._side(x_shard.device)
    side.wait_event(current.record_event())  # (x_shard written)
    # The transfers are enqueued before the GEMM that waits for them: were the two streams to share one of the
    # GPU's hardware queues (CUDA_DEVICE_MAX_CONNECTIONS), a GEMM ahead of them would wait forever.
    with torch.cuda.stream(side):
        for step in range(1, world):  # rank r - 1 first: it walks rank r's rows right after its own
            target = (rank - step) % world
            st.fl.claim(side, target)
            st.pushes[target].copy_(x_shard)
            st.fl.set_at(side, target, READY + rank)
    pushed = side.record_event()
    launch.run(st.plan, st.problem, x_shard, w, None, out, st.arch, peer=st.block)
    st.fl.mine[READY:READY + MAX_WORLD].zero_()  # (after the GEMM that waited on them)
    st.fl.release(current, side, world, pushed)
    return out


def gemm_reduce_scatter(x: torch.Tensor, w: torch.Tensor, group: dist.ProcessGroup | None, acc: torch.dtype,
                        world: int, rank: int) -> torch.Tensor:
    block, n = x.shape[0] // world, w.shape[1]
    st = None
    if QUEUE_SUM and acc in _FLOATS and x.data_ptr() % 16 == 0 and w.data_ptr() % 16 == 0:
        try:
            st = _state("scatter-queue", x, w, acc, group, world, rank, block)
        except FusedUnavailable:
            st = None
    if st is None:
        st = _state("scatter", x, w, acc, group, world, rank, block)
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    current, side = torch.cuda.current_stream(x.device), symmetric._side(x.device)
    partial = torch.empty((x.shape[0], n), dtype=acc, device=x.device)
    result = torch.empty((block, n), dtype=acc, device=x.device)
    started = current.record_event()
    if st.gemm is not None:
        st.gemm(x, w, None, partial)
    else:
        launch.run(st.plan, st.problem, x, w, None, partial, st.arch, peer=st.block)
    side.wait_event(started)  # (enqueued after the GEMM: a stream wait never stands before it in a queue)
    head = FLAGS_BYTES // partial.element_size()
    with torch.cuda.stream(side):
        for step in range(1, world):  # block r + 1 is stored first
            owner = (rank + step) % world
            wait_value(side, st.fl.address(READY + owner), st.target)
            st.fl.claim(side, owner)
            push = st.pushes[owner] if st.pushes else st.handle.get_buffer(owner, (block, n), acc,
                                                                            head + rank * block * n)
            push.copy_(partial[owner * block:(owner + 1) * block])
            st.fl.set_at(side, owner, LANDED + rank)
    pushed = side.record_event()
    inbox = st.inbox if st.inbox is not None else st.handle.get_buffer(rank, (world * block, n), acc, head)
    if st.sum is not None:  # right behind the GEMM on this stream: its PDL dependent (peer_rows.cuh)
        st.sum(partial[rank * block:(rank + 1) * block], inbox, result, st.fl.address(LANDED))
    else:
        sum_blocks(partial[rank * block:(rank + 1) * block], inbox, block * n, world, rank, result, device,
                   landed=st.fl.address(LANDED))  # (it waits for the landed flags itself)
    current.wait_event(pushed)  # (the side stream's waits on ready[] are past before they are reset)
    st.fl.mine[READY:LANDED + MAX_WORLD].zero_()
    st.fl.release(current, side, world, pushed)
    return result

