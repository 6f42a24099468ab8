"""Matrices from and to files (.npy, .pt) for `tcgemm run`.

Writes are atomic: the result goes to a temporary file in the target folder that is renamed
over the destination only when complete, so an interrupted run never leaves a half-written D.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import torch

SUFFIXES = (".npy", ".pt")


def load_matrix(path: str | Path, name: str) -> torch.Tensor:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{name}: no such file {str(p)!r}")
    if p.suffix == ".npy":
        try:
            array = np.load(p, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"{name}: {p} is not a plain .npy array ({exc})") from None
        tensor = torch.from_numpy(np.ascontiguousarray(array))
    elif p.suffix == ".pt":
        tensor = torch.load(p, map_location="cpu", weights_only=True)
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"{name}: {p} holds a {type(tensor).__name__}, not a tensor")
    else:
        raise ValueError(f"{name}: {p} has suffix {p.suffix!r}; use one of {', '.join(SUFFIXES)}")
    if tensor.dim() not in (1, 2, 3):
        raise ValueError(f"{name}: {p} holds a {tensor.dim()}-D array; expected a matrix (2-D) or a batch (3-D)")
    return tensor


def save_matrix(tensor: torch.Tensor, path: str | Path) -> Path:
    p = Path(path)
    if p.suffix not in SUFFIXES:
        raise ValueError(f"output {p} has suffix {p.suffix!r}; use one of {', '.join(SUFFIXES)}")
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=p.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            if p.suffix == ".npy":
                np.save(f, tensor.detach().cpu().numpy())
            else:
                torch.save(tensor.detach().cpu(), f)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
