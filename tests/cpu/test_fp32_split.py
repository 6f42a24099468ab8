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
