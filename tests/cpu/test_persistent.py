"""Persistent Hopper kernels without a GPU: the launch grid, the extra batch argument,
and the tile scheduler (a Python mirror of tile_coord in hopper/02_persistent.cu and
unit_coord in hopper/03_cluster_multicast.cu / include/hopper_sched.cuh) covering every output tile exactly once."""

from __future__ import annotations

import pytest
import torch

from tcgemm import dispatch, launch, registry, schedule
from tcgemm.check import random_operand
from tcgemm.problem import describe

PERSISTENT = [s for s in registry.all_specs() if s.persistent]


def _problem(m, n, k, batch=None, dtype=torch.float16, b_layout="col"):
    a = random_operand(m, k, "row", batch, dtype, "cpu")
    b = random_operand(k, n, b_layout, batch, dtype, "cpu")
    return describe(a, b)[0]


def test_there_is_a_persistent_kernel():
    assert PERSISTENT, "no persistent kernel registered"


@pytest.mark.parametrize("spec", PERSISTENT, ids=lambda s: s.name)
@pytest.mark.parametrize("m,n,batch", [(4096, 4096, None), (1, 1, None), (300, 1000, 3), (8192, 8192, None),
                                       (129, 257, 2)])
@pytest.mark.parametrize("sms", [132, 114, 7])
def test_grid_is_one_cta_per_sm_at_most(spec, m, n, batch, sms):
    for cfg in spec.configs:
        p = _problem(m, n, 64, batch, b_layout="col" if "rc" in spec.layouts else "row")  # (a kernel of rr only)
        if not cfg.serves_layouts(p.layouts):  # (configs of their own layouts: tests/cpu/test_graph_problems.py)
            continue
        plan = launch.plan(p, spec, cfg, sms)
        tiles_m, tiles_n = -(-m // cfg["BLOCK_M"]), -(-n // cfg["BLOCK_N"])
        cluster = spec.cluster_of(cfg)
        if cfg.get("STREAM_K"):  # CTAS_PER_SM per SM, each with at least one k-tile (tcgemm.schedule)
            ktiles = -(-64 // (cfg["BLOCK_K"] * cfg.get("KSUB", 1)))
            assert plan.grid[1:] == (1, 1) and plan.block == cfg.threads
            assert 1 <= plan.grid[0] <= min(sms * cfg["CTAS_PER_SM"], tiles_m * tiles_n * (batch or 1) * ktiles)
            continue
        if cfg.get("CLUSTER_2D"):  # CLUSTER_M / CLUSTER_2D x CLUSTER_2D tiles
            rows, cols = cluster // cfg["CLUSTER_2D"], cfg["CLUSTER_2D"]
            units = -(-tiles_m // rows) * -(-tiles_n // cols) * (batch or 1)
        elif cfg.get("CLUSTER_ALONG_N"):  # the cluster's CTAs side by side along N
            units = tiles_m * -(-tiles_n // cluster) * (batch or 1)
        else:
            units = -(-tiles_m // cluster) * tiles_n * (batch or 1) * cfg.get("SPLIT_K", 1)
        assert plan.grid[1:] == (1, 1) and plan.block == cfg.threads
        assert plan.grid[0] % cluster == 0 and plan.grid[0] >= cluster
        assert plan.grid[0] <= max(sms - sms % cluster, cluster)
        assert plan.grid[0] == cluster * min(max(1, sms // cluster), units)


def test_plan_defaults_to_an_h100():
    spec = PERSISTENT[0]
    p = _problem(8192, 8192, 64)
    assert launch.plan(p, spec, spec.configs[0]).grid[0] == launch.DEFAULT_SMS - launch.DEFAULT_SMS % spec.cluster


def test_launch_passes_the_batch_count(monkeypatch):
    """run() appends the batch as a 32-bit int after the common arguments of a persistent kernel."""
    spec = PERSISTENT[0]
    cfg = spec.configs[0]
    a = torch.zeros(3, 64, 64, dtype=torch.float16)
    b = torch.zeros(3, 64, 64, dtype=torch.float16)
    d = torch.zeros(3, 64, 64, dtype=torch.float16)
    p = describe(a, b)[0]
    plan = launch.plan(p, spec, cfg)
    seen = {}
    monkeypatch.setattr(launch, "kernel_for", lambda *args: object())
    monkeypatch.setattr(launch.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(launch, "_launch_tma",
                        lambda kernel, grid, block, smem, maps, args, device, **kw: seen.update(args=args, grid=grid))
    monkeypatch.setattr(launch, "_launch",
                        lambda kernel, grid, block, smem, args, device: seen.update(args=args, grid=grid))
    import tcgemm.tma as tma

    monkeypatch.setattr(tma, "maps", lambda *args: (None, None))
    launch.run(plan, p, a, b, None, d, "sm_90a")
    assert len(seen["args"]) == len(launch._ARG_CTYPES) + 1 and int(seen["args"][-1]) == 3
    assert seen["grid"] == plan.grid


def tile_coord(t, tiles_m, tiles_n, group_m):
    """Mirror of the kernels' tile_coord: tile index -> (tile row, tile column, batch)."""
    per_batch = tiles_m * tiles_n
    z, r = divmod(t, per_batch)
    per_group = group_m * tiles_n
    first_m = (r // per_group) * group_m
    rows = min(tiles_m - first_m, group_m)
    in_group = r % per_group
    return first_m + in_group % rows, in_group // rows, z


@pytest.mark.parametrize("tiles_m,tiles_n,batch", [(1, 1, 1), (32, 16, 1), (64, 32, 1), (9, 5, 3), (7, 1, 2),
                                                   (1, 13, 4), (17, 17, 1)])
@pytest.mark.parametrize("group_m", [1, 4, 8, 32])
def test_tile_order_covers_every_tile_once(tiles_m, tiles_n, batch, group_m):
    seen = [tile_coord(t, tiles_m, tiles_n, group_m) for t in range(tiles_m * tiles_n * batch)]
    assert sorted(seen) == sorted((m, n, z) for m in range(tiles_m) for n in range(tiles_n) for z in range(batch))


@pytest.mark.parametrize("tiles_m,tiles_n,batch", [(1, 1, 1), (32, 16, 1), (9, 5, 3), (7, 1, 2), (2, 3, 1)])
def test_cluster_pairs_cover_every_tile_once(tiles_m, tiles_n, batch):
    """A cluster of C CTAs takes unit (pm, n, z) of a grid of ceil(tiles_m / C) pair rows; CTA r of
    the cluster computes tile row C * pm + r (rows past the matrix are zero work, never stored)."""
    cluster = 2
    pairs_m = -(-tiles_m // cluster)
    seen = []
    for u in range(pairs_m * tiles_n * batch):
        pm, n, z = tile_coord(u, pairs_m, tiles_n, 4)
        seen += [(cluster * pm + r, n, z) for r in range(cluster) if cluster * pm + r < tiles_m]
    assert sorted(seen) == sorted((m, n, z) for m in range(tiles_m) for n in range(tiles_n) for z in range(batch))


@pytest.mark.parametrize("tiles_m,tiles_n,batch", [(1, 1, 1), (32, 16, 1), (9, 5, 3), (7, 1, 2), (2, 3, 1)])
def test_clusters_along_n_cover_every_tile_once(tiles_m, tiles_n, batch):
    """CLUSTER_ALONG_N: a cluster takes unit (m, pn, z) of a grid of ceil(tiles_n / C) unit columns, CTA r
    tile column C * pn + r (columns past the matrix are zero work, never stored); groups of GROUP_M rows."""
    cluster = 2
    units_n = -(-tiles_n // cluster)
    seen = []
    for u in range(tiles_m * units_n * batch):
        m, pn, z = tile_coord(u, tiles_m, units_n, 8)
        seen += [(m, cluster * pn + r, z) for r in range(cluster) if cluster * pn + r < tiles_n]
    assert sorted(seen) == sorted((m, n, z) for m in range(tiles_m) for n in range(tiles_n) for z in range(batch))


@pytest.mark.parametrize("rows,cols", [(2, 2), (4, 2), (2, 4)])
@pytest.mark.parametrize("tiles_m,tiles_n,batch", [(1, 1, 1), (32, 16, 1), (9, 5, 3), (7, 1, 2), (2, 3, 1)])
def test_2d_clusters_cover_every_tile_once(tiles_m, tiles_n, batch, rows, cols):
    """CLUSTER_2D: a cluster of rows x cols CTAs takes unit (um, un, z) of a ceil(tiles_m / rows) x
    ceil(tiles_n / cols) grid; CTA r computes tile (rows um + r % rows, cols un + r // rows) (tiles past the
    matrix are zero work, never stored)."""
    units_m, units_n = -(-tiles_m // rows), -(-tiles_n // cols)
    seen = []
    for u in range(units_m * units_n * batch):
        um, un, z = tile_coord(u, units_m, units_n, 8 // rows)
        seen += [(rows * um + r % rows, cols * un + r // rows, z) for r in range(rows * cols)
                 if rows * um + r % rows < tiles_m and cols * un + r // rows < tiles_n]
    assert sorted(seen) == sorted((m, n, z) for m in range(tiles_m) for n in range(tiles_n) for z in range(batch))


@pytest.mark.parametrize("rows,cols", [(2, 2), (4, 2), (2, 4)])
def test_2d_cluster_masks_share_a_along_n_and_b_along_m(rows, cols):
    """The kernel's multicast masks (load_tile): A to the CTAs of a tile row, B to those of a tile column."""
    size = rows * cols
    for rank in range(size):
        rm, rn = rank % rows, rank // rows
        a_mask = ((1 << size) - 1) // ((1 << rows) - 1) << rm
        b_mask = ((1 << rows) - 1) << (rows * rn)
        assert a_mask == sum(1 << r for r in range(size) if r % rows == rm)
        assert b_mask == sum(1 << r for r in range(size) if r // rows == rn)


def test_grid_counts_units_along_the_cluster():
    """The persistent grid holds no more clusters than units: along N, ceil(tiles_n / C) per tile row."""
    spec = registry.get("wgmma_tma_store")
    cfg = next(c for c in spec.configs if c.get("CLUSTER_ALONG_N"))
    p = _problem(cfg["BLOCK_M"] * 3, cfg["BLOCK_N"] * 5, 64)  # 3 tile rows x 5 tile columns: 3 x 3 units
    assert launch.persistent_grid(p, spec, cfg, 132) == (3 * 3 * spec.cluster_of(cfg), 1, 1)
    along_m = spec.config("128x256x64")
    p = _problem(128 * 3, 256 * 5, 64)  # 2 unit rows x 5 columns
    assert launch.persistent_grid(p, spec, along_m, 132) == (2 * 5 * 2, 1, 1)
    two_d = spec.config("128x256x64c4")
    assert launch.persistent_grid(p, spec, two_d, 132) == (2 * 3 * 4, 1, 1)  # 2 x 3 units of 2 x 2 tiles
    eights = spec.config("64x96x64Tc8")  # 4 x 2 tiles
    p = _problem(64 * 20, 96 * 6, 64)  # 5 x 3 units: 120 CTAs
    assert launch.persistent_grid(p, spec, eights, 132) == (5 * 3 * 8, 1, 1)
    p = _problem(64 * 21, 96 * 7, 64)  # 6 x 4 units: no more than 16 clusters of eight on 132 SMs
    assert launch.persistent_grid(p, spec, eights, 132) == (16 * 8, 1, 1)


@pytest.mark.parametrize("ktiles", [1, 2, 3, 7, 16, 64, 65])
@pytest.mark.parametrize("splits", [1, 2, 4, 8])
def test_split_k_ranges_cover_every_k_tile_once(ktiles, splits):
    """Mirror of Schedule::k_range in include/hopper_sched.cuh (stage 4): the SPLIT_K units of a tile take disjoint
    k-tile ranges [kt0, kt1) covering 0..ktiles-1 (trailing units may be empty, and still report)."""
    per = -(-ktiles // splits)
    covered = []
    for split in range(splits):
        kt0 = min(ktiles, split * per)
        kt1 = min(ktiles, kt0 + per)
        assert kt0 <= kt1
        covered += range(kt0, kt1)
    assert covered == list(range(ktiles))


class _FakeScratch:
    """launch's scratch allocator on the CPU: records the bytes of each cuMemAlloc and of each upload."""

    def __init__(self, monkeypatch, capturing: bool = False) -> None:
        self.allocs: list[int] = []
        self.uploads: list[tuple[int, int]] = []
        self.capturing = capturing
        monkeypatch.setattr(launch, "_device_alloc", self._alloc)
        monkeypatch.setattr(launch, "_upload", lambda device, ptr, values: self.uploads.append((ptr, values.nbytes)))
        monkeypatch.setattr(launch, "_capturing", lambda: self.capturing)
        monkeypatch.setattr(launch, "_raw_stream", lambda device: 7)
        launch._split_k_scratch.clear()

    def _alloc(self, device: int, nbytes: int) -> int:
        self.allocs.append(nbytes)
        return 4096 * len(self.allocs)


def test_split_k_workspace_holds_every_unit(monkeypatch):
    """launch.split_k_buffers sizes the workspace for whole clusters of tile rows x tile columns x batch,
    SPLIT_K slices of BLOCK_M x BLOCK_N floats each, and the counters for one per consumer warpgroup;
    the stream's buffers and the device's CUDA-graph ones, counters zeroed once."""
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x128x64k4")
    fake = _FakeScratch(monkeypatch)
    p = _problem(130, 300, 640, batch=2)
    ws, counters, used = launch.split_k_buffers(p, spec, cfg, 0)
    tiles = 2 * 3 * 2  # ceil(130/128) rows, ceil(300/128) columns, batch 2 (cluster 1)
    ws_bytes, counter_bytes = 4 * tiles * 4 * 128 * 128, 4 * tiles * 2
    assert used and fake.allocs == [ws_bytes, counter_bytes] * 2  # the graph's set, then the stream's
    assert sorted(n for _, n in fake.uploads) == [counter_bytes] * 2  # counters start at zero
    assert launch._split_k_scratch[(0, 7)][0] == ws and launch._split_k_scratch[(0, 7)][2] == counters
    fake.allocs.clear()  # a second launch on the same stream, and a capture of it, reuse the buffers
    launch.split_k_buffers(p, spec, cfg, 0)
    fake.capturing = True
    graph_ws, graph_counters, _ = launch.split_k_buffers(p, spec, cfg, 0)
    assert fake.allocs == [] and (graph_ws, graph_counters) != (ws, counters)
    launch._split_k_scratch.clear()


def test_capture_never_allocates(monkeypatch):
    """A split-K call captured before it ever ran eagerly cannot allocate (the graph would own the memory,
    and torch.compile's cudagraph trees refuse that): a GraphCaptureError tells the user to warm up."""
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x128x64k4")
    fake = _FakeScratch(monkeypatch, capturing=True)
    with pytest.raises(launch.GraphCaptureError, match="warm-up"):
        launch.split_k_buffers(_problem(130, 300, 640), spec, cfg, 0)
    assert fake.allocs == []
    fake.capturing = False
    launch.split_k_buffers(_problem(130, 300, 640), spec, cfg, 0)  # eager: prepares the capture too
    fake.capturing = True
    fake.allocs.clear()
    launch.split_k_buffers(_problem(130, 300, 640), spec, cfg, 0)
    assert fake.allocs == []
    launch._split_k_scratch.clear()


@pytest.mark.parametrize("spec", registry.all_specs(), ids=lambda s: s.name)
def test_config_labels_tell_configs_apart(spec):
    """Benchmark files name a config by its describe() label: two configs of a kernel must not share
    one (two ping-pong configs once did, and only the order of rows told them apart)."""
    labels = [c.describe() for c in spec.configs]
    assert len(set(labels)) == len(labels), labels


def test_two_wgmma_atoms_per_consumer_fill_the_staging_buffer_budget():
    """WG_M = 128 configs: the consumers still cover BLOCK_M (two of them plus the producer; ping-pong: two that
    each cover it), and the host's shared-memory size holds the ring, the D staging buffers of both m64 blocks
    (ping-pong: of both consumers' tiles; D_IN_RING: the blocks of its D^T that the ring slot cannot hold), and
    barriers."""
    spec = registry.get("wgmma_tma_store")
    for cfg in spec.configs:
        wg_m = cfg.get("WG_M", 64)
        assert cfg["BLOCK_M"] % wg_m == 0 and cfg.threads == 128 * (cfg.consumers + 1), cfg.name
        assert not cfg.get("PINGPONG") or wg_m == cfg["BLOCK_M"], cfg.name
        slot = (cfg["BLOCK_M"] + cfg["BLOCK_N"]) * 128
        ring = cfg["STAGES"] * slot
        tiles = 2 if cfg.get("PINGPONG") else 1
        staging = tiles * cfg["BLOCK_M"] * cfg["BLOCK_N"] * 2 * cfg.get("EPI_BUFS", 1) // cfg.get("EPI_PARTS", 1)
        if cfg.get("D_IN_RING"):
            staging = max(0, staging - slot)
        assert cfg.smem_bytes >= ring + staging + 1024 + 16 * cfg["STAGES"], cfg.name
        assert cfg.smem_bytes <= 227 * 1024, cfg.name


def _tail_walk(units: int, ktiles: int, clusters: int, cluster: int,
               max_parts: int = schedule.TAIL_MAX_PARTS) -> list[tuple[int, int, int]]:
    """Mirror of the kernel's walk with TAIL_SPLIT (tail_split.cuh: tail_split, tail_next_unit, and the
    kernel's tail_range): the (unit, kt0, kt1) pieces cluster ``cluster`` computes, in order."""
    tail = schedule.tail_split(units, ktiles, clusters, max_parts)
    dp, split = (units - tail[0], tail[1]) if tail else (units, ktiles)
    rem = units - dp
    helpers, owner = clusters - rem, cluster < rem

    def next_unit(u: int) -> int:
        if u >= dp:
            return units if owner else u + helpers
        n = u + clusters
        if n < dp or dp == units:
            return n
        return dp + (cluster if owner else cluster - rem)

    pieces, u = [], cluster if cluster < dp else next_unit(cluster - clusters)
    while u < units:
        kt0, kt1 = (0, ktiles) if u < dp else ((0, split) if owner else (split, ktiles))
        pieces.append((u, kt0, kt1))
        u = next_unit(u)
    return pieces


@pytest.mark.parametrize("units,ktiles,clusters", [
    (256, 64, 66), (896, 64, 66), (256, 224, 66), (1024, 128, 66), (1024, 16, 66), (512, 32, 66),
    (72, 16, 66), (120, 19, 66), (80, 8, 66), (67, 64, 66), (131, 64, 66), (66, 64, 66), (132, 64, 66),
    (40, 64, 66), (200, 5, 66), (200, 6, 66), (7, 9, 3), (1000, 64, 60), (257, 64, 64), (104, 22, 66),
    (80, 13, 66), (2048, 64, 66), (1792, 32, 66), (512, 224, 66), (116, 40, 66), (112, 40, 66)])
@pytest.mark.parametrize("max_parts", [2, 4])
def test_tail_split_covers_every_k_tile_once(units, ktiles, clusters, max_parts):
    """Every (unit, k-tile) is computed exactly once; a tail unit in two parts, one by its owner and one
    by a helper; the helpers' parts, with their overhead, end no later than the owners' first parts.
    max_parts 4 (TAIL_PARTS = 4): 512 x 224 and 116 x 40 on 66 clusters split where 2 would not."""
    seen: dict[tuple[int, int], int] = {}
    parts: dict[int, list[tuple[int, int]]] = {}
    work = []
    for cluster in range(clusters):
        pieces = _tail_walk(units, ktiles, clusters, cluster, max_parts)
        work.append(sum(kt1 - kt0 for _, kt0, kt1 in pieces))
        for u, kt0, kt1 in pieces:
            assert kt0 < kt1
            parts.setdefault(u, []).append((kt0, kt1))
            for kt in range(kt0, kt1):
                assert (u, kt) not in seen
                seen[(u, kt)] = cluster
    assert len(seen) == units * ktiles
    tail = schedule.tail_split(units, ktiles, clusters, max_parts)
    split_units = [u for u, p in parts.items() if len(p) > 1]
    if tail is None:
        assert not split_units
        return
    rem, split = tail
    assert sorted(split_units) == list(range(units - rem, units))
    assert all(sorted(p) == [(0, split), (split, ktiles)] for u, p in parts.items() if u in split_units)
    assert max(work) < (units // clusters + 1) * ktiles  # shorter than the last turn without the split
    # Helpers, counting the 4 k-tiles a part costs them beyond its own, end no later than the owners.
    dp_work = units // clusters * ktiles
    parts_of = [len([1 for u, _, _ in _tail_walk(units, ktiles, clusters, c, max_parts) if u >= units - rem])
                for c in range(clusters)]
    owners = [w - dp_work for c, w in enumerate(work) if c < rem]
    helpers = [w - dp_work + 4 * parts_of[c] for c, w in enumerate(work) if c >= rem]
    assert max(helpers) <= max(owners) and set(owners) == {split}
    assert max(parts_of) <= max_parts


def test_four_parts_split_where_two_do_not():
    """TAIL_PARTS = 4: the reduce-scatter's block GEMM at 8192 tokens on two ranks (4096 x 8192 x 14336: 512
    units of 128 x 256 pairs, 50 in the last turn, 16 helpers) splits with four parts per helper and not with
    two, and the estimate then takes the 4-part config there."""
    assert schedule.tail_split(512, 224, 66) is None
    assert schedule.tail_split(512, 224, 66, 4) == (50, 183)
    spec = registry.get("wgmma_tma_store")
    assert dispatch.pick_config(spec, _problem(4096, 8192, 14336), 132).name == "128x256x64s4b2ot4"
    assert dispatch.pick_config(spec, _problem(8192, 8192, 14336), 132).name == "128x256x64s4b2ot"


def test_tail_split_workspace(monkeypatch):
    """A TAIL_SPLIT launch gets two BLOCK_M x BLOCK_N slices per CTA of each tail unit and a counter per
    consumer warpgroup; none where the last wave needs no split (the kernel then splits nothing)."""
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x256x64s4b2t")
    fake = _FakeScratch(monkeypatch)
    p = _problem(4096, 14336, 4096)  # 16 x 56 units of 2 tiles on 66 clusters: 38 in the last wave, 2 per helper
    assert schedule.tail_split(896, 64, 66) == (38, 46)
    launch.split_k_buffers(p, spec, cfg, 0, 66)
    assert fake.allocs == [4 * 38 * 2 * 2 * 128 * 256, 4 * 38 * 2 * 2] * 2
    fake.allocs.clear()
    assert launch.split_k_buffers(_problem(3072, 5632, 4096), spec, cfg, 0, 66) == (0, 0, False)  # 12 x 22 = 4 x 66
    assert schedule.tail_split(256, 64, 66) is None  # 4096^3: 58 units in the last wave, 8 parts per helper
    assert launch.split_k_buffers(_problem(4096, 4096, 4096), spec, cfg, 0, 66) == (0, 0, False)
    assert fake.allocs == []
    launch._split_k_scratch.clear()


def test_pdl_is_off_only_for_the_config_measured_slower_with_it():
    """Programmatic dependent launch per config (TileConfig.pdl): off only for 128 x 104 T, which ran 10% slower with
    it in CUDA graphs of back-to-back calls (benchmarks/probes/pdl_ab.py); every other config keeps the kernel's."""
    spec = registry.get("wgmma_tma_store")
    assert [c.name for c in spec.configs if not c.pdl] == ["128x104x64T"]
    assert not launch.pdl_enabled(spec, spec.config("128x104x64T", "bf16"))
    for other in registry.all_specs():
        for cfg in other.configs:
            if cfg.pdl:
                assert launch.pdl_enabled(other, cfg) == launch.pdl_enabled(other)
