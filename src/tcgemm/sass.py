"""Read compiled kernels: resource usage and SASS, from NVIDIA's PyPI cuobjdump.

Works without a GPU. Used by the CPU tests (no local-memory spills, the
expected instructions) and the command line.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path


def _tool(name: str) -> str:
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        path = find_nvidia_binary_utility(name)
    except Exception:  # noqa: BLE001
        path = None
    if not path:
        raise FileNotFoundError(f"{name} not found; install it with `pip install nvidia-cuda-{name}`")
    return path


def _run_on_cubin(args: list[str], cubin: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cubin"
        path.write_bytes(cubin)
        done = subprocess.run([*args, str(path)], capture_output=True, text=True, check=True)
    return done.stdout


def disassemble(cubin: bytes) -> str:
    """SASS text of every kernel in ``cubin``."""
    return _run_on_cubin([_tool("cuobjdump"), "-sass"], cubin)


def resource_usage(cubin: bytes) -> dict[str, int]:
    """Registers, stack, shared and local bytes as ptxas reported them (REG, STACK, SHARED, LOCAL)."""
    text = _run_on_cubin([_tool("cuobjdump"), "-res-usage"], cubin)
    found = dict(re.findall(r"(REG|STACK|SHARED|LOCAL):(\d+)", text))
    return {k: int(v) for k, v in found.items()}


_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)")


def instruction_mix(sass: str) -> Counter[str]:
    """Count of each opcode (without modifiers) in a SASS listing."""
    return Counter(m.group(1) for m in _OPCODE.finditer(sass))


def has_local_memory(sass: str) -> bool:
    """True if the code spills to or reads from local memory (LDL / STL)."""
    mix = instruction_mix(sass)
    return mix["LDL"] > 0 or mix["STL"] > 0
