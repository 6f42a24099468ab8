"""fp8 scales as ``tcgemm.gemm`` takes them: which mode a call's ``scale_a`` / ``scale_b`` are in, checked.

Three modes, told apart by the shapes (K = a's columns, N = b's columns):

- **per tensor** (``torch._scaled_mm``'s): a one-element float32 tensor each, or a Python number (folded into alpha);
- **row-wise** (``torch._scaled_mm``'s too): ``scale_a`` one float per row of a, (M, 1) or (M,); ``scale_b`` one per
  column of b, (1, N) or (N,); either may be a number or None instead;
- **block-wise** (DeepSeek-V3's recipe): ``scale_a`` (M, ceil(K / 128)), one per row and 128-deep group of k (an
  activation quantized in 1 x 128 groups: ``tcgemm.quantize_fp8(x, group=128)``), ``scale_b`` (ceil(N / 128),
  ceil(K / 128)), one per 128 x 128 block of the weight as it is stored (N, K). Both are needed. The kernel copies
  scale_a M-major with its rows padded to a multiple of 4 (strides (1, M rounded up to 4): what quantize_fp8 returns,
  DeepGEMM's layout) and scale_b row-major (rows padded to 4 where K / 128 is not a multiple of 4); other layouts are
  copied into those on each call (:func:`kernel_block_scales`).

Where a row-wise and a block-wise reading of the shapes coincide (K <= 128 and N = 1), they mean the same product.
"""

from __future__ import annotations

from typing import Literal

import torch

ScaleMode = Literal["tensor", "row", "block"]
FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2)
SCALE_BLOCK = 128  # (registry.SCALE_BLOCK: the kernel's)


def _blocks(length: int) -> int:
    return -(-length // SCALE_BLOCK)


def _block_shapes(a: torch.Tensor, b: torch.Tensor | None) -> tuple[tuple[int, int], tuple[int, int]]:
    m, k = (a.shape[-2], a.shape[-1]) if a.dim() >= 2 else (1, a.shape[-1])
    n = b.shape[-1] if b is not None and b.dim() >= 2 else 1
    return (m, _blocks(k)), (_blocks(n), _blocks(k))


def _is_block_wise(a: torch.Tensor, b: torch.Tensor | None, scale_a: object, scale_b: object) -> bool:
    if not (isinstance(scale_a, torch.Tensor) and isinstance(scale_b, torch.Tensor)):
        return False
    m = a.shape[-2] if a.dim() >= 2 else 1
    n = b.shape[-1] if b is not None and b.dim() >= 2 else 1
    if tuple(scale_a.shape) in ((m, 1), (m,)) and tuple(scale_b.shape) in ((1, n), (n,)):
        return False  # row-wise (the same product where the block shapes coincide)
    shape_a, shape_b = _block_shapes(a, b)
    return tuple(scale_a.shape) == shape_a and tuple(scale_b.shape) == shape_b


def fold_scales(a: torch.Tensor, alpha: float, scale_a: float | torch.Tensor | None,
                scale_b: float | torch.Tensor | None,
                b: torch.Tensor | None = None) -> tuple[float, tuple[torch.Tensor | None, ...], ScaleMode]:
    """(alpha times the number scales, the tensor scales or None, the mode) after validating them (module doc)."""
    if scale_a is None and scale_b is None:
        return alpha, (None, None), "tensor"
    if a.dtype not in FP8_DTYPES:
        raise ValueError(
            f"scale_a/scale_b apply to fp8 inputs (torch.float8_e4m3fn, torch.float8_e5m2), not {a.dtype}; "
            f"use alpha to scale other GEMMs"
        )
    if _is_block_wise(a, b, scale_a, scale_b):
        for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
            if s.dtype != torch.float32:  # type: ignore[union-attr]
                raise ValueError(f"{name} must be float32, got {s.dtype}")  # type: ignore[union-attr]
        if max(a.dim(), b.dim() if b is not None else 2) > 2:
            raise ValueError("block-wise scales take 2-D a and b; got a batch: call once per batch entry")
        return alpha, (scale_a, scale_b), "block"  # type: ignore[return-value]
    m = a.shape[-2] if a.dim() >= 2 else 1
    n = b.shape[-1] if b is not None and b.dim() >= 2 else 1
    block_a, block_b = _block_shapes(a, b)
    for name, s, block, row, other, other_block in (("scale_a", scale_a, block_a, (m, 1), "scale_b", block_b),
                                                    ("scale_b", scale_b, block_b, (1, n), "scale_a", block_a)):
        if isinstance(s, torch.Tensor) and tuple(s.shape) == block and block != row:
            got = other_scale.shape if isinstance(other_scale := scale_b if name == "scale_a" else scale_a,
                                                  torch.Tensor) else other_scale
            raise ValueError(f"{name} has the block-wise shape {block}; then {other} must be block-wise too, shape "
                             f"{other_block} (one per 128 x 128 block of b / per row of a and 128-deep k-block), "
                             f"got {tuple(got) if isinstance(got, torch.Size) else got!r}")
    tensors: list[torch.Tensor | None] = []
    row_wise = False
    for name, s, length, shapes in (("scale_a", scale_a, m, ((m, 1), (m,))), ("scale_b", scale_b, n, ((1, n), (n,)))):
        if s is None:
            tensors.append(None)
        elif isinstance(s, torch.Tensor):
            if s.dtype != torch.float32:
                raise ValueError(f"{name} must be float32 (as torch._scaled_mm takes it), got {s.dtype}")
            if s.numel() != 1:
                if tuple(s.shape) not in shapes:
                    block = block_a if name == "scale_a" else block_b
                    raise ValueError(
                        f"{name} has shape {tuple(s.shape)}: give one element (a per-tensor scale), one per "
                        f"{'row of a' if name == 'scale_a' else 'column of b'}, shape {shapes[0]} (row-wise, as "
                        f"torch._scaled_mm), or block-wise scales for both a and b, {name} {block} (scale_a "
                        f"{block_a}, scale_b {block_b}: 128-deep k-blocks, 128 x 128 blocks of b)"
                    )
                if s.stride(0 if name == "scale_a" or s.dim() == 1 else 1) != 1:
                    raise ValueError(f"{name} must have unit stride along its {length} elements; pass "
                                     f"{name}.contiguous()")
                if max(a.dim(), b.dim() if b is not None else 2) > 2:
                    raise ValueError("row-wise scales take 2-D a and b (as torch._scaled_mm); got a batch")
                row_wise = True
            tensors.append(s)
        elif isinstance(s, (int, float)) and not isinstance(s, bool):
            if isinstance(alpha, (int, float)) and not isinstance(alpha, bool):
                alpha = alpha * float(s)
            tensors.append(None)
        else:
            raise TypeError(f"{name} must be a Python float or a float32 tensor (one element, one per row of a / "
                            f"column of b, or block-wise), got {type(s).__name__}")
    if row_wise:
        for name, s, length in (("scale_a", tensors[0], m), ("scale_b", tensors[1], n)):
            if s is not None and s.numel() == 1 and length > 1:
                raise ValueError(f"{name} has one element while the other scale is row-wise: give {name} one "
                                 f"value per {'row of a' if name == 'scale_a' else 'column of b'} too, or a Python "
                                 f"number")
    return alpha, tuple(tensors), "row" if row_wise else "tensor"


def _pad4(n: int) -> int:
    return (n + 3) // 4 * 4


def _spans(t: torch.Tensor, elements: int) -> bool:
    """Whether t's storage holds ``elements`` floats from t's first (the kernel's copies read whole padded rows)."""
    return t.untyped_storage().nbytes() >= (t.storage_offset() + elements) * t.element_size()


def kernel_block_scales(scale_a: torch.Tensor, scale_b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Block-wise scales in the layouts the kernel copies from (kernels/include/block_scales.cuh: bulk copies of
    16-byte aligned runs): scale_a (M, KB) M-major with rows of M rounded up to 4 (strides (1, M4), 16-byte aligned:
    DeepGEMM's layout, and what quantize_fp8(..., group=128) returns), scale_b (NB, KB) row-major with rows of KB
    rounded up to 4 (a contiguous tensor when KB is a multiple of 4); with a leading expert dimension (grouped GEMMs)
    each expert's scales follow the last's (the contiguous layout: a 2-D scale_a over every expert's rows, a 3-D
    scale_b). The tensors themselves when they are (no copy), else copies in those layouts (two small kernels a
    call)."""
    lead_a, lead_b = tuple(scale_a.shape[:-2]), tuple(scale_b.shape[:-2])
    m, kb = scale_a.shape[-2:]
    nb = scale_b.shape[-2]
    m4, kb4 = _pad4(m), _pad4(kb)
    entries_a, entries_b = (scale_a.shape[0] if lead_a else 1), (scale_b.shape[0] if lead_b else 1)
    if not ((scale_a.stride(-2) == 1 or m == 1) and (scale_a.stride(-1) == m4 or kb == 1)
            and (entries_a == 1 or scale_a.stride(0) == kb * m4)
            and scale_a.data_ptr() % 16 == 0 and _spans(scale_a, entries_a * kb * m4)):
        padded = torch.empty(*lead_a, kb, m4, dtype=scale_a.dtype, device=scale_a.device)[..., :m].transpose(-1, -2)
        scale_a = padded.copy_(scale_a)
    if not ((scale_b.stride(-1) == 1 or kb == 1) and (scale_b.stride(-2) == kb4 or nb == 1)
            and (entries_b == 1 or scale_b.stride(0) == nb * kb4)
            and scale_b.data_ptr() % 16 == 0 and _spans(scale_b, entries_b * nb * kb4)):
        padded = torch.empty(*lead_b, nb, kb4, dtype=scale_b.dtype, device=scale_b.device)[..., :kb]
        scale_b = padded.copy_(scale_b)
    return scale_a, scale_b
