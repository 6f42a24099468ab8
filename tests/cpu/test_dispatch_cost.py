"""The dispatcher's cost model (dispatch.pick_config): rounds of CTA slots times a unit's multiply-adds
over the config's speed, with a cluster's tiles counted in whole cluster blocks."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from test_tune import _problem

from tcgemm import dispatch, registry, tune
from tcgemm.problem import describe
from tcgemm.registry import TileConfig

_BIG = TileConfig("128x128c2", {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "CLUSTER_M": 2}, None, 0.9)
_NARROW = TileConfig("128x64", {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 64, "CLUSTER_M": 1}, None, 0.57)


def _spec(*configs: TileConfig) -> registry.KernelSpec:
    return dataclasses.replace(registry.get("wgmma_tma_store"), configs=configs)


@pytest.mark.parametrize(("params", "blocks"), [
    ({}, (1, 1)),
    ({"CLUSTER_M": 2}, (2, 1)),
    ({"CLUSTER_M": 2, "CLUSTER_ALONG_N": 1}, (1, 2)),
        ({"CLUSTER_M": 4, "CLUSTER_2D": 2}, (2, 2)),
        ({"CLUSTER_M": 8, "CLUSTER_2D": 2}, (4, 2)),
        ({"CLUSTER_M": 8, "CLUSTER_2D": 4}, (2, 4)),
])
def test_cluster_blocks(params, blocks):
    assert dispatch.cluster_blocks(TileConfig("t", params)) == blocks


def test_a_cluster_below_the_matrix_takes_its_slots():
    """At M = 128 a 128-row tile's cluster of 2 along M is two CTAs (one computes rows below the matrix):
    112 clusters of 128 x 128 need two rounds of 132 slots, as 224 tiles of 128 x 64 do, and the
    narrower tile wins on its multiply-adds per unit (measured on the H100: 49.3 against 55.8 us,
    benchmarks/results/2026-11-23-h100-skinny-wide-dispatch.json)."""
    spec = _spec(_BIG, _NARROW)
    assert dispatch.pick_config(spec, _problem(128, 14336, 4096), 132).name == "128x64"
    # Large problems keep the big tile (whole cluster blocks, many rounds).
    assert dispatch.pick_config(spec, _problem(4096, 14336, 4096), 132).name == "128x128c2"


def test_clusters_along_n_round_the_tile_columns():
    along_n = TileConfig("n", {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "CLUSTER_M": 2, "CLUSTER_ALONG_N": 1})
    plain = TileConfig("c1", {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "CLUSTER_M": 1}, None, 0.9)
    # 133 tile columns on 133 slots: one round without a cluster, two in clusters along N (134 CTAs).
    spec = _spec(along_n, plain)
    assert dispatch.pick_config(spec, _problem(128, 133 * 128, 1024), 133).name == "c1"
    assert dispatch.pick_config(spec, _problem(128, 134 * 128, 1024), 134).name == "n"


def test_configs_without_the_register_epilogue_need_a_tma_writable_d():
    """fp8's 128 x 192 config stores D through TMA only (D_FROM_REGISTERS=0): auto skips it, and asking
    for it names the requirement, when D's rows are not 16-byte aligned (here 4100 bf16 columns: 8200 bytes)."""
    spec = registry.get("wgmma_tma_store_kmajor")
    cfg = spec.config("128x192x128", "fp8e4m3")
    assert cfg.tma_d_only
    aligned = _problem(8192, 8192, 8192, precision="fp8e4m3", layouts="rc")
    odd = dataclasses.replace(aligned, n=4100, d_ld=4100)
    assert dispatch.config_refuses(cfg, aligned) is None
    assert "16-byte aligned" in dispatch.config_refuses(cfg, odd)
    assert dispatch.select(aligned, 90, 132)[1].name == "128x192x128"  # auto's pick at 8192^3
    assert not dispatch.select(odd, 90, 132)[1].tma_d_only
    with pytest.raises(dispatch.KernelUnavailable, match="TMA stores only"):
        dispatch.select(odd, 90, 132, kernel="wgmma_tma_store_kmajor", config="128x192x128")
    with pytest.raises(dispatch.KernelUnavailable, match="TMA stores only"):
        dispatch.select(odd, 90, 132, config="128x192x128")


@pytest.mark.parametrize(("m", "n", "k", "block", "name"),
                         [(64, 2112, 7168, True, "64x64x128k4"), (64, 2112, 7168, False, "64x64x128k4"),
                          (128, 2112, 7168, True, "64x64x128k2n"), (128, 2112, 7168, False, "64x64x128k2n"),
                          (128, 4096, 7168, True, "64x64x128"), (64, 4096, 7168, True, "64x64x128"),
                          (64, 2112, 2048, False, "64x64x128")])
def test_fp8_four_k_ranges_for_narrow_n(m, n, k, block, name):
    """fp8 at <= 64 rows, N <= 2560, K >= 4096 (a quarter of the SMs' worth of 64 x 64 tiles or less): four k
    ranges, block-wise scales too; at 65-128 rows two; wider N or short K keep whole tiles."""
    problem = dataclasses.replace(_problem(m, n, k, precision="fp8e4m3", layouts="rc"), block_scales=block)
    assert dispatch.pick_config(registry.get("wgmma_tma_store_kmajor"), problem, 132).name == name


@pytest.mark.parametrize(("m", "n", "k"), [(2048, 2304, 768), (8192, 768, 768)])
def test_no_tail_split_estimate_at_short_k(m, n, k):
    """GPT-2's K = 768 is 12 k-tiles: the tail split's fixed costs outweigh its gain there (measured on an
    H200, 2026-11-25-h200-explore-configs-45eec90.json), so the estimate ranks the registry's configs as if
    it did not split, and 128 x 128 tiles win."""
    cfg = dispatch.pick_config(registry.get("wgmma_tma_store"), _problem(m, n, k), 132)
    assert not cfg.get("TAIL_SPLIT") and cfg.name.startswith("128x128x64")


def test_tail_split_estimate_at_long_k():
    """At K >= 2048 (32 k-tiles) the tail split still counts: Llama-3-8B's qkv at 8192 tokens (K = 4096) keeps
    the tail-split 128 x 256 config the model benchmark ran (2026-11-25-h100-models-a7883c2.json, 1.08x)."""
    problem = _problem(8192, 6144, 4096)
    assert dispatch.TAIL_ESTIMATE_MIN_KTILES * 64 <= problem.k
    assert dispatch.pick_config(registry.get("wgmma_tma_store"), problem, 132).name == "128x256x64s4b2ot"


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (512, 6144, 4096, "128x192x64c1"), (512, 4608, 3584, "128x192x64c1"),
    (512, 4096, 4096, "128x128x64b2"), (4096, 4096, 4096, "128x256x64s4b2o"),
])
def test_128x192_where_it_fills_the_round(m, n, k, name):
    """128 x 192 tiles (speed 0.8) win where they fill a round that 128 x 256 leaves a quarter empty (measured on
    the H100, 2026-11-26-h100-explore-128x192-3aa6577.json), and nowhere else among these."""
    assert dispatch.pick_config(registry.get("wgmma_tma_store"), _problem(m, n, k), 132).name == name


def test_named_only_configs_run_only_when_named():
    """A config kept to measure (named_only) is never the estimate's pick, however cheap it looks, and runs
    when named."""
    cheap = dataclasses.replace(_NARROW, name="128x64cheap", speed=100.0, named_only=True)
    spec = _spec(_BIG, cheap)
    for m, n, k in ((128, 14336, 4096), (4096, 14336, 4096), (16, 768, 768)):
        assert dispatch.pick_config(spec, _problem(m, n, k), 132).name == "128x128c2"
    named = [c for c in registry.get("wgmma_tma_store").configs_for("bf16") if c.named_only]
    assert named, "the registry keeps a named-only config to measure (128x176x64)"
    p = _problem(512, 28672, 4096, precision="bf16", layouts="rc")
    assert dispatch.select(p, 90, 132)[1].name not in {c.name for c in named}
    assert dispatch.select(p, 90, 132, kernel="wgmma_tma_store", config=named[0].name)[1] is named[0]


@pytest.mark.parametrize(("m", "config"), [(129, "128x64x32rTk4"), (300, "128x128x32rT"), (512, "128x128x32rT"),
                                           (4096, "128x256x32rT")])
def test_tf32_with_b_row_major_runs_transposed(m, config):
    """wgmma reads tf32 K-major only from shared memory: with B row-major auto runs D^T = B^T A^T, B^T's
    fragments through registers (A_REGS), instead of copying B; other layouts keep their kernels. (Up to 128
    rows the decode kernel takes it: test_fp32_split.test_tf32_row_major_weight_takes_the_register_decode_kernel.)"""
    spec = registry.get("wgmma_tma_store_kmajor")
    assert dispatch.transposed_layouts(spec, "tf32") == {"rr"}
    assert not dispatch.transposed_layouts(spec, "int8")  # (K-major only: staged copies as before)
    chosen, cfg = dispatch.select(_problem(m, 4096, 4096, precision="tf32"), 90, 132)
    assert (chosen.name, cfg.name) == (spec.name, config) and cfg.get("A_REGS") and cfg.get("D_TRANSPOSED")
    rc = dispatch.select(_problem(m, 4096, 4096, precision="tf32", layouts="rc"), 90, 132)[1]
    assert not rc.get("A_REGS")
    # A config of the kernel's own layouts, named for B row-major, is refused with the layouts it serves.
    with pytest.raises(dispatch.KernelUnavailable, match="serves layouts rc"):
        dispatch.select(_problem(m, 4096, 4096, precision="tf32"), 90, 132, kernel=spec.name, config="128x256x32es4")


def test_tf32_transposed_only_where_a_transposed_problem_exists():
    """A column-major out makes the problem D^T already (problem.swapped): no transposed problem, so the
    A_REGS configs are out and auto goes the way it went before them."""
    a, b = tune._operands(600, 520, 784, "tf32", "cc", "cpu")
    out = torch.empty(520, 600).t()
    problem = describe(a, b, out=out, precision="tf32")[0]
    assert problem.swapped and dispatch.transposed_problem(problem) is None
    assert not dispatch.select(problem, 90, 132)[1].get("A_REGS")


@pytest.mark.parametrize(("m", "n", "k", "name"), [
    (8192, 2304, 768, "128x128x64pp"), (8192, 3072, 768, "128x128x64pp"), (8192, 8192, 1024, "128x128x64pp"),
    (2048, 3072, 768, "128x128x64pp"), (8192, 768, 3072, "128x192x64c1"), (2048, 768, 768, "128x96x64n"),
    (300, 3072, 768, "64x128x64"), (4096, 4096, 4096, "128x256x64s4b2o"),
])
def test_ping_pong_where_it_hides_epilogues(m, n, k, name):
    """128 x 128 ping-pong tiles hide a tile's epilogue under the other consumer's main loop: auto takes them at
    short K with several tiles per CTA, not where each CTA has one tile (nothing to hide), nor where 128 x 192
    or 128 x 256 tiles measured faster (2026-11-26-h100-explore-pp-ab-*-3dffb8e.json)."""
    spec = registry.get("wgmma_tma_store")
    problem = _problem(m, n, k, layouts="rc")  # (x @ W^T: nn.Linear's layouts)
    if m < 512:  # (M = 300 goes to the transposed problem or another kernel: compare within this one)
        assert dispatch.pick_config(spec, problem, 132).name == name
    else:
        assert dispatch.select(problem, 90, 132)[1].name == name


@pytest.mark.parametrize(("m", "n", "k"), [(2048, 7168, 8192), (512, 37888, 3584), (3000, 3584, 18944)])
def test_a_split_tail_costs_more_than_its_part(m, n, k):
    """The tail split's partial tiles and second pipeline fill cost about a third of a round at K = 4096: counted
    (schedule.TAIL_ESTIMATE_FIXED_KTILES), whole rounds of 128 x 224 or 128 x 144 tiles win where about a third
    of a round is split (measured 0.95-1.00x against 0.91-0.97x for the split)."""
    assert not dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)[1].get("TAIL_SPLIT")
    assert dispatch.select(_problem(8192, 8192, 8192, layouts="rc"), 90, 132)[1].get("TAIL_SPLIT")


@pytest.mark.parametrize(("m", "n", "k", "kernel", "config"), [
    (1, 2304, 768, "wgmma_tma_store", "64x64x64"), (16, 3072, 768, "wgmma_tma_store", "64x64x64"),
    (3, 768, 768, "wgmma_tma_store", "64x64x64"), (16, 8192, 1024, "swap_ab_stream_k", "16x64x64q4s5g1"),
    (1, 768, 3072, "swap_ab_stream_k", "8x64x64q8s3g1"), (48, 2304, 768, "wgmma_tma_store", "64x48x64"),
])
def test_few_rows_at_short_k_take_unclustered_64_row_tiles(m, n, k, kernel, config):
    """GPT-2's K = 768 at M <= 16: 64 x 64 tiles without a cluster measured 1.03-1.12x cuBLAS against 0.95-0.97x
    for the decode kernel and 0.80-0.91x for clusters of two along M, whose second CTA has no rows
    (2026-11-26-h100-explore-64x64-c2-small-m-5455355.json); from K = 1024 the decode kernel keeps M <= 16, and
    from M = 17 clusters of two along M come back."""
    spec, cfg = dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)
    assert (spec.name, cfg.name) == (kernel, config)


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (3000, 2304, 768, "128x144x64pp"), (3000, 3072, 768, "128x144x64pp"), (2048, 2304, 768, "128x144x64pp"),
    (3000, 768, 768, "128x144x64Tc2"), (3000, 768, 3072, "128x144x64Tc2"), (3000, 1280, 8192, "128x232x64T"),
    (300, 6144, 4096, "192x80x64Trn"), (128, 6144, 4096, "64x96x64c2"), (128, 4608, 3584, "64x80x64c2"),
    (512, 2304, 768, "64x144x64c2"),
])
def test_whole_rounds_at_3000_tokens_and_d_transposed_margin(m, n, k, config):
    """Where 128-row tiles leave a round part empty at M = 3000, 128 x 144 ping-pong tiles and D^T tiles of 144 or
    232 tokens fill it (measured 0.98-1.09x cuBLAS against 0.89-0.97x; registry); the transposed problem runs
    where estimated 4% faster (dispatch.TRANSPOSED_MARGIN), which keeps M = 128 on 128 x 64 tiles (64 x 152 T
    measured 0.83-1.00x against 0.93-1.05x; 128 x 4608 now takes 64 x 80 pairs), and one tile per CTA keeps
    ping-pong out (512 x 2304 x 768)."""
    assert dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)[1].name == config


@pytest.mark.parametrize(("m", "config"), [(256, "128x112x64"), (280, "192x80x64Trn"), (300, "192x80x64Trn"),
                                           (320, "192x80x64Trn"), (384, "192x96x64")])
def test_d_transposed_ring_pairs_only_where_measured(m, config):
    """192 x 80 T pairs with D^T in the ring (192x80x64Trn) ran ahead at 280-320 tokens x 6144 x 4096 and 8 us behind
    at 256 (2026-11-27-h100-explore-trn-e5109c6.json): min_n and max_n (the transposed problem's N, the tokens) keep
    the estimate to that range."""
    assert dispatch.select(_problem(m, 6144, 4096, layouts="rc"), 90, 132)[1].name == config


@pytest.mark.parametrize(("m", "kernel", "config"), [
    (16, "swap_ab_stream_k", "16x64x64q8s2g1"), (32, "swap_ab_stream_k", "32x64x64q4s4g1"),
    (40, "wgmma_tma_store", "64x64x64k6"), (64, "wgmma_tma_store", "64x64x64k6"),
    (72, "wgmma_tma_store", "128x64x64k6h"), (128, "wgmma_tma_store", "128x64x64k6h"),
    (129, "wgmma_tma_store", "64x64x64k2"),
])
def test_narrow_long_k_takes_six_k_ranges_past_32_rows(m, kernel, config):
    """At N <= 2048 and K >= 8192 (the 70B shard's qkv) the decode kernel to 32 rows; from 33 to 128 the general
    kernel's tiles in six k ranges, 1.04-1.45x faster than the decode kernel's 48- and 64-token tiles there (H200,
    2026-11-28-h200-explore-qkv70-small-d1d50b9.json, ...-mid-d1d50b9.json); max_m keeps them to those rows."""
    spec, cfg = dispatch.select(_problem(m, 1280, 8192, layouts="rc"), 90, 132)
    assert (spec.name, cfg.name) == (kernel, config)


@pytest.mark.parametrize(("m", "n", "k", "spec", "config"), [
    (24, 4096, 4096, "swap_ab_stream_k", "32x64x64q4s4g1"), (32, 4096, 4096, "swap_ab_stream_k", "32x64x64q4s4g1"),
    (32, 6144, 4096, "swap_ab_stream_k", "32x64x64q4s4g1"), (32, 4096, 14336, "swap_ab_stream_k", "32x64x64q4s4g1"),
    (32, 7168, 8192, "swap_ab_stream_k", "32x64x64q4s4g1"), (16, 4096, 4096, "swap_ab_stream_k", "16x64x64q8s2g1"),
    (32, 28672, 4096, "wgmma_tma_store", None), (32, 3072, 768, "wgmma_tma_store", None),
    (40, 4096, 4096, "wgmma_tma_store", None), (24, 3584, 3584, "swap_ab_stream_k", "32x64x64q4s4g1"),
    (32, 8192, 3072, "wgmma_tma_store", None),
])
def test_decode_kernel_at_17_to_32_rows(m, n, k, spec, config):
    """Batched decode of 17-32 rows: the 32-token tile where N <= 8192 and K >= 3584 (0.98-1.06x cuBLAS against
    0.76-0.99x for the general kernel's tiles, 2026-11-27-h100-explore-m32-8b2923b.json); not at N = 28672, where it
    measured behind, nor below K = 3584, where it was not measured."""
    chosen_spec, cfg = dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)
    assert chosen_spec.name == spec
    if config is not None:
        assert cfg.name == config


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (512, 2304, 768, "64x144x64c2"), (256, 4608, 768, "64x144x64c2"), (512, 3072, 768, "128x96x64n"),
    (1024, 2304, 768, "128x144x64"), (512, 2304, 4096, "128x112x64"),
])
def test_64x144_where_its_tiles_make_one_round(m, n, k, config):
    """64 x 144 tiles in clusters of two make one round of 128 at 512 x 2304 (0.97x cuBLAS against 0.86x for
    128 x 96 n); with more than a round, or at a K it was not measured at, the wider tiles stay."""
    assert dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)[1].name == config


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (512, 1280, 8192, "128x80x64k2"), (384, 1280, 8192, "64x64x64c2s13"), (512, 2048, 8192, "128x64x64"),
    (1024, 1280, 8192, "128x112x64"), (256, 1280, 8192, "64x64x64c2s13"), (300, 4608, 3584, "128x104x64T"),
    (300, 6144, 4096, "192x80x64Trn"), (300, 4096, 4096, "64x152x64T"),
])
def test_narrow_long_k_and_104_token_tiles(m, n, k, config):
    """128 x 80 tiles in two k ranges fill one round at 512 x 1280 x 8192 (0.83x cuBLAS against 0.78x); 104-token
    D^T tiles at 300 x 4608 (0.82-0.85x against 0.78-0.81x); neither where they measured behind (registry)."""
    assert dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)[1].name == config
    # (long_k: below K = 8192, where its split's fixed cost was not measured, 128 x 80 k2 is left out)
    assert dispatch.select(_problem(m, n, 768, layouts="rc"), 90, 132)[1].name != "128x80x64k2"


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (128, 4608, 3584, "64x80x64c2"), (96, 5120, 4096, "64x80x64c2"), (64, 4608, 3584, "64x64x64"),
    (128, 6144, 4096, "64x96x64c2"), (128, 4096, 4096, "64x64x64c2s13"), (256, 4608, 3584, "128x96x64n"),
    (384, 1536, 4096, "128x64x64"),
])
def test_64x80_pairs_where_128x64_fills_half_the_gpu(m, n, k, config):
    """64 x 80 tiles in pairs make one round at 128 x 4608 (Qwen2.5's qkv at 128 tokens: 15.2 against 16.6 us for
    128 x 64), 64 x 96 pairs at N = 6144 (the 8B qkv: 16.3 against 17.3 us, H200); above 128 rows (max_m) and where
    128 x 64 or 64 x 64 tiles fill the GPU, the others stay."""
    assert dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)[1].name == config


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (128, 4096, 4096, "128x64x32ek2"), (64, 4096, 4096, "128x64x32ek2"), (128, 4096, 14336, "128x64x32ek2"),
    (256, 4096, 4096, "128x128x32es6"), (128, 14336, 4096, "128x256x32es4"), (1024, 1024, 1024, "128x128x32es6"),
])
def test_tf32_rc_few_rows_split_k(m, n, k, config):
    """tf32 rc with few row tiles: 128 x 64 tiles in two k ranges (0.80-1.10x cuBLAS against 0.66-0.77x for
    128 x 128); not where they measured behind (256 rows, N = 14336, 1024^3)."""
    spec = registry.get("wgmma_tma_store_kmajor")
    problem = _problem(m, n, k, precision="tf32", layouts="rc")
    assert dispatch.pick_config(spec, problem, 132).name == config


def test_d_transposed_configs_refuse_a_c_of_2_to_the_31_elements():
    """The D^T epilogue reads a general C at 32-bit offsets (epilogue_tma.cuh): a C spanning 2^31 elements or
    more is refused, naming the limit; a bias row, or a C within the limit, is served."""
    spec = registry.get("wgmma_tma_store")
    cfg = next(c for c in spec.configs if c.name == "128x232x64T")
    problem = dispatch.transposed_problem(_problem(3000, 1280, 8192, layouts="rc"))
    assert dispatch.config_refuses(cfg, problem) is None
    small = dataclasses.replace(problem, c_strides=(1, 1280, 0))
    assert dispatch.config_refuses(cfg, small) is None
    huge = dataclasses.replace(problem, c_strides=(1, 2**21, 0))  # 3000 rows of 2^21: past 2^31
    assert "2^31" in dispatch.config_refuses(cfg, huge)


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    (1, 3584, 3584, "16x64x64q8s2g1"), (8, 1280, 8192, "16x64x64q8s2g1"), (1, 4608, 3584, "16x64x64q4s5g1"),
    (1, 4096, 4096, "8x64x64q8s3g1"), (1, 768, 3072, "8x64x64q8s3g1"), (1, 8192, 1024, "8x64x64q8s3g1"),
])
def test_decode_weights_of_8_to_14_mi_elements_take_the_16_token_ring(m, n, k, config):
    """At M <= 8 the 8-token decode config yields weights of 8-16 Mi elements (K >= 2048) to the 16-token ring of
    two 8-box stages: Qwen2.5's o (3584^2) 11.8 us against 12.7, the 70B shard's qkv 10.9 against 11.1; not above
    (4096^2) nor where not measured (GPT-2's fc2, K = 1024); that ring yields 14-16 Mi (Qwen2.5's qkv, 4608 x 3584)
    to the 16-token ring of 4-box stages (H200)."""
    spec, cfg = dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)
    assert (spec.name, cfg.name) == ("swap_ab_stream_k", config)


@pytest.mark.parametrize(("m", "n", "k", "config"), [
    # H200 (registry, swap_ab_stream_k): the 8-token ring without the L2 hint at the 70B shard's down (not the 8B
    # gate_up: the H100 had the hint ahead there), the 16-token ring of 4-box stages at Qwen2.5's qkv (14-16 Mi
    # elements) at 1-16 rows.
    (1, 8192, 3584, "8x64x64q8s3g1l0"), (3, 28672, 4096, "8x64x64q8s3g1"), (16, 8192, 3584, "16x64x64q8s2g1"),
    (1, 37888, 3584, "8x64x64q8s3g1"), (1, 7168, 8192, "8x64x64q8s3g1"), (1, 8192, 1024, "8x64x64q8s3g1"),
    (3, 4608, 3584, "16x64x64q4s5g1"), (16, 4608, 3584, "16x64x64q4s5g1"), (16, 4096, 4096, "16x64x64q8s2g1"),
    (33, 7168, 8192, "48x64x64q4s3g1"), (48, 7168, 8192, "48x64x64q4s3g1"),  # the 70B gate_up at 33-48 rows
])
def test_decode_picks_measured_on_the_h200(m, n, k, config):
    spec, cfg = dispatch.select(_problem(m, n, k, layouts="rc"), 90, 132)
    assert (spec.name, cfg.name) == ("swap_ab_stream_k", config)


@pytest.mark.parametrize(("m", "n", "k", "block", "name"),
                         [(4096, 7168, 16384, True, "256x128x128m"), (4096, 7168, 16384, False, "128x128x128t"),
                          (4096, 4096, 7168, True, "256x128x128m"), (4096, 24576, 1536, True, "128x128x128"),
                          (4096, 2112, 7168, True, "128x128x128t")])
def test_fp8_256_row_tiles_for_block_scales_only(m, n, k, block, name):
    """256 x 128 fp8 tiles (two m64 blocks a consumer, promoted every k-tile) ran ahead of 128 x 128 with block-wise
    scales from K = 2048 and behind with per-tensor and row-wise ones (registry: block_only, long_k); at N = 2112 its
    17 tile columns make 3 rounds where 128 x 128's tail split makes 4.1, which the estimate sees."""
    problem = dataclasses.replace(_problem(m, n, k, precision="fp8e4m3", layouts="rc"), block_scales=block)
    assert dispatch.pick_config(registry.get("wgmma_tma_store_kmajor"), problem, 132).name == name


@pytest.mark.parametrize(("m", "name"), [(64, "64x64x128"), (48, "64x64x128"), (128, "128x128x128c1")])
def test_fp8_wide_n_at_few_rows_takes_64_row_tiles(m, name):
    """fp8 at 64 rows and fewer, wide N (64 x 24576 x 1536): 64 x 64 tiles, not the 128-row tiles whose lower half
    lies below the matrix (registry: 128x128x128c1's min_m); from 65 rows the 128-row tiles again."""
    problem = _problem(m, 24576, 1536, precision="fp8e4m3", layouts="rc")
    assert dispatch.pick_config(registry.get("wgmma_tma_store_kmajor"), problem, 132).name == name


@pytest.mark.parametrize(("m", "plain", "with_gelu"), [
    (512, "128x224x64", "128x224x64"),  # four rounds of 128 x 224 hide more than ping-pong's epilogues gain
    (2048, "128x256x64s4b2o", "128x128x64pp"),
    (8192, "128x256x64s4b2ot", "128x128x64pp"),
])
def test_an_activation_on_the_sfu_goes_to_ping_pong(m, plain, with_gelu):
    """bias + gelu_tanh at M x 4096 -> 14336 (H200, against cuBLASLt's GELU_BIAS: ping-pong 1390 against 1444 us for
    128 x 256 at 8192 rows, 359 / 363 at 2048, 101.5 against 87.6 for 128 x 224 at 512;
    2026-11-27-h200-explore-gelu-pp-3ec7954.json): the SFU's two k-tiles a tile are paid by every config but
    ping-pong's (dispatch.ACTIVATION_KTILES, TileConfig.act_speed); relu and plain GEMMs keep their picks."""
    spec = registry.get("wgmma_tma_store")
    p = dataclasses.replace(_problem(m, 14336, 4096, layouts="rc"), c_strides=(0, 1, 0), beta=1.0)
    assert dispatch._orientation(spec, p, 132).name == plain
    assert dispatch._orientation(spec, dataclasses.replace(p, activation=1), 132).name == plain  # relu
    assert dispatch._orientation(spec, dataclasses.replace(p, activation=3), 132).name == with_gelu


@pytest.mark.parametrize(("shape", "layouts", "expected"), [
    # GPT-2's fc2 at 300 tokens: 60 tiles of 64 x 64 in two k ranges make one round (measured 8.2 against 8.9 us for
    # 64 x 48, 2026-11-28-h100-explore-k2-176pp-f5d7391-p1.json)
    ((300, 768, 3072), "rc", "64x64x64k2"),
    ((256, 768, 3072), "rc", "64x64x64k2"),
    # the 8B gate_up at 512 tokens: ping-pong in 6.8 rounds (registry: mid_speed)
    ((512, 28672, 4096), "rc", "128x128x64pp"),
    # 48-64 rows of weights up to 4096 wide: two k ranges put 128 CTAs on the weight where unsplit tiles make 64
    # (H200: 64 x 4096 x 14336 34.0 against 38.1 us for 64 x 64 c2s13, 2026-11-28-h200-explore-mid-ccb8d4b.json)
    ((64, 4096, 14336), "rc", "64x64x64k2"),
    ((48, 4096, 14336), "rc", "64x64x64k2"),
    ((64, 3584, 18944), "rc", "64x64x64k2"),
    ((64, 4096, 4096), "rc", "64x64x64k2"),
    ((64, 3584, 3584), "rc", "64x64x64k2"),
    # 65-128 rows of a long K: 128 x 64 in two k ranges, one round (H200: 128 x 4096 x 14336 36.8 against 39.4 us
    # for c2s13, 2026-11-28-h200-explore-k2-8afa40f.json)
    ((128, 4096, 14336), "rc", "128x64x64k2"),
    ((128, 3584, 18944), "rc", "128x64x64k2"),
    ((128, 4096, 14336), "rr", "128x64x64k2"),
])
def test_auto_picks_of_2026_11_28(shape, layouts, expected):
    assert dispatch.select(_problem(*shape, layouts=layouts), 90, 132)[1].name == expected


@pytest.mark.parametrize("shape", [
    (128, 4096, 4096),   # 128 x 64 k2 behind c2s13 at K = 4096 (13.4 against 12.6 us, H200)
    (64, 7168, 8192),    # N > 4096: 224 units, two rounds (0.84x against 0.96x, H200)
    (512, 4096, 4096),   # ping-pong with one tile a CTA hides nothing (one round of 128 x 128)
    (2048, 28672, 4096),  # mid_speed only at M <= dispatch.MID_ROWS
    (256, 28672, 4096),  # 3.4 rounds: below dispatch.MID_MIN_ROUNDS
])
def test_auto_leaves_them_elsewhere(shape):
    name = dispatch.select(_problem(*shape, layouts="rc"), 90, 132)[1].name
    assert name not in ("64x64x64k2", "128x64x64k2", "128x128x64pp"), (shape, name)


@pytest.mark.parametrize(("shape", "expected"), [
    # H200, CUDA graphs (2026-11-28-h200-explore-70b-gate-up-888680b.json, ...-explore-a-halves-f81b977.json,
    # ...-explore-64x144c2-d7c1ca3.json, ...-explore-gate-up-8b-h-823d378.json, ...-explore-qkv-96c2-45edb27.json):
    ((100, 28672, 4096), "128x224x64c1h"),  # one round of 128 tiles; 1.00x as 128 x 104 T and 128 x 224 c1
    ((72, 28672, 4096), "128x224x64c1h"),   # 1.01x against 0.94x for 128 x 224 c1 (56 rows filled), 0.92x for T
    ((80, 8192, 1024), "128x64x64h"),    # (at K = 3584 since 64 x 128 pairs, the next test) 0.94x against 0.86x for
                                         # 64 x 128, 0.67x for 128 x 64 (48 rows filled)
    ((80, 7168, 8192), "64x112x64c2"),   # one round of pairs: 0.97x against 0.92x for 64 x 144 c2l (the next test)
    ((80, 6144, 4096), "64x96x64c2"),    # one round of pairs: 1.01x against 0.89x for 128 x 64 h
    ((120, 8192, 3584), "128x64x64h"),   # 128 x 64 h past 64 rows: no filled rows (128 x 64 has 8)
    ((96, 4096, 14336), "128x64x64k2h"),  # 1.01x against 0.98x for c2s13, 0.84x for 128 x 64 k2
    ((120, 4096, 14336), "128x64x64k2h"),  # 1.07x against 1.05x for 128 x 64 k2
    ((128, 6144, 4096), "64x96x64c2"),   # 1.04x against 0.98x for 128 x 64 (the h config's copy, first: a tie)
    ((128, 8192, 3584), "128x64x64"),    # full tiles: the config they copy, first in the registry (1.01x both)
])
def test_tiles_taller_than_the_matrix_pay_for_their_empty_rows(shape, expected):
    """M < BLOCK_M: no shift pulls the tile up, so each load carries rows TMA fills (dispatch.OOB_ROW_COST), but for
    A_HALVES tiles past 64 rows, whose second consumer's rows end at M."""
    assert dispatch.select(_problem(*shape, layouts="rc"), 90, 132)[1].name == expected


@pytest.mark.parametrize(("shape", "expected"), [
    # H200, CUDA graphs (2026-11-28-h200-explore-gu70-mid-c1c776c.json, ...-explore-qwen-gu-c1c776c.json): whole rounds
    # of units at 65-128 rows, each bounded to the weight it was measured at.
    ((72, 7168, 8192), "64x112x64c2"),     # 128 CTAs in pairs: 0.98x against 0.92x for 64 x 144 c2l
    ((128, 7168, 8192), "64x112x64c2"),    # 1.03x against 0.89x for 128 x 64
    ((64, 7168, 8192), "64x64x64"),        # below min_m: one row of 64-row tiles
    ((96, 8192, 8192), "64x144x64c2l"),    # another N: not measured, the pick before
    ((72, 37888, 3584), "128x144x64c1h"),  # two whole rounds: 1.03x against 0.92x for 128 x 104 T
    ((112, 37888, 3584), "128x144x64c1h"),  # 0.99x against 0.97x for 128 x 96 n
    ((128, 37888, 3584), "128x96x64n"),    # level there (1.00x / 1.01x): max_m 112
    ((96, 28672, 4096), "128x224x64c1h"),  # another N: the 8B gate_up's own one-round pick
    ((72, 8192, 3584), "64x128x64c2"),     # 1.01x against 0.92x for 128 x 64 h (2026-11-28-h200-explore-down70-44f080b)
    ((112, 8192, 3584), "128x64x64h"),     # past max_m: 128 x 64 h (1.04x in the model bench)
])
def test_whole_rounds_at_65_to_128_rows(shape, expected):
    assert dispatch.select(_problem(*shape, layouts="rc"), 90, 132)[1].name == expected


@pytest.mark.parametrize("shape", [(1, 2304, 768), (16, 3072, 768), (32, 768, 768), (24, 8192, 1024)])
def test_the_empty_row_cost_leaves_decode_shapes_alone(shape):
    """At <= OOB_MIN_EXTENT rows every tile is mostly empty: the picks measured there (64 x 64 and 64 x 48 at GPT-2's
    K = 768) stand."""
    assert dispatch.select(_problem(*shape, layouts="rc"), 90, 132)[1].name in ("64x64x64", "64x48x64")
