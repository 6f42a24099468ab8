"""The last pass of a reduce-scatter: this rank's block of the sum over ranks, from its own partial product and the
partial products the peers pushed into its inbox, in one pass (``kernels/util/sum_blocks.cu``; both symmetric-memory
transports use it), or (:func:`sum_queue`) the same sum run under the own block's GEMM, tile by tile as the GEMM
announces them."""

from __future__ import annotations

import ctypes
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from .. import jit

_SUM_THREADS = 256


@lru_cache(maxsize=8)
def _sum_kernel(dtype: torch.dtype, device: int, entry: str = "sum_blocks") -> Any:
    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    elem = {torch.bfloat16: "__nv_bfloat16", torch.float16: "__half", torch.float32: "float"}[dtype]
    return jit.load_kernel("util/sum_blocks.cu", entry, jit.as_defines([("ELEM", elem)]), arch, device)


def sum_blocks(own: torch.Tensor, inbox: torch.Tensor, slot: int, world: int, rank: int, out: torch.Tensor,
               device: int, landed: int = 0) -> None:
    """``out = sum over s of part_s`` in rank order, fp32 sums rounded once (kernels/util/sum_blocks.cu): part_rank is
    ``own``, part_s the ``slot`` elements at ``inbox + s * slot``. ``landed`` (an address, or 0): the rank's landed
    flags, waited for by the kernel itself. On the current stream; captures in CUDA graphs."""
    from .. import driver

    count = own.numel()
    vec = 16 // own.element_size()
    vectors = count % vec == 0 and (slot * own.element_size()) % 16 == 0 and all(
        t.data_ptr() % 16 == 0 for t in (own, inbox, out))
    work = count // vec if vectors else count
    kernel = _sum_kernel(own.dtype, device)
    stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
    jit._cuda_core().launch(stream, _config(work, device), kernel, own.data_ptr(), inbox.data_ptr(), np.int64(slot),
                            np.int32(world), np.int32(rank), out.data_ptr(), np.int64(count), np.int32(vectors),
                            landed)


@lru_cache(maxsize=64)
def _config(work: int, device: int) -> Any:
    """The launch of ``work`` items (vectors or elements): up to 8 blocks an SM, each striding over the rest."""
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    return jit._cuda_core().LaunchConfig(grid=(max(1, min(-(-work // _SUM_THREADS), 8 * sms)), 1, 1),
                                         block=(_SUM_THREADS, 1, 1))


QUEUE_CTAS_PER_SM = 4  # sum_queue's CTAs: enough loads in flight per SM once the GEMM's CTAs are gone


class QueueSum:
    """:func:`sum_blocks`' sum of an own block (rows x n) and the inbox, run as the own block's GEMM announces its
    stored tiles in ``queue`` (``total`` entries of ``height`` x ``width``; the GEMM a PEER_ROWS = 3 build,
    kernels/include/peer_rows.cuh): ``sum_queue`` in kernels/util/sum_blocks.cu, the same bits as the pass. Launched
    with programmatic dependent launch right behind that GEMM, on the current stream, from a parameter block made
    once (a call writes four addresses). ``n`` a multiple of 8 / element size and every address 16-byte aligned
    (the caller checks)."""

    def __init__(self, dtype: torch.dtype, device: int, rows: int, n: int, world: int, rank: int,
                 queue: torch.Tensor, total: int, height: int, width: int) -> None:
        from .. import launch

        kernel = _sum_kernel(dtype, device, "sum_queue")
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        grid = (min(total, QUEUE_CTAS_PER_SM * sms), 1, 1)
        self._own, self._inbox, self._out, self._landed = (ctypes.c_void_p() for _ in range(4))
        self._values = (self._own, self._inbox, ctypes.c_longlong(rows * n), ctypes.c_int(world),
                        ctypes.c_int(rank), self._out, ctypes.c_int(rows), ctypes.c_int(n), ctypes.c_int(height),
                        ctypes.c_int(width), ctypes.c_void_p(queue.data_ptr()), ctypes.c_int(total), self._landed)
        self._params = (ctypes.c_void_p * len(self._values))(*(ctypes.addressof(v) for v in self._values))
        self._queue = queue  # (kept alive: the block holds its address)
        self._device = device
        self._raw = (launch.RawLaunch(kernel.handle, grid, _SUM_THREADS, 0, True) if launch.libcuda() is not None
                     else None)
        self._ex = launch.LaunchEx(kernel.handle, grid, _SUM_THREADS, 0)

    def __call__(self, own: torch.Tensor, inbox: torch.Tensor, out: torch.Tensor, landed: int = 0) -> None:
        self._own.value, self._inbox.value, self._out.value = own.data_ptr(), inbox.data_ptr(), out.data_ptr()
        self._landed.value = landed or None
        stream = torch.cuda.current_stream(self._device).cuda_stream
        if self._raw is not None:
            err = self._raw(stream, ctypes.addressof(self._params))
        else:
            from cuda.bindings import driver

            (err,) = self._ex(driver.CUstream(stream), ctypes.addressof(self._params))
            err = int(err)
        if err != 0:
            # The GEMM before it has appended its tiles; no sum resets the queue, so reset it here (on the stream,
            # after that GEMM): the next call's GEMM would otherwise append past the queue's end.
            self._queue.zero_()
            raise RuntimeError(f"sum_queue: cuLaunchKernelEx failed: error {err}")
