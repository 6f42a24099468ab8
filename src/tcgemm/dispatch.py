"""Choose a (KernelSpec, TileConfig) for a GemmProblem.

Constraints filter (precision, architecture), a heuristic orders: the
highest ladder stage of the fastest family that serves the problem, with the
tile config picked by shape class. Selection depends only on a few
properties of the problem, so its result is memoised.
"""

from __future__ import annotations

from functools import lru_cache

from . import registry, tma
from .problem import GemmProblem
from .registry import KernelSpec, TileConfig

# Families in the order auto prefers them, fastest first.
_FAMILY_ORDER = ("hopper", "mma_sync", "wmma", "simt")


class KernelUnavailable(ValueError):
    """The requested kernel cannot serve this problem on this GPU."""


def why_not(spec: KernelSpec, problem: GemmProblem, arch: int) -> str | None:
    """None if ``spec`` can serve ``problem`` on compute capability ``arch``, else the reason."""
    if problem.precision not in spec.precisions:
        return f"it computes {', '.join(spec.precisions)}, not {problem.precision}"
    if arch < spec.min_arch:
        return f"it needs sm_{spec.min_arch} or newer, this GPU is sm_{arch}"
    if problem.layouts not in spec.layouts:
        return (
            f"it serves layouts {', '.join(spec.layouts)} only (r: row-major, c: column-major, A then B), "
            f"not {problem.layouts}; kernel='auto' copies the operands into a served layout when worth it"
        )
    if spec.requires_aligned16 and not (problem.a.aligned16 and problem.b.aligned16):
        return (
            "it needs A and B 16-byte aligned (base address, leading dimension and batch stride "
            "multiples of 16 bytes); kernel='auto' falls back to a kernel without that need"
        )
    if spec.tma:
        reason = tma.why_not(problem)
        if reason is not None:
            return reason
    return None


def _tma_ok(problem: GemmProblem) -> bool:
    """Whether kernels needing aligned operands / TMA tensor maps can serve ``problem``."""
    return problem.a.aligned16 and problem.b.aligned16 and tma.why_not(problem) is None


def shape_class(m: int, n: int, batch: int, sms: int) -> str:
    """'large' when 128x128 tiles fill the GPU at least once, else 'small'."""
    tiles = -(-m // 128) * -(-n // 128) * batch
    return "large" if tiles >= sms else "small"


def pick_config(spec: KernelSpec, cls: str, precision: str) -> TileConfig:
    """First config serving ``precision``; for 'small' problems, the first with a CTA tile under 128x128."""
    configs = spec.configs_for(precision)
    if cls == "small":
        small = [c for c in configs if c["BLOCK_M"] * c["BLOCK_N"] < 128 * 128]
        if small:
            return small[0]
    return configs[0]


@lru_cache(maxsize=4096)
def _auto(precision: str, arch: int, cls: str, aligned: bool = True,
          layouts: str = "rr") -> tuple[KernelSpec, TileConfig] | None:
    candidates = [s for s in registry.all_specs()
                  if precision in s.precisions and arch >= s.min_arch and s.auto
                  and (aligned or not (s.requires_aligned16 or s.tma)) and layouts in s.layouts]
    if not candidates:
        return None
    best = min(candidates, key=lambda s: (_FAMILY_ORDER.index(s.family), -s.stage))
    return best, pick_config(best, cls, precision)


def select(
    problem: GemmProblem, arch: int, sms: int, kernel: str = "auto", config: str | None = None
) -> tuple[KernelSpec, TileConfig]:
    """The kernel and tile config to run ``problem`` with."""
    if kernel == "auto":
        cls = shape_class(problem.m, problem.n, problem.batch, sms)
        aligned = _tma_ok(problem)
        chosen = _auto(problem.precision, arch, cls, aligned, problem.layouts)
        if chosen is None:
            detail = "" if aligned else " for operands that are not 16-byte aligned"
            raise KernelUnavailable(f"no kernel computes {problem.precision} on sm_{arch}{detail}")
        spec, cfg = chosen
        return (spec, spec.config(config, problem.precision)) if config else (spec, cfg)
    spec = registry.get(kernel)
    reason = why_not(spec, problem, arch)
    if reason is not None:
        raise KernelUnavailable(f"kernel {kernel!r} cannot serve this problem: {reason}; use kernel='auto'")
    if config is None:
        return spec, pick_config(spec, shape_class(problem.m, problem.n, problem.batch, sms), problem.precision)
    return spec, spec.config(config, problem.precision)
