"""tcgemm: hand-written CUDA tensor-core GEMM kernels for PyTorch, and the ladder that leads to them.

``tcgemm.nn`` (Linear), ``tcgemm.mlp`` (GatedMLP, fuse_mlp), ``tcgemm.moe`` (GroupedExperts), ``tcgemm.ops``
(``torch.ops.tcgemm.gemm``), ``tcgemm.interop`` (DLPack) and ``tcgemm.distributed`` (tensor parallel) are imported
on first use, so ``import tcgemm`` registers no operator and stays cheap.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ._version import __version__
from .api import Choice, kernels
from .entry import explain, gemm, matmul
from .grouped import grouped_gemm
from .precompile import LayerShape, warmup
from .problem import StrideCopyWarning
from .quantize import quantize_fp8, quantize_fp8_blocks
from .sms import reserve_sms

__all__ = ["Choice", "LayerShape", "StrideCopyWarning", "__version__", "distributed", "explain", "gemm", "grouped_gemm",
           "interop", "kernels", "matmul", "mlp", "moe", "nn", "ops", "quantize_fp8", "quantize_fp8_blocks",
           "reserve_sms", "warmup"]

_LAZY = ("distributed", "interop", "mlp", "moe", "nn", "ops", "model_bench")


def __getattr__(name: str) -> ModuleType:
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'tcgemm' has no attribute {name!r}")
