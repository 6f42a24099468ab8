"""``tcgemm.grouped_gemm``: one GEMM per expert of a mixture-of-experts layer, in one persistent launch.

    y = tcgemm.grouped_gemm(x, w.transpose(1, 2), counts)   # x (E, M, K), w (E, N, K) as stored, counts (E,) int32
    y = tcgemm.grouped_gemm(x, w.transpose(1, 2), offsets=offs)  # x (T, K): expert e's rows offs[e-1]..offs[e]

The **masked** layout (decode, and any routing whose counts stay on the GPU): ``a`` (E, M, K) holds expert e's tokens
in its first ``counts[e]`` rows, padded to a common M; ``b`` (E, K, N) the experts' weights (a transposed view of the
(E, N, K) weights as they are stored, or an (E, K, N) tensor); ``counts`` an int32 CUDA tensor of E row counts that
the host never reads: no synchronisation, and a CUDA graph captures the call once for every routing. The result
``d`` (E, M, N) holds each expert's ``counts[e]`` rows; the rows past them are unspecified (the kernel skips whole
tiles past a count and writes the rest of a partial tile from a's padding). Without ``counts`` every row counts:
the batched GEMM ``a @ b``.

The **contiguous** layout (prefill and training, tokens sorted by expert): ``a`` (T, K) holds every expert's tokens,
expert e's the rows ``offsets[e - 1]`` (0 for e = 0) up to ``offsets[e]`` (int32 CUDA tensor of E nondecreasing ends,
as ``torch._grouped_mm`` takes them; segments of any length, 0 and 1 included); ``b`` (E, K, N) as above; the result
``d`` (T, N) holds each expert's rows. Rows past ``offsets[-1]`` are not written (unspecified in a new ``d``); ends past
T count as T. The kernel reads each segment where it lies and writes exactly its rows (a tile that reaches past a
segment's end writes its rows up to there and no further): nothing is padded or copied, the host reads no offset, and a
CUDA graph captures the call once for every routing. bf16, fp16 or block-scaled fp8 (16-bit or fp32 out).

fp8 e4m3 experts take DeepSeek-V3's block-wise scales (tcgemm.scales), ``scale_b`` (E, ceil(N/128), ceil(K/128)) per
expert and ``scale_a`` per token and 128-deep k-group: (E, M, ceil(K/128)) masked, (T, ceil(K/128)) contiguous
(``tcgemm.quantize_fp8(x, group=128)``'s layout is read in place, others are copied), on the K-major kernel's
block-scaled builds (kernels/include/block_scales.cuh), bf16 out by default:

    y = tcgemm.grouped_gemm(x8, w8.transpose(1, 2), counts, scale_a=sx, scale_b=sw)             # masked
    y = tcgemm.grouped_gemm(x8, w8.transpose(1, 2), offsets=offs, scale_a=sx, scale_b=sw)       # contiguous

The kernel is the production Hopper kernel walking only the tiles that hold tokens (kernels/include/group_rows.cuh:
a one-CTA kernel launched first turns the counts into the walk's prefix, kernels/util/group_prefix.cu), on the
configs marked for it (``tcgemm list``); bf16 or fp16 inputs (or block-scaled fp8), 16-bit or fp32 out. A call
with the signature of an earlier one (shapes, strides, dtypes, alignment, options) reuses its plan: it skips the
description and the config choice, and builds the tensor maps and launches (the prefix kernel, then the GEMM).
"""

from __future__ import annotations

from functools import lru_cache

import torch

from . import launch, registry
from .problem import GemmProblem, _overlaps, describe
from .scales import FP8_DTYPES, kernel_block_scales


def grouped_gemm(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor | None = None, *,
                 offsets: torch.Tensor | None = None,
                 scale_a: torch.Tensor | None = None, scale_b: torch.Tensor | None = None,
                 out: torch.Tensor | None = None, out_dtype: torch.dtype | None = None, kernel: str = "auto",
                 config: str | None = None) -> torch.Tensor:
    """``d[e, :counts[e]] = a[e, :counts[e]] @ b[e]`` for every expert e (masked), or, with ``offsets`` instead of
    ``counts``, ``d[s:t] = a[s:t] @ b[e]`` for each expert's segment s = offsets[e - 1], t = offsets[e] (contiguous;
    see the module). fp8 e4m3 ``a`` and ``b`` take block-wise scales (tcgemm.scales) per expert: ``scale_a``
    (E, M, ceil(K/128)) masked or (T, ceil(K/128)) contiguous, ``scale_b`` (E, ceil(N/128), ceil(K/128)); bf16 out by
    default."""
    from . import api

    if offsets is not None:
        if counts is not None:
            raise ValueError("give counts (masked: a (E, M, K)) or offsets (contiguous: a (T, K)), not both")
        return _contiguous(a, b, offsets, out, out_dtype, kernel, config, scale_a, scale_b)
    block = a.dtype in FP8_DTYPES if isinstance(a, torch.Tensor) else False
    if counts is None and not block:
        return api._gemm(a, b, out=out, out_dtype=out_dtype, kernel=kernel, config=config)
    if counts is None:
        raise ValueError("block-scaled fp8 grouped_gemm takes counts (an int32 tensor of rows per expert; pass "
                         "torch.full((E,), M, dtype=torch.int32, device=a.device) for every row)")
    _check(a, b, counts, scale_a, scale_b)
    device = api._check_devices(a=a, b=b, out=out, counts=counts, scale_a=scale_a, scale_b=scale_b)
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = api.device_info(index)
    sms = api.usable_sms(sms)
    key = _signature("masked", a, b, out, out_dtype, kernel, config, sms, block)
    scales = kernel_block_scales(scale_a, scale_b) if block else (None, None)  # type: ignore[arg-type]
    hit = _PLANS.get(key) if not _overlapping(out, a, b) else None
    if hit is not None:  # (the same call as before: its plan, launched on these tensors)
        problem, p, walk = hit
        d = out if out is not None else torch.empty((problem.batch, problem.m, problem.n), dtype=problem.out_dtype,
                                                    device=device)
        launch.run(p, problem, a, b, None, d, arch, scales=scales, group_rows=group_prefix(counts, problem.m, *walk))
        return d
    args = dict(alpha=1.0, beta=0.0, out=out, out_dtype=out_dtype, precision=None, grouped=1, block_scales=block)
    problem, t = describe(a, b, None, **args)
    d = out if out is not None else torch.empty((problem.batch, problem.m, problem.n), dtype=problem.out_dtype,
                                                device=device)
    if d.numel() == 0:
        return d
    if problem.k == 0:
        return d.zero_()
    a0, b0 = a, b
    a, b, problem, t, spec, cfg = api.resolve(a, b, None, problem, t, args, arch_cc, sms, kernel, config)
    p = launch.plan(problem, spec, cfg, sms)
    walk = (cfg["BLOCK_M"], spec.cluster_shape(cfg)[0])  # (row tiles, CTAs along M: group_rows.cuh)
    if t["a"] is a0 and t["b"] is b0:  # (nothing staged: the next call with this signature reuses the plan)
        _remember(key, (problem, p, walk))
    launch.run(p, problem, t["a"], t["b"], None, d, arch, scales=scales,
               group_rows=group_prefix(counts, problem.m, *walk))
    return d


# The contiguous layout at 64-191 tokens per expert (the experts' weights stream from DRAM for a tile row or two each):
# 128 x 128 tiles in clusters of two ran 1.04-1.26x torch._grouped_mm at 128 tokens per expert where the estimate's
# 128 x 256 ran 0.97-1.04x and its per-expert pick, 128 x 64, 0.89-0.94x
# (2026-11-27-h100-grouped-contiguous-128-*-96c3694.json against ...-grouped-contiguous-7a1c424.json).
_MID_TILES = {"bf16": ("wgmma_tma_store", "128x128x64"), "fp16": ("wgmma_tma_store", "128x128x64")}

# Plans of earlier calls, by their signature (_signature): a repeated call (an MoE layer in a decode loop) skips the
# description, the config choice and the plan, tens of microseconds of host work, and launches at once.
_PLANS: dict[tuple, tuple] = {}
_PLANS_MAX = 256


def _signature(layout: str, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None, *rest: object) -> tuple:
    """What a grouped call's plan depends on: the operands' shapes, strides, dtypes, devices and 16-byte alignment
    (not their addresses: the tensor maps are encoded per launch), the out's, and the call's options."""
    def of(x: torch.Tensor | None) -> tuple | None:
        return None if x is None else (tuple(x.shape), x.stride(), x.dtype, x.device, x.data_ptr() % 16)
    return (layout, of(a), of(b), of(out), *rest)


def _overlapping(out: torch.Tensor | None, a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether ``out`` shares memory with an operand (the full path then raises, naming it)."""
    return out is not None and (_overlaps(out, a) or _overlaps(out, b))


def _remember(key: tuple, plan: tuple) -> None:
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[key] = plan


def _contiguous(a: torch.Tensor, b: torch.Tensor, offsets: torch.Tensor, out: torch.Tensor | None,
                out_dtype: torch.dtype | None, kernel: str, config: str | None,
                scale_a: torch.Tensor | None = None, scale_b: torch.Tensor | None = None) -> torch.Tensor:
    """The contiguous layout (GROUP_ROWS = 2, kernels/include/group_rows.cuh): a (T, K), b (E, K, N), d (T, N);
    block-scaled fp8 with scale_a (T, KB) and scale_b (E, NB, KB)."""
    import dataclasses

    from . import api

    _check_contiguous(a, b, offsets, out, scale_a, scale_b)
    block = a.dtype in FP8_DTYPES
    device = api._check_devices(a=a, b=b, out=out, offsets=offsets, scale_a=scale_a, scale_b=scale_b)
    out_dtype = out.dtype if out is not None else out_dtype
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = api.device_info(index)
    sms = api.usable_sms(sms)
    key = _signature("contiguous", a, b, out, out_dtype, kernel, config, sms, block)
    scales = kernel_block_scales(scale_a, scale_b) if block else (None, None)  # type: ignore[arg-type]
    hit = _PLANS.get(key)  # (an out overlapping a or b was refused above)
    if hit is not None:  # (the same call as before: its plan, launched on these tensors)
        problem, p, walk = hit
        d = out if out is not None else torch.empty((problem.m, problem.n), dtype=problem.out_dtype, device=device)
        launch.run(p, problem, a, b, None, d, arch, scales=scales,
                   group_rows=group_prefix(offsets, problem.m, *walk, contiguous=True))
        return d
    args = dict(alpha=1.0, beta=0.0, out=None, out_dtype=out_dtype, precision=None, grouped=2, block_scales=block)
    problem, t = describe(a, b, None, **args)  # (batch E, A broadcast; D made 2-D below)
    tokens, n = problem.m, problem.n
    d = out if out is not None else torch.empty((tokens, n), dtype=problem.out_dtype, device=device)
    if d.numel() == 0:
        return d
    if problem.k == 0:
        return d.zero_()
    if kernel == "auto" and config is None:
        kernel, config = contiguous_pick(problem, arch_cc, sms)
    a0, b0 = a, b
    a, b, problem, t, spec, cfg = api.resolve(a, b, None, problem, t, args, arch_cc, sms, kernel, config)
    problem = dataclasses.replace(problem, d_ld=d.stride(0) if tokens > 1 else n, d_batch_stride=0)  # one D
    p = launch.plan(problem, spec, cfg, sms)
    walk = (cfg["BLOCK_M"], spec.cluster_shape(cfg)[0])  # (row tiles, CTAs along M: group_rows.cuh)
    if t["a"] is a0 and t["b"] is b0:
        _remember(key, (problem, p, walk))
    launch.run(p, problem, t["a"], t["b"], None, d, arch, scales=scales,
               group_rows=group_prefix(offsets, tokens, *walk, contiguous=True))
    return d


# The walk grouped launches take (kernels/include/group_rows.cuh): "auto" (the prefix kernel's rule, from the counts on
# the GPU), "entries" or "pairs"; a knob for measuring the two (benchmarks/probes/grouped_walk_ab.py).
WALK = "auto"
_WALKS = {"auto": 0, "entries": 1, "pairs": 2}


def contiguous_pick(problem: GemmProblem, arch_cc: int, sms: int) -> tuple[str, str]:
    """(kernel, config) auto runs a contiguous grouped problem (E experts, T rows) on. The estimate sees E experts of
    T / E rows where that is under 64 (decode: each expert a tile row of its own), else the T rows as one GEMM's
    (prefill: skewed counts up to several times T / E fill wide tiles; 128 x 64 picked from T / E = 128 ran 0.81x of
    torch._grouped_mm where the masked call's 128 x 256 ran 1.14x, 2026-11-26-h100-grouped-contiguous-c746adb.json
    against ...-grouped-a9634a7.json); 16-bit experts of 64-191 rows take _MID_TILES."""
    import dataclasses

    from . import dispatch

    per_expert = -(-problem.m // problem.batch)
    proxy = dataclasses.replace(problem, m=per_expert) if per_expert < 64 else dataclasses.replace(problem, batch=1)
    spec, cfg = dispatch.select(proxy, arch_cc, sms, "auto", None)
    mid = _MID_TILES.get(problem.precision)
    if mid and 64 <= per_expert < 192 and arch_cc >= 90 and any(c.name == mid[1] for c in registry.get(mid[0]).configs):
        return mid
    return spec.name, cfg.name


def group_prefix(counts: torch.Tensor, rows: int, tile_rows: int, cluster_m: int = 1,
                 contiguous: bool = False) -> torch.Tensor:
    """The grouped walk's prefix (kernels/util/group_prefix.cu), int32: the row tiles per expert as a prefix sum
    (tiles[0] = 0, tiles[z + 1] = tiles[z] + ceil(min(max(counts[z], 0), rows) / tile_rows)); ``contiguous`` only,
    the segment bounds 0, end[0], ..., end[E - 1] (``counts`` holds the segments' ends, clamped to [0, rows]; each
    count is an end minus the one before); the cluster rows (cluster_m x tile_rows) per expert likewise; the walk
    (1: pairs of row tiles, 0: by expert). By one small kernel on the current stream (capturable); in torch ops
    where counts are not on a GPU (the reference)."""
    walk = _WALKS[WALK]
    if not counts.is_cuda:
        ends = counts.long().clamp(0, rows)
        if contiguous:
            starts = torch.cat([ends.new_zeros(1), ends[:-1]])
            ends = torch.maximum(ends, starts)
            count = ends - starts
        else:
            count = ends
        zero = count.new_zeros(1)
        tiles = torch.cat([zero, ((count + tile_rows - 1) // tile_rows).cumsum(0)])
        units = torch.cat([zero, ((count + tile_rows * cluster_m - 1) // (tile_rows * cluster_m)).cumsum(0)])
        pairs = walk == 2 or (walk == 0 and int(units[-1]) * cluster_m > int(tiles[-1]))
        parts = [tiles, zero, ends] if contiguous else [tiles]
        return torch.cat([*parts, units, zero + int(pairs)]).to(torch.int32)
    import numpy as np

    from . import driver, jit

    experts = counts.numel()
    prefix = torch.empty((3 if contiguous else 2) * (experts + 1) + 1, dtype=torch.int32, device=counts.device)
    device = counts.device.index if counts.device.index is not None else torch.cuda.current_device()
    cc = jit._cuda_core()
    kernel = _prefix_kernel(device)
    stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
    cc.launch(stream, cc.LaunchConfig(grid=(1, 1, 1), block=(1024, 1, 1)), kernel, counts.data_ptr(),
              np.int32(experts), np.int32(rows), np.int32(tile_rows), np.int32(cluster_m), prefix.data_ptr(),
              np.int32(1 if contiguous else 0), np.int32(walk))
    return prefix


PREFIX_DEFINES = (("TCGEMM_GROUP_PREFIX", "1"),)  # (NVRTC takes no empty define list)


@lru_cache(maxsize=8)
def _prefix_kernel(device: int) -> object:
    from . import jit

    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    return jit.load_kernel("util/group_prefix.cu", "group_prefix", PREFIX_DEFINES, arch, device)


def _check_contiguous(a: torch.Tensor, b: torch.Tensor, offsets: torch.Tensor, out: torch.Tensor | None,
                      scale_a: torch.Tensor | None = None, scale_b: torch.Tensor | None = None) -> None:
    if not isinstance(a, torch.Tensor) or a.dim() != 2:
        raise ValueError(f"with offsets, a must be 2-D (T, K): every expert's tokens, expert by expert; got "
                         f"{tuple(a.shape) if isinstance(a, torch.Tensor) else type(a).__name__} (3-D a (E, M, K): "
                         "pass counts instead)")
    if not isinstance(b, torch.Tensor) or b.dim() != 3:
        raise ValueError(f"b must be 3-D (E, K, N), one weight per expert (w.transpose(1, 2) of (E, N, K) weights); "
                         f"got {tuple(b.shape) if isinstance(b, torch.Tensor) else type(b).__name__}")
    if a.dtype not in (torch.bfloat16, torch.float16, torch.float8_e4m3fn) or b.dtype != a.dtype:
        raise TypeError(f"contiguous grouped_gemm takes bf16, fp16 or (block-scaled) float8_e4m3fn a and b of one "
                        f"dtype; got {a.dtype} and {b.dtype}")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"a has K = {a.shape[1]} and b K = {b.shape[1]}")
    experts = b.shape[0]
    _check_scales(a.dtype, scale_a, scale_b, (a.shape[0],), experts, b.shape[2], a.shape[1])
    if not isinstance(offsets, torch.Tensor) or offsets.dtype != torch.int32 or tuple(offsets.shape) != (experts,):
        got = f"{offsets.dtype} {tuple(offsets.shape)}" if isinstance(offsets, torch.Tensor) else type(offsets).__name__
        raise ValueError(f"offsets must be an int32 tensor of each expert's end row, shape ({experts},) "
                         f"(torch._grouped_mm's offs: e.g. torch.cumsum(counts, 0, dtype=torch.int32)); got {got}")
    if offsets.stride(0) != 1 and experts > 1:
        raise ValueError("offsets must be contiguous; pass offsets.contiguous()")
    if out is not None:
        shape = (a.shape[0], b.shape[2])
        if tuple(out.shape) != shape or out.stride(-1) != 1:
            raise ValueError(f"out must be a row-major {shape} tensor (T x N); got {tuple(out.shape)} with strides "
                             f"{tuple(out.stride())}")
        if _overlapping(out, a, b):
            raise ValueError("out shares memory with a or b (the kernel would read what it overwrites); "
                             "pass another out")


def _check(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor, scale_a: torch.Tensor | None,
           scale_b: torch.Tensor | None) -> None:
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor) or t.dim() != 3:
            raise ValueError(f"{name} must be a 3-D tensor (experts first): a (E, M, K), b (E, K, N); got "
                             f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"a has {a.shape[0]} experts and b {b.shape[0]}; give one weight per expert")
    if a.dtype not in (torch.bfloat16, torch.float16, torch.float8_e4m3fn) or b.dtype != a.dtype:
        raise TypeError(f"grouped_gemm takes bf16, fp16 or (block-scaled) float8_e4m3fn a and b of one dtype; got "
                        f"{a.dtype} and {b.dtype}")
    experts, m, k = a.shape
    _check_scales(a.dtype, scale_a, scale_b, (experts, m), experts, b.shape[2], k)
    if not isinstance(counts, torch.Tensor) or counts.dtype != torch.int32 or tuple(counts.shape) != (a.shape[0],):
        raise ValueError(f"counts must be an int32 tensor of one row count per expert, shape ({a.shape[0]},); got "
                         f"{counts.dtype if isinstance(counts, torch.Tensor) else type(counts).__name__} "
                         f"{tuple(counts.shape) if isinstance(counts, torch.Tensor) else ''}".rstrip())
    if counts.stride(0) != 1 and counts.numel() > 1:
        raise ValueError("counts must be contiguous; pass counts.contiguous()")


def _check_scales(dtype: torch.dtype, scale_a: torch.Tensor | None, scale_b: torch.Tensor | None,
                  rows: tuple[int, ...], experts: int, n: int, k: int) -> None:
    """fp8 experts take block-wise float32 scales: scale_a ``rows`` + (KB,) (masked (E, M, KB), contiguous (T, KB)),
    scale_b (E, NB, KB); 16-bit experts none."""
    if dtype == torch.float8_e4m3fn:
        kb, nb = -(-k // 128), -(-n // 128)
        for name, s, shape in (("scale_a", scale_a, (*rows, kb)), ("scale_b", scale_b, (experts, nb, kb))):
            if not isinstance(s, torch.Tensor) or s.dtype != torch.float32 or tuple(s.shape) != shape:
                got = f"{s.dtype} {tuple(s.shape)}" if isinstance(s, torch.Tensor) else type(s).__name__
                raise ValueError(f"fp8 grouped_gemm takes block-wise float32 scales: {name} of shape {shape} "
                                 f"(scale_a per row of a and 128-deep k-block, scale_b per expert and 128 x 128 "
                                 f"block of the weight); got {got}")
    elif scale_a is not None or scale_b is not None:
        raise ValueError("scale_a / scale_b apply to fp8 grouped GEMMs; bf16 and fp16 take none")
