"""Tensor-parallel GEMMs on ``torch.distributed`` (issue 29): all-gather + GEMM and GEMM + reduce-scatter.

With sequence parallelism a column-parallel layer all-gathers the activations' row shards before its GEMM,
and a row-parallel layer reduce-scatters its partial products over rows after it. Done one after the other,
the communication adds to the GEMM's time. The functions here split both into per-rank chunks passed around
a ring of point-to-point transfers, each chunk's GEMM running while the next chunk travels:

- :func:`all_gather_gemm`: ``all_gather(x_shard) @ w`` (every rank gets all rows of the product);
- :func:`gemm_reduce_scatter`: ``reduce_scatter(x @ w)`` over row blocks (rank r gets block r of the sum
  over ranks), the partial sum arriving from the previous rank added by the GEMM itself (``c`` with
  ``beta = 1``: tcgemm's epilogue), in a fixed order per block, so results repeat bitwise.

:class:`ColumnParallelLinear` and :class:`RowParallelLinear` (sequence parallel, with autograd) run their
forward and backward on these two schedules (:mod:`tcgemm.distributed.modules`).

This is the *decomposed* schedule (one GEMM launch per chunk), the baseline that an in-kernel overlap is to be
measured against. It runs on any process group: NCCL with CUDA tensors (tcgemm's kernels), gloo with CPU
tensors (``torch`` GEMMs; CI tests the chunking and ordering that way, tests/cpu/test_distributed_gloo.py).
"""

from __future__ import annotations

from .decomposed import GemmFn, all_gather_gemm, default_gemm, gemm_reduce_scatter
from .modules import ColumnParallelLinear, RowParallelLinear

__all__ = ["ColumnParallelLinear", "GemmFn", "RowParallelLinear", "all_gather_gemm", "default_gemm",
           "gemm_reduce_scatter"]
