"""Tensor-parallel GEMMs on ``torch.distributed`` (issue 29): all-gather + GEMM and GEMM + reduce-scatter.

With sequence parallelism a column-parallel layer all-gathers the activations' row shards before its GEMM,
and a row-parallel layer reduce-scatters its partial products over rows after it. Done one after the other,
the communication adds to the GEMM's time. The functions here split both so that rows travel while other rows
multiply:

- :func:`all_gather_gemm`: ``all_gather(x_shard) @ w`` (every rank gets all rows of the product);
- :func:`gemm_reduce_scatter`: ``reduce_scatter(x @ w)`` over row blocks (rank r gets block r of the sum
  over ranks), partial sums added in a fixed order per block, so results repeat bitwise.

CUDA tensors of an NCCL group move through PyTorch symmetric memory, pushed by the GPUs' copy engines while the
GEMMs run, the ranks ordered by flags that the GPUs' front ends write and poll, so every GEMM keeps every SM
(:mod:`tcgemm.distributed.pushes`, :mod:`tcgemm.distributed.flags`). ``transport="nccl"`` (and any other group,
gloo with CPU tensors: CI tests the chunking and ordering that way, tests/cpu/test_distributed_gloo.py) passes chunks
around a ring of point-to-point transfers (:mod:`tcgemm.distributed.decomposed`). Both launch one GEMM per chunk;
measurements and the scaling model: docs/tensor-parallel.md.

:class:`ColumnParallelLinear` and :class:`RowParallelLinear` (sequence parallel, with autograd) run their
forward and backward on these two schedules (:mod:`tcgemm.distributed.modules`).
"""

from __future__ import annotations

from .decomposed import GemmFn, all_gather_gemm, default_gemm, gemm_reduce_scatter
from .modules import ColumnParallelLinear, RowParallelLinear

__all__ = ["ColumnParallelLinear", "GemmFn", "RowParallelLinear", "all_gather_gemm", "default_gemm",
           "gemm_reduce_scatter"]
