"""The CUDA driver as tcgemm uses it below the launch planner: the current context, torch's streams, the
dynamic shared-memory opt-in. Placement probes, operand staging and launches all stand on this module, which
imports nothing of tcgemm but the JIT (cuda.core handles)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import torch

from . import jit


class _TorchStream:
    """Hands torch's stream to cuda.core through the __cuda_stream__ protocol."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


@lru_cache(maxsize=64)
def _stream(handle: int, device: int) -> Any:
    cc = jit._cuda_core()
    return cc.Device(device).create_stream(_TorchStream(handle))


_smem_ready: set[tuple[int, int]] = set()


def _allow_dynamic_smem(kernel: Any, smem: int, device: int) -> None:
    """Above 48 KB a kernel must opt in to its dynamic shared memory, once per kernel and device."""
    key = (id(kernel), device)
    if smem <= 48 * 1024 or key in _smem_ready:
        return
    from cuda.bindings import driver

    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    handle = kernel.handle
    if isinstance(handle, driver.CUkernel):
        err, dev = driver.cuDeviceGet(device)
        (err,) = driver.cuKernelSetAttribute(attr, smem, handle, dev)
    else:
        (err,) = driver.cuFuncSetAttribute(handle, attr, smem)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cannot give the kernel {smem} bytes of shared memory: {err}")
    _smem_ready.add(key)


_primary: dict[int, int] = {}
_context_ok = threading.local()  # .device: the device whose primary context this thread made current


def ensure_context(device: int) -> None:
    """:func:`make_current`, skipped on repeat calls of a one-GPU process from a thread that already made
    ``device``'s context current (nothing else in such a process makes another context current; with
    several GPUs, torch.cuda.set_device can, so every call checks)."""
    if getattr(_context_ok, "device", -1) == device and _single_gpu():
        return
    make_current(device)
    _context_ok.device = device


@lru_cache(maxsize=1)
def _single_gpu() -> bool:
    return torch.cuda.device_count() == 1


def make_current(device: int) -> None:
    """Make ``device``'s primary context (the one torch uses) current in this thread.

    The driver calls tcgemm makes (tensor-map encoding, cuLaunchKernel) need a current context;
    a thread that has run no CUDA runtime call yet (a worker thread whose torch allocations all
    came from the cache) has none, and one that last used another GPU has that GPU's."""
    from cuda.bindings import driver

    want = _primary.get(device)
    if want is None:
        err, dev = driver.cuDeviceGet(device)
        err2, ctx = driver.cuDevicePrimaryCtxRetain(dev)
        if err != driver.CUresult.CUDA_SUCCESS or err2 != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cannot get the primary context of CUDA device {device}: {err}, {err2}")
        want = _primary[device] = int(ctx)
    err, current = driver.cuCtxGetCurrent()
    if err != driver.CUresult.CUDA_SUCCESS or int(current) != want:
        (err,) = driver.cuCtxSetCurrent(driver.CUcontext(want))
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cannot make CUDA device {device}'s context current: {err}")


_RAW_STREAM = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def _raw_stream(device: int) -> int:
    """The handle of torch's current stream on ``device`` (the cheap private accessor when torch has it)."""
    return _RAW_STREAM(device) if _RAW_STREAM is not None else torch.cuda.current_stream(device).cuda_stream




def current_stream(device: int) -> Callable[[], Any]:
    """A function giving torch's current stream on ``device`` as a cuda.bindings CUstream (handles cached)."""
    from cuda.bindings import driver

    raw = _raw_stream
    handles: dict[int, Any] = {}  # raw stream -> its driver handle object (built once: ~1 us each)

    def current() -> Any:
        r = raw(device)
        h = handles.get(r)
        if h is None:
            if len(handles) > 64:
                handles.clear()
            h = handles[r] = driver.CUstream(r)
        return h

    return current
