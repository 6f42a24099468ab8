"""Correctness against a float64 reference, with poisoned outputs.

Used by the GPU tests, ``tcgemm check`` and the benchmark's check column. It
calls the public API like a user would.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch

from .entry import gemm

# ||D - ref|| / ||ref|| allowed per precision, on random normal data. fp8: against the float64
# product of the fp8 inputs as stored (their quantisation is the caller's), so what remains is the
# fp32 accumulation and the bf16 output rounding. tf32: inputs rounded to tf32 (the Hopper kernels in
# their TMA copy) give about 3e-4 over a large output, truncated ones (the mma_pipeline stage, the
# Hopper kernels before 41f57f8) about 8e-4, up to 2.3e-3 seen on a single dot product of length 8
# (tests/gpu, 1x1x8), where nothing averages.
TOLERANCE: dict[str, float] = {"fp32": 1e-5, "tf32": 4e-3, "fp16": 1e-2, "bf16": 1e-2, "int8": 0.0,
                               "fp8e4m3": 2e-2, "fp8e5m2": 2e-2}
_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
           "bf16": torch.bfloat16, "int8": torch.int8,
           "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}
# Default output dtype per precision (as tcgemm.gemm chooses it).
_OUT_DTYPES = {"int8": torch.int32, "fp8e4m3": torch.bfloat16, "fp8e5m2": torch.bfloat16}


def random_operand(rows: int, cols: int, layout: str, batch: int | None, dtype: torch.dtype,
                   device: torch.device | str, generator: torch.Generator | None = None,
                   pad: int = 0) -> torch.Tensor:
    """A random (batch, rows, cols) tensor stored row- or column-major, optionally
    as a slice of a wider buffer (leading dimension = width + pad). Never zeros."""
    lead = () if batch is None else (batch,)
    if layout == "row":
        full = (*lead, rows, cols + pad)
    else:
        full = (*lead, cols, rows + pad)
    if dtype == torch.int8:
        data = torch.randint(-128, 128, full, dtype=torch.int8, device=device, generator=generator)
    else:
        data = torch.randn(full, dtype=torch.float32, device=device, generator=generator).to(dtype)
    if layout == "row":
        return data[..., :cols]
    return data[..., :rows].transpose(-1, -2)


def reference(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
              scale: float = 1.0) -> torch.Tensor:
    """alpha * scale * a @ b + beta * c in float64 (on a's device); scale: scale_a * scale_b of fp8."""
    ref = alpha * scale * torch.matmul(a.double(), b.double())
    if c is not None and beta != 0:
        ref = ref + beta * c.double()
    return ref


def relative_error(d: torch.Tensor, ref: torch.Tensor, floor: float = 0.0) -> float:
    """||d - ref|| / max(||ref||, floor) (inf if d has NaN or Inf where ref is finite).

    ``floor`` guards against cancellation: a 1 x 1 x 8 product of random numbers can sum to
    nearly zero, and then any rounding of the inputs (tf32 truncates them) is a large fraction
    of ||ref||. :func:`check` passes the norm of |a| @ |b| divided by sqrt(K), which is about
    ||ref|| for random data without cancellation, so the metric stays as strict elsewhere."""
    d64 = d.double()
    if not torch.isfinite(d64).all():
        return math.inf
    denom = max(torch.linalg.vector_norm(ref).item(), floor)
    diff = torch.linalg.vector_norm(d64 - ref).item()
    return diff / denom if denom > 0 else diff


@dataclass
class CheckResult:
    kernel: str
    m: int
    n: int
    k: int
    batch: int
    layouts: str
    precision: str
    alpha: float
    beta: float
    error: float
    tolerance: float
    unwritten: int  # output elements still holding the poison

    @property
    def passed(self) -> bool:
        return self.unwritten == 0 and self.error <= self.tolerance

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "passed": self.passed}


def poisoned_like(shape: tuple[int, ...], dtype: torch.dtype, device: torch.device | str) -> torch.Tensor:
    """An output buffer full of NaN (or INT32_MIN for integers): unwritten elements show."""
    if dtype.is_floating_point:
        return torch.full(shape, float("nan"), dtype=dtype, device=device)
    return torch.full(shape, torch.iinfo(dtype).min, dtype=dtype, device=device)


def check(
    m: int,
    n: int,
    k: int,
    *,
    kernel: str = "auto",
    config: str | None = None,
    precision: str = "fp32",
    layouts: str = "rr",
    batch: int | None = None,
    alpha: float = 1.0,
    beta: float = 0.0,
    pad: int = 0,
    out_layout: str = "row",
    out_dtype: torch.dtype | None = None,
    device: str | torch.device = "cuda",
    seed: int | None = None,
    scales: tuple[float, float] | None = None,
    scale_tensors: bool = False,
    c_shape: str = "full",
) -> CheckResult:
    """Run one GEMM on fresh random inputs into a poisoned output and compare with float64.

    scales: fp8 per-tensor (scale_a, scale_b), passed as Python floats or, with scale_tensors,
    as one-element float32 tensors on the device.
    c_shape (with beta != 0): "full" (C of D's shape), "bias" (a row (N,) broadcast over the rows and
    batches, as a Linear's bias) or "bias-offset" (the same row starting one element into its storage,
    so that its pairs are not aligned)."""
    if c_shape not in ("full", "bias", "bias-offset"):
        raise ValueError(f"c_shape must be 'full', 'bias' or 'bias-offset', not {c_shape!r}")
    gen = torch.Generator(device=device)
    gen.manual_seed(seed if seed is not None else torch.seed() % 2**63)
    dtype = _DTYPES[precision]
    a = random_operand(m, k, "row" if layouts[0] == "r" else "col", batch, dtype, device, gen, pad)
    b = random_operand(k, n, "row" if layouts[1] == "r" else "col", batch, dtype, device, gen, pad)
    c = None
    if out_dtype is None:
        out_dtype = _OUT_DTYPES.get(precision, dtype)
    if beta != 0 and c_shape == "full":
        c = random_operand(m, n, "row", batch, torch.float32, device, gen).to(out_dtype)
    elif beta != 0:
        skip = 1 if c_shape == "bias-offset" else 0
        c = torch.randn(n + skip, generator=gen, device=device).to(out_dtype)[skip:]
    shape = (m, n) if batch is None else (batch, m, n)
    if out_layout == "row":
        out = poisoned_like(shape, out_dtype, device)
    else:
        out = poisoned_like((*shape[:-2], n, m), out_dtype, device).transpose(-1, -2)
    scale_kw: dict[str, object] = {}
    if scales is not None:
        scale_kw = {"scale_a": scales[0], "scale_b": scales[1]}
        if scale_tensors:
            scale_kw = {k: torch.tensor([v], dtype=torch.float32, device=device) for k, v in scale_kw.items()}
    gemm(a, b, c, alpha=alpha, beta=beta, out=out, kernel=kernel, config=config,
         precision=None if precision != "tf32" else "tf32", **scale_kw)
    if out.dtype.is_floating_point:
        unwritten = int(torch.isnan(out).sum().item())
    else:
        unwritten = int((out == torch.iinfo(out.dtype).min).sum().item())
    scale = scales[0] * scales[1] if scales is not None else 1.0
    ref = reference(a, b, c, alpha, beta, scale)
    magnitude = abs(alpha * scale) * torch.matmul(a.double().abs(), b.double().abs())
    err = relative_error(out, ref, torch.linalg.vector_norm(magnitude).item() / math.sqrt(max(k, 1)))
    return CheckResult(kernel, m, n, k, batch or 1, layouts, precision, alpha, beta, err,
                       TOLERANCE[precision], unwritten)
