"""The tuned-config cache: which tile config ``tcgemm tune`` measured fastest, per GPU and shape class.

:func:`lookup`, called by :func:`tcgemm.dispatch.select` for ``kernel="auto"`` without an explicit config,
returns the stored config of a problem's *shape class* (:func:`shape_key`); problems of classes never
tuned keep the heuristic. The files live at ``<cache root>/tune/<gpu>-<SMs>sm.json`` (the cache root is the
kernel cache's: ``$TCGEMM_CACHE_DIR``, default ``~/.cache/tcgemm``); :mod:`tcgemm.tune` measures and writes
them. This module only reads and writes files: it sits below dispatch, and nothing in it measures.

A file records what its timings depend on (:func:`current_key`): the GPU's name, SM count and compute
capability, the driver's and torch's CUDA versions, the tcgemm version and a digest of every kernel source
and of the registry's tile configs. A file made under another key is stale: ignored by lookups, replaced
by the next ``tcgemm tune``. A missing file means "not tuned"; an unreadable one is ignored with a warning.
``TCGEMM_TUNE=0`` turns lookups off (the heuristic alone decides).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import torch

from . import registry
from ._version import __version__
from .problem import GemmProblem
from .registry import KernelSpec, TileConfig

FORMAT = 1
_OFF = ("0", "false", "off", "no")


def bucket(x: int) -> int:
    """``x`` rounded up to a power of two (1 -> 1, 3000 -> 4096, 4096 -> 4096, 4097 -> 8192)."""
    return 1 << max(0, int(x) - 1).bit_length()


# How shape_key forms a class; part of the file's key, so files made with another scheme are stale.
# Scheme 2: N and K exact. Scheme 1 rounded them to powers of two too, and one model's layers then shared
# classes: tuned on Llama-3-8B's qkv (512 x 6144 x 4096), the 70B shard's down (512 x 8192 x 3584) ran 0.65x
# of torch, tuned on GPT-2's qkv (N = 2304) its fc1 (N = 3072) 0.73x
# (benchmarks/results/2026-11-27-h100-models-tuned-classes-3ec725b-p*.json).
CLASS_SCHEME = 2


def shape_key(problem: GemmProblem) -> str:
    """The shape class of ``problem``: problems of one class share a tuned config.

    ``precision:layouts:MxNxK:batch:alignment`` with M rounded *up* to a power of two (:func:`bucket`:
    3000 and 4096 share 4096, 4097 goes with 8192) and N and K exact: the token count of a layer varies,
    its weight's shape does not, and how a weight's N and K divide into tiles and splits decides the
    config (a tile that fits 2304 columns wastes a third of its last column at 3072). ``b1`` for one matrix
    or ``bN`` for a batch (any size > 1), ``a16`` when A and B are 16-byte aligned (what the TMA kernels
    need), else ``u``. Layouts are those the kernel reads, after any staging: e.g. ``rc`` for tf32 on
    Hopper. Example: ``bf16:rr:4096x14336x4096:b1:a16`` for 3000 x 14336 x 4096 bf16 GEMM."""
    p = problem
    aligned = "a16" if p.a.aligned16 and p.b.aligned16 else "u"
    return f"{p.precision}:{p.layouts}:{bucket(p.m)}x{p.n}x{p.k}:{'bN' if p.batch > 1 else 'b1'}:{aligned}"


# ---------------------------------------------------------------------------------------------- the cache


@cache
def kernel_digest() -> str:
    """Digest of the kernel sources (:mod:`tcgemm.jit`'s) and of every spec's tile configs."""
    from .jit import _headers_digest

    h = hashlib.sha256(_headers_digest().encode())
    for spec in registry.all_specs():
        h.update(repr((spec.name, spec.source, sorted(spec.defines.items()))).encode())
        for cfg in spec.configs:
            h.update(repr((cfg.name, sorted(cfg.params.items()), cfg.precisions)).encode())
    return h.hexdigest()[:16]


def _driver_version() -> str:
    try:
        from cuda.bindings import driver

        err, version = driver.cuDriverGetVersion()
        return str(version) if int(err) == 0 else "unknown"
    except Exception:  # noqa: BLE001 - informative only: no driver, no bindings
        return "unknown"


def current_key(index: int | None = None) -> dict[str, Any]:
    """What a tuning result depends on, for CUDA device ``index`` (default: the current one)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device() if index is None else index)
    return {"gpu": props.name, "sms": props.multi_processor_count, "capability": f"{props.major}.{props.minor}",
            "driver": _driver_version(), "cuda": torch.version.cuda or "none", "tcgemm": __version__,
            "kernels": kernel_digest(), "classes": CLASS_SCHEME}


def cache_root() -> Path:
    """The folder of the tune files: ``<kernel cache>/tune``."""
    from .jit import cache_dir

    return cache_dir() / "tune"


def cache_path(key: dict[str, Any]) -> Path:
    """The file of one GPU, e.g. ``~/.cache/tcgemm/tune/nvidia-h100-80gb-hbm3-132sm.json``."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(key["gpu"]).lower()).strip("-") or "gpu"
    return cache_root() / f"{slug}-{key['sms']}sm.json"


def read_cache(path: Path) -> dict[str, Any] | None:
    """The file's contents, or None when it is missing or unreadable (a warning says which)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        warnings.warn(f"tcgemm ignores its tune cache {path}: it cannot be read ({exc}); "
                      f"run `tcgemm tune --clear` and tune again", RuntimeWarning, stacklevel=2)
        return None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict) or data.get("format") != FORMAT:
        warnings.warn(f"tcgemm ignores its tune cache {path}: not a tune file of format {FORMAT}; "
                      f"run `tcgemm tune --clear` and tune again", RuntimeWarning, stacklevel=2)
        return None
    return data


def write_cache(path: Path, key: dict[str, Any], entries: dict[str, Any]) -> None:
    """Write atomically: a temporary file in the same folder renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"format": FORMAT, "key": key, "entries": entries}, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


_tables: dict[int, dict[str, Any]] = {}


def _entries() -> dict[str, Any]:
    """The current GPU's valid entries, read once per process (:func:`reload` forgets them)."""
    try:
        index = torch.cuda.current_device()
    except Exception:  # noqa: BLE001 - no CUDA: nothing tuned
        index = -1
    table = _tables.get(index)
    if table is None:
        table = {}
        try:
            key = current_key(index)
        except Exception:  # noqa: BLE001 - no GPU to key the file by: nothing tuned
            key = None
        data = read_cache(cache_path(key)) if key is not None else None
        if data is not None and data.get("key") == key:  # else stale: made for other kernels, GPU or driver
            table = data["entries"]
        _tables[index] = table
    return table


def forget() -> None:
    """Forget the files read: the next lookup reads them again (:func:`tcgemm.tune.reload` also drops the
    prepared launches made with them)."""
    _tables.clear()


def enabled() -> bool:
    return os.environ.get("TCGEMM_TUNE", "1").strip().lower() not in _OFF


def lookup(problem: GemmProblem, spec: KernelSpec, arch: int, sms: int) -> TileConfig | None:
    """The tuned config of ``problem``'s shape class for ``spec``, or None (untuned, stale, disabled, or a
    config name the registry no longer has): the caller falls back to the heuristic."""
    if not enabled():
        return None
    entry = _entries().get(shape_key(problem))
    if not isinstance(entry, dict) or entry.get("spec") != spec.name or entry.get("arch") != arch \
            or entry.get("sms") != sms:
        return None
    name = entry.get("best")
    return next((c for c in spec.configs_for(problem.precision) if c.name == name), None)
