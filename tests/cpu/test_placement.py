"""tcgemm.placement without a GPU: GPCs joined from probe groups, and the GPC_ORDER table sending each
GPC's TPCs to one residue class of wave positions (kernels/include/gpc_order.cuh), every position once."""

from __future__ import annotations

import numpy as np
import pytest

from tcgemm import placement

# The GPCs benchmarks/probes/sm_placement.py found on the H100 SXM we measure on (132 SMs):
# SM ids 2t, 2t + 1 form TPC t; six GPCs of 8 TPCs, two of 9.
H100_GPCS = [
    [0, 1, 16, 17, 32, 33, 48, 49, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131],
    *[[2 * g + 16 * i + j for i in range(4) for j in (0, 1)]
      + [64 + 2 * (g - 1) + 14 * i + j for i in range(4) for j in (0, 1)] for g in range(1, 8)],
]
H100_GPCS[6] += [120, 121]


def test_h100_fixture_covers_every_sm_once():
    flat = sorted(s for g in H100_GPCS for s in g)
    assert flat == list(range(132))


def test_join_groups_merges_overlaps_and_keeps_tpcs_of_unprobed_sms():
    groups = [[0, 1, 16, 17], [16, 17, 32, 33], [2, 3, 18, 19]]
    joined = placement.join_groups(groups, 40)
    assert [0, 1, 16, 17, 32, 33] in joined and [2, 3, 18, 19] in joined
    assert [4, 5] in joined and [38, 39] in joined  # SMs no probe reached: their TPC
    assert sorted(s for g in joined for s in g) == list(range(40))


@pytest.mark.parametrize("clusters,rows", [(66, 8), (66, 4), (60, 8), (7, 8), (66, 1), (66, 16)])
def test_every_position_is_preferred_by_exactly_one_tpc(clusters, rows):
    table = placement.wave_positions(H100_GPCS, clusters, rows)
    by_tpc = {s // 2: p for s, p in table.items()}
    assert all(table[s] == table[s ^ 1] for s in table if s ^ 1 in table)  # both SMs of a TPC
    positions = sorted(by_tpc.values())
    assert positions == sorted(set(positions)) and all(0 <= p < clusters for p in positions)
    assert len(positions) == min(clusters, 66)


def test_a_gpc_takes_one_row_of_each_wave():
    """66 clusters, groups of 8 unit rows: GPC g's TPCs on positions p with one p % 8 (its row)."""
    table = placement.wave_positions(H100_GPCS, 66, 8)
    for gpc in H100_GPCS:
        assert len({table[s] % 8 for s in gpc}) == 1


def _lists(values: np.ndarray) -> np.ndarray:
    return values[placement.GPC_SLOTS:].reshape(placement.GPC_MAX, placement.GPC_MAX_SLOTS)


def test_kernel_tables():
    values = placement.table(H100_GPCS, 66, 8)
    assert values.dtype == np.int32 and values.shape == (placement.GPC_INTS,)
    assert (values[:placement.GPC_OF_SM] == [0, 66] + [0] * (placement.GPC_OF_SM - 2)).all()  # counts zero
    of_sm = values[placement.GPC_OF_SM:placement.GPC_SLOTS]
    slots = _lists(values)
    assert (of_sm[132:] == -1).all()
    for g, gpc in enumerate(H100_GPCS):
        assert (of_sm[gpc] == g).all()
        mine = slots[g][slots[g] >= 0]
        assert len(mine) == len(gpc) // 2 and len({p % 8 for p in mine}) == 1
        assert (slots[g][len(mine):] == -1).all() and list(mine) == sorted(mine)
    assert sorted(slots[slots >= 0].tolist()) == list(range(66))
    assert (slots[len(H100_GPCS):] == -1).all()


@pytest.mark.parametrize("gpcs,positions", [([], 66), ([], 100), (H100_GPCS, 66), ([list(range(132))], 66)])
def test_every_position_is_in_exactly_one_list(gpcs, positions):
    """Also with no GPCs known (the probe could not run), and with one GPC of more TPCs than a list holds."""
    slots = _lists(placement.table(gpcs, positions, 8))
    assert sorted(slots[slots >= 0].tolist()) == list(range(positions))


def test_buffer_layout_matches_the_kernel_header():
    """placement's offsets are gpc_order.cuh's (the kernel reads the host's tables at them)."""
    import re
    from pathlib import Path

    import tcgemm

    header = (Path(tcgemm.__file__).parent / "kernels/include/gpc_order.cuh").read_text()
    consts = dict(re.findall(r"(GPC_[A-Z_]+) = ([A-Z_0-9 +*]+?)[,;]", header))

    def value(name: str) -> int:
        expr = consts[name]
        for other in sorted(consts, key=len, reverse=True):
            expr = expr.replace(other, f"({value(other)})") if other in expr and other != name else expr
        return int(eval(expr))  # integers and names from our own header

    for name in ("GPC_COUNTS", "GPC_MAX", "GPC_MAX_SMS", "GPC_MAX_SLOTS", "GPC_OF_SM", "GPC_SLOTS", "GPC_INTS"):
        assert value(name) == getattr(placement, name), name


def _count_in(buf: np.ndarray, smid: int, clusters: int) -> int:
    """Python mirror of gpc_count_in (gpc_order.cuh), one cluster at a time (atomics in arrival order)."""
    lists = _lists(buf)
    counts = buf[placement.GPC_COUNTS:placement.GPC_COUNTS + placement.GPC_MAX]
    gpc = buf[placement.GPC_OF_SM + smid] if smid < placement.GPC_MAX_SMS else -1
    order = ([gpc] if 0 <= gpc < placement.GPC_MAX else []) + \
        [t % placement.GPC_MAX for t in range(placement.GPC_MAX * placement.GPC_MAX_SLOTS)]
    for g in order:
        i = counts[g]
        counts[g] += 1
        p = lists[g][i] if i < placement.GPC_MAX_SLOTS else -1
        if 0 <= p < clusters:
            return int(p)
    raise AssertionError("no position (the kernel would fault)")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("clusters", [66, 40, 1])
def test_counting_in_hands_out_each_position_once(seed, clusters):
    """Clusters arriving in any order on any SMs (more than one per TPC over time: a GPU shared with other
    work; unknown SMs) all get distinct positions below the launch's cluster count."""
    rng = np.random.default_rng(seed)
    buf = placement.table(H100_GPCS if seed % 3 else [], 66, 8)
    smids = rng.integers(0, 140 if seed % 2 else 132, size=clusters)  # ids past 131: GPC unknown
    got = [_count_in(buf, int(s), clusters) for s in smids]
    assert sorted(got) == list(range(clusters))


def test_a_full_resident_launch_takes_the_table_order():
    """One cluster per TPC, every GPC full: each cluster gets a position of its own GPC's row."""
    buf = placement.table(H100_GPCS, 66, 8)
    row_of = {}
    for g, gpc in enumerate(H100_GPCS):
        for s in gpc[::2]:
            row_of.setdefault(g, set()).add(_count_in(buf, s, 66) % 8)
    assert all(len(rows) == 1 for rows in row_of.values())
