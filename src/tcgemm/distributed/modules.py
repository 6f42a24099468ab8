"""Sequence-parallel tensor-parallel Linear layers over :mod:`tcgemm.distributed`'s schedules, with autograd.

A tensor-parallel MLP splits its first layer's output features (column parallel) and its second layer's input
features (row parallel) over the ranks of a group of size W; with sequence parallelism the tokens between
blocks are split too, rank r holding rows [r T / W, (r + 1) T / W) of the T tokens:

    x (T/W x in) --ColumnParallelLinear--> h (T x hidden/W) --activation--> --RowParallelLinear--> y (T/W x out)

Forward and backward, each layer's communication is one of the two schedules:

=====================  ==================================  ============================================
layer                  forward                             backward (dX; dW needs the gathered rows)
=====================  ==================================  ============================================
ColumnParallelLinear   all_gather_gemm(x, W_r^T)           gemm_reduce_scatter(dY, W_r); x gathered for dW
RowParallelLinear      gemm_reduce_scatter(x, W_r^T)       dY gathered once: dX = dY W_r, dW = dY^T x
=====================  ==================================  ============================================

Weights are shards: :meth:`ColumnParallelLinear.from_linear` and :meth:`RowParallelLinear.from_linear` take
this rank's rows / columns of a full ``torch.nn.Linear`` (the same on every rank). A bias of a row-parallel
layer is whole on every rank and gets the whole gradient on every rank.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.distributed as dist

from .decomposed import all_gather_gemm, default_gemm, gemm_reduce_scatter

__all__ = ["ColumnParallelLinear", "RowParallelLinear"]


def _gather_rows(x: torch.Tensor, group: dist.ProcessGroup | None) -> torch.Tensor:
    """The group's row shards of ``x`` stacked in rank order."""
    parts = [torch.empty_like(x) for _ in range(dist.get_world_size(group))]
    dist.all_gather(parts, x.contiguous(), group)
    return torch.cat(parts)


class _ColumnParallel(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                group: dist.ProcessGroup | None) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.group, ctx.has_bias = group, bias is not None
        y = all_gather_gemm(x, weight.t(), group)
        return y if bias is None else y + bias

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        dy = dy.contiguous()
        need_x, need_w, need_b, _ = ctx.needs_input_grad
        dx = gemm_reduce_scatter(dy, weight, ctx.group) if need_x else None
        dw = default_gemm(dy.t(), _gather_rows(x, ctx.group)) if need_w else None
        db = dy.sum(0) if ctx.has_bias and need_b else None
        return dx, dw, db, None


class _RowParallel(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                group: dist.ProcessGroup | None) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.group, ctx.has_bias = group, bias is not None
        y = gemm_reduce_scatter(x.contiguous(), weight.t(), group)
        return y if bias is None else y + bias

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        need_x, need_w, need_b, _ = ctx.needs_input_grad
        dy_all = _gather_rows(dy, ctx.group)  # (once, for both GEMMs and the bias)
        dx = default_gemm(dy_all, weight) if need_x else None
        dw = default_gemm(dy_all.t(), x.contiguous()) if need_w else None
        db = dy_all.sum(0) if ctx.has_bias and need_b else None
        return dx, dw, db, None


def _world(group: dist.ProcessGroup | None) -> tuple[int, int]:
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError("tensor-parallel layers need a process group: call torch.distributed.init_process_group "
                           "first (torchrun sets the environment it reads)")
    return dist.get_world_size(group), dist.get_rank(group)


def _split(features: int, world: int, what: str) -> int:
    if features % world:
        raise ValueError(f"{what} = {features} does not split into {world} equal shards; use a multiple of {world}")
    return features // world


def _flat(x: torch.Tensor, in_features: int) -> torch.Tensor:
    if x.dim() < 1 or x.shape[-1] != in_features:
        raise ValueError(f"input has shape {tuple(x.shape)} but the layer takes {in_features} features (its last "
                         "dimension)")
    return x.reshape(-1, in_features)


class _ShardedLinear(torch.nn.Module):
    """A Linear whose weight is split over the group's ranks along ``_split_dim`` (0: output features, with the
    bias; 1: input features, the bias whole), computed by ``_function`` (forward and backward schedules)."""

    _split_dim: int
    _function: type[torch.autograd.Function]

    def __init__(self, in_features: int, out_features: int, group: dist.ProcessGroup | None = None,
                 bias: bool = True, device: torch.device | str | None = None,
                 dtype: torch.dtype | None = None) -> None:
        super().__init__()
        world, _ = _world(group)
        self.in_features, self.out_features, self.group = in_features, out_features, group
        shape = [out_features, in_features]
        d = self._split_dim
        shape[d] = _split(shape[d], world, ("out_features", "in_features")[d])
        self.weight = torch.nn.Parameter(torch.empty(shape, device=device, dtype=dtype))
        self.bias = torch.nn.Parameter(torch.empty(shape[0], device=device, dtype=dtype)) if bias else None
        bound = 1 / math.sqrt(in_features)  # (torch.nn.Linear's initialisation, on the shard)
        torch.nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            torch.nn.init.uniform_(self.bias, -bound, bound)

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear, group: dist.ProcessGroup | None = None) -> _ShardedLinear:
        """This rank's shard of ``linear``'s weight (copies), and of its bias where the output is split."""
        _, rank = _world(group)
        new = cls(linear.in_features, linear.out_features, group, linear.bias is not None,
                  linear.weight.device, linear.weight.dtype)
        shard = new.weight.shape[cls._split_dim]
        part = slice(rank * shard, (rank + 1) * shard)
        with torch.no_grad():
            new.weight.copy_(linear.weight[part] if cls._split_dim == 0 else linear.weight[:, part])
            if new.bias is not None:
                new.bias.copy_(linear.bias[part] if cls._split_dim == 0 else linear.bias)
        return new

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._function.apply(_flat(x, self.weight.shape[1]), self.weight, self.bias, self.group)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features} "
                f"(shard {tuple(self.weight.shape)})")


class ColumnParallelLinear(_ShardedLinear):
    """``y = all_gather(x) @ W_r^T + b_r``: this rank's ``out_features / W`` output features for all tokens,
    from its token shard ``x`` (tokens / W x in_features)."""

    _split_dim = 0
    _function = _ColumnParallel


class RowParallelLinear(_ShardedLinear):
    """``y = reduce_scatter(x @ W_r^T) + b``: this rank's token shard of all ``out_features``, from all tokens of
    its ``in_features / W`` input features (a column-parallel layer's output)."""

    _split_dim = 1
    _function = _RowParallel
