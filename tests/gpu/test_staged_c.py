"""A whole-matrix C staged in shared memory (hopper_epilogue.cuh: stage_c_tile, epilogue_tma.cuh: CRead::Staged).

Every 16-bit config of the production Hopper kernel, D = alpha A B + beta C with C of D's shape whose rows are
16-byte aligned (the staged case): a tile with one k-tile (staged at its epilogue), long K (staged in the main
loop), ragged M and N, N not a multiple of 8 with C's rows padded to one (partial 16-byte chunks), a batch, and
C == D (an in-place residual add). Each against float64 into a NaN-poisoned output, and twice bitwise equal.
"""

from __future__ import annotations

import math

import pytest
import torch

import tcgemm
from tcgemm import registry
from tcgemm.check import TOLERANCE, reference, relative_error
from tcgemm.dispatch import KernelUnavailable

pytestmark = pytest.mark.gpu

_SPEC = registry.get("wgmma_tma_store")
CASES = [
    pytest.param(c.name, p, id=f"{c.name}-{p}")
    for c in _SPEC.configs
    for p in ("bf16", "fp16")
    if c.serves(p) and c.serves_layouts("rc") and not c.named_only
]
# (M, N, K, C's row stride or None: N, batch)
SHAPES = [(300, 1000, 64, None, None), (333, 776, 4096, None, None), (129, 1001, 520, 1008, None),
          (200, 520, 200, None, 2)]


def _c(m: int, n: int, stride: int | None, batch: int | None, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    rows = (batch,) if batch else ()
    full = torch.randn(*rows, m, stride or n, generator=gen, device="cuda").to(dtype)
    return full[..., :n]


def _run(config: str, precision: str, m: int, n: int, k: int, stride: int | None, batch: int | None,
         alpha: float, beta: float, in_place: bool = False) -> torch.Tensor:
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    gen = torch.Generator(device="cuda")
    gen.manual_seed(m * 7 + n * 3 + k)
    rows = (batch,) if batch else ()
    a = torch.randn(*rows, m, k, generator=gen, device="cuda").to(dtype)
    b = torch.randn(*rows, n, k, generator=gen, device="cuda").to(dtype).transpose(-1, -2)  # rc: B K-major
    c = _c(m, n, stride, batch, dtype, gen)
    c_ref = c.clone()
    if in_place:
        out = c
    else:
        out = torch.full((*rows, m, n), float("nan"), dtype=dtype, device="cuda")
    tcgemm.gemm(a, b, c, alpha=alpha, beta=beta, out=out, kernel="wgmma_tma_store", config=config)
    assert not torch.isnan(out).any(), "unwritten outputs"
    ref = reference(a, b, c_ref, alpha, beta)
    floor = torch.linalg.vector_norm(abs(alpha) * torch.matmul(a.double().abs(), b.double().abs())).item()
    err = relative_error(out, ref, floor / math.sqrt(k))
    assert err <= TOLERANCE[precision], (config, m, n, k, err)
    return out


@pytest.mark.parametrize("config,precision", CASES)
def test_staged_c(config, precision):
    ran = 0
    for m, n, k, stride, batch in SHAPES:
        try:
            first = _run(config, precision, m, n, k, stride, batch, 0.5, -1.5)
        except KernelUnavailable:  # (a config for some shapes only: split-K ranges, batch limits)
            continue
        again = _run(config, precision, m, n, k, stride, batch, 0.5, -1.5)
        assert torch.equal(first, again), (config, m, n, k)
        ran += 1
    if ran == 0:
        pytest.skip(f"{config} serves none of these shapes")
    try:
        _run(config, precision, 257, 2048, 1024, None, None, 1.0, 1.0, in_place=True)
    except KernelUnavailable:
        pass
