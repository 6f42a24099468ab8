"""tcgemm.distributed on two or more GPUs (NCCL, tcgemm's kernels): the decomposed schedules and the
sequence-parallel MLP against one GPU's result, odd M, N, K. Needs a machine with 2+ GPUs (the device tool's
nvidia-h100-x2); skipped elsewhere. NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the others, set below)."""

from __future__ import annotations

import datetime
import functools
import os
import traceback
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

pytestmark = pytest.mark.gpu

_NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


def _rel(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.double() - want).norm() / want.norm()).item()


def _checks(rank: int, world: int) -> None:
    from tcgemm import distributed as tpd

    dev = torch.device("cuda", rank)
    m, k, n = 301, 1037, 777  # rows per rank, K per rank, N: none a multiple of a tile
    gen = torch.Generator(device="cpu").manual_seed(5)
    x = torch.randn(world * m, world * k, generator=gen).to(torch.bfloat16)
    w = torch.randn(world * k, n, generator=gen).to(torch.bfloat16)
    xd, wd = x.to(dev), w.to(dev)
    want_ag = (x[:, :k].double() @ w[:k].double()).to(dev)
    want = (x.double() @ w.double())[rank * m:(rank + 1) * m].to(dev)
    for transport in ("copy", "store", "nccl"):
        got = tpd.all_gather_gemm(xd[rank * m:(rank + 1) * m, :k], wd[:k], transport=transport)
        assert _rel(got, want_ag) < 1e-2, transport
        assert torch.equal(tpd.all_gather_gemm(xd[rank * m:(rank + 1) * m, :k], wd[:k], transport=transport), got)
        for acc, splits in ((None, None), (torch.float32, None), (None, 3)):
            got = tpd.gemm_reduce_scatter(xd[:, rank * k:(rank + 1) * k], wd[rank * k:(rank + 1) * k],
                                          accumulate_dtype=acc, transport=transport, splits=splits)
            assert got.dtype == torch.bfloat16 and _rel(got, want) < 1e-2, (transport, acc, _rel(got, want))
            again = tpd.gemm_reduce_scatter(xd[:, rank * k:(rank + 1) * k], wd[rank * k:(rank + 1) * k],
                                            accumulate_dtype=acc, transport=transport, splits=splits)
            assert torch.equal(again, got), (transport, acc, splits)
    # the copy-engine schedules inside a CUDA graph (the workspace sized by the calls above), poisoned outputs
    x_ag, x_rs = xd[rank * m:(rank + 1) * m, :k].clone(), xd[:, rank * k:(rank + 1) * k].clone()
    w_rs = wd[rank * k:(rank + 1) * k].clone()
    out = torch.full((world * m, n), float("nan"), device=dev, dtype=torch.bfloat16)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tpd.all_gather_gemm(x_ag, wd[:k], out=out)
        rs = tpd.gemm_reduce_scatter(x_rs, w_rs)
        rs_parts = tpd.gemm_reduce_scatter(x_rs, w_rs, splits=2)
    for _ in range(2):
        rs_parts.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert _rel(out, want_ag) < 1e-2 and _rel(rs, want) < 1e-2 and _rel(rs_parts, want) < 1e-2
    # the sequence-parallel MLP, forward and backward, against one GPU's
    torch.manual_seed(3)
    fc1 = torch.nn.Linear(512, 1024 * world, device=dev, dtype=torch.bfloat16)
    fc2 = torch.nn.Linear(1024 * world, 384, device=dev, dtype=torch.bfloat16)
    xs = torch.randn(64 * world, 512, device=dev, dtype=torch.bfloat16, requires_grad=True)
    y = fc2(torch.nn.functional.gelu(fc1(xs)))
    y.float().square().sum().backward()
    col, row = tpd.ColumnParallelLinear.from_linear(fc1), tpd.RowParallelLinear.from_linear(fc2)
    rows = slice(rank * 64, (rank + 1) * 64)
    x_shard = xs.detach()[rows].clone().requires_grad_()
    y_shard = row(torch.nn.functional.gelu(col(x_shard)))
    y_shard.float().square().sum().backward()
    assert _rel(y_shard, y[rows].double()) < 2e-2
    assert _rel(x_shard.grad, xs.grad[rows].double()) < 3e-2
    h = slice(rank * 1024, (rank + 1) * 1024)
    assert _rel(col.weight.grad, fc1.weight.grad[h].double()) < 3e-2
    assert _rel(row.weight.grad, fc2.weight.grad[:, h].double()) < 3e-2
    # a training step: SGD on the shards moves them as it moves the whole layers, and the next forward agrees
    with torch.no_grad():
        for p in (*col.parameters(), *row.parameters(), *fc1.parameters(), *fc2.parameters()):
            p -= 0.01 * p.grad
        assert _rel(col.weight, fc1.weight[h].double()) < 1e-2 and _rel(row.weight, fc2.weight[:, h].double()) < 1e-2
        y_next = fc2(torch.nn.functional.gelu(fc1(xs)))[rows]
        assert _rel(row(torch.nn.functional.gelu(col(x_shard))), y_next.double()) < 2e-2


def _fused_checks(rank: int, world: int) -> None:
    """The fused transport (one launch per operation, kernels/include/peer_rows.cuh): rows per rank a multiple of
    128, K and N not a multiple of the tile; poisoned outputs, bitwise repeats, CUDA graphs; and its refusal."""
    from tcgemm import distributed as tpd

    dev = torch.device("cuda", rank)
    gen = torch.Generator(device="cpu").manual_seed(11)
    for m, k, n in ((256, 1032, 776), (128, 520, 264)):
        x = torch.randn(world * m, world * k, generator=gen).to(torch.bfloat16)
        w = torch.randn(world * k, n, generator=gen).to(torch.bfloat16)
        xd, wd = x.to(dev), w.to(dev)
        want_ag = (x[:, :k].double() @ w[:k].double()).to(dev)
        want = (x.double() @ w.double())[rank * m:(rank + 1) * m].to(dev)
        x_ag, x_rs, w_rs = xd[rank * m:(rank + 1) * m, :k], xd[:, rank * k:(rank + 1) * k], wd[rank * k:(rank + 1) * k]
        out = torch.full((world * m, n), float("nan"), device=dev, dtype=torch.bfloat16)
        got = tpd.all_gather_gemm(x_ag, wd[:k], out=out, transport="fused")
        assert _rel(got, want_ag) < 1e-2, (m, _rel(got, want_ag))
        for _ in range(3):
            assert torch.equal(tpd.all_gather_gemm(x_ag, wd[:k], transport="fused"), got)
        for acc in (None, torch.float32):
            rs = tpd.gemm_reduce_scatter(x_rs, w_rs, accumulate_dtype=acc, transport="fused")
            assert rs.dtype == torch.bfloat16 and _rel(rs, want) < 1e-2, (m, acc, _rel(rs, want))
            for _ in range(3):
                assert torch.equal(tpd.gemm_reduce_scatter(x_rs, w_rs, accumulate_dtype=acc, transport="fused"), rs)
        # both in one CUDA graph, replayed twice into poisoned outputs
        out.fill_(float("nan"))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            tpd.all_gather_gemm(x_ag, wd[:k], out=out, transport="fused")
            rs_graph = tpd.gemm_reduce_scatter(x_rs, w_rs, transport="fused")
        for _ in range(2):
            out.fill_(float("nan"))
            rs_graph.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            assert torch.equal(out, got)
            assert _rel(rs_graph, want) < 1e-2
    with pytest.raises(ValueError, match="fused"):  # 301 rows per rank: no tile config divides them
        tpd.all_gather_gemm(torch.ones(301, 64, device=dev, dtype=torch.bfloat16),
                            torch.ones(64, 64, device=dev, dtype=torch.bfloat16), transport="fused")
    # auto's reduce-scatter from four ranks and 2048 rows per rank is the fused transport (decomposed.fused_by_default):
    # the same bits as asked for by name, and against float64
    from tcgemm.distributed import decomposed

    m, k, n = decomposed.FUSED_RS_MIN_ROWS, 264, 520
    x = torch.randn(world * m, world * k, generator=gen).to(torch.bfloat16)
    w = torch.randn(world * k, n, generator=gen).to(torch.bfloat16)
    want = (x.double() @ w.double())[rank * m:(rank + 1) * m].to(dev)
    x_rs, w_rs = x[:, rank * k:(rank + 1) * k].to(dev), w[rank * k:(rank + 1) * k].to(dev)
    by_auto = tpd.gemm_reduce_scatter(x_rs, w_rs)
    assert _rel(by_auto, want) < 1e-2
    by_name = tpd.gemm_reduce_scatter(x_rs, w_rs, transport="fused")
    if decomposed.fused_by_default(world, m):
        assert torch.equal(by_auto, by_name)


def _repeats_bitwise(call: Any, want: torch.Tensor, what: Any) -> None:
    """``call()`` three times eager, then captured in a CUDA graph and replayed three times into a NaN-poisoned
    output: every result ``want``, bit for bit."""
    for _ in range(3):
        assert torch.equal(call(), want), what
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = call()
    for _ in range(3):
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, want), what


def _queue_checks(rank: int, world: int) -> None:
    """The copy transport's reduce-scatter with its sum under the own block's GEMM (tcgemm.distributed.tilequeue),
    and the fused transport's with the own block queued (PEER_ROWS = 4): the same bits as the GEMM then the pass,
    repeated calls and CUDA-graph replays into poisoned outputs (the queue resets itself), against float64; several
    rounds of tiles (2048 rows per rank), K and N not a multiple of the tile."""
    from tcgemm import distributed as tpd
    from tcgemm.distributed import fused, pushes, tilequeue

    dev = torch.device("cuda", rank)
    gen = torch.Generator(device="cpu").manual_seed(13)
    for m, k, n in ((256, 1032, 776), (2048, 1040, 2056), (4096, 2056, 4104)):
        x = torch.randn(world * m, world * k, generator=gen).to(torch.bfloat16)
        w = torch.randn(world * k, n, generator=gen).to(torch.bfloat16)
        xd, wd = x.to(dev), w.to(dev)
        want = (x.double() @ w.double())[rank * m:(rank + 1) * m].to(dev)
        x_rs, w_rs = xd[:, rank * k:(rank + 1) * k], wd[rank * k:(rank + 1) * k]
        assert tilequeue.prepare(x_rs[rank * m:(rank + 1) * m], w_rs, torch.bfloat16, world, rank) is not None, m
        before = pushes.QUEUE_SUM
        pushes.QUEUE_SUM = False
        plain = tpd.gemm_reduce_scatter(x_rs, w_rs, transport="copy")
        assert _rel(plain, want) < 1e-2
        pushes.QUEUE_SUM = True
        try:
            _repeats_bitwise(functools.partial(tpd.gemm_reduce_scatter, x_rs, w_rs, transport="copy"), plain, m)
        finally:
            pushes.QUEUE_SUM = before
        # the fused transport's launch with the own block queued (PEER_ROWS = 4) against its pass
        before = fused.QUEUE_SUM
        try:
            fused.QUEUE_SUM = False
            assert _rel(tpd.gemm_reduce_scatter(x_rs, w_rs, transport="fused"), want) < 1e-2
            fused.QUEUE_SUM = True  # (its config may differ from the pass's: no tail split; so bits against itself)
            first = tpd.gemm_reduce_scatter(x_rs, w_rs, transport="fused")
            assert _rel(first, want) < 1e-2, (m, _rel(first, want))
            _repeats_bitwise(functools.partial(tpd.gemm_reduce_scatter, x_rs, w_rs, transport="fused"), first, m)
        finally:
            fused.QUEUE_SUM = before
        dist.barrier()


_CHECKS = {"decomposed": _checks, "fused": _fused_checks, "queue": _queue_checks}


def _worker(rank: int, world: int, store: str, errors: str, which: str = "decomposed") -> None:
    os.environ.update(_NO_MULTICAST)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"file://{store}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=120), device_id=torch.device("cuda", rank))
    try:
        _CHECKS[which](rank, world)
    except BaseException:
        Path(f"{errors}.{rank}").write_text(traceback.format_exc())
        raise
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("which", sorted(_CHECKS))
def test_schedules_on_nccl(tmp_path: Path, which: str) -> None:
    """decomposed: the copy, store and nccl schedules and the sequence-parallel MLP; fused: the one-launch kernels."""
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        pytest.skip("needs 2 or more GPUs (the device tool's nvidia-h100-x2)")
    if which in ("fused", "queue") and torch.cuda.get_device_capability(0) != (9, 0):
        pytest.skip(f"the {which} kernels run on Hopper (sm_90)")
    os.environ.update(_NO_MULTICAST)
    world = min(torch.cuda.device_count(), 4)
    try:
        mp.spawn(_worker, args=(world, str(tmp_path / "store"), str(tmp_path / "error"), which), nprocs=world,
                 join=True)
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as exc:  # the workers tracebacks instead
        reports = "\n".join(p.read_text() for p in sorted(tmp_path.glob("error.*")))
        raise AssertionError(reports or str(exc)) from None
