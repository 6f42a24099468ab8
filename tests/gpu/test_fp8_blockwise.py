"""fp8 with block-wise scales (DeepSeek-V3's: scale_a per row of a and 128-deep k-block, scale_b per 128 x 128 block of
the weight) on the GPU: every config of the kernel that takes them against a float64 reference of the same quantized
operands, poisoned outputs, odd shapes (K not a multiple of 128, a few rows, tiles straddling two scale blocks),
each output dtype, scale_a in either layout, bitwise repeats, a CUDA graph replayed on new scale values, and the
quantize helpers feeding the GEMM."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import registry
from tcgemm.quantize import quantize_blocks_reference

pytestmark = pytest.mark.gpu

KERNEL = "wgmma_tma_store_kmajor"


def _available() -> bool:
    return (torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
            and "fp8e4m3" in tcgemm.problem.available_precisions())


def _operands(m: int, n: int, k: int, seed: int = 0):
    """a (m, k) row-major and b = w.t() of a weight w (n, k), fp8; scales of both modes' shapes, scale_a M-major as
    quantize_fp8 returns it."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda", generator=gen).to(torch.float8_e4m3fn).t()
    kb, nb = -(-k // 128), -(-n // 128)
    sa = (torch.rand(kb, m, device="cuda", generator=gen) * 2 + 0.05).t()
    sb = torch.rand(nb, kb, device="cuda", generator=gen) * 2 + 0.05
    return a, b, sa, sb


def _reference(a, b, sa, sb, alpha: float = 1.0, absolute: bool = False) -> torch.Tensor:
    a64, b64 = (a.double().abs(), b.double().abs()) if absolute else (a.double(), b.double())
    m, n = a.shape[0], b.shape[1]
    out = torch.zeros(m, n, dtype=torch.float64, device=a.device)
    cols = torch.arange(n, device=a.device) // 128
    for kb in range(sa.shape[1]):
        ks = slice(128 * kb, 128 * (kb + 1))
        out += sa[:, kb:kb + 1].double() * (a64[:, ks] @ b64[ks, :]) * sb[cols, kb].double()
    return abs(alpha) * out if absolute else alpha * out


def _check(d: torch.Tensor, a, b, sa, sb, alpha: float = 1.0) -> None:
    """D against the float64 reference elementwise: D's rounding plus the fp8 sums' (wgmma's fp8 adds keep fewer
    bits than fp32 within a k-tile), bounded by the scaled sum of |products|. A wrong scale is off by ~100%."""
    ref = _reference(a, b, sa, sb, alpha)
    assert not torch.isnan(d).any(), "poisoned values left in D"
    eps = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-22}[d.dtype]
    err = (d.double() - ref).abs()
    bound = eps * ref.abs() + 2.0**-11 * _reference(a, b, sa, sb, alpha, absolute=True)
    assert (err <= bound).all(), err.max().item()


CONFIGS = [c.name for c in registry.get(KERNEL).configs_for("fp8e4m3") if c.serves_block_scales()]
# (K: fp8 rows of 16-byte multiples; N = 200, 136, 1030: a last, partial 128-column block of scales)
SHAPES = [(1, 16, 16), (7, 200, 48), (129, 257, 4096), (200, 136, 304), (1000, 1030, 1008), (17, 4096, 4096),
          (300, 584, 7168)]


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


@pytest.mark.parametrize("m,n,k", [(64, 4096, 7168), (300, 520, 784), (4096, 2048, 7168)])
def test_auto_each_out_dtype_and_layout_of_scale_a(m, n, k):
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    a, b, sa, sb = _operands(m, n, k, seed=3)
    for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
        for scale_a in (sa, sa.contiguous()):  # M-major (no copy) and row-major (copied for the kernel)
            d = tcgemm.gemm(a, b, scale_a=scale_a, scale_b=sb, out_dtype=out_dtype)
            _check(d, a, b, sa, sb)


def test_bitwise_repeats_graph_and_new_scales():
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    m, n, k = 512, 1024, 2048
    a, b, sa, sb = _operands(m, n, k, seed=5)
    first = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb)
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b, scale_a=sa, scale_b=sb), first)
    out = torch.empty_like(first)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tcgemm.gemm(a, b, out=out, scale_a=sa, scale_b=sb)
    torch.cuda.current_stream().wait_stream(stream)
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


@pytest.mark.parametrize("rows,cols", [(1, 16), (200, 300), (4096, 7168), (129, 4096)])
def test_quantize_blocks_bitwise(rows, cols):
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    gen = torch.Generator(device="cuda").manual_seed(rows + cols)
    w = (torch.randn(rows, cols, device="cuda", generator=gen) * 3).to(torch.bfloat16)
    if rows > 130:
        w[:128, :128] = 0  # a block of zeros: scale 1
        w[130] *= 100  # a row far larger than its block's others
    q, s = tcgemm.quantize_fp8_blocks(w)
    q_ref, s_ref = quantize_blocks_reference(w)
    assert s.shape == (-(-rows // 128), -(-cols // 128)) and s.is_contiguous()
    assert torch.equal(s, s_ref) and torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))


def test_quantized_operands_through_the_gemm():
    """x in 1 x 128 groups (quantize_fp8: scale_a M-major, no copy) and a weight in 128 x 128 blocks: the block-wise
    GEMM against the float64 product of the dequantized operands, and close to the bf16 product."""
    if not _available():
        pytest.skip("fp8 needs the Hopper kernel")
    m, n, k = 300, 520, 1000
    x = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    w = torch.randn(n, k, device="cuda").to(torch.bfloat16)
    x8, sx = tcgemm.quantize_fp8(x, group=128)
    w8, sw = tcgemm.quantize_fp8_blocks(w)
    assert sx.stride() == (1, -(-m // 4) * 4)
    y = tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.float32)
    deq_x = x8.double() * sx.double().repeat_interleave(128, 1)[:, :k]
    deq_w = w8.double() * sw.double().repeat_interleave(128, 0)[:n].repeat_interleave(128, 1)[:, :k]
    ref = deq_x @ deq_w.t()
    # (fp8 products summed by wgmma within each k-tile keep ~14 mantissa bits: 1.3e-4 measured here)
    assert (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item() < 5e-4
    full = x.double() @ w.double().t()
    assert (torch.linalg.vector_norm(y.double() - full) / torch.linalg.vector_norm(full)).item() < 0.05
