"""Stream-K runs of the production kernel (STREAM_K_RUNS; kernels/include/stream_k.cuh, UnitWalk in
hopper_sched.cuh), modelled in Python: every k-tile of every unit is computed by exactly one cluster, the
slot a contributor writes is the slot the finisher reads, no two partials share a slot, and the host's rules
(tcgemm.schedule) size the grid and the scratch the kernel uses."""

from __future__ import annotations

import itertools

import pytest
from test_tune import _problem

from tcgemm import dispatch, launch, registry, schedule


def _begin(c: int, total: int, clusters: int) -> int:  # StreamK::begin
    return c * total // clusters


def _cta_of(x: int, total: int, clusters: int) -> int:  # StreamK::cta_of
    return ((x + 1) * clusters - 1) // total


def _walk(cluster: int, units: int, ktiles: int, clusters: int):
    """UnitWalk with STREAM_K_RUNS: (unit, kt0, kt1, first_of_run) for each unit of this cluster's run."""
    total = units * ktiles
    run_begin, run_end = _begin(cluster, total, clusters), _begin(cluster + 1, total, clusters)
    first = run_begin // ktiles if run_begin < run_end else units
    u = first
    while u < units:
        yield u, max(0, run_begin - u * ktiles), min(ktiles, run_end - u * ktiles), u == first
        u = u + 1 if (u + 1) * ktiles < run_end else units


def _reader_slots(unit: int, units: int, ktiles: int, clusters: int) -> list[tuple[int, int]]:
    """(contributor, slot) in summation order, as stream_k_runs_reduce reads them."""
    total = units * ktiles
    first = _cta_of(unit * ktiles, total, clusters)
    last = _cta_of(unit * ktiles + ktiles - 1, total, clusters)
    slots = [(first, 2 * first + (0 if _begin(first, total, clusters) // ktiles == unit else 1))]
    return slots + [(c, 2 * c) for c in range(first + 1, last + 1)]


SHAPES = [(72, 12, 66), (96, 12, 66), (48, 48, 66), (6, 41, 61), (5, 128, 66), (144, 12, 66), (1, 7, 1),
          (3, 5, 15), (67, 3, 66), (10, 4, 10), (7, 100, 60)]


@pytest.mark.parametrize(("units", "ktiles", "clusters"), SHAPES)
def test_runs_cover_every_k_tile_once_and_slots_match(units, ktiles, clusters):
    covered: dict[int, list[tuple[int, int, int]]] = {u: [] for u in range(units)}
    written: dict[int, tuple[int, int]] = {}
    for c in range(clusters):
        for u, kt0, kt1, first_of_run in _walk(c, units, ktiles, clusters):
            assert 0 <= kt0 < kt1 <= ktiles
            covered[u].append((kt0, kt1, c))
            if kt0 > 0 or kt1 < ktiles:  # a cut unit: this cluster leaves (or finishes with) a partial
                slot = 2 * c + (0 if first_of_run else 1)
                assert slot not in written, f"slot {slot} written for units {written[slot]} and {(u, c)}"
                written[slot] = (u, c)
    for u, parts in covered.items():
        parts.sort()
        assert parts[0][0] == 0 and parts[-1][1] == ktiles
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))  # contiguous, no overlap
        contributors = [c for _, _, c in parts]
        assert contributors == sorted(contributors)  # k order is cluster order
        if len(parts) > 1:
            expected = _reader_slots(u, units, ktiles, clusters)
            assert [c for c, _ in expected] == contributors
            for c, slot in expected:
                assert written[slot] == (u, c)


def test_a_run_within_one_unit_has_one_slot():
    # 6 units of 41 k-tiles on 61 clusters: runs of 4 k-tiles, some wholly inside a unit
    inside = [(c, u) for c in range(61) for u, kt0, kt1, _ in _walk(c, 6, 41, 61) if kt0 > 0 and kt1 < 41]
    assert inside


@pytest.mark.parametrize(("units", "ktiles", "sms", "clusters"), [
    (72, 12, 132, 66), (48, 48, 132, 66), (6, 41, 122, 61), (6, 2, 132, 6), (200, 64, 132, 66),
])
def test_grid_takes_a_cluster_per_few_k_tiles(units, ktiles, sms, clusters):
    assert schedule.stream_k_runs_clusters(units, ktiles, sms // 2) == clusters
    assert clusters <= units or clusters * schedule.STREAM_K_RUNS_MIN_RUN <= units * ktiles


def test_whole_rounds_need_no_workspace():
    assert not schedule.stream_k_runs(132, 12, 66)
    assert schedule.stream_k_runs(72, 12, 66) and schedule.stream_k_runs(6, 41, 61)
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x256x64b2r")
    # 2816 x 1536 x 768: 66 units of 256 x 256, one round: the kernel walks whole units, no scratch
    assert launch.split_k_buffers(_problem(2816, 1536, 768), spec, cfg, 0, 66) == (0, 0, False)
    assert schedule.stream_k_runs_scratch(72, 66, 2, 128, 256, 2) == (2 * 66 * 2 * 128 * 256, 72 * 2 * 2)


@pytest.mark.parametrize(("m", "n", "k"), [(2048, 2304, 768), (2048, 768, 3072), (8192, 768, 768)])
def test_auto_takes_runs_for_short_k_rounds_that_fit_the_l2(m, n, k):
    cfg = dispatch.pick_config(registry.get("wgmma_tma_store"), _problem(m, n, k), 132)
    assert cfg.get("STREAM_K_RUNS"), cfg.name


@pytest.mark.parametrize(("m", "n", "k"), [(4096, 4096, 4096), (8192, 8192, 8192), (512, 4096, 4096)])
def test_no_runs_where_operands_outgrow_the_l2_or_rounds_are_whole(m, n, k):
    cfg = dispatch.pick_config(registry.get("wgmma_tma_store"), _problem(m, n, k), 132)
    assert not cfg.get("STREAM_K_RUNS"), cfg.name


def test_too_many_k_tiles_for_32_bits_is_an_error():
    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x128x64b2r")
    with pytest.raises(ValueError, match="32 bits"):
        launch.persistent_grid(_problem(1 << 16, 1 << 16, 1 << 20), spec, cfg, 132)


def test_model_agrees_for_every_small_case():
    for units, ktiles, clusters in itertools.product(range(1, 9), range(1, 9), range(1, 12)):
        if clusters <= units * ktiles:
            test_runs_cover_every_k_tile_once_and_slots_match(units, ktiles, clusters)
