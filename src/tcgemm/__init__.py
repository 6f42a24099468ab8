"""tcgemm: hand-written CUDA tensor-core GEMM kernels for PyTorch, and the ladder that leads to them."""

from ._version import __version__
from .api import gemm, kernels, matmul
from .problem import StrideCopyWarning

__all__ = ["StrideCopyWarning", "__version__", "gemm", "kernels", "matmul"]
