"""``tcgemm.quantize_fp8``: 16- or 32-bit activations or weights to fp8 e4m3 with per-row or per-group scales.

    x8, sx = tcgemm.quantize_fp8(x)              # row-wise: sx (M, 1), x ~= x8 * sx
    w8, sw = tcgemm.quantize_fp8(w)              # a weight (N, K): one scale per output channel, (N, 1)
    y = tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=sw.t())   # row-wise fp8 GEMM, bf16 out
    x8, sx = tcgemm.quantize_fp8(x, group=128)   # DeepSeek-V3's 1 x 128 groups: sx (M, ceil(K / 128))
    w8, sw = tcgemm.quantize_fp8_blocks(w)       # a weight (N, K) per 128 x 128 block: sw (ceil(N/128), ceil(K/128))
    y = tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=sw)   # block-wise fp8 GEMM (tcgemm.scales)

Each group's scale is its largest magnitude over 448 (e4m3's largest finite value; 1 for a group of zeros), and
the values are divided by it, rounded to nearest even and saturated: the same formula as
:func:`quantize_reference` (torch ops), which the kernel matches bit for bit. The kernel is
``kernels/util/quantize_fp8.cu`` (one warp per group); it runs on the current stream and captures in CUDA graphs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch

E4M3_MAX = 448.0
SCALE_BLOCK = 128  # DeepSeek-V3's groups and blocks (tcgemm.scales)
_SOURCE = "util/quantize_fp8.cu"
_ELEM = {torch.bfloat16: "__nv_bfloat16", torch.float16: "__half", torch.float32: "float"}
_WARPS = 8  # groups per CTA (256 threads)


def _check(x: Any, group: int | None) -> int:
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() != 2:
        raise ValueError(f"x must be 2-D (rows to quantize, one scale per row or per group); got shape "
                         f"{tuple(x.shape)}: reshape a batch to (-1, x.shape[-1])")
    if x.dtype not in _ELEM:
        raise TypeError(f"x must be bfloat16, float16 or float32, got {x.dtype}")
    cols = x.shape[1]
    if group is None:
        return max(cols, 1)
    if isinstance(group, bool) or not isinstance(group, int) or group < 1:
        raise ValueError(f"group={group!r}: give a positive int (elements per scale along a row, e.g. 128) or None "
                         f"(one scale per row)")
    return group


def quantize_reference(x: torch.Tensor, group: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The formula in torch ops (any device): what :func:`quantize_fp8` computes, bit for bit."""
    g = _check(x, group)
    rows, cols = x.shape
    groups = -(-cols // g)
    xf = x.float()
    pad = groups * g - cols
    padded = torch.nn.functional.pad(xf, (0, pad)) if pad else xf
    amax = padded.abs().reshape(rows, groups, g).amax(dim=2)
    # (a tensor divisor: torch divides by a Python number as a multiply by its reciprocal on the GPU, one ulp apart)
    scale = torch.where(amax > 0, amax / torch.full_like(amax, E4M3_MAX), torch.ones_like(amax))
    q = (padded.reshape(rows, groups, g) / scale[..., None]).clamp(-E4M3_MAX, E4M3_MAX)
    return q.reshape(rows, groups * g)[:, :cols].to(torch.float8_e4m3fn), scale


@lru_cache(maxsize=16)
def _kernel(dtype: torch.dtype, device: int) -> Any:
    from . import jit

    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    if int(arch[3:5]) < 89:
        raise RuntimeError(f"quantize_fp8 converts with sm_89+ instructions; this GPU is {arch}")
    return jit.load_kernel(_SOURCE, "quantize_fp8", jit.as_defines([("ELEM", _ELEM[dtype])]), arch, device)


def quantize_fp8(x: torch.Tensor, group: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(x8, scales): ``x`` (rows, cols; bf16, fp16 or fp32, on a CUDA GPU of sm_89 or newer) as fp8 e4m3 and
    float32 scales, one per row (``group=None``: shape (rows, 1)) or per ``group`` consecutive elements of a row
    (shape (rows, ceil(cols / group)), stored M-major: strides (1, rows rounded up to 4), as the block-wise GEMM reads
    scale_a; a row's last group may be shorter), with x ~= x8 * scale. See the module."""
    g = _check(x, group)
    x = _on_gpu(x)
    rows, cols = x.shape
    groups = -(-cols // g) if cols else 0
    # Groups: (rows, groups) M-major with rows rounded up to 4, strides (1, rows4): the layout the block-wise GEMM
    # copies scale_a from (tcgemm.scales)
    scales = (torch.empty(rows, 1, dtype=torch.float32, device=x.device) if group is None
              else torch.empty(groups, (rows + 3) // 4 * 4, dtype=torch.float32, device=x.device)[:, :rows].t())
    if rows == 0 or cols == 0:
        return torch.empty(rows, cols, dtype=torch.float8_e4m3fn, device=x.device), scales.fill_(1.0)
    return _launch(x, g, scales), scales


def quantize_fp8_blocks(w: torch.Tensor, block: int = SCALE_BLOCK) -> tuple[torch.Tensor, torch.Tensor]:
    """(w8, scales): a weight ``w`` (N, K) as fp8 e4m3 with one float32 scale per ``block`` x ``block`` block
    (DeepSeek-V3's 128 x 128; shape (ceil(N / block), ceil(K / block)), row-major: the scale_b of the block-wise
    GEMM, ``tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=scales)``). Each block's scale is its amax over 448 (1 for a
    block of zeros), worked out with torch ops; the kernel of :func:`quantize_fp8` then divides by it. Bitwise
    :func:`quantize_blocks_reference`."""
    _check(w, block)
    w = _on_gpu(w)
    scales = _block_scales(w, block)
    if w.numel() == 0:
        return torch.empty(w.shape, dtype=torch.float8_e4m3fn, device=w.device), scales
    return _launch(w, block, scales, given_rows=block), scales


def _on_gpu(x: torch.Tensor) -> torch.Tensor:
    if not x.is_cuda:
        raise ValueError("x is on the CPU; quantize_fp8 runs on CUDA tensors (tcgemm.quantize.quantize_reference "
                         "computes the same in torch ops anywhere)")
    return x.contiguous() if x.stride(1) != 1 and x.shape[1] > 1 else x


def _block_scales(w: torch.Tensor, block: int) -> torch.Tensor:
    rows, cols = w.shape
    nb, kb = -(-rows // block), -(-cols // block)
    padded = torch.nn.functional.pad(w.float(), (0, kb * block - cols, 0, nb * block - rows))
    amax = padded.abs().reshape(nb, block, kb, block).amax(dim=(1, 3))
    # (a tensor divisor: torch divides by a Python number as a multiply by its reciprocal on the GPU, one ulp apart)
    return torch.where(amax > 0, amax / torch.full_like(amax, E4M3_MAX), torch.ones_like(amax))


def quantize_blocks_reference(w: torch.Tensor, block: int = SCALE_BLOCK) -> tuple[torch.Tensor, torch.Tensor]:
    """The formula of :func:`quantize_fp8_blocks` in torch ops (any device), bit for bit."""
    _check(w, block)
    scales = _block_scales(w, block)
    rows, cols = w.shape
    per_elem = scales.repeat_interleave(block, 0)[:rows].repeat_interleave(block, 1)[:, :cols]
    return (w.float() / per_elem).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn), scales


def _launch(x: torch.Tensor, g: int, scales: torch.Tensor, given_rows: int = 0) -> torch.Tensor:
    """The kernel over x's groups of g: scales written (given_rows 0) or read, one per given_rows rows and group."""
    from . import driver, jit

    rows, cols = x.shape
    groups = -(-cols // g)
    q = torch.empty(rows, cols, dtype=torch.float8_e4m3fn, device=x.device)
    device = x.device.index if x.device.index is not None else torch.cuda.current_device()
    kernel = _kernel(x.dtype, device)
    cc = jit._cuda_core()
    vec = 16 // x.element_size()  # (kernels/util/quantize_fp8.cu: VEC elements a 16-byte load)
    vectors = (x.data_ptr() % 16 == 0 and (x.stride(0) * x.element_size()) % 16 == 0 and g % vec == 0
               and cols % vec == 0)
    lanes = 32  # lanes per group, as the kernel works it out: fewer for a group of one vector a lane or less
    while vectors and lanes > 1 and (lanes // 2) * vec >= g:
        lanes //= 2
    blocks = -(-(rows * groups) // (_WARPS * (32 // lanes)))
    config = cc.LaunchConfig(grid=(blocks, 1, 1), block=(32 * _WARPS, 1, 1))
    stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
    given = scales if given_rows else None
    cc.launch(stream, config, kernel, x.data_ptr(), np.int64(x.stride(0)), q.data_ptr(), np.int64(cols),
              0 if given_rows else scales.data_ptr(), np.int64(scales.stride(0)), np.int64(scales.stride(1)),
              np.int32(rows), np.int32(cols), np.int32(g), np.int32(vectors),
              given.data_ptr() if given is not None else 0, np.int64(scales.stride(0)), np.int32(max(given_rows, 1)))
    return q
