"""Problems for the CUDA-graph tests (tests/gpu/test_graphs.py): one per registered kernel, tile config and
precision, of a shape that config serves, in a layout its kernel reads, and on which its special path is
active (split-K: several k-tiles per split; tail split: a partial last wave that the kernel cuts along k;
GPC_ORDER: a persistent grid of several waves). Pure shape arithmetic plus tensor makers that work on any
device, so tests/cpu/test_graph_problems.py checks the choices without a GPU.

(Importable as ``graph_problems``: tests/ holds a conftest.py, so pytest puts tests/ on sys.path.)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tcgemm import registry
from tcgemm.registry import KernelSpec, TileConfig
from tcgemm.schedule import cluster_units, tail_split

FP8 = ("fp8e4m3", "fp8e5m2")
IN_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
             "int8": torch.int8, "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}
OUT_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
              "int8": torch.int32, "fp8e4m3": torch.bfloat16, "fp8e5m2": torch.bfloat16}
ALIGN = 16  # leading dimensions are padded to a multiple of 16 elements: 16-byte aligned for every dtype
TAIL_KTILES = 16  # k-tiles of a tail-split problem (one part per helper needs >= 12, two parts >= 20)


@dataclass(frozen=True)
class Case:
    """One (kernel, config, precision); ``scaled``: fp8 with one-element float32 scale tensors."""

    kernel: str
    config: str
    precision: str
    scaled: bool = False

    @property
    def spec(self) -> KernelSpec:
        return registry.get(self.kernel)

    @property
    def cfg(self) -> TileConfig:
        return self.spec.config(self.config, self.precision)

    @property
    def id(self) -> str:
        return f"{self.kernel}:{self.config}:{self.precision}" + ("-scaled" if self.scaled else "")

    def gemm_kwargs(self) -> dict[str, object]:
        """What the call passes besides the tensors (kernel, config, precision, alpha, beta)."""
        alpha, beta = (1, -3) if self.precision == "int8" else (0.5, -1.5)  # int8: integers (exact in int32)
        return dict(kernel=self.kernel, config=self.config, precision="tf32" if self.precision == "tf32" else None,
                    alpha=alpha, beta=beta)


def cases() -> list[Case]:
    """Every registered kernel x config x precision it computes, plus a scaled variant of every fp8 one."""
    out: list[Case] = []
    for spec in registry.all_specs():
        for cfg in spec.configs:
            for p in spec.precisions:
                if cfg.serves(p):
                    out.append(Case(spec.name, cfg.name, p))
                    if p in FP8:
                        out.append(Case(spec.name, cfg.name, p, scaled=True))
    return out


def special_path(cfg: TileConfig) -> str | None:
    """"gpc_order", "tail_split", "split_k" or None: which per-stream scratch the config's launches use
    (tcgemm.launch.split_k_buffers / _gpc_buffer)."""
    if cfg.get("GPC_ORDER"):
        return "gpc_order"
    if cfg.get("TAIL_SPLIT"):
        return "tail_split"
    if cfg.get("SPLIT_K", 1) > 1:
        return "split_k"
    return None


@dataclass(frozen=True)
class Shape:
    m: int
    n: int
    k: int
    layouts: str  # A then B: r (row-major) / c (column-major)


def cluster_tiles(spec: KernelSpec, cfg: TileConfig) -> tuple[int, int]:
    """(tile rows, tile columns) of one work unit of a persistent launch ((1, 1) otherwise)."""
    return spec.cluster_shape(cfg) if spec.persistent else (1, 1)


def clusters(spec: KernelSpec, cfg: TileConfig, sms: int) -> int:
    """Clusters of a full persistent grid on ``sms`` SMs (tcgemm.launch.persistent_grid's bound)."""
    return max(1, sms // spec.cluster_of(cfg))


def _units_grid(want, limit: int = 64) -> tuple[int, int]:
    """(unit rows, unit columns), both >= 2, of the fewest units for which ``want(units)`` holds, the most
    square such grid among those."""
    best = None
    for um in range(2, limit + 1):
        for un in range(2, limit + 1):
            units = um * un
            if want(units):
                key = (units, abs(um - un))
                if best is None or key < best[0]:
                    best = (key, (um, un))
    assert best is not None, "no unit grid found"
    return best[1]


def shape_for(case: Case, sms: int) -> Shape:
    """A problem ``case``'s config serves, M and N not multiples of its tile, with its special path active
    on a GPU of ``sms`` SMs; modest sizes (at most a few thousand per side)."""
    spec, cfg = case.spec, case.cfg
    configs = [c.name for c in spec.configs]
    index = configs.index(cfg.name) + spec.precisions.index(case.precision)
    flip = {"r": "c", "c": "r"}
    # (D_TRANSPOSED: the transposed problem's layouts are B's and A's flipped, and may be none the kernel reads
    # as given: tf32's A_REGS configs serve "rr" where the kernel reads "rc")
    served = [lay for lay in (("rr", "rc", "cr", "cc") if cfg.get("D_TRANSPOSED") else spec.layouts)
              if cfg.serves_layouts(flip[lay[1]] + flip[lay[0]] if cfg.get("D_TRANSPOSED") else lay)]
    layouts = served[index % len(served)]  # vary the layouts over a kernel's cases
    bm, bn = cfg["BLOCK_M"], cfg["BLOCK_N"]
    if cfg.get("D_TRANSPOSED"):  # the kernel's M is D's N (tcgemm.problem.transposed_store)
        bm, bn = bn, bm
    bk = cfg.get("BLOCK_K", 32)  # (the simt configs without a K tile: any K)
    # Configs that write D through TMA only need D's rows 16-byte aligned: N a multiple of 8 (16-bit D),
    # 4 (32-bit D). 24 is both; 5 leaves N odd elsewhere.
    trim = 24 if cfg.tma_d_only else 5
    path = special_path(cfg)
    if path in ("tail_split", "gpc_order"):
        rows, cols = cluster_tiles(spec, cfg)
        grid = clusters(spec, cfg, sms)
        if path == "tail_split":
            um, un = _units_grid(lambda u: tail_split(u, TAIL_KTILES, min(grid, u)) is not None)
            k = (TAIL_KTILES - 1) * bk + 16  # 16 k-tiles, the last partial
        else:  # several waves, the last one partial
            um, un = _units_grid(lambda u: u > 2 * grid and u % grid != 0)
            k = 4 * bk + 16
        return Shape(um * rows * bm - 19, un * cols * bn - trim, k, layouts)
    if path == "split_k":
        return Shape(3 * bm - 5, 3 * bn - trim, 2 * cfg["SPLIT_K"] * bk + 16, layouts)
    return Shape(3 * bm - 5, 3 * bn - trim, 4 * bk + 16, layouts)


def units(spec: KernelSpec, cfg: TileConfig, shape: Shape, batch: int = 1) -> int:
    """Work units of a persistent launch of ``shape`` (clusters' blocks of tiles)."""
    return cluster_units(shape.m, shape.n, batch, cfg["BLOCK_M"], cfg["BLOCK_N"], *cluster_tiles(spec, cfg))


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def operand(rows: int, cols: int, layout: str, dtype: torch.dtype, device: str | torch.device,
            gen: torch.Generator | None, fill: bool = True) -> torch.Tensor:
    """A (rows, cols) view of a larger buffer, row- ("r") or column-major ("c"), its leading dimension padded
    to a multiple of ALIGN elements (16-byte aligned whatever M, N and K are). Same arguments, same
    strides and alignment: a call with it has the same signature (tcgemm.fastpath.key)."""
    inner, outer = (cols, rows) if layout == "r" else (rows, cols)
    full = (outer, _round_up(max(inner, 1), ALIGN))
    if not fill:
        buf = torch.empty(full, dtype=dtype, device=device)
    elif dtype == torch.int8:
        buf = torch.randint(-128, 128, full, dtype=dtype, device=device, generator=gen)
    else:
        buf = torch.randn(full, dtype=torch.float32, device=device, generator=gen).to(dtype)
    view = buf[:, :inner]
    return view if layout == "r" else view.t()


def tensors(case: Case, shape: Shape, device: str | torch.device, seed: int, fill: bool = True
            ) -> dict[str, torch.Tensor | None]:
    """a, b, c (a full M x N C, read with beta) and, for scaled cases, scale_a / scale_b; the same seed gives
    the same contents at new addresses (same signature)."""
    gen = None
    if fill:
        gen = torch.Generator(device=device)
        gen.manual_seed(seed)
    dtype, out_dtype = IN_DTYPES[case.precision], OUT_DTYPES[case.precision]
    a = operand(shape.m, shape.k, shape.layouts[0], dtype, device, gen, fill)
    b = operand(shape.k, shape.n, shape.layouts[1], dtype, device, gen, fill)
    if not fill:
        c = torch.empty(shape.m, shape.n, dtype=out_dtype, device=device)
    elif out_dtype == torch.int32:
        c = torch.randint(-1000, 1000, (shape.m, shape.n), dtype=out_dtype, device=device, generator=gen)
    else:
        c = torch.randn(shape.m, shape.n, device=device, generator=gen).to(out_dtype)
    result: dict[str, torch.Tensor | None] = dict(a=a, b=b, c=c, scale_a=None, scale_b=None)
    if case.scaled:
        values = (0.5 + seed % 3, 0.25 * (1 + seed % 2))  # a new seed: new scales (read on the device)
        result["scale_a"] = torch.tensor([values[0]], dtype=torch.float32, device=device)
        result["scale_b"] = torch.tensor([values[1]], dtype=torch.float32, device=device)
    return result


def poisoned(shape: Shape, precision: str, device: str | torch.device) -> torch.Tensor:
    """An output full of NaN (INT32_MIN for int32): unwritten elements show."""
    dtype = OUT_DTYPES[precision]
    if dtype.is_floating_point:
        return torch.full((shape.m, shape.n), float("nan"), dtype=dtype, device=device)
    return torch.full((shape.m, shape.n), torch.iinfo(dtype).min, dtype=dtype, device=device)
