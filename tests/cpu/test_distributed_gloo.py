"""tcgemm.distributed's decomposed schedules on the gloo backend: 2, 3 and 4 CPU processes, odd shapes.

Every rank builds the same full operands from one seed, takes its shard, runs the operation, and checks its
result against the product of the full operands (float64), and that a second call gives the same bits.
The GEMMs are torch's here (tcgemm's kernels need a GPU): what is tested is the chunking, the ring order and
the reduction order. Failures in a worker come back as the test's failure.
"""

from __future__ import annotations

import datetime
import json
import os
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from tcgemm import distributed as tpd

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(), reason="needs gloo")

M_PER_RANK, K, N = 5, 37, 11  # rows per rank (all-gather) / per block (reduce-scatter), odd K and N


def _full(world: int, dtype: torch.dtype, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(world * M_PER_RANK, world * K, generator=gen).to(dtype)
    w = torch.randn(world * K, N, generator=gen).to(dtype)
    return x, w


def _tolerance(dtype: torch.dtype) -> float:
    return {torch.float32: 1e-5, torch.bfloat16: 3e-2, torch.float16: 5e-3}[dtype]


def _rel(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got.double() - want).norm() / want.norm()).item()


def _checks(rank: int, world: int) -> None:
    for dtype in (torch.float32, torch.bfloat16):
        x, w = _full(world, dtype, seed=7)
        # all-gather + GEMM: rank r holds rows [r m, (r + 1) m) of x and all of w's K rows (a column shard of N)
        shard = x[rank * M_PER_RANK:(rank + 1) * M_PER_RANK, :K]
        got = tpd.all_gather_gemm(shard, w[:K])
        want = x[:, :K].double() @ w[:K].double()
        assert got.shape == want.shape and got.dtype == dtype
        assert _rel(got, want) < _tolerance(dtype), (dtype, _rel(got, want))
        assert torch.equal(tpd.all_gather_gemm(shard, w[:K]), got)
        out = torch.full_like(got, float("nan"))
        assert tpd.all_gather_gemm(shard, w[:K], out=out) is out and torch.equal(out, got)
        # GEMM + reduce-scatter: rank r holds K columns [r K, (r + 1) K) of x and the same rows of w
        xr, wr = x[:, rank * K:(rank + 1) * K], w[rank * K:(rank + 1) * K]
        full = x.double() @ w.double()
        block = full[rank * M_PER_RANK:(rank + 1) * M_PER_RANK]
        for splits in (1, 2, 3, 8):  # (8 > the block's 5 rows: empty parts are skipped)
            got = tpd.gemm_reduce_scatter(xr, wr, splits=splits)
            assert got.shape == block.shape and got.dtype == dtype
            assert _rel(got, block) < _tolerance(dtype), (dtype, splits, _rel(got, block))
            assert torch.equal(tpd.gemm_reduce_scatter(xr, wr, splits=splits), got)
        wide = tpd.gemm_reduce_scatter(xr, wr, accumulate_dtype=torch.float32)
        assert wide.dtype == dtype and _rel(wide, block) < _tolerance(dtype)
    # a subgroup: the ranks of the group, not the world, make the ring
    if world >= 3:
        members = [0, 2] if world == 3 else [1, 3]
        sub = dist.new_group(members)
        if rank in members:
            x, w = _full(2, torch.float32, seed=11)
            me = members.index(rank)
            got = tpd.all_gather_gemm(x[me * M_PER_RANK:(me + 1) * M_PER_RANK, :K], w[:K], sub)
            assert _rel(got, x[:, :K].double() @ w[:K].double()) < 1e-5
            got = tpd.gemm_reduce_scatter(x[:, me * K:(me + 1) * K], w[me * K:(me + 1) * K], sub)
            assert _rel(got, (x.double() @ w.double())[me * M_PER_RANK:(me + 1) * M_PER_RANK]) < 1e-5


def _mlp_checks(rank: int, world: int) -> None:
    """A two-layer sequence-parallel MLP (column- then row-parallel, GELU between) against the same MLP in one
    process: outputs, the input's gradient and every parameter's gradient, on this rank's shards."""
    tokens, d_in, hidden, d_out = 3 * world, 7, 24, 5  # (hidden: a multiple of every world size tested)
    torch.manual_seed(3)
    fc1, fc2 = torch.nn.Linear(d_in, hidden), torch.nn.Linear(hidden, d_out)
    x = torch.randn(tokens, d_in, requires_grad=True)
    g = torch.randn(tokens, d_out)
    y = fc2(torch.nn.functional.gelu(fc1(x)))
    (y * g).sum().backward()
    col, row = tpd.ColumnParallelLinear.from_linear(fc1), tpd.RowParallelLinear.from_linear(fc2)
    rows = slice(rank * 3, (rank + 1) * 3)
    x_shard = x.detach()[rows].clone().requires_grad_()
    y_shard = row(torch.nn.functional.gelu(col(x_shard)))
    (y_shard * g[rows]).sum().backward()
    h = slice(rank * hidden // world, (rank + 1) * hidden // world)  # this rank's hidden features
    pairs = [(y_shard, y[rows]), (x_shard.grad, x.grad[rows]), (col.weight.grad, fc1.weight.grad[h]),
             (col.bias.grad, fc1.bias.grad[h]), (row.weight.grad, fc2.weight.grad[:, h]),
             (row.bias.grad, fc2.bias.grad)]
    for i, (got, want) in enumerate(pairs):
        assert got.shape == want.shape, (i, got.shape, want.shape)
        assert _rel(got, want.double()) < 1e-5, (i, _rel(got, want.double()))
    # a training step: SGD on the shards moves them as it moves the whole layers
    with torch.no_grad():
        for p in (*col.parameters(), *row.parameters(), *fc1.parameters(), *fc2.parameters()):
            p -= 0.1 * p.grad
    assert _rel(col.weight, fc1.weight[h].double()) < 1e-6 and _rel(row.weight, fc2.weight[:, h].double()) < 1e-6
    with pytest.raises(ValueError, match="multiple of"):
        tpd.ColumnParallelLinear(4, 3 * world + 1)


@contextmanager
def _gloo_rank(rank: int, world: int, store: str, errors: str) -> Iterator[None]:
    """A worker's body inside the gloo group (joined with a timeout: a schedule that deadlocks fails the test instead
    of hanging CI), its exception reported to the parent through a file (spawn's own error is the exit code only)."""
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=60))
    try:
        yield
    except BaseException:
        Path(f"{errors}.{rank}").write_text(traceback.format_exc())
        raise
    finally:
        dist.destroy_process_group()


def _worker(rank: int, world: int, store: str, errors: str) -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)
    with _gloo_rank(rank, world, store, errors):
        _checks(rank, world)
        _mlp_checks(rank, world)


def _spawn(worker: Any, nprocs: int, tmp_path: Path, *extra: Any) -> None:
    """``worker(rank, nprocs, store, errors, *extra)`` in ``nprocs`` processes; a worker's failure comes back as
    this test's, with the workers' tracebacks (each writes its own to ``errors.<rank>``)."""
    try:
        mp.spawn(worker, args=(nprocs, str(tmp_path / "store"), str(tmp_path / "error"), *extra), nprocs=nprocs,
                 join=True)
    except (mp.ProcessRaisedException, mp.ProcessExitedException) as exc:  # the workers tracebacks instead
        reports = "\n".join(p.read_text() for p in sorted(tmp_path.glob("error.*")))
        raise AssertionError(reports or str(exc)) from None


@pytest.mark.parametrize("world", [2, 3, 4, 8])
def test_decomposed_schedules_on_gloo(world: int, tmp_path: Path) -> None:
    _spawn(_worker, world, tmp_path)


def test_errors_name_the_fix() -> None:
    x, w = torch.randn(4, 3), torch.randn(5, 2)
    with pytest.raises(ValueError, match=r"weight\.t\(\)"):
        tpd.all_gather_gemm(x, w)
    with pytest.raises(TypeError, match="float16, bfloat16, float32"):
        tpd.all_gather_gemm(x.to(torch.int32), w[:3].to(torch.int32))
    if not dist.is_initialized():
        with pytest.raises(RuntimeError, match="init_process_group"):
            tpd.gemm_reduce_scatter(x, w[:3])


def test_copy_async_refuses_what_one_copy_cannot_move() -> None:
    """The copy transport's push (a cuMemcpyAsync of the bytes) takes two contiguous tensors of one size and says so
    before the driver sees anything."""
    from tcgemm.distributed.flags import copy_async

    stream = type("Stream", (), {"cuda_stream": 0})()
    with pytest.raises(ValueError, match="contiguous tensors of one size"):
        copy_async(stream, torch.empty(4, 3), torch.empty(4, 2))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="contiguous tensors of one size"):
        copy_async(stream, torch.empty(3, 4), torch.empty(4, 3).t())  # type: ignore[arg-type]


def test_within_keeps_reserve_sms_semantics() -> None:
    """The copy transport skips an empty reserve_sms block only where it would change nothing: under an outer block
    its GEMMs still see 0 SMs reserved, as with the block."""
    from tcgemm.distributed.decomposed import _within
    from tcgemm.sms import reserve_sms, reserved

    assert _within(0, reserved) == 0
    assert _within(3, reserved) == 3
    with reserve_sms(5):
        assert _within(0, reserved) == 0
        assert _within(2, reserved) == 2
        assert reserved() == 5


def _bench_worker(rank: int, world: int, store: str, errors: str, out: str, extra: tuple[str, ...] = ()) -> None:
    from tcgemm.distributed import bench

    with _gloo_rank(rank, world, store, errors):
        bench.main(["--device", "cpu", "--tokens", "8,12", "--hidden", "16", "--ffn", "24", "--rounds", "3",
                    "--warmup", "1", "--dtype", "fp32", "--json", out, *extra])


def test_tp_bench_harness_on_gloo(tmp_path: Path) -> None:
    """`torchrun -m tcgemm.distributed.bench` on CPU processes: every mode that can run on CPU runs, the others
    say why, and the JSON holds a row per operation and M."""
    out = tmp_path / "tp.json"
    _spawn(_bench_worker, 2, tmp_path, str(out))
    doc = json.loads(out.read_text())
    assert doc["environment"]["world"] == 2 and doc["environment"]["backend"] == "gloo"
    assert [(r["operation"], r["m"]) for r in doc["rows"]] == [
        ("all_gather_gemm", 8), ("gemm_reduce_scatter", 8), ("all_gather_gemm", 12), ("gemm_reduce_scatter", 12)]
    for row in doc["rows"]:
        assert set(row["seconds"]) == {"gemm_torch", "comm", "sequential", "tcgemm"}
        assert set(row["unavailable"]) >= {"gemm_tcgemm", "async_tp", "tcgemm_nccl"}
        assert not any(why.startswith("failed") for why in row["unavailable"].values()), row["unavailable"]
        assert row["ratio_to_gemm_alone"]["gemm_torch"] == 1.0
        assert row["rel_error"]["tcgemm"] < 1e-5  # the ring's result against the collective-then-GEMM one


def test_tp_bench_modes_keep_the_baselines(tmp_path: Path) -> None:
    """--modes times the modes named and the baselines every ratio needs (the GEMMs alone, the sequential
    reference); the others are not run at all."""
    out = tmp_path / "tp.json"
    _spawn(_bench_worker, 2, tmp_path, str(out), ("--tokens", "8", "--modes", "tcgemm"))
    for row in json.loads(out.read_text())["rows"]:
        assert set(row["seconds"]) == {"gemm_torch", "sequential", "tcgemm"}
        assert "comm" not in row["unavailable"] and "tcgemm_fused" not in row["unavailable"]


def test_tp_bench_rejects_an_unknown_mode() -> None:
    from tcgemm.distributed import bench

    with pytest.raises(ValueError, match="no mode tcgemm_fast"):
        bench.run([8], 16, 24, torch.float32, 1, 0, torch.device("cpu"), only=("tcgemm_fast",))


def _agree_worker(rank: int, world: int, store: str, errors: str) -> None:
    from tcgemm.distributed import fused

    with _gloo_rank(rank, world, store, errors):
        cpu = torch.device("cpu")
        assert fused.agree(None, None, cpu) is None  # every rank can: the fused transport
        mine = fused.FusedUnavailable("rows not 16-byte aligned") if rank == 1 else None
        got = fused.agree(mine, None, cpu)  # one rank cannot: none takes it, each says why
        assert isinstance(got, fused.FusedUnavailable), got
        assert ("16-byte" if rank == 1 else "another rank") in str(got), str(got)


def test_fused_transport_is_taken_by_every_rank_or_none(tmp_path: Path) -> None:
    """A rank that cannot run the fused transport for a call makes every rank fall back (fused.agree): ranks on
    different transports would pair one's collectives with the other's and hang."""
    _spawn(_agree_worker, 3, tmp_path)
