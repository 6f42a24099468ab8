"""tcgemm.quantize_fp8's formula (quantize_reference, torch ops) and argument checks, and its kernel's build."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm.quantize import E4M3_MAX, quantize_blocks_reference, quantize_reference


@pytest.mark.parametrize("group", [None, 128, 7])
def test_reference_shapes_scales_and_error(group):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(5, 300, generator=gen, dtype=torch.float32).to(torch.bfloat16)
    x[2] = 0  # a row of zeros: scale 1, zeros out
    q, s = quantize_reference(x, group)
    g = 300 if group is None else group
    assert q.dtype == torch.float8_e4m3fn and q.shape == x.shape
    assert s.dtype == torch.float32 and s.shape == (5, -(-300 // g))
    assert (s[2] == 1).all() and (q[2].float() == 0).all()
    # each group's largest magnitude lands on 448; dequantized values within e4m3's half-ulp (2^-4 relative)
    deq = q.float() * s.repeat_interleave(g, dim=1)[:, :300]
    assert deq.abs().amax().item() <= x.float().abs().amax().item() * (1 + 2**-20)
    assert ((deq - x.float()).abs() <= 2**-4 * x.float().abs() + 2**-9 * s.repeat_interleave(g, dim=1)[:, :300]).all()
    assert (q.float().abs().amax(dim=1)[[0, 1, 3, 4]] == E4M3_MAX).all()


def test_block_reference_shapes_scales_and_error():
    """128 x 128 blocks (a weight's, DeepSeek-V3's): one scale per block, the block's amax on 448, a block of zeros
    scale 1, ragged edge blocks."""
    gen = torch.Generator().manual_seed(1)
    w = torch.randn(300, 260, generator=gen).to(torch.bfloat16)
    w[:128, 128:256] = 0
    w[5, 3] = 1000.0  # one large value sets its block's scale only
    q, s = quantize_blocks_reference(w)
    assert s.shape == (3, 3) and q.shape == w.shape and q.dtype == torch.float8_e4m3fn
    assert s[0, 1] == 1 and (q[:128, 128:256].float() == 0).all()
    assert s[0, 0] == torch.tensor(1000.0) / torch.tensor(E4M3_MAX) and q[5, 3].float() == E4M3_MAX
    per = s.repeat_interleave(128, 0)[:300].repeat_interleave(128, 1)[:, :260]
    deq = q.float() * per
    assert ((deq - w.float()).abs() <= 2**-4 * w.float().abs() + 2**-9 * per).all()


def test_argument_checks():
    with pytest.raises(ValueError, match="2-D"):
        quantize_reference(torch.randn(2, 3, 4))
    with pytest.raises(TypeError, match="bfloat16, float16 or float32"):
        quantize_reference(torch.randn(2, 3).double())
    with pytest.raises(ValueError, match="group=0"):
        quantize_reference(torch.randn(2, 3), group=0)
    with pytest.raises(ValueError, match="CUDA tensors"):
        tcgemm.quantize_fp8(torch.randn(2, 3))
    with pytest.raises(ValueError, match="CUDA tensors"):
        tcgemm.quantize_fp8_blocks(torch.randn(2, 3))


@pytest.mark.parametrize("elem", ["__nv_bfloat16", "__half", "float"])
def test_quantize_kernel_compiles(elem):
    """NVRTC builds the kernel for sm_90a without local memory, converting with the saturating e4m3 cvt."""
    jit = pytest.importorskip("tcgemm.jit")
    from tcgemm import sass

    try:
        cubin = jit.cubin("util/quantize_fp8.cu", jit.as_defines([("ELEM", elem)]), "sm_90a")
    except jit.JitUnavailable as exc:
        pytest.skip(str(exc))
    text = sass.disassemble(cubin)
    assert "F2FP.SATFINITE.E4M3" in text and not sass.has_local_memory(text)
