"""The public entry: gemm() and matmul().

validate -> describe the problem -> select a kernel -> launch. Everything that
can go wrong with the arguments raises here, before anything is launched or
written.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from . import launch, registry
from .dispatch import select
from .jit import target_arch
from .problem import describe

_INT32_MAX = 2**31 - 1


@lru_cache(maxsize=16)
def device_info(index: int) -> tuple[int, int, str]:
    """(compute capability * 10, SM count, NVRTC arch) of CUDA device ``index``."""
    props = torch.cuda.get_device_properties(index)
    arch = target_arch((props.major, props.minor))
    return props.major * 10 + props.minor, props.multi_processor_count, arch


def _check_devices(**tensors: torch.Tensor | None) -> torch.device:
    present = {name: t for name, t in tensors.items() if isinstance(t, torch.Tensor)}
    for name, t in present.items():
        if t.device.type != "cuda":
            hint = "move it with .cuda()" if torch.cuda.is_available() else "this machine has no CUDA GPU"
            raise ValueError(f"{name} is on {t.device}; tcgemm runs on CUDA tensors only ({hint})")
    devices = {t.device for t in present.values()}
    if len(devices) > 1:
        where = ", ".join(f"{n} on {t.device}" for n, t in present.items())
        raise ValueError(f"tensors are on different devices ({where}); put them on one GPU")
    return next(iter(devices))


def gemm(
    a: torch.Tensor,
    b: torch.Tensor,
    c: torch.Tensor | None = None,
    *,
    alpha: float = 1.0,
    beta: float = 0.0,
    out: torch.Tensor | None = None,
    out_dtype: torch.dtype | None = None,
    precision: str | None = None,
    kernel: str = "auto",
    config: str | None = None,
) -> torch.Tensor:
    """``D = alpha * a @ b + beta * c`` on the GPU with a hand-written kernel.

    a: (M, K) or (batch, M, K); b: (K, N) or (batch, K, N); a batch of 1 (or a
    2-D operand) broadcasts. Row- and column-major operands, and slices of wider
    tensors, are read in place. c broadcasts to the output (a bias row (N,) or
    column (M, 1) works) and is only read when beta != 0. out, if given, must be
    row- or column-major and must not overlap a or b (out may be c itself).
    precision: None (from the dtype: float32 -> exact "fp32") or "tf32" for
    float32 inputs on tensor cores. kernel: "auto" or a name from
    :func:`tcgemm.kernels`; config: a tile config name of that kernel.
    """
    device = _check_devices(a=a, b=b, c=c, out=out)
    problem, t = describe(a, b, c, alpha=alpha, beta=beta, out=out, out_dtype=out_dtype, precision=precision)
    if max(problem.m, problem.n, problem.k) > _INT32_MAX:
        raise ValueError(f"dimensions must stay below 2**31; got M={problem.m}, N={problem.n}, K={problem.k}")
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = device_info(index)
    spec, cfg = select(problem, arch_cc, sms, kernel, config)

    d = out
    if d is None:
        shape = (problem.batch, problem.m, problem.n) if max(a.dim(), b.dim()) == 3 else (problem.m, problem.n)
        d = torch.empty(shape, dtype=problem.out_dtype, device=device)
    if d.numel() == 0:
        return d
    if problem.k == 0:  # no products: D = beta * C (or zeros)
        if problem.c_strides is not None and c is not None:
            d.copy_((c * problem.beta).expand(d.shape))
        else:
            d.zero_()
        return d
    p = launch.plan(problem, spec, cfg, sms)
    launch.run(p, problem, t["a"], t["b"], t["c"], d, arch)
    return d


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` through :func:`gemm`, like :func:`torch.matmul` for 2-D and 3-D inputs."""
    return gemm(a, b)


def kernels() -> list[dict[str, object]]:
    """The ladder: one record per kernel (name, technique, precisions, arch, configs, seed)."""
    return [
        {
            "name": s.name,
            "family": s.family,
            "stage": s.stage,
            "technique": s.technique,
            "precisions": list(s.precisions),
            "min_arch": f"sm_{s.min_arch}",
            "configs": [c.describe() for c in s.configs],
            "needs": ("16-byte aligned A and B for TMA (else kernel='auto' falls back)" if s.requires_aligned16
                      else "16-byte alignment for float4 loads (else scalar)" if s.vector_loads else "none"),
            "source": s.source,
            "seed": s.seed,
        }
        for s in registry.all_specs()
    ]
