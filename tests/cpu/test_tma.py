"""TMA host side without a GPU: tensor-map geometry per layout, alignment refusal, auto fallback."""

from __future__ import annotations

import pytest
import torch

from tcgemm import dispatch, registry, tma
from tcgemm.check import random_operand
from tcgemm.problem import describe

SPEC = registry.get("wgmma_tma")
CFG = SPEC.configs[0]


def _problem(m, n, k, layouts, batch=None, pad=0, dtype=torch.bfloat16):
    a = random_operand(m, k, "row" if layouts[0] == "r" else "col", batch, dtype, "cpu", pad=pad)
    b = random_operand(k, n, "row" if layouts[1] == "r" else "col", batch, dtype, "cpu", pad=pad)
    return describe(a, b)[0]


@pytest.mark.parametrize("layouts", ["rr", "rc", "cr", "cc"])
def test_geometry_follows_the_contiguous_dimension(layouts):
    p = _problem(200, 136, 72, layouts)
    bm, bn, bk = CFG["BLOCK_M"], CFG["BLOCK_N"], CFG["BLOCK_K"]
    dims, strides, box = tma.geometry(p, CFG, "a")
    if layouts[0] == "r":  # K-major A: (K, M), box 64 k x BLOCK_M rows
        assert dims == (72, 200, 1) and box == (bk, bm, 1) and strides[0] == 72 * 2
    else:  # M-major A: (M, K), box 64 m x BLOCK_K rows
        assert dims == (200, 72, 1) and box == (64, bk, 1) and strides[0] == 200 * 2
    dims, strides, box = tma.geometry(p, CFG, "b")
    if layouts[1] == "c":  # K-major B
        assert dims == (72, 136, 1) and box == (bk, bn, 1) and strides[0] == 72 * 2
    else:
        assert dims == (136, 72, 1) and box == (64, bk, 1) and strides[0] == 136 * 2
    for name in "ab":
        dims, strides, box = tma.geometry(p, CFG, name)
        assert all(s % 16 == 0 and s > 0 for s in strides)
        assert box[0] * 2 <= tma.SWIZZLE_BYTES


def test_batched_and_broadcast_operands():
    a = torch.randn(3, 40, 64, dtype=torch.float16)
    b = torch.randn(64, 24, dtype=torch.float16)  # broadcast over the batch
    p = describe(a, b)[0]
    dims, strides, _ = tma.geometry(p, CFG, "a")
    assert dims == (64, 40, 3) and strides == (128, 40 * 64 * 2)
    dims, strides, _ = tma.geometry(p, CFG, "b")
    assert dims == (24, 64, 1) and strides[1] > 0


def test_unaligned_problems_are_refused_with_a_reason():
    p = _problem(33, 9, 7, "rr", dtype=torch.float16)
    reason = dispatch.why_not(SPEC, p, 90)
    assert reason is not None and "16-byte aligned" in reason
    assert dispatch.why_not(SPEC, _problem(33, 8, 8, "rr", dtype=torch.float16), 90) is None
    assert "sm_90" in dispatch.why_not(SPEC, _problem(33, 8, 8, "rr", dtype=torch.float16), 80)


def test_auto_never_picks_a_tma_kernel_for_unaligned_operands():
    p = _problem(33, 9, 7, "rr")
    try:
        spec, _ = dispatch.select(p, 90, 132)
    except dispatch.KernelUnavailable as exc:  # no non-TMA bf16 kernel on this branch
        assert "not 16-byte aligned" in str(exc)
    else:
        assert not spec.tma and not spec.requires_aligned16
    spec, _ = dispatch.select(_problem(256, 256, 256, "rr"), 90, 132)
    assert spec.family == "hopper"


@pytest.mark.parametrize("precision,dtype", [("tf32", torch.float32), ("int8", torch.int8),
                                             ("fp8e4m3", torch.float8_e4m3fn), ("fp8e5m2", torch.float8_e5m2)])
def test_k_major_kernel_boxes_are_128_byte_rows(precision, dtype):
    """wgmma_ws_kmajor: K-major boxes of BLOCK_K = 128 bytes of k (32 floats, 128 int8) x BLOCK_M|N rows,
    byte strides from the element size; the kernel's expect_tx is (BLOCK_M + BLOCK_N) * 128."""
    spec = registry.get("wgmma_ws_kmajor")
    size = torch.tensor([], dtype=dtype).element_size()
    for cfg in spec.configs_for(precision):
        a = random_operand(200, 256, "row", None, dtype, "cpu")
        b = random_operand(256, 136, "col", None, dtype, "cpu", pad=16)
        p = describe(a, b, precision=precision)[0]
        assert p.layouts == "rc" and dispatch.why_not(spec, p, 90) is None
        dims, strides, box = tma.geometry(p, cfg, "a")
        assert dims == (256, 200, 1) and box == (cfg["BLOCK_K"], cfg["BLOCK_M"], 1) and strides[0] == 256 * size
        assert box[0] * size == tma.SWIZZLE_BYTES
        dims, strides, box = tma.geometry(p, cfg, "b")
        assert dims == (256, 136, 1) and box == (cfg["BLOCK_K"], cfg["BLOCK_N"], 1) and strides[0] == 272 * size
        total = sum(tma.geometry(p, cfg, n)[2][0] * tma.geometry(p, cfg, n)[2][1] * size for n in "ab")
        assert total == (cfg["BLOCK_M"] + cfg["BLOCK_N"]) * 128
        assert cfg.smem_bytes >= cfg["STAGES"] * total + 1024 + 16 * cfg["STAGES"]
    rr = describe(random_operand(200, 256, "row", None, dtype, "cpu"),
                  random_operand(256, 136, "row", None, dtype, "cpu"), precision=precision)[0]
    assert "layouts" in dispatch.why_not(spec, rr, 90)


def test_tensor_map_element_types():
    assert tma._MAP_TYPES == {"float16": "FLOAT16", "bfloat16": "BFLOAT16", "float32": "FLOAT32", "int32": "INT32",
                              "int8": "UINT8", "float8_e4m3fn": "UINT8", "float8_e5m2": "UINT8"}
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.int8, torch.float8_e4m3fn,
                  torch.float8_e5m2):
        assert str(dtype).removeprefix("torch.") in tma._MAP_TYPES


def test_tf32_operands_are_rounded_by_the_tma_copy():
    """tf32's A and B maps are TFLOAT32 (the TMA unit rounds to nearest tf32 as it copies); other
    precisions keep their element type."""
    a = random_operand(256, 128, "row", None, torch.float32, "cpu")
    b = random_operand(128, 256, "col", None, torch.float32, "cpu")
    tf32 = describe(a, b, precision="tf32")[0]
    assert tma.operand_map_type(tf32) == "TFLOAT32"
    half = describe(a.half(), b.half(), precision="fp16")[0]
    assert tma.operand_map_type(half) == "FLOAT16"


def test_cluster_kernel_loads_k_major_b_in_parts():
    """wgmma_cluster: each CTA of a cluster loads B_BOX_N = BLOCK_N / cluster rows of a K-major B tile."""
    spec = registry.get("wgmma_cluster")
    for cfg in spec.configs:
        p = _problem(300, 520, 72, "rc")
        _, _, box = tma.geometry(p, cfg, "b")
        assert box == (cfg["BLOCK_K"], cfg["BLOCK_N"] // spec.cluster, 1) == (cfg["BLOCK_K"], cfg["B_BOX_N"], 1)
        _, _, box = tma.geometry(p, cfg, "a")
        assert box == (cfg["BLOCK_K"], cfg["BLOCK_M"], 1)
        p = _problem(300, 520, 72, "rr")  # MN-major B: 64-column boxes whatever the cluster
        assert tma.geometry(p, cfg, "b")[2] == (64, cfg["BLOCK_K"], 1)


def test_clusters_along_n_load_k_major_a_in_parts():
    """CLUSTER_ALONG_N configs share A: each CTA loads A_BOX_M = BLOCK_M / cluster rows of a K-major A
    tile (multicast) and the whole B tile; clusters along M split B instead."""
    spec = registry.get("wgmma_tma_store")
    p = _problem(300, 520, 72, "rc")
    along_n = [c for c in spec.configs if c.get("CLUSTER_ALONG_N")]
    assert along_n, "no config lays its cluster along N"
    for cfg in spec.configs:
        cluster = spec.cluster_of(cfg)
        _, _, box_a = tma.geometry(p, cfg, "a")
        _, _, box_b = tma.geometry(p, cfg, "b")
        if cfg.get("CLUSTER_2D"):  # A shared by the tile columns, B by the tile rows
            cols = cfg["CLUSTER_2D"]
            assert box_a == (cfg["BLOCK_K"], cfg["BLOCK_M"] // cols, 1)
            assert box_b == (cfg["BLOCK_K"], cfg["BLOCK_N"] // (cluster // cols), 1)
        elif cfg.get("CLUSTER_ALONG_N"):
            assert box_a == (cfg["BLOCK_K"], cfg["BLOCK_M"] // cluster, 1)
            assert box_b == (cfg["BLOCK_K"], cfg["BLOCK_N"], 1)
        else:  # (A_HALVES: one box per consumer's 64 rows, hopper_config.cuh)
            assert box_a == (cfg["BLOCK_K"], 64 if cfg.get("A_HALVES") else cfg["BLOCK_M"], 1)
            assert box_b == (cfg["BLOCK_K"], cfg["BLOCK_N"] // cluster, 1), cfg.name


def test_one_box_b_shared_by_a_cluster_splits_along_k():
    """A cluster sharing an MN-major B tile of one 64-column box (BLOCK_N = 64, cluster 2): each CTA loads
    B_BOX_K = BLOCK_K / cluster of its k rows; K-major B is still split by rows (B_BOX_N)."""
    spec = registry.get("wgmma_tma_store")
    split = [c for c in spec.configs if c.get("B_BOX_K", c["BLOCK_K"]) != c["BLOCK_K"]]
    assert split, "no config splits B along k"
    for cfg in spec.configs:
        cluster = spec.cluster_of(cfg)
        shared_one_box = cfg["BLOCK_N"] == 64 and cluster > 1 and not cfg.get("CLUSTER_ALONG_N")
        assert (cfg in split) == shared_one_box, cfg.name
        rows = cfg["BLOCK_K"] // cluster if shared_one_box else cfg["BLOCK_K"]
        assert tma.geometry(_problem(300, 520, 72, "rr"), cfg, "b")[2] == (64, rows, 1), cfg.name
        assert tma.geometry(_problem(300, 520, 72, "rc"), cfg, "b")[2] == (cfg["BLOCK_K"], cfg["B_BOX_N"], 1)


def _out_problem(m, n, out_dtype, batch=None):
    dtype = torch.int8 if out_dtype == torch.int32 else torch.bfloat16
    a = random_operand(m, 64, "row", batch, dtype, "cpu")
    b = random_operand(64, n, "col", batch, dtype, "cpu")
    return describe(a, b, out_dtype=out_dtype)[0]


def test_d_map_geometry_of_the_tma_store_epilogue():
    """D (row-major) is described as (N, M, batch) with boxes of 64 rows x 128 bytes: 64 16-bit or 32 fp32
    columns; rows that are not a multiple of 16 bytes get no map (the kernel then writes from registers)."""
    dims, strides, box = tma.d_geometry(_out_problem(300, 520, torch.bfloat16, batch=3))
    assert dims == (520, 300, 3) and strides == (520 * 2, 300 * 520 * 2) and box == (64, 64, 1)
    dims, strides, box = tma.d_geometry(_out_problem(300, 520, torch.float32))
    assert dims == (520, 300, 1) and strides[0] == 520 * 4 and box == (32, 64, 1)
    assert tma.d_geometry(_out_problem(300, 517, torch.bfloat16)) is None  # rows of 1034 bytes
    assert tma.d_geometry(_out_problem(300, 518, torch.float32)) is None  # rows of 2072 bytes
    assert tma.d_geometry(_out_problem(300, 520, torch.int32))[2] == (32, 64, 1)  # s32 D (int8 GEMMs)


def test_tma_store_launch_passes_three_maps_and_the_flag(monkeypatch):
    from tcgemm import launch

    spec = registry.get("wgmma_tma_store")
    seen = {}
    monkeypatch.setattr(launch, "kernel_for", lambda *args: object())
    monkeypatch.setattr(launch.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(launch, "_launch_tma",
                        lambda kernel, grid, block, smem, maps, args, device, **kw: seen.update(maps=maps, args=args))
    monkeypatch.setattr(tma, "maps", lambda *args: ("A", "B"))
    for n, flag in ((512, 1), (517, 0)):
        monkeypatch.setattr(tma, "d_map", lambda problem, d, cfg, n=n: "D" if n % 8 == 0 else None)
        p = _out_problem(256, n, torch.bfloat16)
        d = torch.empty(256, n, dtype=torch.bfloat16)
        a = b = torch.empty(1, dtype=torch.bfloat16)
        # (a config with the register-path fallback; the first ones write D through TMA only)
        launch.run(launch.plan(p, spec, spec.config("128x256x64s4b2")), p, a, b, None, d, "sm_90a")
        assert seen["maps"] == (("A", "B", "D") if flag else ("A", "B", "A"))
        # after the batch count: d_map_ok, then the split-K workspace and counters (null without SPLIT_K)
        assert int(seen["args"][-3]) == flag and int(seen["args"][-4]) == 1 and seen["args"][-2:] == (0, 0)


def test_d_boxes_of_narrow_tiles_swizzle_their_row():
    """A config with D_BOX_BYTES = 32 (tiles 48, 96 or 144 wide) gets D boxes of 32-byte rows: 16 columns of a
    16-bit D, 8 of an fp32 one; the map's swizzle follows the box row (128, 64 or 32 bytes)."""
    cfg = registry.get("wgmma_tma_store").config("128x96x64n", "bf16")
    assert tma.d_box_bytes(cfg) == 32
    assert tma.d_geometry(_out_problem(300, 520, torch.bfloat16), cfg)[2] == (16, 64, 1)
    assert tma.d_geometry(_out_problem(300, 520, torch.float32), cfg)[2] == (8, 64, 1)
    assert tma.d_box_bytes(CFG) == 128


def test_tiles_that_cannot_split_a_32bit_d_are_refused_for_it():
    """A 32-bit D goes through twice the column parts, each whole 16-column steps: tiles 48, 96, 112 or 144 wide
    (and the transposed store) write a 16-bit D only; dispatch refuses them for an fp32 D and auto picks others."""
    from tcgemm import dispatch

    spec = registry.get("wgmma_tma_store")
    for name in ("128x96x64n", "192x96x64", "128x144x64", "128x112x64", "64x48x64", "128x152x64T"):
        cfg = spec.config(name, "bf16")
        assert cfg.writes(2) and not cfg.writes(4), name
        assert dispatch.config_refuses(cfg, _out_problem(2048, 768, torch.float32)) is not None, name
    assert spec.config("128x224x64", "bf16").writes(4) and spec.config("192x128x64", "bf16").writes(4)
    for m, n in ((2048, 768), (512, 3584), (3000, 768), (512, 768)):
        assert dispatch.pick_config(spec, _out_problem(m, n, torch.float32), 132).writes(4)
