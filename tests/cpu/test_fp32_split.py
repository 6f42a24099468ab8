"""fp32 with few rows: K cut into equal parts computed as one strided batched GEMM (tcgemm.api)."""

from __future__ import annotations

import pytest

from tcgemm import api


@pytest.mark.parametrize(("m", "n", "k", "splits"), [
    (16, 4096, 4096, 4),     # simt_skinny: 32 blocks of 128 columns, 4 parts make 128 CTAs (one per SM)
    (128, 4096, 4096, 8),    # 64 tiles of 128 x 64: 8 parts make 512 CTAs (<= 4 per SM on 132 SMs)
    (256, 4096, 4096, 4),    # 128 tiles
    (1024, 1024, 1024, 4),   # 128 tiles, 256 k a part
    (1024, 2048, 1024, 2),   # 256 tiles
    (2048, 2048, 1024, 1),   # 512 tiles fill the GPU
    (16, 4096, 4095, 1),     # K odd: no equal parts
    (16, 4096, 512, 2),      # at least 256 k a part
    (16, 4096, 256, 1),
    (1, 64, 1 << 20, 16),    # at most 16 parts
    (16, 1 << 16, 4096, 1),  # 1024 tiles already
])
def test_fp32_k_splits(m, n, k, splits):
    assert api.fp32_k_splits(m, n, k, 132) == splits


@pytest.mark.parametrize(("m", "n", "k", "splits"), [
    (16, 4096, 4096, 1),     # simt_skinny with B column-major: 128 blocks of 32 columns already
    (3, 1000, 2048, 4),      # 32 blocks
    (17, 4096, 4096, 8),     # past simt_skinny's rows: 128 x 64 tiles
])
def test_fp32_k_splits_column_major_b(m, n, k, splits):
    assert api.fp32_k_splits(m, n, k, 132, b_row_major=False) == splits


@pytest.mark.parametrize(("m", "config"), [(17, "64x64x8"), (32, "64x64x8"), (64, "64x64x8"), (65, "128x128x16"),
                                           (96, "128x128x16"), (128, "128x128x16")])
@pytest.mark.parametrize("b_row_major", [True, False])
def test_fp32_parts_take_64_row_tiles_up_to_64_rows(m, config, b_row_major):
    """The K parts' batched GEMM runs 64 x 64 tiles up to 64 rows (simt_warp_tiling's 128-row configs have min_m = 65:
    at 32-64 x 4096 x 4096 they took 103-106 us against 69-77), 128 x 128 from 65."""
    import torch

    from tcgemm import dispatch
    from tcgemm.problem import describe

    k = n = 4096
    splits = api.fp32_k_splits(m, n, k, 132, b_row_major=b_row_major)
    a = torch.empty(splits, m, k // splits, device="meta")
    b = torch.empty(splits, k // splits, n, device="meta")
    if not b_row_major:
        b = torch.empty(splits, n, k // splits, device="meta").mT
    problem = describe(a, b, None, alpha=1.0, beta=0.0, out=None, out_dtype=None, precision=None)[0]
    spec, cfg = dispatch.select(problem, 90, 132)
    assert (splits, spec.name, cfg.name) == (8, "simt_warp_tiling", config)
