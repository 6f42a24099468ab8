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
    at 32-64 x 4096 x 4096 they took 103-106 us against 69-77), 128 x 128 from 65. (Before Hopper: there the 3xTF32
    decode kernel takes these rows, test_fp32_few_rows_take_the_3xtf32_decode_kernel_on_hopper.)"""
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
    spec, cfg = dispatch.select(problem, 80, 132)
    assert (splits, spec.name, cfg.name) == (8, "simt_warp_tiling", config)


def _fp32_problem(m: int, n: int, k: int, layouts: str):
    import torch

    from tcgemm.problem import describe

    a = torch.empty(m, k, device="meta")
    b = torch.empty(k, n, device="meta") if layouts[1] == "r" else torch.empty(n, k, device="meta").t()
    return a, b, describe(a, b)[0]


@pytest.mark.parametrize("layouts", ["rc", "rr"])
@pytest.mark.parametrize(("m", "config"), [(1, "8x128x32q2s5g1"), (8, "8x128x32q2s5g1"), (9, "16x128x32q2s5g1"),
                                           (16, "16x128x32q2s5g1"), (17, "32x128x32s6g1"), (32, "32x128x32s6g1"),
                                           (33, "64x128x32s5g1"), (128, "64x128x32s5g1")])
def test_fp32_few_rows_take_the_3xtf32_decode_kernel_on_hopper(m, config, layouts):
    """On sm_90 fp32 at 1-128 rows runs as 3xTF32 on the decode kernel (both operands split on chip: 1.1-1.7x
    cuBLAS's fp32 at 4096 x 4096 where the CUDA-core kernels ran 0.6-1.2x), the token tile by M; tcgemm.api routes
    it there instead of cutting K into parts. Before Hopper the CUDA-core kernels keep it."""
    from tcgemm import dispatch

    a, b, problem = _fp32_problem(m, 4096, 4096, layouts)
    spec, cfg = dispatch.select(problem, 90, 132)
    assert (spec.name, cfg.name) == ("swap_ab_stream_k_3xtf32", config)
    assert api._fp32_decode_takes(a, b, None, None, 1.0, 0.0, 90)
    assert not api._fp32_decode_takes(a, b, None, None, 1.0, 0.0, 80)
    assert dispatch.select(problem, 80, 108)[0].name == ("simt_skinny" if m <= 16 else "simt_warp_tiling")


@pytest.mark.parametrize(("m", "n", "k", "layouts"), [
    (129, 4096, 4096, "rc"),  # past the decode kernel's rows
    (16, 4096, 256, "rc"),    # K below its measured range
    (16, 4095, 4096, "rr"),   # B's rows not 16-byte aligned (TMA)
    (16, 4096, 4095, "rc"),   # nor A's
])
def test_fp32_decode_kernel_declines(m, n, k, layouts):
    a, b, _ = _fp32_problem(m, n, k, layouts)
    assert not api._fp32_decode_takes(a, b, None, None, 1.0, 0.0, 90)


def test_fp32_decode_configs_fit_and_count_counters_per_consumer():
    """Two consumer warpgroups (an m64 atom of the weight each) and three token planes a stage; the stream-K
    fixup keeps a counter per tile and consumer (kernels/include/stream_k.cuh)."""
    from tcgemm import registry, schedule

    for cfg in registry.get("swap_ab_stream_k_3xtf32").configs:
        assert cfg["THREADS"] == 384 and cfg["BLOCK_N"] == 128, cfg.name
        assert cfg.smem_bytes <= registry.MAX_DYNAMIC_SMEM, cfg.name
        assert cfg["SMEM_BYTES"] == registry._swap_smem(cfg["STAGES"], cfg["BLOCK_M"], 128, cfg["KSUB"], 3)
    assert schedule.stream_k_scratch(132, 32, 64, 128, 2) == (2 * 132 * 64 * 128, 64)
    assert schedule.stream_k_scratch(132, 32, 64, 128) == (2 * 132 * 64 * 128, 32)


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (1, 4096, 4096, "16x128x32q2s5g1"), (16, 4096, 14336, "16x128x32q2s5g1"), (17, 4096, 4096, "32x64x32q4s4g1"),
    (64, 1280, 8192, "32x64x32q4s4g1"), (65, 4096, 4096, "128x64x32q2s4g1"), (128, 4096, 4096, "128x64x32q2s4g1"),
    (100, 1000, 2044, "128x64x32q2s4g1"),
    (129, 4096, 4096, None),   # past the decode kernel's rows
    (32, 8192, 4096, None),    # N past the measured range beyond 16 rows
    (16, 1000, 512, None),     # K below it
])
def test_tf32_row_major_weight_takes_the_register_decode_kernel(m, n, k, config):
    """tf32 with a row-major B at 1-128 rows (N <= 4096 beyond 16 rows, K >= 1024) runs on the decode kernel with the
    weight's fragments loaded into registers (wgmma reads tf32 K-major only); elsewhere the general kernel's
    transposed tiles. The 16-token config runs two consumer warpgroups (an m64 atom each)."""
    import torch

    from tcgemm import dispatch, registry
    from tcgemm.problem import describe

    problem = describe(torch.empty(m, k, device="meta"), torch.empty(k, n, device="meta"), precision="tf32")[0]
    spec, cfg = dispatch.select(problem, 90, 132)
    if config is None:
        assert spec.name == "wgmma_tma_store_kmajor"
    else:
        assert (spec.name, cfg.name) == ("swap_ab_stream_k_tf32_mn", config)
    two = registry.get("swap_ab_stream_k_tf32_mn").config("16x128x32q2s5g1", "tf32")
    assert two["THREADS"] == 384 and two.smem_bytes <= registry.MAX_DYNAMIC_SMEM


@pytest.mark.parametrize(("m", "k", "layouts"), [(16, 256, "rc"), (3, 384, "rr"), (16, 4095, "rc")])
def test_fp32_few_rows_the_decode_kernel_declines_go_to_the_next_specialist(m, k, layouts):
    """Where the 3xTF32 decode kernel's configs decline (K below its measured range, or rows not 16-byte aligned),
    auto tries the next specialist for few rows, simt_skinny, before the general kernels."""
    from tcgemm import dispatch

    _, _, problem = _fp32_problem(m, 4096, k, layouts)
    assert dispatch.select(problem, 90, 132)[0].name == "simt_skinny"
