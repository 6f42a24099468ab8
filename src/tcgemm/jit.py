"""The one JIT: CUDA C++ source + defines + arch -> cubin -> loaded kernel.

Compilation is NVRTC through ``cuda.core.Program``; it needs no GPU, so the
CPU tests compile every kernel for sm_80 and sm_90a. Cubins are cached on
disk under ``$TCGEMM_CACHE_DIR`` (default ``~/.cache/tcgemm``), keyed by the
hash of the kernel source and every shared header, the defines, the target
architecture, the NVRTC version and the package version. A cache file carries
a checksum of its payload: a truncated or corrupt file is recompiled, never
loaded. Writes go to a temporary file that is renamed into place, so a
concurrent reader sees the old state or the whole new file. Loaded kernels are
cached in memory, so the second call of a configuration costs a dict lookup.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import warnings
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from ._version import __version__

KERNEL_DIR = Path(__file__).parent / "kernels"
INCLUDE_DIR = KERNEL_DIR / "include"
_MAGIC = b"TCGEMM-CUBIN-1\n"

Defines = tuple[tuple[str, str], ...]


class CompileError(RuntimeError):
    """NVRTC rejected a kernel; the message holds its log."""


class JitUnavailable(RuntimeError):
    """The CUDA compiler packages are missing."""


_import_lock = threading.Lock()


@lru_cache(maxsize=1)
def _cuda_core() -> Any:
    # cuda.core fills its namespace at import time; threads importing it at once can see it
    # half-built, so the first import happens under a lock (the result is then cached).
    try:
        with _import_lock:
            import cuda.core as cc

            cc.Program  # noqa: B018 - fail here, not later, if the namespace is incomplete
        return cc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise JitUnavailable(
            "tcgemm compiles its kernels with NVRTC through NVIDIA's cuda-core; install them with "
            "`pip install cuda-core cuda-bindings nvidia-cuda-nvrtc nvidia-cuda-runtime` "
            f"(import failed: {exc})"
        ) from exc


def target_arch(capability: tuple[int, int]) -> str:
    """NVRTC target for a compute capability: Hopper gets sm_90a (wgmma, setmaxnreg)."""
    major, minor = capability
    if (major, minor) < (8, 0):
        raise RuntimeError(f"tcgemm needs an sm_80 (Ampere) or newer GPU; this one is sm_{major}{minor}")
    suffix = "a" if major in (9, 10) and minor == 0 else ""
    return f"sm_{major}{minor}{suffix}"


@lru_cache(maxsize=1)
def nvrtc_version() -> str:
    try:
        from cuda.bindings import nvrtc

        _err, major, minor = nvrtc.nvrtcVersion()
        return f"{major}.{minor}"
    except Exception as exc:
        raise JitUnavailable(
            "NVRTC could not be loaded; install it with `pip install nvidia-cuda-nvrtc` "
            f"(matching your CUDA major version) ({exc})"
        ) from exc


@lru_cache(maxsize=1)
def _cuda_include_dirs() -> tuple[str, ...]:
    """CUDA's own headers (cuda_fp16.h, mma.h, crt/...): the nvidia-cuda-runtime/-crt wheels, then a
    toolkit (CUDA_HOME or /usr/local/cuda) as a fallback for headers a wheel lacks."""
    found: list[str] = []
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        wheel = find_nvidia_header_directory("cudart")
        if wheel:
            found.append(wheel)
    except Exception:  # noqa: BLE001 - headers are optional for kernels that include none
        pass
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        inc = os.path.join(root, "include") if root else None
        if inc and os.path.isfile(os.path.join(inc, "cuda_fp16.h")) and inc not in found:
            found.append(inc)
            break
    return tuple(found)


def _read_source(rel: str) -> str:
    path = KERNEL_DIR / rel
    if not path.is_file():
        raise FileNotFoundError(f"kernel source {rel!r} not found under {KERNEL_DIR}")
    return path.read_text()


@cache
def _headers_digest() -> str:
    """Digest of every header and kernel file: a stage may include another stage's source."""
    h = hashlib.sha256()
    for path in sorted(KERNEL_DIR.rglob("*.cu*")):
        h.update(str(path.relative_to(KERNEL_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def build_key(source: str, defines: Defines, arch: str) -> str:
    h = hashlib.sha256()
    for part in (source, _read_source(source), _headers_digest(), repr(sorted(defines)), arch,
                 nvrtc_version(), __version__):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:40]


def cache_dir() -> Path:
    root = os.environ.get("TCGEMM_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "tcgemm"


_warned_readonly = False
_lock = threading.Lock()


def _read_cached(path: Path) -> bytes | None:
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC)
    if not blob.startswith(_MAGIC) or len(blob) < head + 65:
        return None
    digest, payload = blob[head : head + 64], blob[head + 65 :]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None  # truncated or corrupt: recompile
    return payload


def _write_cached(path: Path, payload: bytes) -> None:
    global _warned_readonly
    blob = _MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".cubin")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(blob)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        if not _warned_readonly:
            _warned_readonly = True
            warnings.warn(
                f"tcgemm cannot write its kernel cache at {path.parent} ({exc}); kernels are kept in "
                "memory only and recompiled in every process. Set TCGEMM_CACHE_DIR to a writable folder.",
                RuntimeWarning,
                stacklevel=3,
            )


def compile_options(defines: Defines, arch: str) -> Any:
    cc = _cuda_core()
    return cc.ProgramOptions(
        arch=arch,
        std="c++17",
        include_path=[str(INCLUDE_DIR), str(KERNEL_DIR), *_cuda_include_dirs()],
        define_macro=list(defines),
        # Unannotated functions (the operator() of a generic lambda, e.g. StaticFor's bodies in
        # mma_sync/02) are device functions: NVRTC 13.0 otherwise rejects them as host code.
        device_as_default_execution_space=True,
    )


def compile_source(source: str, defines: Defines, arch: str) -> bytes:
    """Compile ``kernels/<source>`` to a cubin, uncached."""
    cc = _cuda_core()
    nvrtc_version()
    try:
        program = cc.Program(_read_source(source), "c++", compile_options(defines, arch))
    except (OSError, RuntimeError) as exc:  # the NVRTC library itself could not be loaded
        if "nvrtc" in str(exc).lower():
            raise JitUnavailable(
                f"tcgemm compiles its kernels with NVRTC, which could not be loaded ({exc}); install it with "
                "`pip install nvidia-cuda-nvrtc` (or put a CUDA toolkit's libnvrtc on the library path)"
            ) from exc
        raise
    try:
        obj = program.compile("cubin")
    except Exception as exc:
        raise CompileError(f"NVRTC failed on {source} for {arch} with {dict(defines)}:\n{exc}") from exc
    return bytes(obj.code)


def ptx(source: str, defines: Defines, arch: str) -> str:
    """PTX text of a kernel build (through NVRTC directly: cuda.core's PTX path asks for a driver)."""
    from cuda.bindings import nvrtc

    opts = [f"--gpu-architecture={arch.replace('sm_', 'compute_')}", "-std=c++17", "-default-device",
            *(f"-I{d}" for d in (str(INCLUDE_DIR), str(KERNEL_DIR), *_cuda_include_dirs())),
            *(f"-D{k}={v}" for k, v in defines)]
    err, prog = nvrtc.nvrtcCreateProgram(_read_source(source).encode(), source.encode(), 0, [], [])
    try:
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise CompileError(f"NVRTC failed on {source} for {arch}:\n{log.decode(errors='replace')}")
        _, size = nvrtc.nvrtcGetPTXSize(prog)
        text = b" " * size
        nvrtc.nvrtcGetPTX(prog, text)
        return text.rstrip(b"\0").decode()
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def cubin(source: str, defines: Defines, arch: str, *, use_cache: bool = True, refresh: bool = False) -> bytes:
    """The cubin for (source, defines, arch), from the disk cache when possible.

    ``refresh`` recompiles and overwrites the cached entry (one the driver rejected)."""
    path = cache_dir() / f"{build_key(source, defines, arch)}.cubin"
    if use_cache and not refresh:
        cached = _read_cached(path)
        if cached is not None:
            return cached
    payload = compile_source(source, defines, arch)
    if use_cache:
        _write_cached(path, payload)
    return payload


_loaded: dict[tuple[str, str, Defines, str, int], Any] = {}


def load_kernel(source: str, entry: str, defines: Defines, arch: str, device: int) -> Any:
    """A launchable ``cuda.core.Kernel``; compiled, loaded and cached on first use."""
    key = (source, entry, defines, arch, device)
    kernel = _loaded.get(key)
    if kernel is not None:
        return kernel
    with _lock:
        kernel = _loaded.get(key)
        if kernel is None:
            cc = _cuda_core()
            cc.Device(device).set_current()
            try:
                kernel = cc.ObjectCode.from_cubin(cubin(source, defines, arch)).get_kernel(entry)
            except CompileError:
                raise
            except Exception:  # noqa: BLE001 - a cached cubin the driver rejects: rebuild once
                kernel = cc.ObjectCode.from_cubin(cubin(source, defines, arch, refresh=True)).get_kernel(entry)
            _loaded[key] = kernel
    return kernel


def as_defines(items: Iterable[tuple[str, object]]) -> Defines:
    return tuple(sorted((k, str(v)) for k, v in items))
