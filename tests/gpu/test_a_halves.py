"""The A_HALVES configs (kernels/include/hopper_config.cuh: kAHalves) at the rows where their second consumer's rows
are lifted to end at M (64 < M < 128, hopper/04_tma_store_epilogue.cu: half_lift), against a float64 reference with
poisoned outputs: without C and with a bias row (lifted), with a whole C and with C as the output itself (not lifted:
the overlapping rows would add C twice), and bitwise the same from call to call (the overlapping rows are written by
both consumers and must carry the same bits)."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import registry
from tcgemm.check import check

pytestmark = pytest.mark.gpu

CONFIGS = [c.name for c in registry.get("wgmma_tma_store").configs if c.get("A_HALVES")]
ROWS = [65, 72, 100, 127, 128, 200]


@pytest.mark.parametrize("layouts", ["rc", "rr"])
@pytest.mark.parametrize("m", ROWS)
@pytest.mark.parametrize("config", CONFIGS)
def test_rows_against_float64(config, m, layouts):
    if not next(c for c in registry.get("wgmma_tma_store").configs if c.name == config).serves_layouts(layouts):
        pytest.skip(f"{config} serves other layouts than {layouts} (its tile width needs a K-major B)")
    for beta, c_shape in ((0.0, "full"), (1.0, "bias"), (0.5, "full")):
        result = check(m, 136, 1000, kernel="wgmma_tma_store", config=config, precision="bf16", layouts=layouts,
                       beta=beta, c_shape=c_shape)
        assert result.unwritten == 0, result
        assert result.passed, result


@pytest.mark.parametrize("m", [72, 100])
@pytest.mark.parametrize("config", CONFIGS)
def test_in_place_c_and_repeat(config, m):
    gen = torch.Generator(device="cuda").manual_seed(m)
    a = torch.randn(m, 640, device="cuda", generator=gen).bfloat16()
    w = torch.randn(192, 640, device="cuda", generator=gen).bfloat16()
    c = torch.randn(m, 192, device="cuda", generator=gen).bfloat16()
    ref = a.double() @ w.double().t() + c.double()
    out = c.clone()
    tcgemm.gemm(a, w.t(), out, beta=1.0, out=out, kernel="wgmma_tma_store", config=config)
    err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-2, f"{config} at M = {m}, D = A B + D in place: relative error {err:.3g}"
    first = tcgemm.gemm(a, w.t(), kernel="wgmma_tma_store", config=config)
    for _ in range(5):
        again = tcgemm.gemm(a, w.t(), kernel="wgmma_tma_store", config=config)
        assert torch.equal(first, again), f"{config} at M = {m}: bits differ from call to call"
