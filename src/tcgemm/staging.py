"""Operand staging: copy A and/or B into buffers a Hopper (TMA) kernel can read.

The Hopper kernels need what a tensor may not offer:

* alignment: TMA (and 16-byte vector loads) need every row of an operand to start on a 16-byte
  boundary. cuBLAS runs such inputs (e.g. bf16 at 4095^3) on a much slower path;
* layout: wgmma reads tf32, int8 and fp8 operands K-major only (A row-major, B column-major),
  so the kernels for those types serve ``layouts=("rc",)``.

A copy of an operand into a buffer with the wanted layout and a leading dimension rounded up to
16 bytes (a transposing copy for an MN-major operand) costs one read and one write of it —
microseconds against a GEMM of milliseconds — and lets the fastest kernel run. Operands that
already fit are not copied. :func:`stage` decides per operand; :func:`tcgemm.gemm` calls it only
for ``kernel="auto"`` when the selection left the Hopper kernels.
"""

from __future__ import annotations

import ctypes
import dataclasses
import threading

import torch

from . import launch, registry
from .problem import GemmProblem, _aligned16, layout_of

# Below this many multiply-adds the copy is not worth it (the GEMM itself takes microseconds).
MIN_MACS = 512**3


def hopper_spec(precision: str, arch: int) -> registry.KernelSpec | None:
    """The Hopper kernel auto would prefer for ``precision`` if the operands fitted it (specialists for few
    rows, KernelSpec.auto_max_m, aside: staging serves problems large enough to be worth a copy)."""
    specs = [s for s in registry.all_specs() if s.family == "hopper" and s.auto and not s.auto_max_m
             and precision in s.precisions and arch >= s.min_arch]
    return max(specs, key=lambda s: s.stage, default=None)


def target_layouts(layouts: str, served: tuple[str, ...]) -> str:
    """The served layout pair (e.g. "rc") that changes the fewest operands of ``layouts``."""
    if layouts in served:
        return layouts
    return min(served, key=lambda lay: (lay[0] != layouts[0]) + (lay[1] != layouts[1]))


def _flip(layout: str) -> str:
    return "c" if layout == "r" else "r"


def fits(t: torch.Tensor, layout: str) -> bool:
    """Whether ``t`` is already ``layout`` ("r"/"c") with 16-byte aligned rows (in its own layout)."""
    found = layout_of(t)
    if found is None or found[0][0] != layout:
        return False
    batch_stride = t.stride(0) if t.dim() == 3 and t.shape[0] > 1 else 0
    return _aligned16(t, found[1], batch_stride)


def aligned_copy(t: torch.Tensor, layout: str | None = None) -> torch.Tensor:
    """A copy of ``t`` (2-D or 3-D) whose rows, in ``layout``, start on 16-byte boundaries.

    ``layout``: "r" (row-major), "c" (column-major) or None (keep ``t``'s own). The leading
    dimension is padded to 16 bytes; the padding is never read. A change of layout is a
    transposing copy: a buffer of the transposed shape, viewed back transposed."""
    per_vec = 16 // t.element_size()
    rows, cols = t.shape[-2], t.shape[-1]
    if layout is None:
        layout = "c" if t.stride(-2) == 1 and t.stride(-1) != 1 else "r"
    lead = t.shape[:-2]
    if layout == "c":
        ld = -(-rows // per_vec) * per_vec
        buf = torch.empty((*lead, cols, ld), dtype=t.dtype, device=t.device)
        view = buf[..., :rows].transpose(-1, -2)
    else:
        ld = -(-cols // per_vec) * per_vec
        buf = torch.empty((*lead, rows, ld), dtype=t.dtype, device=t.device)
        view = buf[..., :cols]
    if not _device_copy(buf, t, layout):
        view.copy_(t)
    return view


_COPY_SOURCE = "util/stage_copy.cu"
_COPY_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int"}
_COPY_TILE = 32  # kernels/util/stage_copy.cu: TILE, and TILE * ROWS threads (stage_copy)
_ROW_THREADS, _ROW_BYTES = 128, 128 * 4 * 4  # stage_rows: ROW_THREADS, and the bytes of a row one CTA writes
_MAX_GRID_YZ = 65535
_I64, _PTR, _INT = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
# The two kernels of stage_copy.cu: (threads, argument types)
_ENTRIES = {
    "stage_copy": (_COPY_TILE * 8, (_PTR, _I64, _I64, _I64, _PTR, _I64, _I64, _INT, _INT)),
    "stage_rows": (_ROW_THREADS, (_PTR, _I64, _I64, _PTR, _I64, _I64, _INT, _INT)),
    "split_tf32": (_COPY_TILE * 8, (_PTR, _I64, _I64, _PTR, _I64, _INT, _INT, _INT)),
}


class _CopyLaunch:
    """One copy kernel of stage_copy.cu for one element size on one device, launched like
    tcgemm.fastpath launches GEMMs: a ctypes parameter block filled per call and one cuLaunchKernel
    (a staged call makes up to three copies per GEMM; through cuda.core's launch they would cost more
    host time than the copies take)."""

    def __init__(self, device: int, size: int, entry: str) -> None:
        from cuda.bindings import driver

        from . import driver as tc_driver
        from . import jit

        arch = jit.target_arch(torch.cuda.get_device_capability(device))
        kernel = jit.load_kernel(_COPY_SOURCE, entry, jit.as_defines([("ELEM", _COPY_TYPES[size])]), arch, device)
        self._launch = driver.cuLaunchKernel
        self._ok = driver.CUresult.CUDA_SUCCESS
        self._handle = kernel.handle
        self._stream = tc_driver.current_stream(device)
        # Through ctypes where the driver library loads, as the GEMMs' repeat launches (launch.libcuda): at
        # 1024^3 a staged tf32/int8 call spent ~48 us of host time on its copy through cuda.bindings.
        found = launch.libcuda()
        self._raw_launch = found[0] if found is not None else None
        self._raw_handle = int(kernel.handle)
        self._raw_stream = tc_driver._RAW_STREAM or tc_driver._raw_stream
        self._device = device
        self._lock = threading.Lock()
        self._threads, types = _ENTRIES[entry]
        self._values = tuple(kind() for kind in types)
        self._params = (ctypes.c_void_p * len(self._values))(*(ctypes.addressof(v) for v in self._values))
        self._params_addr = ctypes.addressof(self._params)

    def __call__(self, grid: tuple[int, int, int], args: tuple[int, ...]) -> None:
        from . import driver

        driver.ensure_context(self._device)
        with self._lock:
            for slot, value in zip(self._values, args, strict=True):
                slot.value = value
            if self._raw_launch is not None:
                gx, gy, gz = grid
                err = self._raw_launch(self._raw_handle, gx, gy, gz, self._threads, 1, 1, 0,
                                       self._raw_stream(self._device), self._params_addr, None)
            else:
                (err,) = self._launch(self._handle, *grid, self._threads, 1, 1, 0, self._stream(),
                                      self._params_addr, 0)
        if err != self._ok:
            raise RuntimeError(f"cuLaunchKernel (staging copy) failed: {err}")


_launchers: dict[tuple[int, int, str], _CopyLaunch | None] = {}


def _launcher(t: torch.Tensor, entry: str) -> _CopyLaunch | None:
    device = t.device.index if t.device.index is not None else torch.cuda.current_device()
    key = (device, t.element_size(), entry)
    if key not in _launchers:
        from . import jit

        try:
            _launchers[key] = _CopyLaunch(device, t.element_size(), entry)
        except jit.JitUnavailable:
            _launchers[key] = None
    return _launchers[key]


@dataclasses.dataclass(frozen=True)
class _CopyPlan:
    """One copy kernel launch of stage_copy.cu with everything but the two addresses worked out."""

    copier: _CopyLaunch
    grid: tuple[int, int, int]
    args: tuple[int, ...]  # the kernel's arguments, 0 where the addresses go
    src: int  # slots of the source and destination addresses in ``args``
    dst: int

    def __call__(self, src_ptr: int, dst_ptr: int) -> None:
        args = list(self.args)
        args[self.src], args[self.dst] = src_ptr, dst_ptr
        self.copier(self.grid, tuple(args))


def _copy_plan(t: torch.Tensor, layout: str, ld: int) -> _CopyPlan | None:
    """The copy of ``t`` into rows of ``ld`` elements (contiguous) in ``layout`` by the kernels of
    kernels/util/stage_copy.cu, or None when they do not apply (CPU tensors, other element sizes, grids
    beyond CUDA's limits, no NVRTC): a function of ``t``'s shape, strides, dtype and device only."""
    size = t.element_size()
    if not t.is_cuda or size not in _COPY_TYPES or t.numel() == 0:
        return None
    rows, cols = t.shape[-2], t.shape[-1]
    # dst[z][i][j] = t[z][i][j] (layout "r") or t[z][j][i] ("c": buf holds t transposed)
    s_i, s_j = (t.stride(-2), t.stride(-1)) if layout == "r" else (t.stride(-1), t.stride(-2))
    big_r, big_c = (rows, cols) if layout == "r" else (cols, rows)
    batch = t.shape[0] if t.dim() == 3 else 1
    s_b = t.stride(0) if t.dim() == 3 else 0
    if batch > _MAX_GRID_YZ or min(s_i, s_j, s_b) < 0:
        return None
    if s_j == 1 or big_c == 1:  # rows of the source are rows of the destination: a byte-string copy per row
        copier = _launcher(t, "stage_rows")
        if copier is None:
            return None
        grid = (-(-big_c * size // _ROW_BYTES), min(big_r, _MAX_GRID_YZ), batch)
        return _CopyPlan(copier, grid, (0, s_i * size, s_b * size, 0, ld * size, big_r * ld * size, big_r,
                                        big_c * size), 0, 3)
    grid = (-(-big_c // _COPY_TILE), -(-big_r // _COPY_TILE), batch)
    if grid[1] > _MAX_GRID_YZ:
        return None
    copier = _launcher(t, "stage_copy")
    if copier is None:
        return None
    return _CopyPlan(copier, grid, (0, s_i, s_j, s_b, 0, ld, big_r * ld, big_r, big_c), 0, 4)


def _device_copy(buf: torch.Tensor, t: torch.Tensor, layout: str) -> bool:
    """Fill ``buf`` (rows of ``buf.shape[-1]`` elements, contiguous: the padded storage of
    :func:`aligned_copy`, or the caller's D in :func:`unpad`) from ``t`` with the copy kernels of
    kernels/util/stage_copy.cu; False when they do not apply and the caller should use torch's copy_."""
    plan = _copy_plan(t, layout, buf.shape[-1])
    if plan is None:
        return False
    plan(t.data_ptr(), buf.data_ptr())
    return True


class PreparedCopy:
    """:func:`aligned_copy` for the repeat path (tcgemm.fastpath): calls whose operand has the signature of
    ``t`` (shape, strides, dtype, device) copy it into a new buffer of one padded shape, so the buffer's size
    and the copy kernel's grid and arguments are worked out once; a call allocates the buffer and launches.
    It returns the buffer itself, not the view aligned_copy gives: the prepared GEMM needs only its address."""

    def __init__(self, t: torch.Tensor, layout: str) -> None:
        self._layout = layout
        per_vec = 16 // t.element_size()
        rows, cols = t.shape[-2], t.shape[-1]
        ld = -(-(rows if layout == "c" else cols) // per_vec) * per_vec
        self._numel = (t.numel() // (rows * cols)) * (cols if layout == "c" else rows) * ld
        self._dtype, self._device = t.dtype, t.device
        self._plan = _copy_plan(t, layout, ld)

    def __call__(self, t: torch.Tensor) -> torch.Tensor:
        if self._plan is None:
            return aligned_copy(t, self._layout)
        buf = torch.empty(self._numel, dtype=self._dtype, device=self._device)
        self._plan(t.data_ptr(), buf.data_ptr())
        return buf


def stage(a: torch.Tensor, b: torch.Tensor, problem: GemmProblem, arch: int,
          force: bool = False) -> tuple[torch.Tensor, torch.Tensor] | None:
    """Replacements for the caller's ``a`` and ``b`` (copies where needed) that the preferred
    Hopper kernel for ``problem`` can read, or None when staging is not worth it.

    ``problem`` is ``describe(a, b, ...)``; with a column-major output it is the swapped problem
    D^T = B^T A^T, whose A is ``b`` transposed: the wanted layouts are mapped back to the
    caller's tensors. ``force``: stage even a small problem (no other kernel serves it)."""
    if arch < 90 or not (force or problem.m * problem.n * problem.k * problem.batch >= MIN_MACS):
        return None
    spec = hopper_spec(problem.precision, arch)
    if spec is None:
        return None
    want = target_layouts(problem.layouts, spec.layouts)
    want_a, want_b = (_flip(want[1]), _flip(want[0])) if problem.swapped else (want[0], want[1])
    if fits(a, want_a) and fits(b, want_b):
        return None  # nothing to copy: the operands fit and something else ruled the kernel out
    return (a if fits(a, want_a) else aligned_copy(a, want_a),
            b if fits(b, want_b) else aligned_copy(b, want_b))


def padded_output(problem: GemmProblem, spec: registry.KernelSpec, out: torch.Tensor | None) -> GemmProblem | None:
    """The problem with D in a row-padded buffer when that is worth it, else None.

    A TMA-store kernel writes 16-bit D through a tensor map, which needs 16-byte aligned rows; with
    N = 4095 (bf16) it would fall back to element-wise stores from registers (measured on the H100 at
    4095^3: 0.31 ms against 0.21 ms with the TMA store into padded rows). Writing into a buffer whose
    rows are padded to 16 bytes and copying D out with the row copy (stage_rows) costs far less. Only
    for large problems and row-major D (not the swapped D^T problem): an output tcgemm allocates, or
    the caller's ``out`` when it is contiguous."""
    size = problem.out_dtype.itemsize
    per_vec = 16 // size
    if ((out is not None and not out.is_contiguous()) or not spec.tma_store or size != 2 or problem.swapped
            or problem.d_transposed
            or problem.n % per_vec == 0 or problem.m * problem.n * problem.k * problem.batch < MIN_MACS):
        return None
    ld = -(-problem.n // per_vec) * per_vec
    return dataclasses.replace(problem, d_ld=ld, d_batch_stride=problem.m * ld)


def padded_buffer(d: torch.Tensor, ld: int) -> torch.Tensor:
    """A buffer shaped like ``d`` (2-D or 3-D, row-major) with rows of ``ld`` elements."""
    return torch.empty((*d.shape[:-1], ld), dtype=d.dtype, device=d.device)


def unpad(buf: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """Copy the first ``d.shape[-1]`` columns of ``buf`` into ``d`` (contiguous) and return ``d``."""
    view = buf[..., : d.shape[-1]]
    if not _device_copy(d, view, "r"):
        d.copy_(view)
    return d


# The three K-blocks of split_tf32's rows (kernels/util/stage_copy.cu): A3 = [hi' | lo | hi], B3 = [lo | hi' | hi].
_A_BLOCKS, _B_BLOCKS = ("hi_finite", "lo", "hi"), ("lo", "hi_finite", "hi")


def split_parts(x: torch.Tensor) -> dict[str, torch.Tensor]:
    """hi (x rounded to tf32, ties away; truncated where rounding would overflow), hi_finite (hi, 0 where x is
    inf or NaN) and lo (x - hi, 0 where x is inf or NaN) of an fp32 tensor: split_tf32's arithmetic in torch."""
    bits = x.contiguous().view(torch.int32)
    rounded = (bits + 0x1000) & ~0x1FFF
    overflow = (rounded & 0x7F800000) == 0x7F800000
    hi = torch.where(overflow, bits & ~0x1FFF, rounded).view(torch.float32)
    finite = torch.isfinite(x)
    hi = torch.where(finite, hi, x)
    zero = torch.zeros((), dtype=x.dtype, device=x.device)
    return {"hi": hi, "hi_finite": torch.where(finite, hi, zero), "lo": torch.where(finite, x - hi, zero)}


class PreparedSplit:
    """:func:`split_tf32` for every operand with the signature of ``x`` (shape, strides, device): the copy's
    buffer size, grid and arguments worked out once; a call allocates the buffer and launches (tcgemm.emulation's
    repeat path). Calling it returns the (rows, 3K) view."""

    def __init__(self, x: torch.Tensor, b_side: bool) -> None:
        src = x.t() if b_side else x  # rows of the copy: A's rows, B's columns
        self._rows, self._k = src.shape
        self._ld = -(-3 * self._k // 4) * 4
        self._b_side = b_side
        self._device = x.device
        copier = _launcher(x, "split_tf32") if x.is_cuda else None
        grid = (-(-self._k // _COPY_TILE), -(-self._rows // _COPY_TILE), 1)
        self._plan = None
        if copier is not None and grid[1] <= _MAX_GRID_YZ and min(src.stride()) >= 0:
            self._plan = _CopyPlan(copier, grid, (0, src.stride(0), src.stride(1), 0, self._ld, self._rows, self._k,
                                                  int(b_side)), 0, 3)

    def buffer(self) -> torch.Tensor:
        """The (rows, 3K) view of a new buffer, unfilled."""
        buf = torch.empty((self._rows, self._ld), dtype=torch.float32, device=self._device)
        return buf[:, : 3 * self._k]

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        view = self.buffer()
        if self._plan is not None:
            self._plan(x.data_ptr(), view.data_ptr())
            return view
        parts = split_parts(x.t() if self._b_side else x)
        k = self._k
        for block, name in enumerate(_B_BLOCKS if self._b_side else _A_BLOCKS):
            view[:, block * k:(block + 1) * k] = parts[name]
        return view


def split_tf32(x: torch.Tensor, b_side: bool, fill: bool = True) -> torch.Tensor:
    """The K-major three-block copy of an fp32 operand for a GEMM over 3K on tf32 tensor cores
    (tcgemm.emulation): ``x`` is A (M x K) or, with ``b_side``, B (K x N), any strides. Returns a (rows, 3K)
    view, rows 16-byte aligned: A3 (M x 3K) or B3^T (N x 3K, whose transpose is the GEMM's column-major B).
    ``fill=False``: the buffer only, nothing launched (tcgemm.explain)."""
    prepared = PreparedSplit(x, b_side)
    return prepared(x) if fill else prepared.buffer()
