"""tcgemm.quantize_fp8 on the GPU: bitwise equal to quantize_reference (the same formula in torch ops) for every input
dtype, row-wise and 1 x 128 groups (a short last group included), strided rows, rows of zeros, a CUDA graph; and the
row-wise fp8 GEMM of quantized operands against the float64 product of the dequantized ones."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm.quantize import quantize_reference

pytestmark = pytest.mark.gpu


def _available() -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("group", [None, 128])
@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 100), (129, 300), (64, 4096), (7, 14336)])
def test_matches_reference_bitwise(dtype, group, rows, cols):
    if not _available():
        pytest.skip("needs an sm_90 GPU")
    gen = torch.Generator(device="cuda").manual_seed(rows * cols)
    x = (torch.randn(rows, cols + 8, device="cuda", generator=gen) * 3).to(dtype)[:, :cols]  # strided rows
    if rows > 2:
        x[1] = 0
    q, s = tcgemm.quantize_fp8(x, group)
    q_ref, s_ref = quantize_reference(x, group)
    assert torch.equal(s, s_ref)
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))


def test_captures_in_a_cuda_graph():
    if not _available():
        pytest.skip("needs an sm_90 GPU")
    x = torch.randn(256, 1024, device="cuda").to(torch.bfloat16)
    tcgemm.quantize_fp8(x, 128)  # (loads the kernel)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        q, s = tcgemm.quantize_fp8(x, 128)
    x.copy_(torch.randn_like(x))
    graph.replay()
    q_ref, s_ref = quantize_reference(x, 128)
    assert torch.equal(s, s_ref) and torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8))


def test_row_wise_gemm_of_quantized_operands():
    """x and a weight quantized row-wise, then the row-wise fp8 GEMM: its result against the float64 product of the
    dequantized operands (what the fp8 GEMM computes exactly, up to its sums' and D's rounding)."""
    if not _available():
        pytest.skip("needs an sm_90 GPU")
    m, n, k = 300, 520, 1024
    x = torch.randn(m, k, device="cuda").to(torch.bfloat16)
    w = torch.randn(n, k, device="cuda").to(torch.bfloat16)
    x8, sx = tcgemm.quantize_fp8(x)
    w8, sw = tcgemm.quantize_fp8(w)
    y = tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=sw.t(), out_dtype=torch.float32)
    ref = (x8.double() * sx.double()) @ (w8.double() * sw.double()).t()
    err = (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item()
    assert err < 1e-3, err
    # and close to the bf16 product it approximates (fp8's 3 mantissa bits)
    full = x.double() @ w.double().t()
    assert (torch.linalg.vector_norm(y.double() - full) / torch.linalg.vector_norm(full)).item() < 0.05
