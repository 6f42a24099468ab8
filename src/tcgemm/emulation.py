"""fp32 GEMMs on tf32 tensor cores (3xTF32): when auto runs an fp32 product there, and how.

An fp32 number is the sum of two tf32 numbers to within 2^-22 of itself: x = hi + lo, hi = x rounded to tf32,
lo = x - hi (rounded to tf32 in turn). A product a b is then ha hb + ha lb + la hb to within ~2^-22 |a b|,
where fp32's own rounding of a product is 2^-24 |a b| and a K-long sum adds its rounding on top, so the
error against a float64 reference stays at fp32's (the GPU tests compare it with cuBLAS's on the same inputs).
tcgemm forms the three terms as one tf32 GEMM over 3K: a staging kernel (``split_tf32`` in
kernels/util/stage_copy.cu) writes each operand once as three K-blocks of a K-major copy (A3 = [hi' lo hi],
B3 = [lo hi' hi]), and the tf32 Hopper kernel sums A3 B3 with alpha, beta and C as any GEMM does.

The tf32 tensor cores run ~7x the fp32 CUDA cores' rate on the H100 (tf32 dense ~495 TFLOP/s against 67), so
three tf32 products and the copies beat one fp32 product wherever the product is large against its operands;
where it is not (a few rows against a large weight: the copies would write 3x the weight's bytes per call), the
decode kernel splits both operands on chip instead (DECODE_KERNEL: 17 to 128 rows on the H100; tcgemm.api routes
them), and the CUDA-core kernels keep the rest. Inputs beyond fp32's normal range differ from IEEE fp32 in one way:
a lo part below the smallest normal float may be flushed by the tensor cores, so products of numbers below ~1e-34
lose bits that fp32's denormals would keep. inf and NaN reach D as fp32 forms them (see split_tf32).
"""

from __future__ import annotations

from functools import lru_cache

import torch

from . import fastpath, registry
from .dispatch import pick_config
from .problem import describe
from .staging import PreparedSplit, split_tf32

# The tf32 kernel and its configs that promote partial sums to an fp32 total every few k-tiles
# (PROMOTE_PARTIALS, kernels/include/hopper_ktile.cuh): the tensor cores' own adds into the accumulators are
# not rounded to nearest, and over a K of thousands their error grows with K (3xTF32 with one accumulator at
# 4096 x 4096 x 14336: 1e-4 against cuBLAS's fp32 2e-6), where fp32's rounded adds grow as its square root.
KERNEL = "wgmma_tma_store_kmajor"
# A few dozen rows against a large weight: the split copies would write 3x the weight per call, so the decode kernel
# splits both operands on chip instead (hopper/05_swap_ab_stream_k.cu, SPLIT3), streaming the weight once.
DECODE_KERNEL = "swap_ab_stream_k_3xtf32"
CONFIGS = ("128x192x32p4", "128x128x32p4")

# The cost model of the choice (H100, 2026-11-26-h100-probe-fp32-3xtf32-2770538.json and the fp32 sweeps): the fp32
# CUDA-core kernels' rate (46 TFLOP/s at 4096^3, ~40 at 256-512 rows), the promoting tf32 GEMM's (4096^3 over 3K:
# ~310 TFLOP/s of tf32 work), the copies' bandwidth (a read and three writes of each operand) and the host work
# (at 1024^3 1.24x of cuBLAS in CUDA graphs, 0.66x eager: 2026-11-26-h100-bench-fp32-3xtf32-rr-7c9d9d2.json).
FP32_CUDA_CORE_FLOPS = 40e12
TF32_TENSOR_FLOPS = 330e12
COPY_BYTES_PER_S = 2.8e12
FIXED_S = 40e-6  # host work of a repeat call (two copy launches, the GEMM's), which a short GPU run waits for
MIN_ARCH = 90  # the K-major tf32 wgmma kernel
MARGIN = 0.85  # 3xTF32 only where it is estimated clearly faster (256 x 4096 x 4096 at 0.87 ran 0.75x of cuBLAS)


def estimated_seconds(m: int, n: int, k: int) -> tuple[float, float]:
    """(fp32 on CUDA cores, 3xTF32) estimated seconds for an M x N x K product."""
    flops = 2.0 * m * n * k
    copies = 4.0 * (m * k + n * k) * 4  # each operand read once and written three times, 4 bytes a value
    return flops / FP32_CUDA_CORE_FLOPS, copies / COPY_BYTES_PER_S + 3 * flops / TF32_TENSOR_FLOPS + FIXED_S


def use_3xtf32(m: int, n: int, k: int, arch: int) -> bool:
    """Whether auto runs an M x N x K fp32 product as 3xTF32 on ``arch`` (compute capability * 10)."""
    if arch < MIN_ARCH or min(m, n, k) == 0 or 3 * k >= 2**31:
        return False
    # (Any N and K: the copies' rows are padded to 16 bytes (staging.PreparedSplit), and where D's rows are not,
    # config_for takes the promoting config with the register epilogue. From 7c9d9d2 N and K had to be multiples of
    # 4, after a repeat at 1000 x 1003 x 997 gave other bits: that was PROMOTE_NEXT's partial-row bug, fixed at
    # 43d93c8 for every shape; fp32 4095^3 ran 0.52-0.56x of cuBLAS on the CUDA cores meanwhile.)
    cuda_cores, tensor_cores = estimated_seconds(m, n, k)
    return tensor_cores < MARGIN * cuda_cores


def split_operands(a: torch.Tensor, b: torch.Tensor, fill: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """A3 (M x 3K, row-major) and B3 (3K x N, column-major): the tf32 GEMM whose product is a @ b at fp32's
    accuracy (``fill=False``: the buffers only, nothing launched)."""
    return split_tf32(a, b_side=False, fill=fill), split_tf32(b, b_side=True, fill=fill).t()


@lru_cache(maxsize=256)
def _config(m: int, n: int, k3: int, sms: int) -> str:
    a3 = torch.empty((m, k3), dtype=torch.float32, device="meta")
    b3 = torch.empty((n, k3), dtype=torch.float32, device="meta").t()
    problem, _ = describe(a3, b3, precision="tf32")
    return pick_config(registry.get(KERNEL), problem, sms, among=CONFIGS).name


def config_for(a3: torch.Tensor, b3: torch.Tensor, sms: int) -> str:
    """The promoting config (CONFIGS) the 3xTF32 GEMM of ``a3 @ b3`` runs, by auto's estimate."""
    return _config(a3.shape[0], b3.shape[1], a3.shape[1], sms)


class Prepared3x:
    """The repeat call of a 3xTF32 product (tcgemm.fastpath keeps it under the call's signature): the two split
    copies prepared (staging.PreparedSplit) and the tf32 GEMM's prepared launch, so a call costs two copy
    launches and one GEMM launch of host work. Not ``direct``: tcgemm.nn's raw-address path does not take it."""

    direct = False

    def __init__(self, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None, inner: fastpath.Prepared) -> None:
        self._split_a, self._split_b = PreparedSplit(a, b_side=False), PreparedSplit(b, b_side=True)
        self._inner = inner
        self.plan = inner.plan
        self._extents = (fastpath._extent(a), fastpath._extent(b), fastpath._extent(out))

    def __call__(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None,
                 scale_a: object = None, scale_b: object = None) -> torch.Tensor:
        if out is not None:  # (what the first call's checks refused: out over an input; c = out is the GEMM's)
            o0, eo = out.data_ptr(), self._extents[2]
            for name, t, e in (("a", a, self._extents[0]), ("b", b, self._extents[1])):
                if e and eo and t.data_ptr() < o0 + eo and o0 < t.data_ptr() + e:
                    raise ValueError(f"out overlaps {name} in memory; pass a separate output tensor")
        return self._inner(self._split_a(a), self._split_b(b).t(), c, out)
