"""fp32 as 3xTF32 (tcgemm.emulation): the split's arithmetic, the three-block copies, the choice, and the path
through tcgemm.gemm on the emulated GPU (the kernels' own runs are in tests/gpu/test_correctness.py)."""

from __future__ import annotations

import math

import pytest
import torch

import tcgemm
from tcgemm import api, emulation, staging


def _low_bits(t: torch.Tensor) -> torch.Tensor:
    return t.contiguous().view(torch.int32) & 0x1FFF


def test_split_parts_is_exact_and_tf32():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(4096, generator=gen) * torch.logspace(-30, 30, 4096)
    x = torch.cat([x, torch.tensor([0.0, -0.0, 1.0 + 2**-11, 1.0 + 3 * 2**-12, 2**-126, 1e-40, 3.4e38, -3.4e38])])
    parts = staging.split_parts(x)
    hi, lo = parts["hi"], parts["lo"]
    assert torch.equal(_low_bits(hi), torch.zeros_like(_low_bits(hi)))  # hi is a tf32 number
    assert torch.equal(hi.double() + lo.double(), x.double())  # x = hi + lo exactly
    normal = (x.abs() >= 2**-126) & (x.abs() < 3e38)
    assert torch.all(lo[normal].abs().double() <= 2.0**-11 * x[normal].abs().double())  # half a tf32 ulp at most
    assert torch.all(lo[~normal].abs().double() <= 2.0**-10 * x[~normal].abs().double() + 2.0**-136)
    assert torch.equal(parts["hi_finite"], hi)
    assert torch.isfinite(staging.split_parts(torch.tensor([3.4028235e38]))["hi"]).all()  # truncated, not inf
    assert staging.split_parts(torch.tensor([1.0 + 2**-11]))["hi"].item() == 1.0 + 2**-10  # ties away


def test_split_parts_keep_inf_and_nan_out_of_the_cross_terms():
    x = torch.tensor([math.inf, -math.inf, math.nan, 2.0])
    parts = staging.split_parts(x)
    assert torch.equal(parts["hi"][:2], x[:2]) and math.isnan(parts["hi"][2].item())
    assert parts["hi_finite"][:3].eq(0).all() and parts["lo"][:3].eq(0).all()


@pytest.mark.parametrize("b_side", [False, True])
@pytest.mark.parametrize("transposed", [False, True])
def test_split_copies_hold_three_blocks(b_side, transposed):
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(37, 53, generator=gen)
    if transposed:
        x = x.t().contiguous().t()
    copy = staging.split_tf32(x, b_side=b_side)
    rows = x.t() if b_side else x
    k = rows.shape[1]
    assert copy.shape == (rows.shape[0], 3 * k) and copy.stride(0) % 4 == 0 and copy.stride(1) == 1
    parts = staging.split_parts(rows)
    names = ("lo", "hi_finite", "hi") if b_side else ("hi_finite", "lo", "hi")
    for block, name in enumerate(names):
        assert torch.equal(copy[:, block * k:(block + 1) * k], parts[name])


def test_three_blocks_multiply_to_the_product():
    gen = torch.Generator().manual_seed(2)
    a, b = torch.randn(64, 300, generator=gen), torch.randn(300, 48, generator=gen)
    a3, b3 = emulation.split_operands(a, b)
    assert a3.shape == (64, 900) and b3.shape == (900, 48) and b3.stride(0) == 1  # B3 column-major
    ref = a.double() @ b.double()
    err = ((a3.double() @ b3.double() - ref).norm() / ref.norm()).item()
    assert err < 2**-21  # only lo*lo is missing (the kernel's TMA also rounds lo to tf32: the GPU tests)


@pytest.mark.parametrize(("m", "n", "k", "arch", "expected"), [
    (4096, 4096, 4096, 90, True),
    (4096, 10240, 4096, 90, True),
    (1024, 1024, 1024, 90, False),  # host work: 0.66x of cuBLAS eager (1.24x in CUDA graphs)
    (2048, 2048, 2048, 90, True),
    (512, 4096, 4096, 90, True),
    (4096, 4096, 4096, 80, False),  # no K-major tf32 wgmma kernel
    (16, 4096, 4096, 90, False),    # the copies of the weight would cost more than the product
    (128, 4096, 4096, 90, False),
    (256, 4096, 4096, 90, False),   # estimated 0.87 of the CUDA cores' time: kept there (ran 0.75x as 3xTF32)
    (2048, 2048, 2044, 90, True),
    (2048, 2048, 2046, 90, True),   # K % 4: the copies' rows padded to 16 bytes
    (2048, 2047, 2048, 90, True),   # N % 4: D from registers (config_for: 128 x 128 p4)
    (4095, 4095, 4095, 90, True),
    (512, 512, 512, 90, False),     # fixed costs
    (0, 4096, 4096, 90, False),
])
def test_use_3xtf32(m, n, k, arch, expected):
    assert emulation.use_3xtf32(m, n, k, arch) is expected


def test_fp32_runs_as_one_tf32_gemm_over_3k(fake_gpu, monkeypatch):
    def route(a, b, c, out, alpha, beta, precision, out_dtype):
        return ("3xtf32", 1) if precision is None else ("general", 1)

    monkeypatch.setattr(api, "_fp32_route", route)
    gen = torch.Generator().manual_seed(3)
    a, b = torch.randn(70, 45, generator=gen), torch.randn(45, 33, generator=gen).t().contiguous().t()
    c = torch.randn(33, generator=gen)
    d = tcgemm.gemm(a, b, c, alpha=0.5, beta=2.0)
    plan, problem = fake_gpu.calls[-1]
    assert problem.k == 3 * 45 and problem.precision == "tf32" and problem.layouts == "rc"
    assert plan.spec.name == "wgmma_tma_store_kmajor" and plan.config.name in emulation.CONFIGS
    ref = 0.5 * (a.double() @ b.double()) + 2.0 * c.double()
    assert ((d.double() - ref).norm() / ref.norm()).item() < 1e-6


@pytest.mark.parametrize(("m", "n", "k"), [(4096, 4096, 4096), (1024, 1024, 1024), (8192, 8192, 8192)])
def test_3xtf32_configs_promote_partial_sums(m, n, k):
    a3 = torch.empty((m, 3 * k), device="meta")
    b3 = torch.empty((n, 3 * k), device="meta").t()
    config = emulation.config_for(a3, b3, 132)
    assert config in emulation.CONFIGS
    for name in (config,):
        cfg = tcgemm.registry.get(emulation.KERNEL).config(name, "tf32")
        assert cfg.named_only and cfg.get("PROMOTE_PARTIALS") == 1  # never tf32's auto; fp32 totals
