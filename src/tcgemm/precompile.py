"""``tcgemm.warmup``: prepare every kernel build a set of GEMM shapes can run, before CUDA graph capture.

A GEMM captured in a CUDA graph (``torch.cuda.graph``, ``torch.compile(mode="reduce-overhead")``, a
serving engine's decode graphs) must not compile, load, allocate from the host or synchronise while
the stream is capturing. tcgemm does all of that on the *first* call of a kernel build: NVRTC compiles
the build (or reads it from the disk cache), the driver loads it, and split-K / tail-split / GPC_ORDER
configs make their scratch memory (tcgemm.launch). A call that ran once before capture, with any M,
has done it for its build; but ``auto`` picks the tile config by M, so a model that captures one
graph per batch size would meet new builds inside capture.

``warmup(layers, max_m)`` walks M from 1 to ``max_m`` on meta tensors (no GPU work), groups the Ms by
the (kernel, config, build) ``auto`` picks, and runs one real call per group at its largest M — which
compiles and loads the build, measures the GPU's SM placement (GPC_ORDER), and sizes the scratch for
captured launches. After it, capturing any of those calls at any M up to ``max_m`` prepares nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import torch

from . import api, launch
from .problem import describe


@dataclass(frozen=True)
class LayerShape:
    """One GEMM a model runs with M tokens: ``x (M, K) @ weight.T (K, N) + bias``, as nn.Linear calls it."""

    k: int
    n: int
    dtype: torch.dtype
    bias: bool = False
    precision: str | None = None


def _m_candidates(max_m: int) -> list[int]:
    """Every M up to 256, then each 64-row step's ends: tile counts (BLOCK_M of 64, 128, 256) and the
    tuner's power-of-two classes change only at multiples of 64 there, so these cover every choice."""
    ms = set(range(1, min(max_m, 256) + 1))
    for top in range(320, max_m + 64, 64):
        ms.update((min(top - 63, max_m), min(top, max_m)))
    return sorted(m for m in ms if m <= max_m)


def builds_for(layer: LayerShape, max_m: int, device: int) -> dict[tuple, int]:
    """(kernel, config, defines) -> the largest M (<= max_m) for which ``auto`` runs that build."""
    arch_cc, sms, _arch = api.device_info(device)
    w = torch.empty(layer.n, layer.k, dtype=layer.dtype, device="meta")
    bias = torch.empty(layer.n, dtype=layer.dtype, device="meta") if layer.bias else None
    args = dict(beta=1.0 if layer.bias else 0.0, precision=layer.precision)
    found: dict[tuple, int] = {}
    for m in _m_candidates(max_m):
        x = torch.empty(m, layer.k, dtype=layer.dtype, device="meta")
        problem, t = describe(x, w.t(), bias, **args)
        _a, _b, problem, _t, spec, cfg = api.resolve(x, w.t(), bias, problem, t, args, arch_cc, sms)
        key = (spec.name, cfg.name, launch.plan(problem, spec, cfg, sms).defines)
        found[key] = max(found.get(key, 0), m)
    return found


def warmup(layers: Iterable[LayerShape], max_m: int = 8192, device: int | None = None,
           progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Compile, load and prepare every build ``auto`` runs for ``layers`` at any M in 1..max_m; returns the
    "kernel:config" labels prepared. Run it once before capturing CUDA graphs (no GPU work is captured).
    ``progress(done, total)`` is called after each real call."""
    if max_m < 1:
        raise ValueError(f"max_m={max_m}: give the largest token count (M) the graphs will be captured for")
    index = torch.cuda.current_device() if device is None else device
    plans: list[tuple[LayerShape, int]] = []
    labels: set[str] = set()
    for layer in dict.fromkeys(layers):
        for (kernel, config, _defines), m in builds_for(layer, max_m, index).items():
            plans.append((layer, m))
            labels.add(f"{kernel}:{config}")
    if torch.cuda.is_current_stream_capturing():
        raise RuntimeError("tcgemm.warmup runs kernels: call it before capture, not inside it")
    with torch.cuda.device(index), torch.inference_mode():
        for i, (layer, m) in enumerate(plans):
            x = torch.randn(m, layer.k, device="cuda").to(layer.dtype)
            w = torch.randn(layer.n, layer.k, device="cuda").to(layer.dtype)
            bias = torch.randn(layer.n, device="cuda").to(layer.dtype) if layer.bias else None
            api._gemm(x, w.t(), bias, beta=1.0 if layer.bias else 0.0, precision=layer.precision)
            if progress:
                progress(i + 1, len(plans))
        torch.cuda.synchronize()
    return sorted(labels)
