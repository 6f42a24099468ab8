"""Ordering the ranks without barrier kernels: flags in each rank's symmetric buffer, set and waited for by stream
memory operations (cuStreamWriteValue32 / cuStreamWaitValue32: the GPU's front end writes and polls, no SM).

A barrier kernel (``torch.distributed._symmetric_memory``'s) is a one-block kernel: launched beside a persistent
GEMM that holds every SM, it waits for the GEMM's end, and a GEMM that waits for its result leaves SMs free for it
(docs/tensor-parallel.md). A 4-byte copy to set a flag may run as a kernel too, with the same wait. So the
schedules of :mod:`tcgemm.distributed.pushes` (the ``copy`` transport) and :mod:`tcgemm.distributed.fused` keep a
head of uint32 flags at the start of each rank's buffer (the inbox after it):

- ``ready[s]`` / ``landed[s]``: rank s's rows (all-gather) or its partial sum (reduce-scatter) are in inbox slot s,
  set by s's side stream after its copy (a fenced write: the rows land first);
- ``free[t]`` at rank r: rank t is done with what r pushed into its inbox last. r waits for it and clears it before
  pushing (``claim``); t sets it again once it has read its inbox and reset its own flags (``release``). 1 at the
  start.
"""

from __future__ import annotations

import ctypes
from functools import lru_cache
from typing import Any

import torch
import torch.distributed as dist

from . import symmetric

MAX_WORLD = 32  # (kernels/include/peer_rows.cuh: PEER_MAX_WORLD)
READY = 0  # ready[s]: all-gather, rank s's rows have landed; fused reduce-scatter, the rows of block s stored
LANDED = MAX_WORLD  # landed[s] (reduce-scatter): rank s's partial of this rank's block is in inbox slot s
FREE = 2 * MAX_WORLD  # free[t]: rank t is done with what this rank pushed into its inbox last (1 at the start)
FLAGS_BYTES = 512  # the head: 3 x MAX_WORLD flags, padded (the inbox after it stays 512-byte aligned)

_WAIT_GEQ = 0  # CU_STREAM_WAIT_VALUE_GEQ
_WRITE_DEFAULT = 0  # CU_STREAM_WRITE_VALUE_DEFAULT: a memory fence first (the v2 call takes no other flag)
_initialised: dict[tuple, Any] = {}  # (kind, group, device) -> the handle whose flags were set up


@lru_cache(maxsize=1)
def _memops() -> tuple[Any, Any]:
    """cuStreamWaitValue32 and cuStreamWriteValue32 (v2) of the driver through ctypes: a dozen of them per call,
    each ~1 us of host time this way against ~10 through cuda.bindings' argument objects."""
    lib = ctypes.CDLL("libcuda.so.1")
    wait, write = lib.cuStreamWaitValue32_v2, lib.cuStreamWriteValue32_v2
    for fn in (wait, write):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        fn.restype = ctypes.c_int
    return wait, write


@lru_cache(maxsize=1)
def _memcpy() -> Any:
    """cuMemcpyAsync of the driver through ctypes (unified addresses: a peer's buffer mapped here is a device pointer
    like any other)."""
    fn = ctypes.CDLL("libcuda.so.1").cuMemcpyAsync
    fn.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_void_p]
    fn.restype = ctypes.c_int
    return fn


def copy_async(stream: torch.cuda.Stream, dst: torch.Tensor, src: torch.Tensor) -> None:
    """``dst`` = ``src`` (contiguous, the same bytes) on ``stream``, by a copy engine: what ``dst.copy_(src)`` under
    ``torch.cuda.stream(stream)`` does, for ~1 us of host time instead of a stream switch and the copy's dispatch
    (a tensor-parallel call makes one per peer, and its host time before the GPU is busy is time the GPU idles)."""
    nbytes = src.numel() * src.element_size()
    if dst.numel() * dst.element_size() != nbytes or not (dst.is_contiguous() and src.is_contiguous()):
        raise ValueError(f"copy_async: two contiguous tensors of one size; got {tuple(dst.shape)} and "
                         f"{tuple(src.shape)}")
    err = _memcpy()(dst.data_ptr(), src.data_ptr(), nbytes, stream.cuda_stream)
    if err:
        raise RuntimeError(f"cuMemcpyAsync failed (CUresult {err})")


def wait_value(stream: torch.cuda.Stream, address: int, value: int) -> None:
    """The stream waits until the uint32 at ``address`` is at least ``value`` (no SM: the front end polls)."""
    err = _memops()[0](stream.cuda_stream, address, value, _WAIT_GEQ)
    if err:
        raise RuntimeError(f"cuStreamWaitValue32 failed (CUresult {err})")


def write_value(stream: torch.cuda.Stream, address: int, value: int) -> None:
    """The stream writes ``value`` to the uint32 at ``address`` (no SM), after a memory fence: the writes before it
    in the stream are visible first."""
    err = _memops()[1](stream.cuda_stream, address, value, _WRITE_DEFAULT)
    if err:
        raise RuntimeError(f"cuStreamWriteValue32 failed (CUresult {err})")


def buffer(kind: str, group: dist.ProcessGroup | None, device: torch.device, nbytes: int) -> Any:
    """The symmetric buffer of ``kind`` (FLAGS_BYTES of flags, then the inbox), its flags set up when it is new (a
    collective: every rank calls it with the same size)."""
    handle = symmetric.workspace(group, device, nbytes, purpose="flags-" + kind)
    key = (kind, symmetric._group_name(group), device.index)
    if _initialised.get(key) is not handle:
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError("tcgemm.distributed: a new symmetric buffer cannot be set up during CUDA graph "
                               "capture; run the same call once before capturing")
        flags = handle.get_buffer(dist.get_rank(group), (3 * MAX_WORLD,), torch.int32, 0)
        flags.zero_()
        flags[FREE:].fill_(1)
        torch.cuda.current_stream(device).synchronize()
        dist.barrier(group)  # every rank's flags are set before any peer may touch them
        _initialised[key] = handle
    return handle


class Flags:
    """This rank's head of flags in ``handle`` and every rank's (addresses in this rank's address space)."""

    def __init__(self, handle: Any, rank: int) -> None:
        self.handle, self.rank = handle, rank
        self.mine = handle.get_buffer(rank, (3 * MAX_WORLD,), torch.int32, 0)
        self.heads = tuple(handle.buffer_ptrs)

    def address(self, index: int) -> int:
        return self.mine.data_ptr() + 4 * index

    def set_at(self, stream: torch.cuda.Stream, owner: int, index: int) -> None:
        """Flag ``index`` of rank ``owner`` to 1, after the stream's copies (fenced)."""
        write_value(stream, self.heads[owner] + 4 * index, 1)

    def wait(self, stream: torch.cuda.Stream, index: int, value: int = 1) -> None:
        wait_value(stream, self.address(index), value)

    def claim(self, side: torch.cuda.Stream, target: int) -> None:
        """Wait until rank ``target`` is done with this rank's last push into its inbox (free[target]), then take it."""
        wait_value(side, self.address(FREE + target), 1)
        write_value(side, self.address(FREE + target), 0)

    def clear(self, stream: torch.cuda.Stream, first: int, world: int) -> None:
        """This rank's flags ``first + s`` for every peer s back to 0 on ``stream``, after its work so far (fenced
        writes; the flags the peers set, as ``mine[first:first + MAX_WORLD].zero_()`` without a kernel)."""
        for s in range(world):
            if s != self.rank:
                write_value(stream, self.address(first + s), 0)

    def release(self, current: torch.cuda.Stream, side: torch.cuda.Stream, world: int,
                pushed: torch.cuda.Event, order: torch.cuda.Event | None = None) -> None:
        """After the calling stream's work so far (this rank is done with its inbox and has reset its flags): tell
        every peer it may push again (free[rank] at each), on the side stream; the calling stream goes on once the
        pushes are done (and, in a CUDA graph, once the side stream is done: capture joins every stream it forks).
        ``order``: an event to record that point with (reused from call to call), else a new one."""
        side.wait_event(current.record_event(order))
        for peer in range(world):
            if peer != self.rank:
                self.set_at(side, peer, FREE + self.rank)
        if torch.cuda.is_current_stream_capturing():
            current.wait_stream(side)
        else:
            current.wait_event(pushed)
