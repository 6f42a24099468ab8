"""The repeat-call path of :func:`tcgemm.gemm`: a call whose shape was seen before costs a dict lookup,
a few address checks and one ``cuLaunchKernel``.

The first call of a problem goes the whole way (validate, describe, select, plan, load, launch:
~150 µs of Python on an H100 host, as long as a 4096³ GEMM runs on its GPU). Everything that
work decides depends only on the call's *signature*: dtypes, shapes, strides, the 16-byte
alignment of each address, alpha, beta and the options, never on the addresses themselves. So the
first call leaves a :class:`Prepared` launch under that signature: the kernel handle, the grid, a
ctypes parameter block whose scalar slots are already filled, and the tensor-map geometries.
A repeat call only checks what depends on addresses (``out`` overlapping an input), allocates the
output, makes the aligned copies the first call staged (if any), writes four pointers into the
block, looks up tensor maps (cached per address) and launches. fp8 scales are part of the signature:
a Python number by its value (folded into alpha), a tensor by its dtype, size and device (its address is
filled per call). Calls whose operands had to be copied for their strides always take the full path.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

import torch

from . import driver, launch, sms, staging, tma
from .launch import LaunchPlan
from .problem import GemmProblem
from .scales import kernel_block_scales

Key = tuple[Any, ...]
PLAIN = _PLAIN = (torch.Tensor, torch.nn.Parameter)
_MAX_ENTRIES = 4096
_entries: dict[Key, Prepared] = {}


def _meta(t: torch.Tensor | None) -> tuple[Any, ...] | None:
    if t is None:
        return None
    return (t.dtype, t.shape, t.stride(), t.data_ptr() & 15, t.get_device())


def _scale_meta(s: Any) -> Any:
    if s is None:
        return None
    if type(s) in _PLAIN:
        return (s.dtype, s.shape, s.stride(), s.get_device())
    return ("number", s)  # (a bool or a non-number raises on the full path, which validates every call it takes)


def key(a: Any, b: Any, c: Any, out: Any, alpha: Any, beta: Any, out_dtype: Any, precision: Any,
        kernel: str, config: Any, scale_a: Any = None, scale_b: Any = None) -> Key | None:
    """The signature of a call, or None when it cannot take the repeat path (non-tensors, CPU tensors)."""
    # Plain tensors and parameters only: subclasses (fake, functional, ...) take the full path.
    if type(a) not in _PLAIN or type(b) not in _PLAIN or not a.is_cuda:
        return None
    if (c is not None and type(c) not in _PLAIN) or (out is not None and type(out) not in _PLAIN):
        return None
    try:
        reserved = sms.reserved()  # (a grid sized for fewer SMs is another launch)
        if scale_a is None and scale_b is None:
            return (_meta(a), _meta(b), _meta(c), _meta(out), alpha, beta, out_dtype, precision, kernel, config,
                    reserved)
        return (_meta(a), _meta(b), _meta(c), _meta(out), alpha, beta, out_dtype, precision, kernel, config,
                reserved, _scale_meta(scale_a), _scale_meta(scale_b))
    except TypeError:  # unhashable option values: the full path reports them
        return None


def lookup(k: Key | None) -> Prepared | None:
    return _entries.get(k) if k is not None else None


def store(k: Key, prepared: Prepared) -> None:
    if len(_entries) >= _MAX_ENTRIES:
        _entries.clear()
    _entries[k] = prepared


def clear() -> None:
    _entries.clear()


def _extent(t: torch.Tensor | None) -> int:
    """Bytes from a tensor's first element to one past its last."""
    if t is None or t.numel() == 0:
        return 0
    return (sum((s - 1) * st for s, st in zip(t.shape, t.stride(), strict=True)) + 1) * t.element_size()


class Prepared:
    """One launch, prepared for every call with the same signature (see the module docstring)."""

    def __init__(self, plan: LaunchPlan, problem: GemmProblem, kernel: Any, device: int, out_shape: tuple[int, ...],
                 a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None,
                 staged: tuple[str | None, str | None] = (None, None), padded_ld: int | None = None,
                 workspace: int | None = None) -> None:
        """``workspace``: an address for the kernel's workspace argument on every call (a tensor-parallel launch's
        PeerRows block, kernels/include/peer_rows.cuh), in place of the scratch launch.split_k_buffers gives."""
        from cuda.bindings import driver as cuda_driver

        self.plan = plan  # (what runs: plan.spec, plan.config)
        self._launch = cuda_driver.cuLaunchKernel
        self._launch_ex = None  # programmatic dependent launch (launch.LaunchEx), else cuLaunchKernel
        self._ok = cuda_driver.CUresult.CUDA_SUCCESS
        self._handle = kernel.handle
        self._grid = launch.resident_grid(plan, kernel, device)
        self._block = plan.block
        self._smem = plan.config.smem_bytes
        self._stream = driver.current_stream(device)
        if launch.pdl_enabled(plan.spec, plan.config):
            self._launch_ex = launch.LaunchEx(self._handle, self._grid, self._block, self._smem)
        # Through ctypes where the driver library loads (launch.libcuda): the cheapest launch from Python.
        self._raw = None
        if launch.libcuda() is not None:
            self._raw = launch.RawLaunch(self._handle, self._grid, self._block, self._smem,
                                         self._launch_ex is not None)
        self._raw_stream = driver._RAW_STREAM or driver._raw_stream
        self._device = device
        self._torch_device = torch.device("cuda", device)  # (parsed once: torch.empty takes it as it is)
        self._swapped = problem.swapped or problem.d_transposed  # the kernel's A is the call's b
        self._block_scales = problem.block_scales  # (copied into the layouts the kernel reads: tcgemm.scales)
        # The aligned copies of a and b made per call, in these layouts (tcgemm.staging), else None.
        self._copies = tuple(staging.PreparedCopy(t, layout) if layout is not None else None
                             for t, layout in zip((a, b), staged, strict=True))
        self._out_shape = out_shape
        # D through a row-padded buffer and a copy (staging.padded_output): the buffer's shape, else None.
        self._padded_shape = (*out_shape[:-1], padded_ld) if padded_ld is not None else None
        self._out_dtype = problem.out_dtype
        self._c_used = problem.c_strides is not None
        self._lock = threading.Lock()
        self._extents = (_extent(a), _extent(b), _extent(c), _extent(out))
        self._c_is_out_geometry = (c is not None and out is not None and c.shape == out.shape
                                   and c.stride() == out.stride())
        spec, cfg = plan.spec, plan.config
        self._tma = spec.tma
        if spec.tma:
            map_type = tma.operand_map_type(problem)  # as the first call's maps (tf32: rounded by the copy)
            self._geo_a = (map_type, *tma.geometry(problem, cfg, "a"))
            self._geo_b = (map_type, *tma.geometry(problem, cfg, "b"))
        self._d_geo = None
        if spec.tma_store and not cfg.get("STREAM_K"):  # (the stream-K kernel writes its transposed D itself)
            geo = tma.d_geometry(problem, cfg)
            if geo is not None:
                self._d_geo = (tma._MAP_TYPES[str(problem.out_dtype).removeprefix("torch.")], *geo)
        self._tma_store = spec.tma_store
        self._staged_d_only = spec.tma_store and cfg.tma_d_only
        self._maps_a: dict[int, tuple[int, Any]] = {}
        self._maps_b: dict[int, tuple[int, Any]] = {}
        self._maps_d: dict[int, tuple[int, Any]] = {}
        # Stages nothing and writes a new row-major output as it is: new_output() may serve the call.
        self.direct = (staged == (None, None) and padded_ld is None and not problem.swapped)

        # The parameter block: one ctypes value per kernel argument, in TCGEMM_KERNEL order.
        c_row, c_col, c_batch = problem.c_strides or (0, 0, 0)
        self._a = ctypes.c_void_p()
        self._b = ctypes.c_void_p()
        self._c = ctypes.c_void_p()
        self._d = ctypes.c_void_p()
        self._d_ok = ctypes.c_int(0)
        values: list[Any] = [
            ctypes.c_int(problem.m), ctypes.c_int(problem.n), ctypes.c_int(problem.k),
            ctypes.c_float(problem.alpha), ctypes.c_float(problem.beta),
            self._a, ctypes.c_int64(problem.a.ld), ctypes.c_int64(problem.a.batch_stride),
            self._b, ctypes.c_int64(problem.b.ld), ctypes.c_int64(problem.b.batch_stride),
            self._c, ctypes.c_int64(c_row), ctypes.c_int64(c_col), ctypes.c_int64(c_batch),
            self._d, ctypes.c_int64(problem.d_ld), ctypes.c_int64(problem.d_batch_stride),
        ]
        # The optional arguments, in launch.run's order: scale pointers (null: 1; a call's scale tensors fill
        # them), the batch count of persistent kernels, the D-map flag.
        self._scale_a = ctypes.c_void_p(0)
        self._scale_b = ctypes.c_void_p(0)
        self._scaled = spec.scale_args
        if spec.scale_args:
            values += [self._scale_a, self._scale_b]
        if spec.persistent:
            values.append(ctypes.c_int(problem.batch))
        self._ws = ctypes.c_void_p(workspace)
        self._ws_fixed = workspace
        self._counters = ctypes.c_void_p()
        if spec.tma_store:
            values += [self._d_ok, self._ws, self._counters]
        # (launch.split_k_buffers: split-K and tail-split scratch, GPC_ORDER's counts and tables)
        scratch = (cfg.get("SPLIT_K", 1) > 1 or cfg.get("TAIL_SPLIT", 0) or cfg.get("GPC_ORDER", 0)
                   or cfg.get("STREAM_K", 0))
        self._split_k = (problem, spec, cfg, self._grid[0] // spec.cluster_of(cfg)) if scratch else None
        # Eager launches' scratch per raw stream, as launch.split_k_buffers gave it: a buffer it outgrows later
        # is retired, never freed, so the addresses stay valid (and its counters zero) for this launch's size.
        self._scratch: dict[int, tuple[int, int, bool]] = {}
        self._values = values  # keeps them alive
        self._n_maps = (3 if spec.tma_store else 2) if spec.tma else 0
        self._params = (ctypes.c_void_p * (self._n_maps + len(values)))()
        for i, v in enumerate(values):
            self._params[self._n_maps + i] = ctypes.addressof(v)
        self._params_addr = ctypes.addressof(self._params)

    def _encoded(self, cache: dict[int, tuple[int, Any]], ptr: int, geo: tuple[Any, ...]) -> tuple[int, Any]:
        """The parameter pointer of the tensor map of ``geo`` at address ``ptr``, encoded once per address:
        encoding is most of a repeat call's host time, and a model's weights, and the activations the
        caching allocator hands out again, come back to the same few addresses. One cache per operand
        (a model's layers multiply the (A, B, D) combinations, not the addresses). Returns (parameter
        pointer, the map object that owns it: the caller holds it until the launch has copied the map)."""
        found = cache.get(ptr)
        if found is None:
            obj = tma.encode_typed(ptr, *geo)
            if len(cache) >= 512:
                cache.clear()
            found = cache[ptr] = (obj.getPtr(), obj)
        return found

    def __call__(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None,
                 out: torch.Tensor | None, scale_a: Any = None, scale_b: Any = None) -> torch.Tensor:
        ea, eb, ec, eo = self._extents
        if out is not None:
            o0 = out.data_ptr()
            o1 = o0 + eo
            for name, t, e in (("a", a, ea), ("b", b, eb)):
                t0 = t.data_ptr()
                if t0 < o1 and o0 < t0 + e and e and eo:
                    raise ValueError(f"out overlaps {name} in memory; pass a separate output tensor")
            if c is not None and ec and eo:
                c0 = c.data_ptr()
                if c0 < o1 and o0 < c0 + ec and not (c0 == o0 and self._c_is_out_geometry):
                    raise ValueError("out partly overlaps c; pass c=out exactly (in-place update) or separate tensors")
            d = out
        else:
            d = torch.empty(self._out_shape, dtype=self._out_dtype, device=self._torch_device)
        copy_a, copy_b = self._copies
        if copy_a is not None:
            a = copy_a(a)
        if copy_b is not None:
            b = copy_b(b)
        ka, kb = (b, a) if self._swapped else (a, b)
        target = None
        if self._padded_shape is not None:
            target, d = d, torch.empty(self._padded_shape, dtype=self._out_dtype, device=self._torch_device)
        misaligned_out = None
        if self._staged_d_only and target is None and d.data_ptr() % 16:
            # This config writes D only through TMA (16-byte aligned base): an aligned buffer, copied over.
            misaligned_out, d = d, torch.empty_strided(d.size(), d.stride(), dtype=d.dtype, device=d.device)
        c_ptr = c.data_ptr() if (self._c_used and c is not None) else 0
        scales = None
        if self._scaled:  # tensors by address; numbers were folded into alpha with the signature's values
            if self._block_scales:
                scale_a, scale_b = kernel_block_scales(scale_a, scale_b)
            scales = tuple(t.data_ptr() if type(t) in _PLAIN else 0 for t in (scale_a, scale_b))
            if self._swapped:  # (the kernel's A is b: row-wise scales exchange roles; per-tensor ones commute)
                scales = scales[::-1]
        self._go(ka.data_ptr(), kb.data_ptr(), c_ptr, d.data_ptr(), scales)
        if target is not None:
            return staging.unpad(d, target)
        if misaligned_out is not None:
            return misaligned_out.copy_(d)
        return d

    def new_output(self, a_ptr: int, b_ptr: int, c_ptr: int, shape: tuple[int, ...]) -> torch.Tensor:
        """Launch into a new output of ``shape`` (the prepared shape, or a view of it: the same elements,
        row-major) from raw addresses: the repeat call of tcgemm.nn.Linear, for prepared launches that
        stage nothing (``self.direct``). The caller checked the operands' signature."""
        d = torch.empty(shape, dtype=self._out_dtype, device=self._torch_device)
        if self._swapped:  # (a direct launch with swapped operands writes D transposed: problem.d_transposed)
            a_ptr, b_ptr = b_ptr, a_ptr
        self._go(a_ptr, b_ptr, c_ptr, d.data_ptr())
        return d

    def _go(self, a_ptr: int, b_ptr: int, c_ptr: int, d_ptr: int, scales: tuple[int, int] | None = None,
            retry: bool = False) -> None:
        """Fill the parameter block with these addresses (and their tensor maps) and launch."""
        scratch = False
        if self._split_k is not None:
            # ~2 us of host time a call through split_k_buffers (locks, lookups), the decode kernel's whole
            # margin at GPT-2's sizes: eager calls reuse what it gave on this stream; capture asks every time.
            capturing = launch._capturing()
            stream = 0 if capturing else self._raw_stream(self._device)
            found = None if capturing else self._scratch.get(stream)
            if found is None:
                problem_, spec_, cfg_, clusters = self._split_k
                found = launch.split_k_buffers(problem_, spec_, cfg_, self._device, clusters)
                if not capturing:
                    self._scratch[stream] = found
            ws_ptr, counters_ptr, scratch = found
        if launch._tracers:
            launch.note_launch(self.plan.spec, self.plan.config)
        driver.ensure_context(self._device)
        with self._lock:  # the parameter block is shared by threads that make the same call
            self._a.value = a_ptr
            self._b.value = b_ptr
            self._c.value = c_ptr
            self._d.value = d_ptr
            if scales is not None:
                self._scale_a.value, self._scale_b.value = scales
            if scratch:
                self._ws.value = ws_ptr if self._ws_fixed is None else self._ws_fixed
                self._counters.value = counters_ptr
            if self._tma:
                params = self._params
                map_a = self._encoded(self._maps_a, a_ptr, self._geo_a)
                map_b = self._encoded(self._maps_b, b_ptr, self._geo_b)
                params[0] = map_a[0]
                params[1] = map_b[0]
                if self._tma_store:  # (without it, slot 2 is the first scalar argument's)
                    if self._d_geo is not None and d_ptr % 16 == 0:
                        map_d = self._encoded(self._maps_d, d_ptr, self._d_geo)
                        params[2] = map_d[0]
                        self._d_ok.value = 1
                    else:  # the register-path epilogue writes D; the slot holds A's map as a placeholder
                        params[2] = params[0]
                        self._d_ok.value = 0
            if self._raw is not None:
                err = self._raw(self._raw_stream(self._device), self._params_addr)
            elif self._launch_ex is not None:
                (err,) = self._launch_ex(self._stream(), self._params_addr)
            else:
                gx, gy, gz = self._grid
                (err,) = self._launch(self._handle, gx, gy, gz, self._block, 1, 1, self._smem, self._stream(),
                                      self._params_addr, 0)
        if err != self._ok and err != 0:
            if not retry:  # another context may have been made current behind ensure_context's back: once more
                driver.make_current(self._device)
                return self._go(a_ptr, b_ptr, c_ptr, d_ptr, scales, retry=True)
            call = "cuLaunchKernelEx" if self._launch_ex is not None else "cuLaunchKernel"
            if isinstance(err, int) and not isinstance(err, self._ok.__class__):
                from cuda.bindings import driver as cuda_driver

                err = cuda_driver.CUresult(err)
            raise RuntimeError(f"{call} failed: {err}")
