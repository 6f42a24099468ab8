"""DLPack interop: :func:`tcgemm.gemm` on CuPy, JAX or any other array with ``__dlpack__``.

At entry, every operand (a, b, c, out) that is not a ``torch.Tensor`` but has ``__dlpack__`` is
wrapped with :func:`torch.from_dlpack`: zero-copy, the same GPU memory, and DLPack's stream
handshake orders the producer's pending work before torch's current stream. At exit the result
is handed back in the caller's array type:

- with ``out``, ``out`` itself is returned, whatever its type (written in place; a foreign one must
  be mutable, so not a JAX array);
- otherwise the result takes the type of the first foreign operand among a, b, c, converted
  (zero-copy) with the ``from_dlpack`` of the library that defines that type: the first of
  ``<module>.from_dlpack`` or ``<module>.dlpack.from_dlpack`` for the type's module and each
  parent package (``cupy.from_dlpack``; ``numpy.from_dlpack``; JAX arrays, defined in ``jaxlib``,
  map to ``jax.dlpack.from_dlpack``). Other types can be registered with :func:`register`.

With only torch tensors nothing changes (and nothing is imported).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import torch

FromDlpack = Callable[[Any], Any]

# Packages whose arrays are defined in a helper package without a from_dlpack of its own.
_ALIASES = {"jaxlib": "jax"}
_REGISTERED: dict[type, FromDlpack] = {}
_FOUND: dict[type, FromDlpack] = {}


def register(array_type: type, from_dlpack: FromDlpack) -> None:
    """Use ``from_dlpack`` to give results back as ``array_type`` (and its subclasses)."""
    _REGISTERED[array_type] = from_dlpack
    _FOUND.clear()


def is_foreign(x: object) -> bool:
    """True for a non-torch object that speaks DLPack."""
    return x is not None and not isinstance(x, torch.Tensor) and hasattr(x, "__dlpack__")


def as_tensor(x: Any, name: str) -> Any:
    """``x`` as a torch.Tensor when it speaks DLPack (zero-copy); anything else unchanged."""
    if not is_foreign(x):
        return x
    try:
        return torch.from_dlpack(x)
    except (RuntimeError, TypeError, BufferError, ValueError) as exc:
        raise TypeError(
            f"{name} is a {_type_name(x)} with __dlpack__, but torch.from_dlpack could not read it ({exc}); "
            f"pass a torch.Tensor or a DLPack array of a dtype torch supports"
        ) from exc


def from_dlpack_for(x: object) -> FromDlpack:
    """The ``from_dlpack`` that makes arrays of ``type(x)``; TypeError when none is found."""
    cls = type(x)
    if cls in _FOUND:
        return _FOUND[cls]
    for registered, fn in _REGISTERED.items():
        if isinstance(x, registered):
            _FOUND[cls] = fn
            return fn
    parts = cls.__module__.split(".")
    candidates = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
    if parts[0] in _ALIASES:
        candidates.append(_ALIASES[parts[0]])
    for name in candidates:
        for where in (name, f"{name}.dlpack"):
            module = _module(where)
            fn = getattr(module, "from_dlpack", None) if module is not None else None
            if callable(fn):
                _FOUND[cls] = fn
                return fn
    raise TypeError(
        f"tcgemm cannot give the result back as a {_type_name(x)}: none of {', '.join(candidates)} (nor their "
        f".dlpack submodules) has from_dlpack; call tcgemm.interop.register({cls.__qualname__}, from_dlpack) "
        f"or pass torch tensors (torch.from_dlpack(x))"
    )


def _module(name: str) -> ModuleType | None:
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _type_name(x: object) -> str:
    return f"{type(x).__module__}.{type(x).__qualname__}"


def to_torch(a: Any, b: Any, c: Any, out: Any) -> tuple[Any, Any, Any, Any, Callable[[torch.Tensor], Any] | None]:
    """(a, b, c, out) as torch tensors, and the function that gives the result back in the
    caller's array type (None when every operand already is a torch tensor)."""
    if not any(is_foreign(x) for x in (a, b, c, out)):
        return a, b, c, out, None
    if out is not None:
        original_out = out

        def back(_d: torch.Tensor) -> Any:
            return original_out
    else:
        first = next(x for x in (a, b, c) if is_foreign(x))
        convert = from_dlpack_for(first)  # before any work: a type we cannot give back is an error now

        def back(d: torch.Tensor) -> Any:
            return convert(d)
    tensors = [as_tensor(x, name) for x, name in ((a, "a"), (b, "b"), (c, "c"), (out, "out"))]
    return (*tensors, back)
