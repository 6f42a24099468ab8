"""fp8 with row-wise scales (scale_a one per row of a, scale_b one per column of b, as torch._scaled_mm's row-wise
mode) on the GPU: every config of the kernel that takes them against a float64 reference of the same quantized
operands, poisoned outputs, odd shapes, every layout auto serves (staged K-major copies), a column-major out, each
output dtype, bitwise repeats, a CUDA graph replayed on new scale values, and the error against torch._scaled_mm's."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import registry

pytestmark = pytest.mark.gpu

KERNEL = "wgmma_tma_store_kmajor"


def _available() -> bool:
    return (torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
            and "fp8e4m3" in tcgemm.problem.available_precisions())


def _operands(m: int, n: int, k: int, layouts: str = "rc", seed: int = 0):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=gen) if layouts[0] == "r" else \
        torch.randn(k, m, device="cuda", generator=gen).t()
    b = torch.randn(k, n, device="cuda", generator=gen) if layouts[1] == "r" else \
        torch.randn(n, k, device="cuda", generator=gen).t()
    a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    sa = torch.rand(m, 1, device="cuda", generator=gen) * 2 + 0.05
    sb = torch.rand(1, n, device="cuda", generator=gen) * 2 + 0.05
    return a, b, sa, sb


def _reference(a, b, sa, sb, alpha: float = 1.0) -> torch.Tensor:
    return alpha * sa.double() * (a.double() @ b.double()) * sb.double()


def _check(d: torch.Tensor, a, b, sa, sb, alpha: float = 1.0) -> None:
    """D against the float64 reference elementwise: D's own rounding, plus the fp8 sums' (wgmma accumulates fp8
    products with fewer bits than fp32 between promotions), bounded by the sum of |products|. A wrong scale row
    or column is off by ~100%."""
    ref = _reference(a, b, sa, sb, alpha)
    assert not torch.isnan(d).any(), "poisoned values left in D"
    eps = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-22}[d.dtype]
    magnitude = abs(alpha) * sa.double() * (a.double().abs() @ b.double().abs()) * sb.double()
    err = (d.double() - ref).abs()
    assert (err <= eps * ref.abs() + 2.0**-11 * magnitude).all(), err.max().item()


CONFIGS = [c.name for c in registry.get(KERNEL).configs_for("fp8e4m3")]
SHAPES = [(1, 16, 16), (7, 24, 48), (129, 257, 4096), (200, 136, 304), (1000, 1030, 1008), (17, 4096, 4096)]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_every_config(config, m, n, k):
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    a, b, sa, sb = _operands(m, n, k, seed=m + n + k)
    for out_dtype in (torch.bfloat16, torch.float32):
        out = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
        try:
            d = tcgemm.gemm(a, b, out=out, scale_a=sa, scale_b=sb, alpha=0.75, kernel=KERNEL, config=config)
        except ValueError as exc:  # e.g. a TMA-only D at unaligned rows
            if "TMA" in str(exc) or "writes" in str(exc):
                continue
            raise
        assert d.data_ptr() == out.data_ptr()
        _check(d, a, b, sa, sb, alpha=0.75)


@pytest.mark.parametrize("layouts", ["rr", "rc", "cr", "cc"])
@pytest.mark.parametrize("out_layout", ["row", "col"])
def test_auto_every_layout_and_column_major_out(layouts, out_layout):
    """auto stages MN-major operands K-major; a column-major out runs D^T = B^T A^T with the scales exchanged."""
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    m, n, k = 300, 520, 784
    a, b, sa, sb = _operands(m, n, k, layouts, seed=3)
    for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
        out = torch.full((m, n) if out_layout == "row" else (n, m), float("nan"), device="cuda", dtype=out_dtype)
        out = out if out_layout == "row" else out.t()
        d = tcgemm.gemm(a, b, out=out, scale_a=sa.reshape(m), scale_b=sb.reshape(n))
        _check(d, a, b, sa.reshape(m, 1), sb.reshape(1, n))


@pytest.mark.parametrize("m,n,k,kernel", [(512, 1024, 2048, KERNEL), (16, 4096, 4096, "swap_ab_stream_k_fp8")])
def test_bitwise_repeats_graph_and_new_scales(m, n, k, kernel):
    """Repeat calls (the prepared path) and a call on another stream give the same bits (the decode kernel at 16
    rows: its stream-K fixup sums in a fixed order); a CUDA graph captures the call and replays it on new scale
    values written into the captured tensors."""
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    a, b, sa, sb = _operands(m, n, k, seed=5)
    assert tcgemm.explain(a, b, scale_a=sa, scale_b=sb).kernel == kernel
    first = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb)
    _check(first, a, b, sa, sb)
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b, scale_a=sa, scale_b=sb), first)
    out = torch.empty_like(first)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tcgemm.gemm(a, b, out=out, scale_a=sa, scale_b=sb)
    torch.cuda.current_stream().wait_stream(stream)
    assert torch.equal(out, first)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.gemm(a, b, out=out, scale_a=sa, scale_b=sb)
    out.fill_(float("nan"))
    graph.replay()
    assert torch.equal(out, first)
    sa.mul_(0.5)
    sb.add_(1.0)
    graph.replay()
    assert torch.equal(out, tcgemm.gemm(a, b, scale_a=sa, scale_b=sb))
    _check(out, a, b, sa, sb)


@pytest.mark.parametrize("m,n,k", [(16, 4096, 4096), (256, 384, 512), (2048, 2048, 4096)])
def test_error_no_worse_than_scaled_mm(m, n, k):
    """Against the float64 reference of the same quantized operands, tcgemm's error is no worse than
    torch._scaled_mm's row-wise (bf16 out, which that mode requires)."""
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    a, b, sa, sb = _operands(m, n, k, seed=7)
    ref = _reference(a, b, sa, sb)
    try:
        theirs = torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    except RuntimeError as exc:
        pytest.skip(f"torch._scaled_mm has no row-wise mode here: {exc}")
    ours = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb)

    def err(x: torch.Tensor) -> float:
        return (torch.linalg.vector_norm(x.double() - ref) / torch.linalg.vector_norm(ref)).item()

    assert err(ours) <= err(theirs) * 1.05 + 1e-6, (err(ours), err(theirs))


DECODE = "swap_ab_stream_k_fp8"
DECODE_CONFIGS = [c.name for c in registry.get(DECODE).configs_for("fp8e4m3")]
DECODE_SHAPES = [(1, 4096, 4096), (5, 200, 1008), (16, 1280, 8192), (13, 4100, 2064), (64, 136, 4096)]


@pytest.mark.parametrize("config", DECODE_CONFIGS)
@pytest.mark.parametrize("m,n,k", DECODE_SHAPES)
@pytest.mark.parametrize("mode", ["row", "tensor"])
def test_decode_kernel_every_config(config, m, n, k, mode):
    """The decode kernel's fp8 builds (the weight as wgmma's A, stream-K over the SMs, each stage's sums promoted):
    every config at ragged N and K (partial weight tiles, a K that ends inside a stage), row-wise and per-tensor
    scale tensors, poisoned outputs, three D types."""
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    a, b, sa, sb = _operands(m, n, k, seed=m + n + k)
    if mode == "tensor":
        sa, sb = sa[:1, 0].clone(), sb[0, :1].clone()
    for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
        out = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
        d = tcgemm.gemm(a, b, out=out, scale_a=sa, scale_b=sb, alpha=0.75, kernel=DECODE, config=config)
        if mode == "tensor":
            _check(d, a, b, sa.reshape(1, 1), sb.reshape(1, 1), alpha=0.75)
        else:
            _check(d, a, b, sa, sb, alpha=0.75)
