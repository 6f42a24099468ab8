"""Time tensor-parallel GEMMs across the ranks of a torchrun job: tcgemm's ring schedules against sequential
NCCL + cuBLAS, PyTorch's async-TP ops, and the GEMM and the communication alone.

    NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \\
        torchrun --nproc_per_node=2 -m tcgemm.distributed.bench --json tp.json

Per token count M (default 4096, 8192, 16384) and W ranks, a Llama-3-70B MLP split over the ranks
(``--hidden`` 8192, ``--ffn`` 28672):

- all-gather + GEMM: each rank's M/W x hidden rows gathered, times its hidden x ffn/W weight shard;
- GEMM + reduce-scatter: M x ffn/W times ffn/W x hidden, the sum over ranks scattered by rows.

Each operation runs as: ``gemm_torch`` / ``gemm_tcgemm`` (the GEMM alone on the gathered / local operands),
``comm`` (the collective alone), ``sequential`` (the collective, then torch's GEMM, or the reverse),
``async_tp`` (torch.ops.symm_mem.fused_all_gather_matmul / fused_matmul_reduce_scatter; CUDA only, reported as
unavailable where it cannot run), ``tcgemm`` (tcgemm.distributed's default: the ``copy`` transport, one GEMM
launch per rank's rows, transfers by the copy engines through symmetric memory, on two ranks the reduce-scatter's
sum under its last GEMM, :mod:`tcgemm.distributed.tilequeue`; the reduce-scatter from four ranks and 2048 rows per
rank on ``fused``: ``decomposed.fused_by_default``; in the files before 0aa539a ``copy`` throughout),
``tcgemm_queue`` / ``tcgemm_pass`` (reduce-scatter: the same with that sum always under the last GEMM / always a
pass after it; in the files of d81636b and 533323f ``tcgemm`` is the pass), ``tcgemm_fused`` (the ``fused``
transport: one persistent GEMM per operation that takes rows as they land), ``tcgemm_parts`` (reduce-scatter on
two ranks: ``splits=2``, the own block's parts adding the landed ones in their epilogues, flags instead of barrier
kernels), ``tcgemm_nccl`` (the ring of NCCL point-to-point transfers) and ``tcgemm_fused_queue`` (reduce-scatter:
the fused launch with the own block's sum under its last round, PEER_ROWS = 4). (Until 0a05dae also ``tcgemm_r0`` and
``tcgemm_parts_r0``: no SMs left free beside the GEMMs, the default since; until the fused transport,
``tcgemm_store`` and ``tcgemm_parts``: reduce-scatter's ``store`` transport and two row parts per block with barrier
kernels between them, slower than ``copy`` in every run, docs/tensor-parallel.md.)
A mode that fails on any rank is reported with its error and left out; each fused mode's result is checked
against the sequential one (``rel_error``). The modes are interleaved (shuffled) round by round on the same inputs; a
round's time is the maximum over ranks after a barrier; the median of ``--rounds`` is reported, with the ratio
to the faster GEMM alone (1.00: the communication entirely hidden).
On CPU tensors (gloo; ``--device cpu``) the same runs with wall-clock timing: a smoke test of the harness, not
a measurement.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import random
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from .decomposed import all_gather_gemm, default_gemm, gemm_reduce_scatter

_NO_MULTICAST = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
MODES = ("gemm_torch", "gemm_tcgemm", "comm", "sequential", "async_tp", "tcgemm", "tcgemm_queue", "tcgemm_pass",
         "tcgemm_parts",
         "tcgemm_fused", "tcgemm_fused_queue",
         "tcgemm_nccl")


def _gather(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[0] * dist.get_world_size(), *x.shape[1:]), dtype=x.dtype, device=x.device)
    dist.all_gather_into_tensor(out, x)
    return out


def _scatter(y: torch.Tensor) -> torch.Tensor:
    out = torch.empty((y.shape[0] // dist.get_world_size(), *y.shape[1:]), dtype=y.dtype, device=y.device)
    dist.reduce_scatter_tensor(out, y)
    return out


def _async_tp(kind: str) -> Callable[..., torch.Tensor] | str:
    """PyTorch's fused op for ``kind`` on the world group, or why it cannot run here."""
    try:
        from torch.distributed._symmetric_memory import enable_symm_mem_for_group

        name = dist.group.WORLD.group_name
        with warnings.catch_warnings():  # (deprecated, and needless, from torch 2.9; needed before)
            warnings.simplefilter("ignore", FutureWarning)
            enable_symm_mem_for_group(name)
        if kind == "ag":
            def fused_ag(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
                return torch.ops.symm_mem.fused_all_gather_matmul(x, [w], gather_dim=0, group_name=name)[1][0]
            return fused_ag

        def fused_rs(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            return torch.ops.symm_mem.fused_matmul_reduce_scatter(x, w, "sum", scatter_dim=0, group_name=name)
        return fused_rs
    except Exception as exc:  # noqa: BLE001  (reported in the results: the run goes on without this mode)
        return f"unavailable: {type(exc).__name__}: {exc}"


def _queue(call: Callable[[], Any], fused: bool = False, on: bool = True) -> Any:
    """``call`` with the reduce-scatter's sum under its GEMM (``on``) or as a pass after it: the copy transport's
    (tcgemm.distributed.tilequeue), or with ``fused`` the fused transport's (PEER_ROWS = 4)."""
    from . import fused as fused_transport
    from . import pushes

    module = fused_transport if fused else pushes
    before, module.QUEUE_SUM = module.QUEUE_SUM, on
    try:
        return call()
    finally:
        module.QUEUE_SUM = before


def _operations(m: int, hidden: int, ffn_r: int, dtype: torch.dtype, device: torch.device,
                cuda: bool) -> dict[str, dict[str, Callable[[], Any] | str]]:
    world, rank = dist.get_world_size(), dist.get_rank()
    gen = torch.Generator(device="cpu").manual_seed(1234 + rank)
    x_ag = torch.randn(m // world, hidden, generator=gen).to(device, dtype)
    w_ag = (torch.randn(ffn_r, hidden, generator=gen) / hidden ** 0.5).to(device, dtype).t()  # hidden x ffn/W
    x_rs = torch.randn(m, ffn_r, generator=gen).to(device, dtype)
    w_rs = (torch.randn(hidden, ffn_r, generator=gen) / ffn_r ** 0.5).to(device, dtype).t()   # ffn/W x hidden
    x_ag_all = _gather(x_ag)
    torch_gemm = torch.matmul
    ag: dict[str, Callable[[], Any] | str] = {
        "gemm_torch": lambda: torch_gemm(x_ag_all, w_ag), "gemm_tcgemm": lambda: default_gemm(x_ag_all, w_ag),
        "comm": lambda: _gather(x_ag), "sequential": lambda: torch_gemm(_gather(x_ag), w_ag),
        "tcgemm": lambda: all_gather_gemm(x_ag, w_ag), "tcgemm_parts": "unavailable: reduce-scatter only",
        "tcgemm_queue": "unavailable: reduce-scatter only", "tcgemm_fused_queue": "unavailable: reduce-scatter only",
        "tcgemm_pass": "unavailable: reduce-scatter only",
        "tcgemm_fused": lambda: all_gather_gemm(x_ag, w_ag, transport="fused"),
        "tcgemm_nccl": lambda: all_gather_gemm(x_ag, w_ag, transport="nccl")}
    rs: dict[str, Callable[[], Any] | str] = {
        "gemm_torch": lambda: torch_gemm(x_rs, w_rs), "gemm_tcgemm": lambda: default_gemm(x_rs, w_rs),
        "comm": lambda: _scatter(torch.empty(m, hidden, dtype=dtype, device=device)),
        "sequential": lambda: _scatter(torch_gemm(x_rs, w_rs)), "tcgemm": lambda: gemm_reduce_scatter(x_rs, w_rs),
        "tcgemm_pass": (lambda: _queue(lambda: gemm_reduce_scatter(x_rs, w_rs), on=False)) if cuda
        else "unavailable: CPU tensors (the queue is a CUDA kernel's)",
        "tcgemm_queue": (lambda: _queue(lambda: gemm_reduce_scatter(x_rs, w_rs))) if cuda
        else "unavailable: CPU tensors (the queue is a CUDA kernel's)",
        "tcgemm_parts": (lambda: gemm_reduce_scatter(x_rs, w_rs, splits=2)) if world == 2 and cuda
        else "unavailable: two ranks with CUDA tensors only",
        "tcgemm_fused": lambda: gemm_reduce_scatter(x_rs, w_rs, transport="fused"),
        "tcgemm_fused_queue": (lambda: _queue(lambda: gemm_reduce_scatter(x_rs, w_rs, transport="fused"), fused=True))
        if cuda else "unavailable: CPU tensors",
        "tcgemm_nccl": lambda: gemm_reduce_scatter(x_rs, w_rs, transport="nccl")}
    if not cuda:
        for mode in ("tcgemm_nccl", "tcgemm_fused"):
            for op in (ag, rs):
                op[mode] = "unavailable: CPU tensors (tcgemm is the ring)"
        ag["gemm_tcgemm"] = rs["gemm_tcgemm"] = "unavailable: CPU tensors (tcgemm's kernels need a GPU)"
        ag["async_tp"] = rs["async_tp"] = "unavailable: CPU tensors (symmetric memory needs CUDA)"
    else:
        fused_ag, fused_rs = _async_tp("ag"), _async_tp("rs")
        ag["async_tp"] = (lambda: fused_ag(x_ag, w_ag)) if callable(fused_ag) else fused_ag
        rs["async_tp"] = (lambda: fused_rs(x_rs, w_rs)) if callable(fused_rs) else fused_rs
    return {"all_gather_gemm": ag, "gemm_reduce_scatter": rs}


def _time_once(fn: Callable[[], Any], cuda: bool) -> float:
    """Seconds of one call on this rank after a barrier; the maximum over ranks."""
    dist.barrier()
    if cuda:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        seconds = start.elapsed_time(end) / 1e3
        t = torch.tensor([seconds], device="cuda")
    else:
        t0 = time.perf_counter()
        fn()
        t = torch.tensor([time.perf_counter() - t0])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return float(t.item())


def _warm(fn: Callable[[], Any], calls: int, device: torch.device) -> str | None:
    """None after ``calls`` untimed calls on every rank, else the first error (of any rank: all agree)."""
    why = None
    try:
        for _ in range(calls):
            fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 (reported in the results; the other modes go on)
        why = f"failed: {type(exc).__name__}: {exc}"[:500]
    flag = torch.tensor([0.0 if why is None else 1.0], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    if flag.item() and why is None:
        why = "failed on another rank"
    return why


def _capture(fn: Callable[[], Any]) -> Any:
    """A CUDA graph of one call of ``fn`` (tcgemm.bench.capture: warmed on a side stream first), or why it could
    not be captured on some rank (all ranks agree)."""
    from ..bench import capture

    why, graph = None, None
    try:
        graph = capture(lambda _set: fn(), 1)
        if graph is None:
            why = "capture failed (a RuntimeError during capture or replay)"
    except Exception as exc:  # noqa: BLE001 (reported in the results; eager timing goes on)
        why = f"capture failed: {type(exc).__name__}: {exc}"[:500]
    flag = torch.tensor([0.0 if why is None else 1.0], device="cuda")
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    if flag.item():
        return why or "capture failed on another rank"
    return graph


# Always run: the reference (sequential) and the baselines every ratio divides by.
BASELINES = ("gemm_torch", "gemm_tcgemm", "sequential")


def run(tokens: list[int], hidden: int, ffn: int, dtype: torch.dtype, rounds: int, warmup: int,
        device: torch.device, graphs: bool = False, only: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """One row per (operation, M): each mode's median seconds (or why it did not run) and its ratio to the
    faster GEMM alone; with ``graphs``, the same for a CUDA graph of each mode replayed (the GPU's time alone,
    no host work), interleaved with the eager calls. ``only``: these modes and BASELINES (default: every mode)."""
    unknown = sorted(set(only) - set(MODES))
    if unknown:
        raise ValueError(f"--modes: no mode {', '.join(unknown)} (the modes: {', '.join(MODES)})")
    world, cuda = dist.get_world_size(), device.type == "cuda"
    if ffn % world or any(m % world for m in tokens):
        raise ValueError(f"--ffn and every --tokens value must be multiples of the {world} ranks")
    rows = []
    for m in tokens:
        for name, modes in _operations(m, hidden, ffn // world, dtype, device, cuda).items():
            if only:
                modes = {k: f for k, f in modes.items() if k in only or k in BASELINES}
            runnable = {k: f for k, f in modes.items() if callable(f)}
            errors: dict[str, float] = {}
            reference = runnable["sequential"]()
            for k, fn in list(runnable.items()):
                why = _warm(fn, warmup, device)
                if why is not None:
                    modes[k] = why
                    del runnable[k]
                elif k not in ("comm", "sequential", "gemm_torch", "gemm_tcgemm"):
                    got = fn()
                    errors[k] = float((got.double() - reference.double()).norm() / reference.double().norm())
            timed: dict[str, Callable[[], Any]] = dict(runnable)
            not_captured: dict[str, str] = {}
            if graphs and cuda:
                for k, fn in runnable.items():
                    graph = _capture(fn)
                    if isinstance(graph, str):
                        not_captured[k] = graph
                    else:
                        timed[f"{k}@graph"] = graph.replay
            times: dict[str, list[float]] = {k: [] for k in timed}
            for r in range(rounds):
                # Interleaved, in an order shuffled round by round, the same on every rank (a seeded permutation:
                # the ranks make the same collective calls in the same order). Rotated, each mode always followed
                # the same one, and whatever followed async-TP's eager calls measured 3-6% slow
                # (docs/tensor-parallel.md: two modes of the same code, 1.085x against 1.020x).
                order = list(timed)
                random.Random(1000 + r).shuffle(order)
                for k in order:
                    times[k].append(_time_once(timed[k], cuda))
            medians = {k: statistics.median(v) for k, v in times.items()}
            row = {"operation": name, "m": m, "world": world, "hidden": hidden, "ffn_per_rank": ffn // world,
                   "seconds": {k: v for k, v in medians.items() if "@" not in k}, "rel_error": errors,
                   "unavailable": {k: f for k, f in modes.items() if not callable(f)}}
            alone = min(row["seconds"][k] for k in ("gemm_torch", "gemm_tcgemm") if k in row["seconds"])
            row["ratio_to_gemm_alone"] = {k: v / alone for k, v in row["seconds"].items()}
            if graphs and cuda:
                replay = {k.split("@")[0]: v for k, v in medians.items() if "@" in k}
                row["graph_seconds"], row["not_captured"] = replay, not_captured
                base = [replay[k] for k in ("gemm_torch", "gemm_tcgemm") if k in replay]
                row["graph_ratio_to_gemm_alone"] = {k: v / min(base) for k, v in replay.items()} if base else {}
            rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], key: str = "ratio_to_gemm_alone") -> str:
    """Markdown: time divided by the faster GEMM alone, per operation and M (``key``: the eager ratios, or
    ``graph_ratio_to_gemm_alone``)."""
    lines = ["| operation (per rank) | M | " + " | ".join(MODES) + " |", "|---|---:|" + "---:|" * len(MODES)]
    for row in rows:
        ratios = row.get(key, {})
        cells = [f"{ratios[k]:.2f}×" if k in ratios else "–" for k in MODES]
        lines.append(f"| {row['operation']} | {row['m']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _environment(device: torch.device) -> dict[str, Any]:
    from .._version import __version__

    env: dict[str, Any] = {"torch": torch.__version__, "tcgemm": __version__, "python": platform.python_version(),
                           "backend": dist.get_backend(), "world": dist.get_world_size(),
                           "commit": os.environ.get("TCGEMM_COMMIT"),
                           "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    if device.type == "cuda":
        from ..bench import environment

        env.update(environment())
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torchrun --nproc_per_node=N -m tcgemm.distributed.bench",
                                     description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", default="4096,8192,16384", help="comma list of token counts M (all ranks)")
    parser.add_argument("--hidden", type=int, default=8192, help="the model's hidden size (default: Llama-3-70B's)")
    parser.add_argument("--ffn", type=int, default=28672, help="the MLP's width, split over the ranks")
    parser.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default="bf16")
    parser.add_argument("--rounds", type=int, default=20, help="timed rounds per mode (median; default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls per mode first (default 3)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cuda: NCCL, one GPU per local rank; cpu: gloo (a smoke test of the harness)")
    parser.add_argument("--graphs", action="store_true",
                        help="also time each mode captured in a CUDA graph and replayed (the GPU alone, no host work)")
    parser.add_argument("--modes", default="",
                        help="comma list of modes to time (default: all); the GEMMs alone and the sequential "
                             "reference always run. E.g. tcgemm,tcgemm_fused for an A/B of two builds in "
                             "processes of their own (TCGEMM_DEFINES)")
    parser.add_argument("--json", help="write the rows and the environment here (rank 0)")
    args = parser.parse_args(argv)
    os.environ.update(_NO_MULTICAST)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    own_group = not dist.is_initialized()
    if args.device == "cuda":
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
        if own_group:
            dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        if own_group:
            dist.init_process_group("gloo")
    try:
        rows = run([int(t) for t in args.tokens.split(",")], args.hidden, args.ffn, dtype, args.rounds, args.warmup,
                   device, graphs=args.graphs, only=tuple(m for m in args.modes.split(",") if m))
        if dist.get_rank() == 0:
            print("eager (host work included), time / the faster GEMM alone:")
            print(table(rows))
            if args.graphs and device.type == "cuda":
                print("CUDA graphs replayed (the GPU alone):")
                print(table(rows, "graph_ratio_to_gemm_alone"))
            for row in rows:
                for mode, why in {**row["unavailable"], **row.get("not_captured", {})}.items():
                    print(f"{row['operation']} M = {row['m']}: {mode} {why}")
            if args.json:
                Path(args.json).write_text(json.dumps({"environment": _environment(device), "rows": rows}, indent=1))
                print(f"results written to {args.json}")
    finally:
        if own_group:
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
