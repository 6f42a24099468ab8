"""The reduce-scatter's sum under its last GEMM (the ``copy`` transport, :mod:`tcgemm.distributed.pushes`).

The copy transport ends a reduce-scatter with the own block's GEMM and then one pass summing the own partial product
and the peers' ones in the inbox: W + 1 blocks' bytes over HBM with nothing beside it, ~2.5% of a two-rank call at
M = 8192. Here the own block's GEMM is a PEER_ROWS = 3 build of the production kernel
(``kernels/include/peer_rows.cuh``): it appends each stored tile to a queue once its stores have landed, and lets its
dependent launch begin at once. The sum (``sum_queue`` in ``kernels/util/sum_blocks.cu``), launched right behind it
with programmatic dependent launch, has its CTAs placed on the SMs the GEMM's CTAs leave in its last, partial round of
tiles; they sum the tiles of the rounds before while that round runs, so what is left after the GEMM is the last
round's tiles. The same bits as the pass (fp32 sums in rank order, rounded once).

Measured (two and four H200s, CUDA graphs, against the pass in the same run; docs/tensor-parallel.md): two ranks
0.3-1.2% faster at M = 4096-16384 in three runs, four ranks level or 1% slower (each rank's own block is a quarter
of the rows: its last round leaves too few SMs for W + 1 blocks' bytes); eager within the runs' spread. So it runs on
two ranks by default (``tcgemm.distributed.pushes.QUEUE_SUM``: None; ``TCGEMM_TP_QUEUE=1`` / ``0`` forces it).

The queue is per shape, as the transport's inbox and flags are: one call of a shape in flight at a time.

Where the kernel cannot take the call (not bf16/fp16, not sm_90, rows that split a cluster's tiles, rows not 16-byte
aligned) :func:`prepare` returns None and the caller runs the GEMM and the pass as before.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch

from .. import dispatch, driver, fastpath, launch, registry, tma
from ..api import device_info
from ..problem import GemmProblem, describe
from ..sms import usable as usable_sms
from .fused import QUEUE_HEAD, _peer_block, queue_refuses
from .reduce import QueueSum

_FLOATS = (torch.bfloat16, torch.float16)
_MAX_ROWS, _MAX_COLS = 8 << 17, 8 << 14  # what an entry's fields hold (peer_rows.cuh: peer_queue_entry)


@dataclass
class QueueLaunch:
    """The own block's GEMM with its queue, for one shape (made once)."""

    problem: GemmProblem
    plan: Any
    gemm: fastpath.Prepared  # the own block's GEMM, its workspace argument the PeerRows block
    block: torch.Tensor  # the PeerRows block (its `queue` pointer: the queue)
    queue: torch.Tensor  # int32 [QUEUE_HEAD + total]: zero between calls (the sum resets it)
    total: int  # entries a call appends: tiles x consumer warpgroups
    sum: QueueSum  # the sum that consumes them


_states: dict[tuple, QueueLaunch | None] = {}


def _why_not(cfg: registry.TileConfig, spec: registry.KernelSpec, rows: int) -> str | None:
    refused = launch.peer_rows_refuses(spec, cfg) or queue_refuses(cfg)
    if refused is not None:
        return refused
    if rows % (cfg["BLOCK_M"] * spec.cluster_shape(cfg)[0]):
        return f"{rows} rows split a cluster's tiles"
    return None


def choose(problem: GemmProblem, sms: int) -> tuple[registry.KernelSpec, registry.TileConfig] | None:
    """The production kernel and the config the estimate picks for the own block's GEMM (``problem``: its rows,
    peer_rows = 3) among those that can run the queue, or None."""
    spec = registry.get(launch.PEER_ROWS_KERNEL)
    names = tuple(c.name for c in spec.configs_for(problem.precision)
                  if _why_not(c, spec, problem.m) is None and dispatch.config_refuses(c, problem, spec) is None)
    return (spec, dispatch.pick_config(spec, problem, sms, among=names)) if names else None


def prepare(x_own: torch.Tensor, w: torch.Tensor, out_dtype: torch.dtype, world: int, rank: int) -> QueueLaunch | None:
    """The queue launch of ``x_own @ w`` into a fresh ``out_dtype`` block and its sum over ``world`` ranks' parts,
    or None where it cannot run (the caller then runs the GEMM and the pass)."""
    rows, k = x_own.shape
    n = w.shape[1]
    index = x_own.device.index if x_own.device.index is not None else torch.cuda.current_device()
    key = (index, rows, k, n, x_own.dtype, out_dtype, x_own.stride(), w.stride(), world, rank)
    if key in _states:
        return _states[key]
    found = None
    if (x_own.is_cuda and x_own.dtype in _FLOATS and out_dtype in _FLOATS
            and torch.cuda.get_device_capability(x_own.device) == (9, 0)
            and rows <= _MAX_ROWS and n <= _MAX_COLS and (n * out_dtype.itemsize) % 16 == 0):
        _, sms, arch = device_info(index)
        sms = usable_sms(sms)
        problem, t = describe(x_own, w, None, alpha=1.0, beta=0.0, out=None, out_dtype=out_dtype, precision=None)
        if (t["a"] is x_own and t["b"] is w and not problem.swapped and not problem.d_transposed
                and tma.why_not(problem) is None):
            problem = dataclasses.replace(problem, peer_rows=3)
            chosen = choose(problem, sms)
            if chosen is not None:
                if torch.cuda.is_current_stream_capturing():
                    raise RuntimeError(f"tcgemm.distributed: a new reduce-scatter shape ({rows} rows per rank x {k} x "
                                       f"{n}) must be prepared before CUDA graph capture; run the same call once first")
                spec, cfg = chosen
                p = launch.plan(problem, spec, cfg, sms)
                launch.ensure_context(index)
                kernel = launch.kernel_for(p, arch, index)  # compiled and loaded now
                driver._allow_dynamic_smem(kernel, cfg.smem_bytes, index)  # (as launch.run's first launch would)
                consumers = cfg.threads // 128 - 1
                total = -(-rows // cfg["BLOCK_M"]) * -(-n // cfg["BLOCK_N"]) * consumers
                queue = torch.zeros(QUEUE_HEAD + total, dtype=torch.int32, device=x_own.device)
                block = _peer_block(x_own.device, None, (1, 0, rows, 0), 0, 0, queue.data_ptr())
                gemm = fastpath.Prepared(p, problem, kernel, index, (rows, n), x_own, w, None, None,
                                         workspace=block.data_ptr())
                found = QueueLaunch(problem, p, gemm, block, queue, total,
                                    QueueSum(out_dtype, index, rows, n, world, rank, queue, total,
                                             cfg["BLOCK_M"] // consumers, cfg["BLOCK_N"]))
    _states[key] = found
    return found


def run(q: QueueLaunch, x_own: torch.Tensor, w: torch.Tensor, inbox: torch.Tensor, landed: int) -> torch.Tensor:
    """The own block's GEMM, then (under it) the sum of its product and the ``inbox`` (every rank's slot, this
    rank's unused) once the peers' ``landed`` flags are set: the reduce-scatter's result, a new tensor."""
    own = q.gemm(x_own, w, None, None)
    result = torch.empty_like(own)
    q.sum(own, inbox, result, landed)
    return result
