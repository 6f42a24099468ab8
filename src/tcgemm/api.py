"""The core: one GEMM on torch tensors, down one path.

describe the problem -> plan (kernel and tile config: tcgemm.dispatch, over the tune cache below it) ->
stage operands (tcgemm.staging) -> launch (tcgemm.launch). A call seen before skips all of it through its
prepared launch (tcgemm.fastpath): the memo in front of the path, checked here and only here. Everything
that can go wrong with the arguments raises before anything is launched or written.

The public ``tcgemm.gemm`` (tcgemm.entry) sits above this module, with the operator (tcgemm.ops) and
DLPack (tcgemm.interop): it sends differentiated and traced calls through the operator, which calls
:func:`_gemm` back; nothing here imports them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from . import dispatch, emulation, epilogue, fastpath, launch, registry, staging, tma
from .dispatch import KernelUnavailable, select
from .jit import target_arch
from .problem import GemmProblem, _overlaps, describe, transposed_store
from .scales import fold_scales, kernel_block_scales
from .sms import usable as usable_sms

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


def _gemm(
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
    scale_a: float | torch.Tensor | None = None,
    scale_b: float | torch.Tensor | None = None,
    activation: str | None = None,
) -> torch.Tensor:
    """``D = alpha * a @ b + beta * c`` on torch tensors, without autograd: the kernels (the real implementation
    of the operator). Arguments as :func:`tcgemm.gemm`'s."""
    if activation is not None and activation != "none":
        return _gemm_epilogue(a, b, c, alpha, beta, out, out_dtype, precision, kernel, config, scale_a, scale_b,
                              activation)
    # A call seen before: the prepared launch (tcgemm.fastpath).
    fast_key = fastpath.key(a, b, c, out, alpha, beta, out_dtype, precision, kernel, config, scale_a, scale_b)
    prepared = fastpath.lookup(fast_key)
    if prepared is not None:
        return prepared(a, b, c, out, scale_a, scale_b)
    if kernel == "auto" and config is None and a.dtype is torch.float32:
        route, splits = _fp32_route(a, b, c, out, alpha, beta, precision, out_dtype)
        if route == "3xtf32":
            return _fp32_3xtf32(a, b, c, alpha, beta, out, fast_key)
        if splits > 1:
            return _fp32_split_k(a, b, c, alpha, beta, splits, out, fast_key)
    user_a, user_b = a, b
    device = _check_devices(a=a, b=b, c=c, out=out, scale_a=scale_a, scale_b=scale_b)
    alpha, scales, mode = fold_scales(a, alpha, scale_a, scale_b, b)
    args = dict(alpha=alpha, beta=beta, out=out, out_dtype=out_dtype, precision=precision, row_scales=mode == "row",
                block_scales=mode == "block")
    problem, t = describe(a, b, c, **args)
    if problem.swapped:  # D^T = B^T A^T: the kernel's rows are b's columns (per-tensor scales commute anyway)
        scales = scales[::-1]
    if problem.block_scales:  # (the layouts the kernel reads: tcgemm.scales)
        scales = kernel_block_scales(*scales)
    if max(problem.m, problem.n, problem.k) > _INT32_MAX:
        raise ValueError(f"dimensions must stay below 2**31; got M={problem.m}, N={problem.n}, K={problem.k}")
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = device_info(index)
    sms = usable_sms(sms)
    degenerate = min(problem.m, problem.n, problem.k, problem.batch) == 0
    if not (degenerate and kernel == "auto"):  # nothing to select for an empty product (a forced kernel is checked)
        a, b, problem, t, spec, cfg = resolve(a, b, c, problem, t, args, arch_cc, sms, kernel, config)

    d = out
    if d is None:
        rows, cols = (problem.n, problem.m) if problem.d_transposed else (problem.m, problem.n)
        shape = (problem.batch, rows, cols) if max(a.dim(), b.dim()) == 3 else (rows, cols)
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
    padded = staging.padded_output(problem, spec, out) if kernel == "auto" else None
    if padded is not None:  # D rows not 16-byte aligned: TMA-store into a row-padded buffer, then copy
        problem = padded
        target, d = d, staging.padded_buffer(d, problem.d_ld)
    launch.run(p, problem, t["a"], t["b"], t["c"], d, arch, scales=scales)
    if padded is not None:
        d = staging.unpad(d, target)
    # Later calls like this one skip all of the above (tcgemm.fastpath), staging included; not calls
    # whose operands describe() had to copy (uncommon strides: each call warns).
    if fast_key is not None and {id(t["a"]), id(t["b"])} == {id(a), id(b)}:
        staged = (_staged_layout(a, user_a), _staged_layout(b, user_b))
        kernel_obj = launch.kernel_for(p, arch, index)
        fastpath.store(fast_key, fastpath.Prepared(p, problem, kernel_obj, index, tuple(d.shape), user_a, user_b,
                                                   c, out, staged, padded_ld=problem.d_ld if padded else None))
    return d


def _gemm_epilogue(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
                   out: torch.Tensor | None, out_dtype: torch.dtype | None, precision: str | None, kernel: str,
                   config: str | None, scale_a: Any, scale_b: Any, activation: str) -> torch.Tensor:
    """``act(alpha * a @ b + beta * c)``, or a gated ``act(gate) * up`` (tcgemm.epilogue): fused into the Hopper
    kernel's epilogue where it serves the call, else the GEMM then torch's ops (the same formula)."""
    epi = epilogue.parse(activation)
    fast_key = fastpath.key(a, b, c, out, alpha, beta, out_dtype, precision, kernel, config, scale_a, scale_b)
    fast_key = (*fast_key, epi) if fast_key is not None else None
    prepared = fastpath.lookup(fast_key)
    if prepared is not None:
        return prepared(a, b, c, out, scale_a, scale_b)
    fused = _fused_launch(a, b, c, alpha, beta, out, out_dtype, precision, kernel, config, scale_a, scale_b, epi,
                          prepare=fast_key is not None)
    if fused is not None:
        d, prepared = fused
        if fast_key is not None and prepared is not None:
            fastpath.store(fast_key, prepared)
        return d
    # Unfused: the GEMM, then the activation (a gated call: of its two halves).
    if epi.gated:
        epilogue.gated_halves(b.shape[-1])
        if out is not None:
            expected = (*out.shape[:-1], 2 * out.shape[-1])
            d = _gemm(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype, precision=precision, kernel=kernel,
                      config=config, scale_a=scale_a, scale_b=scale_b)
            if tuple(d.shape) != expected:
                raise ValueError(f"out has shape {tuple(out.shape)}; a gated result of {tuple(d.shape)} columns "
                                 f"is {(*d.shape[:-1], d.shape[-1] // 2)}")
            return out.copy_(epilogue.apply(d, epi))
    d = _gemm(a, b, c, alpha=alpha, beta=beta, out=None if epi.gated else out, out_dtype=out_dtype,
              precision=precision, kernel=kernel, config=config, scale_a=scale_a, scale_b=scale_b)
    if epi.gated:
        return epilogue.apply(d, epi)
    return d.copy_(epilogue.apply(d, epi)) if d.is_floating_point() else epilogue.apply(d, epi)


# The fused epilogue runs on this kernel (KernelSpec.epilogues); its calls choose a config by the estimate.
EPILOGUE_KERNEL = "wgmma_tma_store"


@dataclass(frozen=True)
class _FusedPlan:
    problem: GemmProblem
    tensors: dict[str, torch.Tensor | None]
    spec: registry.KernelSpec
    cfg: registry.TileConfig
    shape: tuple[int, ...]  # D's
    device: torch.device
    index: int
    sms: int
    arch: str


def _fused_plan(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
                out: torch.Tensor | None, out_dtype: torch.dtype | None, precision: str | None, kernel: str,
                config: str | None, scale_a: Any, scale_b: Any, epi: epilogue.Epilogue) -> _FusedPlan | str:
    """The fused launch's problem, kernel and config, or why the call runs unfused (the reason, a string)."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or scale_a is not None or scale_b is not None:
        return "fp8 scales (or operands that are not tensors)"
    if kernel not in ("auto", EPILOGUE_KERNEL) or a.dtype not in (torch.float16, torch.bfloat16):
        return f"the fused epilogue is {EPILOGUE_KERNEL}'s, for fp16/bf16 inputs"
    if epi.gated and (c is not None or beta != 0.0 or alpha != 1.0):
        return "a gated epilogue takes no c and no alpha"  # (kernels/include/hopper_epilogue.cuh)
    device = _check_devices(a=a, b=b, c=c, out=out)
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, arch = device_info(index)
    sms = usable_sms(sms)
    n_out = epilogue.gated_halves(b.shape[-1]) if epi.gated else b.shape[-1]
    # Gated: describe the GEMM of all N columns without out (its shape is the halved one), then D's geometry.
    problem, t = describe(a, b, c, alpha=alpha, beta=beta, out=None if epi.gated else out, out_dtype=out_dtype,
                          precision=precision)
    if min(problem.m, problem.n, problem.k, problem.batch) == 0:
        return "an empty product"
    if problem.swapped:
        return "a column-major out"
    if problem.out_dtype not in (torch.float16, torch.bfloat16):
        return f"a {problem.out_dtype} output (the fused epilogue writes 16-bit D)"
    shape = ((problem.batch,) if max(a.dim(), b.dim()) == 3 else ()) + (problem.m, n_out)
    d_ld, d_batch = n_out, problem.m * n_out
    if epi.gated and out is not None:
        if tuple(out.shape) != shape:
            raise ValueError(f"out has shape {tuple(out.shape)}; expected {shape} for a gated result (N / 2 columns)")
        if out.dtype != problem.out_dtype or out.stride(-1) != 1 or _overlaps(out, a) or _overlaps(out, b):
            return "an out of another dtype, not row-major, or overlapping a or b"
        d_ld = out.stride(-2) if problem.m > 1 else n_out
        d_batch = out.stride(0) if out.dim() == 3 and out.shape[0] > 1 else 0
    if epi.gated:
        problem = dataclasses.replace(problem, d_ld=d_ld, d_batch_stride=d_batch)
    problem = dataclasses.replace(problem, activation=epi.code, gated=epi.gated)
    try:
        spec, cfg = select(problem, arch_cc, sms, EPILOGUE_KERNEL, config)
    except KernelUnavailable as exc:
        if kernel == EPILOGUE_KERNEL:
            raise
        return str(exc)
    if cfg.tma_d_only and tma.d_geometry(problem, cfg) is None:
        return f"config {cfg.name} writes D through TMA only, and this D is not 16-byte aligned"
    return _FusedPlan(problem, t, spec, cfg, shape, device, index, sms, arch)


def _fused_launch(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
                  out: torch.Tensor | None, out_dtype: torch.dtype | None, precision: str | None, kernel: str,
                  config: str | None, scale_a: Any, scale_b: Any, epi: epilogue.Epilogue,
                  prepare: bool = True) -> tuple[torch.Tensor, fastpath.Prepared | None] | None:
    """The fused launch, or None where it does not serve the call (the caller runs the unfused formula); with
    ``prepare``, also the prepared launch for repeat calls (tcgemm.fastpath)."""
    fp = _fused_plan(a, b, c, alpha, beta, out, out_dtype, precision, kernel, config, scale_a, scale_b, epi)
    if isinstance(fp, str):
        return None
    problem, t = fp.problem, fp.tensors
    d = out if out is not None else torch.empty(fp.shape, dtype=problem.out_dtype, device=fp.device)
    p = launch.plan(problem, fp.spec, fp.cfg, fp.sms)
    launch.run(p, problem, t["a"], t["b"], t["c"], d, fp.arch)
    prepared = None
    if prepare and t["a"] is a and t["b"] is b:
        prepared = fastpath.Prepared(p, problem, launch.kernel_for(p, fp.arch, fp.index), fp.index, fp.shape, a, b, c,
                                     out)
    return d, prepared


def _staged_layout(used: torch.Tensor, given: torch.Tensor) -> str | None:
    """None when the operand was read as given, else the layout ("r"/"c") of its staged copy."""
    if used is given:
        return None
    return "c" if used.stride(-2) == 1 and used.stride(-1) != 1 else "r"


def resolve(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, problem: GemmProblem,
            t: dict[str, torch.Tensor | None], describe_args: dict[str, Any], arch: int, sms: int,
            kernel: str = "auto", config: str | None = None):
    """The kernel and config for ``problem`` (= describe(a, b, c, **describe_args)), staging the
    operands first when kernel="auto" would otherwise leave the Hopper kernels (unaligned operands,
    or a layout wgmma cannot read for this type) and copies are worth it (tcgemm.staging).

    Returns (a, b, problem, tensors, spec, cfg): the operands (copies if staged) and their problem."""
    try:
        spec, cfg = select(problem, arch, sms, kernel, config)
    except KernelUnavailable:
        if kernel != "auto":
            raise
        spec = cfg = None  # nothing serves the operands as they are; staged copies may be served
    if kernel == "auto" and (spec is None or spec.family != "hopper"):
        staged = staging.stage(a, b, problem, arch, force=spec is None)
        if staged is not None:
            a, b = staged
            problem, t = describe(a, b, c, **describe_args)
            spec, cfg = select(problem, arch, sms, kernel, config)
    if spec is None or cfg is None:
        spec, cfg = select(problem, arch, sms, kernel, config)  # raises KernelUnavailable, with the reason
    if cfg.get("D_TRANSPOSED") and not problem.d_transposed:  # the config runs D^T = B^T A^T, written transposed
        problem, t = transposed_store(problem, t)
    return a, b, problem, t, spec, cfg


@dataclass(frozen=True)
class Choice:
    """What :func:`gemm` runs for a call (:func:`explain`): the kernel, its tile config, and why."""

    kernel: str  # registry name (tcgemm.kernels()), or "none" for an empty product (nothing runs)
    config: str  # tile config name of that kernel
    family: str
    technique: str
    precision: str
    layouts: str  # the layouts the kernel reads (A then B; r/c), after any staging
    staged: tuple[str, ...]  # operands copied before the launch: "a", "b" (alignment/layout), "d" (padded rows)
    how: str  # "forced" (kernel= or config= given), "tuned" (tcgemm tune's cache) or "estimate" (dispatch)
    reason: str

    @property
    def label(self) -> str:
        """``kernel:config``, as benchmark JSON rows name what ran."""
        return f"{self.kernel}:{self.config}"


def explain(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None = None, **kwargs: Any) -> Choice:
    """Which kernel and tile config :func:`gemm` picks for these arguments (same signature), and why.

    Nothing is launched or written; the arguments are validated as ``gemm`` validates them, so an
    error here is the error the call would raise. Example::

        tcgemm.explain(x, layer.weight.t(), layer.bias, beta=1.0).label   # 'wgmma_tma_store:s4b2o'
    """
    from . import tuned as tune_cache
    from .dispatch import _tma_ok

    allowed = {"alpha", "beta", "out", "out_dtype", "precision", "kernel", "config", "scale_a", "scale_b", "activation"}
    unknown = sorted(set(kwargs) - allowed)
    if unknown:
        raise TypeError(f"explain() got unexpected keyword argument(s) {', '.join(unknown)}; it takes gemm's")
    epi = epilogue.parse(kwargs.pop("activation", None))
    if epi.fused:
        return _explain_epilogue(a, b, c, epi, kwargs)
    out = kwargs.get("out")
    kernel, config = kwargs.get("kernel", "auto"), kwargs.get("config")
    if kernel == "auto" and config is None and getattr(a, "dtype", None) is torch.float32:
        route, splits = _fp32_route(a, b, c, out, kwargs.get("alpha", 1.0), kwargs.get("beta", 0.0),
                                    kwargs.get("precision"), kwargs.get("out_dtype"))
        if route == "3xtf32":  # (what _gemm runs: the split copies, then one tf32 GEMM over 3K)
            a3, b3 = emulation.split_operands(a, b, fill=False)
            inner = explain(a3, b3, c, **{**kwargs, "precision": "tf32", "kernel": emulation.KERNEL,
                                          "config": emulation.config_for(a3, b3, device_info(_index(a))[1])})
            why = (f"fp32 as 3xTF32: each operand split into tf32 parts (x = hi + lo) and the three products "
                   f"hi*lo + lo*hi + hi*hi summed as one tf32 GEMM over K = {3 * a.shape[1]}, estimated faster "
                   f"than the fp32 CUDA cores here (tcgemm.emulation); ")
            why += (f"{inner.kernel} config {inner.config}: of the configs that promote partial sums to fp32 "
                    f"({', '.join(emulation.CONFIGS)}), least estimated time")
            return dataclasses.replace(inner, precision="fp32", technique="3xTF32 on " + inner.technique,
                                       staged=("a", "b", *(s for s in inner.staged if s not in ("a", "b"))),
                                       how="estimate", reason=why)
        if splits > 1:  # (what _gemm runs: the batched GEMM of the parts, then their sum)
            inner = explain(*_k_parts(a, b, splits))
            why = (f"fp32 with {a.shape[0]} rows: K in {splits} parts of {a.shape[1] // splits} as one strided batched "
                   f"GEMM, the partial products summed in order; ")
            return dataclasses.replace(inner, reason=why + inner.reason)
    device = _check_devices(a=a, b=b, c=c, out=out, scale_a=kwargs.get("scale_a"), scale_b=kwargs.get("scale_b"))
    alpha, _scales, mode = fold_scales(a, kwargs.get("alpha", 1.0), kwargs.get("scale_a"), kwargs.get("scale_b"), b)
    args = dict(alpha=alpha, beta=kwargs.get("beta", 0.0), out=out, out_dtype=kwargs.get("out_dtype"),
                precision=kwargs.get("precision"), row_scales=mode == "row", block_scales=mode == "block")
    problem, t = describe(a, b, c, **args)
    index = device.index if device.index is not None else torch.cuda.current_device()
    arch_cc, sms, _arch = device_info(index)
    sms = usable_sms(sms)
    if min(problem.m, problem.n, problem.k, problem.batch) == 0 and kernel == "auto":
        return Choice("none", "none", "none", "no product: an empty result, or beta*C / zeros (K = 0)",
                      problem.precision, problem.layouts, (), "estimate", "nothing to compute")
    a2, b2, problem2, _t, spec, cfg = resolve(a, b, c, problem, t, args, arch_cc, sms, kernel, config)
    staged = tuple(name for name, new, old in (("a", a2, a), ("b", b2, b)) if new is not old)
    if kernel == "auto" and staging.padded_output(problem2, spec, out) is not None:
        staged += ("d",)
    if kernel != "auto" or config is not None:
        how = "forced"
        reason = f"kernel={kernel!r}" + (f", config={config!r}" if config else " (its config by the estimate)")
    else:
        tuned_cfg = tune_cache.lookup(problem2, spec, arch_cc, sms)
        how = "tuned" if tuned_cfg is not None and tuned_cfg.name == cfg.name else "estimate"
        if spec.auto_max_m:
            why_kernel = (f"{spec.name}: the specialist for M <= {spec.auto_max_m} rows that computes "
                          f"{problem2.precision} on sm_{arch_cc} for layouts {problem2.layouts}")
        else:
            why_kernel = (f"{spec.name}: the highest stage of the fastest family ({spec.family}) that computes "
                          f"{problem2.precision} on sm_{arch_cc} for layouts {problem2.layouts}"
                          + ("" if _tma_ok(problem2) else " with unaligned operands"))
        if how == "tuned":
            why_config = (f"config {cfg.name}: stored by tcgemm tune for shape class {tune_cache.shape_key(problem2)} "
                          "(the fastest measured, or the estimate's pick where none was 3% ahead of it)")
        elif cfg.get("STREAM_K"):
            bounds = f"M <= {cfg.get('AUTO_MAX_M')}, K >= {cfg.get('AUTO_MIN_K')}" + (
                f", N <= {cfg.get('AUTO_MAX_N')}" if cfg.get("AUTO_MAX_N") else "")
            why_config = (f"config {cfg.name}: the first whose measured range ({bounds}) admits this problem; "
                          "its grid fills the GPU at any shape")
        else:
            why_config = (f"config {cfg.name}: least estimated time (rounds of tiles over {sms} SMs / measured speed)"
                          + (f"; long-K config (K >= {cfg.long_k})" if cfg.long_k else "")
                          + ("; computes D^T = B^T A^T with B^T's fragments loaded into registers (wgmma reads "
                             "tf32 K-major only from shared memory; no copy of B) and writes it transposed"
                             if cfg.get("A_REGS") else
                             "; computes D^T with the token count as the wgmma's N and writes it transposed"
                             if cfg.get("D_TRANSPOSED") else
                             "; ping-pong: each consumer warpgroup takes whole tiles in turn, one's epilogue under "
                             "the other's main loop" if cfg.get("PINGPONG") else ""))
        reason = why_kernel + "; " + why_config
        if staged:
            reason += f"; staged copies of {', '.join(staged)} (alignment or a layout the kernel cannot read)"
    return Choice(spec.name, cfg.name, spec.family, spec.technique, problem2.precision, problem2.layouts, staged,
                  how, reason)


def _explain_epilogue(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, epi: epilogue.Epilogue,
                      kwargs: dict[str, Any]) -> Choice:
    """explain() of a call with activation=: the fused launch, or the GEMM it runs before torch's ops, and why."""
    args = {k: kwargs.get(k, d) for k, d in (("alpha", 1.0), ("beta", 0.0), ("out", None), ("out_dtype", None),
                                               ("precision", None), ("kernel", "auto"), ("config", None),
                                               ("scale_a", None), ("scale_b", None))}
    fp = _fused_plan(a, b, c, args["alpha"], args["beta"], args["out"], args["out_dtype"], args["precision"],
                     args["kernel"], args["config"], args["scale_a"], args["scale_b"], epi)
    what = (f"{epi.act}(gate) * up of b's two column halves" if epi.gated else f"{epi.act}(alpha * a @ b + beta * c)")
    if isinstance(fp, str):
        inner = explain(a, b, c, **{k: v for k, v in kwargs.items() if not (k == "out" and epi.gated)})
        return dataclasses.replace(inner, reason=f"{what}, unfused: the GEMM ({inner.reason}), then torch's ops; "
                                                 f"not fused here: {fp}")
    how = "forced" if args["config"] is not None or args["kernel"] != "auto" else "estimate"
    return Choice(fp.spec.name, fp.cfg.name, fp.spec.family, fp.spec.technique, fp.problem.precision,
                  fp.problem.layouts, (), how,
                  f"{what} in {fp.spec.name}'s epilogue (tcgemm.epilogue); config {fp.cfg.name}: least estimated time "
                  "of the configs whose epilogue serves it")


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
            "needs": "; ".join(filter(None, (
                ("16-byte aligned A and B for TMA (else kernel='auto' falls back or stages aligned copies)"
                 if s.requires_aligned16 else "16-byte alignment for float4 loads (else scalar)" if s.vector_loads
                 else ""),
                f"layouts {', '.join(s.layouts)} (else kernel='auto' stages copies or falls back)"
                if len(s.layouts) < 4 else "",
            ))) or "none",
            "source": s.source,
            "seed": s.seed,
        }
        for s in registry.all_specs()
    ]


# fp32 (exact, CUDA cores) with few tiles: the SIMT kernels' 128 x 64 tiles make N / 64 CTAs per 128 rows (64 at
# 16 x 4096 x 4096, 128 at 1024^3) that each walk all of K, at 0.28x / 0.82x of cuBLAS there (CUDA graphs;
# 2026-11-26-h100-explore-fp32-skinny-f58699a.json, 2026-11-26-h100-explore-fp32-ksplit.json). K is cut into
# S equal parts, the parts computed as the S entries of one strided batched GEMM (each entry a view of A's
# columns and B's rows: nothing is copied), and the S partial products summed by torch in entry order:
# deterministic, the partials in fp32 as cuBLAS's split-K keeps them. At 1024^3 4 parts ran 61.0 us against
# 67.4 unsplit (cuBLAS 55.5); at 2048 x 2048 x 1024 (512 tiles) splitting lost (219.6 / 235.6 against 193.1):
# the parts stop at 4 tiles per SM.
FP32_SPLIT_MIN_K = 256  # least k per part
FP32_SPLIT_MAX = 16
FP32_SPLIT_CTAS_PER_SM = 4  # parts until the GPU holds this many 128 x 64 tiles per SM
_TENSORS = (torch.Tensor, torch.nn.Parameter)  # plain tensors only (subclasses take the general path)


def _fp32_route(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None, alpha: Any,
                beta: Any, precision: str | None, out_dtype: torch.dtype | None) -> tuple[str, int]:
    """How auto runs an fp32 ``alpha a @ b + beta c``: ("3xtf32", 1) on tf32 tensor cores (tcgemm.emulation),
    ("cuda_cores", parts of K), or ("general", 1) for anything unusual (the general path validates and reports
    it)."""
    general = ("general", 1)
    if type(alpha) not in (int, float) or type(beta) not in (int, float):
        return general
    if (precision not in (None, "fp32") or out_dtype not in (None, torch.float32) or type(b) not in _TENSORS
            or type(a) not in _TENSORS or b.dtype is not torch.float32 or a.dim() != 2 or b.dim() != 2
            or not a.is_cuda or a.shape[1] != b.shape[0] or a.device != b.device):
        return general
    if out is not None and (type(out) not in _TENSORS or out.dtype is not torch.float32 or out.device != a.device
                            or tuple(out.shape) != (a.shape[0], b.shape[1])):
        return general
    if c is None and beta != 0.0:  # (the general path says what is missing)
        return general
    if out is not None and (_overlaps(out, a) or _overlaps(out, b) or (c is not None and _overlaps(out, c) and not (
            out.data_ptr() == c.data_ptr() and out.shape == c.shape and out.stride() == c.stride()))):
        return general  # (the general path refuses it, naming the overlap)
    if c is not None and (type(c) not in _TENSORS or c.dtype is not torch.float32 or c.device != a.device
                          or c.dim() > 2 or not _broadcasts(c.shape, (a.shape[0], b.shape[1]))):
        return general
    m, k = a.shape
    n = b.shape[1]
    arch, sms, _ = device_info(_index(a))
    if emulation.use_3xtf32(m, n, k, arch):
        return "3xtf32", 1
    if _fp32_decode_takes(a, b, c, out, alpha, beta, arch):
        return "decode_3xtf32", 1  # (the general path: auto's specialist for these rows)
    return "cuda_cores", fp32_k_splits(m, n, k, sms, b_row_major=b.stride(1) == 1)


def _fp32_decode_takes(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None,
                       alpha: float, beta: float, arch: int) -> bool:
    """Whether auto runs this fp32 product on the 3xTF32 decode kernel (registry: swap_ab_stream_k_3xtf32, the
    specialist dispatch takes for these rows where one of its configs admits the shape), rather than on the CUDA
    cores with K in parts."""
    spec = registry.get(emulation.DECODE_KERNEL)
    if not (0 < a.shape[0] <= spec.auto_max_m and arch >= spec.min_arch):
        return False
    try:
        problem, _ = describe(a, b, c, alpha=alpha, beta=beta, out=out)
    except (ValueError, TypeError):
        return False  # (the general path reports it)
    return dispatch.why_not(spec, problem, arch) is None and dispatch.specialist_takes(spec, problem, None)


def fp32_k_splits(m: int, n: int, k: int, sms: int, b_row_major: bool = True) -> int:
    """Parts of K for an fp32 problem on ``sms`` SMs: the largest power of two that divides K, leaves at least
    FP32_SPLIT_MIN_K per part and keeps the CTAs within FP32_SPLIT_CTAS_PER_SM per SM (1: no split): 128 x 64
    tiles, or with few rows simt_skinny's column blocks, one per SM (at 181-234 registers a thread one CTA fits;
    each then streams one long slab of the weight)."""
    if m == 0 or n == 0:
        return 1
    skinny = _skinny_block_n(m, b_row_major)
    tiles, per_sm = (-(-n // skinny), 1) if skinny else (-(-m // 128) * -(-n // 64), FP32_SPLIT_CTAS_PER_SM)
    splits = 1
    while (2 * splits <= FP32_SPLIT_MAX and k % (2 * splits) == 0 and k // (2 * splits) >= FP32_SPLIT_MIN_K
           and tiles * 2 * splits <= per_sm * sms):
        splits *= 2
    return splits


def _skinny_block_n(m: int, b_row_major: bool) -> int:
    """BLOCK_N of the simt_skinny config auto runs at ``m`` rows with this B, 0 if auto runs another kernel."""
    spec = registry.get("simt_skinny")
    if not 0 < m <= spec.auto_max_m:
        return 0
    layouts = "rr" if b_row_major else "rc"
    return next((c["BLOCK_N"] for c in spec.configs_for("fp32") if c.serves_layouts(layouts)), 0)


def _k_parts(a: torch.Tensor, b: torch.Tensor, splits: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A's columns and B's rows in ``splits`` equal parts along K, as batch entries (views)."""
    m, k = a.shape
    part = k // splits
    return (a.as_strided((splits, m, part), (part * a.stride(1), a.stride(0), a.stride(1))),
            b.as_strided((splits, part, b.shape[1]), (part * b.stride(0), b.stride(0), b.stride(1))))


def _index(t: torch.Tensor) -> int:
    return t.device.index if t.device.index is not None else torch.cuda.current_device()


def _broadcasts(shape: torch.Size, to: tuple[int, int]) -> bool:
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(to), strict=False))


def _fp32_3xtf32(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
                 out: torch.Tensor | None, fast_key: fastpath.Key | None) -> torch.Tensor:
    """An fp32 product as one tf32 GEMM over 3K of split copies (tcgemm.emulation); later calls with this
    signature take emulation.Prepared3x."""
    a3, b3 = emulation.split_operands(a, b)
    args = dict(alpha=alpha, beta=beta, out=out, precision="tf32", kernel=emulation.KERNEL,
                config=emulation.config_for(a3, b3, device_info(_index(a))[1]))
    d = _gemm(a3, b3, c, **args)
    inner = fastpath.lookup(fastpath.key(a3, b3, c, out, alpha, beta, None, "tf32", args["kernel"], args["config"]))
    if fast_key is not None and isinstance(inner, fastpath.Prepared):
        fastpath.store(fast_key, emulation.Prepared3x(a, b, out, inner))
    return d


def _fp32_split_k(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
                  splits: int, out: torch.Tensor | None, fast_key: fastpath.Key | None = None) -> torch.Tensor:
    """The K-parts route of fp32 (fp32_k_splits); later calls with this signature take PreparedKParts."""
    parts = _k_parts(a, b, splits)
    d = _sum_parts(_gemm(*parts), c, alpha, beta, out)
    inner = fastpath.lookup(fastpath.key(*parts, None, None, 1.0, 0.0, None, None, "auto", None))
    if fast_key is not None and isinstance(inner, fastpath.Prepared):
        fastpath.store(fast_key, PreparedKParts(a, b, out, splits, inner, alpha, beta))
    return d


class PreparedKParts:
    """The repeat call of fp32's K-parts route (tcgemm.fastpath keeps it under the call's signature): the
    batched GEMM's prepared launch, then the parts' sum; the route's checks and the batched call's lookup are
    not redone (at 16 x 1000 x 2048 they were ~40 us of host time a call, against 15 us of GPU time)."""

    direct = False

    def __init__(self, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None, splits: int,
                 inner: fastpath.Prepared, alpha: float, beta: float) -> None:
        self._splits, self._inner, self._alpha, self._beta = splits, inner, alpha, beta
        self.plan = inner.plan
        self._extents = (fastpath._extent(a), fastpath._extent(b), fastpath._extent(out))

    def __call__(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None,
                 scale_a: object = None, scale_b: object = None) -> torch.Tensor:
        if out is not None:  # (what the first call's checks refused: out over an input; c = out is allowed)
            o0, eo = out.data_ptr(), self._extents[2]
            for name, t, e in (("a", a, self._extents[0]), ("b", b, self._extents[1])):
                if e and eo and t.data_ptr() < o0 + eo and o0 < t.data_ptr() + e:
                    raise ValueError(f"out overlaps {name} in memory; pass a separate output tensor")
            if c is not None and _overlaps(out, c) and not (
                    out.data_ptr() == c.data_ptr() and out.shape == c.shape and out.stride() == c.stride()):
                raise ValueError("out partly overlaps c; pass c=out exactly (in-place update) or separate tensors")
        return _sum_parts(self._inner(*_k_parts(a, b, self._splits), None, None), c, self._alpha, self._beta, out)


def _sum_parts(partials: torch.Tensor, c: torch.Tensor | None, alpha: float, beta: float,
               out: torch.Tensor | None) -> torch.Tensor:
    """alpha * (the parts summed in order) + beta * c, into out if given."""
    # (with a C, which may be out itself, the result is formed apart and copied over)
    blend = c is not None and beta != 0.0
    d = torch.sum(partials, 0, out=out) if out is not None and not blend else partials.sum(0)
    if alpha != 1.0:
        d.mul_(alpha)
    if blend:
        d.add_(c, alpha=beta)
        if out is not None:
            return out.copy_(d)
    return d
