"""Which SMs share a GPC, and the wave position each SM's cluster prefers in a GPC_ORDER launch.

kernels/include/gpc_order.cuh says why: the L2's request coalescer merges reads of one sector that
arrive together, and in our measurements those come from clusters on one GPC. A persistent launch of
clusters of 2 puts one cluster on each TPC (SM pair); the table built here sends the TPCs of one GPC
to wave positions p = j, j + R, j + 2R, ... (R unit rows per tile-order group), which the grouped order
maps onto one unit row, so a GPC's clusters read the same rows of A in step.

The GPCs are measured, not assumed (they differ from chip to chip: disabled TPCs): clusters of 16, 8
and 4 CTAs, one per SM, each land inside one GPC, and the sets they cover are joined. SMs no probe
reached stay in groups of their TPC. The kernel hands out positions by atomic counts, so any table, even an
empty one, gives correct results: this only decides how fast.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

from . import jit

_PROBE_SOURCE = "util/sm_probe.cu"
_PROBE_SMEM = 200 * 1024  # one CTA per SM
_PROBE_SPIN = 2_000_000  # clocks each CTA stays (~1 ms): the first wave is all placed before any leaves
# The host's buffer (ints), as kernels/include/gpc_order.cuh lays it out: counts, then the tables.
GPC_COUNTS, GPC_MAX, GPC_MAX_SMS, GPC_MAX_SLOTS = 8, 32, 256, 32
GPC_OF_SM = GPC_COUNTS + GPC_MAX
GPC_SLOTS = GPC_OF_SM + GPC_MAX_SMS
GPC_INTS = GPC_SLOTS + GPC_MAX * GPC_MAX_SLOTS

_lock = threading.Lock()


def join_groups(groups: list[list[int]], sms: int) -> list[list[int]]:
    """The GPCs covered by ``groups`` (sets of SM ids known to share a GPC), joined where they overlap;
    SMs of no group stay with the other SM of their TPC (ids 2t and 2t + 1). Sorted by first SM id."""
    parent = list(range(sms))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    seen: set[int] = set()
    for group in groups:
        members = [s for s in group if 0 <= s < sms]
        seen.update(members)
        for s in members[1:]:
            parent[root(s)] = root(members[0])
    for s in range(0, sms - 1, 2):
        if s not in seen and s + 1 not in seen:
            parent[root(s + 1)] = root(s)
    gpcs: dict[int, list[int]] = {}
    for s in range(sms):
        gpcs.setdefault(root(s), []).append(s)
    return sorted(gpcs.values(), key=min)


def _tpcs(gpc: list[int]) -> list[tuple[int, ...]]:
    members = set(gpc)
    out: list[tuple[int, ...]] = []
    for s in sorted(gpc):
        if s % 2 == 0 and s + 1 in members:
            out.append((s, s + 1))
        elif s % 2 == 1 and s - 1 in members:
            continue
        else:
            out.append((s,))
    return out


def wave_positions(gpcs: list[list[int]], clusters: int, rows: int) -> dict[int, int]:
    """SM id -> preferred wave position for a launch of ``clusters`` clusters of 2 whose tile order
    groups ``rows`` unit rows: the TPCs of one GPC on one residue class of positions modulo ``rows``
    (largest GPCs on the largest classes), the rest paired up in order. Both SMs of a TPC prefer the
    same position (a cluster's first CTA may be on either)."""
    rows = max(1, rows)
    classes = [list(range(j, clusters, rows)) for j in range(min(rows, clusters))]
    classes.sort(key=len, reverse=True)
    tpcs_by_gpc = sorted((_tpcs(g) for g in gpcs), key=len, reverse=True)
    table: dict[int, int] = {}
    spare_tpcs: list[tuple[int, ...]] = []
    spare_positions: list[int] = []
    for i, tpcs in enumerate(tpcs_by_gpc):
        positions = classes[i] if i < len(classes) else []
        for tpc, p in zip(tpcs, positions, strict=False):
            table.update((s, p) for s in tpc)
        spare_tpcs += tpcs[len(positions):]
        spare_positions += positions[len(tpcs):]
    for cls in classes[len(tpcs_by_gpc):]:
        spare_positions += cls
    for tpc, p in zip(spare_tpcs, sorted(spare_positions), strict=False):
        table.update((s, p) for s in tpc)
    return table


def table(gpcs: list[list[int]], positions: int, rows: int) -> np.ndarray:
    """The kernel's buffer image (GPC_INTS ints): counts zero, the number of positions, the GPC of each SM id
    (-1: unknown), and per GPC the wave positions its clusters take in the order they count themselves
    in, -1 after the last. Every position 0 .. positions - 1 is in exactly one list (with no GPCs known:
    in order, 32 to a list)."""
    out = np.zeros(GPC_INTS, dtype=np.int32)
    out[1] = positions
    of_sm = out[GPC_OF_SM:GPC_SLOTS]
    slots = out[GPC_SLOTS:].reshape(GPC_MAX, GPC_MAX_SLOTS)
    of_sm[:] = -1
    slots[:] = -1
    lists: list[list[int]] = []
    if gpcs and len(gpcs) <= GPC_MAX:
        preferred = wave_positions(gpcs, positions, rows)
        for g, gpc in enumerate(gpcs):
            of_sm[[s for s in gpc if s < GPC_MAX_SMS]] = g
            lists.append(sorted({preferred[s] for s in gpc if s in preferred}))
    lists = [lst[:GPC_MAX_SLOTS] for lst in lists]
    taken = {p for lst in lists for p in lst}
    rest = [p for p in range(positions) if p not in taken]  # (no GPCs known, or a list past GPC_MAX_SLOTS)
    for g in range(GPC_MAX):
        if not rest:
            break
        if g >= len(lists):
            lists.append([])
        room = GPC_MAX_SLOTS - len(lists[g])
        lists[g], rest = lists[g] + rest[:room], rest[room:]
    if rest:
        raise ValueError(f"{positions} wave positions do not fit {GPC_MAX} lists of {GPC_MAX_SLOTS}")
    for g, lst in enumerate(lists):
        slots[g, :len(lst)] = lst
    return out


def _probe(device: int, cluster: int, clusters: int) -> list[int]:
    """SM id of each CTA of one launch of ``clusters`` clusters of ``cluster`` CTAs (one per SM)."""
    import torch
    from cuda.bindings import driver

    from . import driver as tc_driver

    cc = jit._cuda_core()
    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    kernel = jit.load_kernel(_PROBE_SOURCE, "sm_probe", jit.as_defines([("TCGEMM_SM_PROBE", 1)]), arch, device)
    tc_driver._allow_dynamic_smem(kernel, _PROBE_SMEM, device)
    handle = kernel.handle
    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    if isinstance(handle, driver.CUkernel):
        _, dev = driver.cuDeviceGet(device)
        (err,) = driver.cuKernelSetAttribute(attr, 1, handle, dev)
    else:
        (err,) = driver.cuFuncSetAttribute(handle, attr, 1)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cluster size {cluster}: {err}")
    with torch.cuda.device(device):
        out = torch.full((cluster * clusters,), -1, dtype=torch.int32, device=f"cuda:{device}")
        stream = tc_driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
        # cuda.core: with a cluster, grid counts clusters.
        config = cc.LaunchConfig(grid=(clusters, 1, 1), cluster=(cluster, 1, 1), block=(32, 1, 1),
                                 shmem_size=_PROBE_SMEM)
        cc.launch(stream, config, kernel, out.data_ptr(), np.int64(_PROBE_SPIN))
        return out.tolist()


@lru_cache(maxsize=8)
def gpcs(device: int) -> tuple[tuple[int, ...], ...]:
    """The GPCs of ``device`` as tuples of SM ids (measured once per process), or () where the probe
    cannot run (no cluster launches): the GPC_ORDER kernels then keep their cluster ids."""
    import torch

    sms = torch.cuda.get_device_properties(device).multi_processor_count
    groups: list[list[int]] = []
    with _lock:
        for cluster in (16, 8, 4):
            try:
                # Over-subscribed (two more clusters than fit): later waves land on other SMs of a GPC.
                smids = _probe(device, cluster, sms // cluster + 2)
            except Exception:  # noqa: BLE001 - a size this GPU cannot launch: the others still tell
                continue
            groups += [smids[i:i + cluster] for i in range(0, len(smids), cluster)
                       if all(s >= 0 for s in smids[i:i + cluster])]
    if not groups:
        return ()
    return tuple(tuple(g) for g in join_groups(groups, sms))
