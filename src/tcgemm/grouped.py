"""``tcgemm.grouped_gemm``: one GEMM per expert of a mixture-of-experts layer, in one persistent launch.

    y = tcgemm.grouped_gemm(x, w.transpose(1, 2), counts)   # x (E, M, K), w (E, N, K) as stored, counts (E,) int32

The **masked** layout (decode, and any routing whose counts stay on the GPU): ``a`` (E, M, K) holds expert e's tokens
in its first ``counts[e]`` rows, padded to a common M; ``b`` (E, K, N) the experts' weights (a transposed view of the
(E, N, K) weights as they are stored, or an (E, K, N) tensor); ``counts`` an int32 CUDA tensor of E row counts that
the host never reads: no synchronisation, and a CUDA graph captures the call once for every routing. The result
``d`` (E, M, N) holds each expert's ``counts[e]`` rows; the rows past them are unspecified (the kernel skips whole
tiles past a count and writes the rest of a partial tile from a's padding). Without ``counts`` every row counts:
the batched GEMM ``a @ b``.

The kernel is the production Hopper kernel walking only the tiles that hold tokens (kernels/include/group_rows.cuh:
a one-CTA kernel launched first turns the counts into the walk's prefix, kernels/util/group_prefix.cu), on the
configs marked for it (``tcgemm list``); bf16 or fp16 inputs, 16-bit or fp32 out. Each call takes the full host path
(no prepared repeat path yet): tens of microseconds of host work.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from . import launch
from .problem import describe


def grouped_gemm(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor | None = None, *,
                 out: torch.Tensor | None = None, out_dtype: torch.dtype | None = None, kernel: str = "auto",
                 config: str | None = None) -> torch.Tensor:
    """``d[e, :counts[e]] = a[e, :counts[e]] @ b[e]`` for every expert e (see the module)."""
    from . import api

    if counts is None:
        return api._gemm(a, b, out=out, out_dtype=out_dtype, kernel=kernel, config=config)
    _check(a, b, counts)
    device = api._check_devices(a=a, b=b, out=out, counts=counts)
    args = dict(alpha=1.0, beta=0.0, out=out, out_dtype=out_dtype, precision=None, grouped=True)
    problem, t = describe(a, b, None, **args)
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = api.device_info(index)
    sms = api.usable_sms(sms)
    d = out if out is not None else torch.empty((problem.batch, problem.m, problem.n), dtype=problem.out_dtype,
                                                device=device)
    if d.numel() == 0:
        return d
    if problem.k == 0:
        return d.zero_()
    a, b, problem, t, spec, cfg = api.resolve(a, b, None, problem, t, args, arch_cc, sms, kernel, config)
    p = launch.plan(problem, spec, cfg, sms)
    unit_rows = spec.cluster_shape(cfg)[0] * cfg["BLOCK_M"]
    launch.run(p, problem, t["a"], t["b"], None, d, arch, group_rows=group_prefix(counts, problem.m, unit_rows))
    return d


def group_prefix(counts: torch.Tensor, rows: int, unit_rows: int) -> torch.Tensor:
    """The grouped walk's prefix (kernels/util/group_prefix.cu): int32, prefix[0] = 0 and prefix[z + 1] = prefix[z] +
    ceil(min(max(counts[z], 0), rows) / unit_rows), by one small kernel on the current stream (capturable); in torch
    ops where counts are not on a GPU (the reference)."""
    if not counts.is_cuda:
        units = (counts.long().clamp(0, rows) + unit_rows - 1) // unit_rows
        return torch.cat([units.new_zeros(1), units.cumsum(0)]).to(torch.int32)
    import numpy as np

    from . import driver, jit

    prefix = torch.empty(counts.numel() + 1, dtype=torch.int32, device=counts.device)
    device = counts.device.index if counts.device.index is not None else torch.cuda.current_device()
    cc = jit._cuda_core()
    kernel = _prefix_kernel(device)
    stream = driver._stream(torch.cuda.current_stream(device).cuda_stream, device)
    cc.launch(stream, cc.LaunchConfig(grid=(1, 1, 1), block=(1024, 1, 1)), kernel, counts.data_ptr(),
              np.int32(counts.numel()), np.int32(rows), np.int32(unit_rows), prefix.data_ptr())
    return prefix


PREFIX_DEFINES = (("TCGEMM_GROUP_PREFIX", "1"),)  # (NVRTC takes no empty define list)


@lru_cache(maxsize=8)
def _prefix_kernel(device: int) -> object:
    from . import jit

    arch = jit.target_arch(torch.cuda.get_device_capability(device))
    return jit.load_kernel("util/group_prefix.cu", "group_prefix", PREFIX_DEFINES, arch, device)


def _check(a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor) -> None:
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor) or t.dim() != 3:
            raise ValueError(f"{name} must be a 3-D tensor (experts first): a (E, M, K), b (E, K, N); got "
                             f"{tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"a has {a.shape[0]} experts and b {b.shape[0]}; give one weight per expert")
    if a.dtype not in (torch.bfloat16, torch.float16) or b.dtype != a.dtype:
        raise TypeError(f"grouped_gemm takes bf16 or fp16 a and b of one dtype; got {a.dtype} and {b.dtype}")
    if not isinstance(counts, torch.Tensor) or counts.dtype != torch.int32 or tuple(counts.shape) != (a.shape[0],):
        raise ValueError(f"counts must be an int32 tensor of one row count per expert, shape ({a.shape[0]},); got "
                         f"{counts.dtype if isinstance(counts, torch.Tensor) else type(counts).__name__} "
                         f"{tuple(counts.shape) if isinstance(counts, torch.Tensor) else ''}".rstrip())
    if counts.stride(0) != 1 and counts.numel() > 1:
        raise ValueError("counts must be contiguous; pass counts.contiguous()")
