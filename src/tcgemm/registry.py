"""The kernel ladder, described as data.

Each :class:`KernelSpec` says what a kernel file is (its technique, the seed
document it comes from), what it can serve (precisions, architecture, layout
and alignment needs) and which tile configurations it is compiled with. Nothing
here compiles or launches: :mod:`tcgemm.select` filters and orders these
records, :mod:`tcgemm.launch` turns one into a launch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from types import MappingProxyType

# Precision names: what the tensor cores / FMA units compute in.
#   fp32: exact IEEE float32 on CUDA cores;   tf32: float32 inputs on tensor cores
#   fp16, bf16: 16-bit inputs, fp32 accumulate;   int8: s8 x s8 -> s32
#   fp8e4m3, fp8e5m2: 8-bit float inputs with per-tensor scales (torch._scaled_mm), fp32 accumulate
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "int8", "fp8e4m3", "fp8e5m2")


SCALE_BLOCK = 128  # k (and n) per block-wise fp8 scale: DeepSeek-V3's blocks (kernels/include/block_scales.cuh)
MAX_DYNAMIC_SMEM = 232448  # bytes of dynamic shared memory a CTA may have on sm_90 (227 KB)


@dataclass(frozen=True, eq=False)  # registry singletons: identity equality and hash
class TileConfig:
    """One compiled shape of a kernel. Names follow the CUTLASS levels:
    CTA tile (BLOCK_*), warp tile (WARP_*), per-thread tile (THREAD_*)."""

    name: str
    params: Mapping[str, int]
    # Precisions this config is for (None: all of the kernel's). Tensor-core tiles
    # are sized in bytes per row, so BLOCK_K differs between fp16, tf32 and int8.
    precisions: tuple[str, ...] | None = None
    # Multiply-adds per second relative to the kernel's first config on a large problem, as measured
    # (the dispatcher weighs it against how evenly a config's tiles fill the SMs); 1.0 when unmeasured.
    speed: float = 1.0
    # k-tiles of main loop that a tile's epilogue costs beyond the other configs' (the dispatcher adds it to
    # each tile's k-tiles, so it weighs most where K is short); 0.0 when unmeasured.
    epilogue: float = 0.0
    # The dispatcher's estimate cannot see what this config gains where K is long (GPC_ORDER: the L2's
    # request coalescer, measured under the power cap): it puts the config ahead of the others for
    # problems with K >= long_k and leaves it out below. 0: an ordinary config.
    long_k: int = 0
    # The estimate leaves this config out where K > max_k: small-N tiles (48 to 144 columns) win where their
    # tiles fill whole waves at short K, and lose at long K by more than the estimate's one speed says
    # (kernels with few multiply-adds per wgmma). 0: no bound.
    max_k: int = 0
    # Operand layouts this config is built for (None: all of the kernel's). Tiles whose width is not a
    # multiple of 64 need a K-major B: an MN-major B arrives in boxes of 64 columns.
    layouts: tuple[str, ...] | None = None
    # Run only where named (kernel="name", config="...", or measured by `tcgemm tune`): kept to measure
    # against the others, out of the estimate's reach (it counts a k split as free, so it would take them).
    named_only: bool = False
    # Built for masked grouped GEMMs too (GROUP_ROWS: kernels/include/group_rows.cuh; tcgemm.grouped_gemm): plain
    # tiles of the persistent kernel, without the schedules whose scratch or order the skipped units would upset.
    grouped: bool = False
    # The estimate leaves this config out where M > max_m (0: no bound): a tile measured ahead only at few rows.
    max_m: int = 0
    # ... and where M < min_m (0: no bound): a tile measured behind where most of its rows lie below the matrix.
    min_m: int = 0
    # Launched with programmatic dependent launch where the kernel is (KernelSpec.pdl); False: this config measured
    # slower with it, in the same process (benchmarks/probes/pdl_ab.py).
    pdl: bool = True
    # The estimate leaves this config out where N < min_n (0: no bound); for a D_TRANSPOSED config N is the
    # tokens (the transposed problem's): a schedule measured ahead only near a whole number of token tiles.
    min_n: int = 0
    # ... and where N > max_n (0: no bound): a tile measured ahead only while its token tiles fill one round.
    max_n: int = 0
    # The estimate takes this config for fp8 with block-wise scales only (it serves the other scale modes where
    # named): a tile measured ahead there and behind with per-tensor or row-wise scales.
    block_only: bool = False
    # The speed where the epilogue applies an activation on the SFU (dispatch.ACTIVATION_KTILES; 0: `speed`): a
    # ping-pong tile, whose epilogues run under the other consumer's main loop, measured against the others there.
    act_speed: float = 0.0
    # The speed where M <= dispatch.MID_ROWS (0: `speed`): a tile measured ahead of its usual rank where few rows of
    # A (in L2 beside the streamed weight) meet many tile columns.
    mid_speed: float = 0.0

    def serves(self, precision: str) -> bool:
        return self.precisions is None or precision in self.precisions

    def serves_layouts(self, layouts: str) -> bool:
        return self.layouts is None or layouts in self.layouts

    def writes(self, d_bytes: int) -> bool:
        """Whether the staged epilogue of this config can write a D of ``d_bytes`` per element: a 32-bit D goes
        through twice the column parts (EPI_32BIT), each a whole number of 16-column steps, which tiles 48, 96,
        112 or 144 wide do not split into; D_TRANSPOSED writes a 16-bit D only, but for tf32's A_REGS configs."""
        if d_bytes == 2 or not (self.get("D_BOX_BYTES") or self.get("D_TRANSPOSED")):
            return True
        if self.get("D_TRANSPOSED"):
            return bool(self.get("A_REGS"))  # (tf32's transposed configs write their 32-bit D from registers)
        return (self["BLOCK_N"] // 2) % (8 * self.get("EPI_PARTS", 1) * d_bytes // 2) == 0

    def gated_parts(self) -> int:
        """Column parts in which a gated epilogue (EPI_GATED) stores this config's BLOCK_N / 2 output columns through
        its staging buffer, 0 when it cannot (kernels/include/hopper_config.cuh: gated_parts, the same rule)."""
        cols, box = self["BLOCK_N"] // 2, self.get("D_BOX_BYTES", 128) // 2
        buffer = self["BLOCK_N"] // self.get("EPI_PARTS", 1) * self.get("EPI_BUFS", 1)

        def ok(p: int) -> bool:
            return cols % p == 0 and (cols // p) % box == 0 and (cols // p) % 16 == 0 and cols // p <= buffer

        fits = [p for p in (1, 2, 4, 8) if ok(p)]
        return next((p for p in fits if cols // p <= 64), fits[0] if fits else 0)

    def serves_block_scales(self) -> bool:
        """Whether a fp8 config can take block-wise scales (kernels/include/block_scales.cuh): cooperative consumers
        promoting every k-tile (WG_M = 128 only so), D not transposed, tiles within one 128-column block of B's scales
        (BLOCK_N divides 128)."""
        return (not self.get("PINGPONG") and not self.get("D_TRANSPOSED")
                and not self.get("STREAM_K") and SCALE_BLOCK % self["BLOCK_N"] == 0)

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory the launch needs (0: the kernel uses static shared memory only)."""
        return self.params.get("SMEM_BYTES", 0)

    def __getitem__(self, key: str) -> int:
        return self.params[key]

    def get(self, key: str, default: int = 0) -> int:
        return self.params.get(key, default)

    @property
    def tma_d_only(self) -> bool:
        """Built without the register-path epilogue (D_FROM_REGISTERS=0): D goes out through TMA stores
        only, so its base, rows and batch entries must be 16-byte aligned."""
        return not self.params.get("D_FROM_REGISTERS", 1)

    @property
    def threads(self) -> int:
        return self.params["THREADS"]

    @property
    def consumers(self) -> int:
        """Consumer warpgroups of a Hopper production config (hopper_config.cuh's CONSUMERS): one per WG_M rows
        of a tile, or two that take whole tiles in turn (PINGPONG)."""
        return 2 if self.get("PINGPONG") else self["BLOCK_M"] // self.get("WG_M", 64)

    def describe(self) -> str:
        """A compact label such as ``128x128x8 w32x64 t8x8``."""
        p = self.params
        text = f"{p['BLOCK_M']}x{p['BLOCK_N']}"
        if "BLOCK_K" in p:
            text += f"x{p['BLOCK_K']}"
        if "WARP_M" in p:
            text += f" w{p['WARP_M']}x{p['WARP_N']}"
        if "THREAD_M" in p:
            text += f" t{p['THREAD_M']}x{p.get('THREAD_N', 1)}"
        if "STAGES" in p:
            text += f" s{p['STAGES']}"
        # What the config's name adds to its tile (k2: split-K, c1: no cluster, p1, g16, rn, w128, ...),
        # whether or not the name spells out BLOCK_K ("256x128w128" and "256x128x64w128" alike).
        extra = re.sub(r"^\d+x\d+(x\d+)?", "", self.name).removeprefix(f"s{p.get('STAGES')}")  # s4d: "d"
        if extra:
            text += f" {extra}"
        if self.grouped:
            text += " [grouped]"  # (tcgemm.grouped_gemm runs it)
        return text


def _cfg(name: str, precisions: tuple[str, ...] | None = None, speed: float = 1.0, epilogue: float = 0.0,
         long_k: int = 0, max_k: int = 0, layouts: tuple[str, ...] | None = None, named_only: bool = False,
         grouped: bool = False, max_m: int = 0, pdl: bool = True, min_m: int = 0, min_n: int = 0,
         max_n: int = 0, block_only: bool = False, act_speed: float = 0.0, mid_speed: float = 0.0,
         **params: int) -> TileConfig:
    return TileConfig(name, MappingProxyType(dict(params)), precisions, speed, epilogue, long_k, max_k, layouts,
                      named_only, grouped, max_m=max_m, min_m=min_m, pdl=pdl, min_n=min_n,
                      max_n=max_n, block_only=block_only, act_speed=act_speed, mid_speed=mid_speed)


@dataclass(frozen=True, eq=False)
class KernelSpec:
    """A ladder stage: one kernel source file and what it can do."""

    name: str  # what users pass as kernel="..."
    family: str  # simt | wmma | mma_sync | hopper
    stage: int  # position in its family's ladder
    technique: str  # one line: what this stage adds
    source: str  # path under tcgemm/kernels/
    entry: str  # extern "C" symbol
    precisions: tuple[str, ...]
    configs: tuple[TileConfig, ...]  # first one is the default
    seed: str  # the source document(s) the stage follows
    min_arch: int = 80  # compute capability * 10
    vector_loads: bool = False  # compiled with VEC=4 when the operands are 16-byte aligned
    min_blocks: int = 1  # __launch_bounds__ minimum CTAs per SM
    auto: bool = True  # may kernel="auto" choose it (False for teaching stages that are never fastest)
    requires_aligned16: bool = False  # serves only problems whose A and B are 16-byte aligned (else: fall back)
    tma: bool = False  # takes TMA tensor maps of A and B as its first two arguments (tcgemm.tma)
    # Operand layouts served, as GemmProblem.layouts ("rc": A row-major, B column-major); only these
    # are compiled, and auto stages other layouts into copies when that is worth it (tcgemm.staging).
    layouts: tuple[str, ...] = ("rr", "rc", "cr", "cc")
    # Takes per-tensor scale pointers (const float* scale_a, scale_b; null = 1) after the standard
    # arguments (TCGEMM_TMA_SCALED_KERNEL, kernels/include/tma_scaled.cuh).
    scale_args: bool = False
    # Its scales may also be row-wise (SCALE_ROWWISE: scale_a one float per row of A, scale_b one per column of B,
    # applied to each finished tile's fp32 sums; kernels/include/hopper_epilogue.cuh: scale_rows_cols).
    row_scales: bool = False
    # Its scales may also be block-wise (BLOCK_SCALES: DeepSeek-V3's 1 x 128 groups of A and 128 x 128 blocks of B,
    # applied at each k-tile's promotion; kernels/include/block_scales.cuh), on the configs that serve_block_scales.
    block_scales: bool = False
    # Serves masked grouped GEMMs (tcgemm.grouped_gemm) on its configs marked `grouped`.
    grouped: bool = False
    # Persistent: grid = (CTAs, 1, 1) with at most one CTA per SM (launch.plan), each CTA loops over
    # output tiles of all batch entries; the batch count is passed as an extra last argument.
    persistent: bool = False
    cluster: int = 1  # CTAs per thread-block cluster (the kernel declares __cluster_dims__(cluster, 1, 1))
    # Stores D through a TMA tensor map (a third map, and a flag: 0 when D cannot be described, e.g. not
    # 16-byte aligned or 32-bit, and the kernel writes from registers); see kernels/include/tma.cuh.
    tma_store: bool = False
    # Launched with programmatic dependent launch (kernels/include/pdl.cuh): the kernel waits on
    # griddepcontrol before touching global memory, so its prologue may overlap the GEMM before it.
    pdl: bool = False
    # A specialist for problems of few rows: kernel="auto" prefers it (over the family order) where
    # M <= auto_max_m and it serves the problem; 0: an ordinary kernel, chosen by family and stage.
    auto_max_m: int = 0
    # Compiles an activation or a gated pair into its epilogue (EPI_ACT, EPI_GATED: tcgemm.epilogue).
    epilogues: bool = False
    # Has code for a whole row-major C (C_MATRIX; kernels/include/hopper_config.cuh: L2 hints of its rows, staging in
    # shared memory): launches that add one run a build with that code, all others (no C, a bias row) one without.
    c_matrix: bool = False
    defines: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def cluster_of(self, cfg: TileConfig) -> int:
        """CTAs per cluster of a config (its CLUSTER_M, else the spec's)."""
        return cfg.get("CLUSTER_M", self.cluster)

    def cluster_shape(self, cfg: TileConfig) -> tuple[int, int]:
        """(tile rows, tile columns) of the block of tiles one cluster computes: stacked along M by default,
        side by side along N with CLUSTER_ALONG_N, 2 x 2 with CLUSTER_2D (as the kernel's CTAS_M, CTAS_N)."""
        cluster = self.cluster_of(cfg)
        ctas_n = cfg.get("CLUSTER_2D") or (cluster if cfg.get("CLUSTER_ALONG_N") else 1)
        return cluster // ctas_n, ctas_n

    def configs_for(self, precision: str) -> tuple[TileConfig, ...]:
        return tuple(c for c in self.configs if c.serves(precision))

    def config(self, name: str | None = None, precision: str | None = None) -> TileConfig:
        """The named config (default: the first one serving ``precision``)."""
        candidates = self.configs_for(precision) if precision else self.configs
        if name is None and candidates:
            return candidates[0]
        for cfg in candidates:
            if cfg.name == name:
                return cfg
        known = ", ".join(c.name for c in candidates) or "none"
        what = f" for {precision}" if precision else ""
        raise ValueError(f"kernel {self.name!r} has no tile config {name!r}{what}; known: {known}")


_SEED_004 = "004 (CUDA Matrix Multiplication Optimization)"
_SEED_002 = "002 (cuMM)"
_SEED_003 = "003 (NVIDIA Tensor Core Programming: HMMA/IMMA wmma, transposes via fragment layouts)"
_SEED_001 = "001 (slides: wmma with zero padding at the edges)"
_SEED_000 = "000 (a gentle introduction to mma.sync: fragments, ldmatrix)"
_SEED_HOPPER = "issue 4 (Hopper path)"


def _hopper_smem(stages: int, block_m: int, block_n: int, block_k: int = 64) -> int:
    """Dynamic shared memory of a TMA ring: the tiles, 1 KB to align them for the
    128-byte swizzle, 1 KB for the mbarriers. ``block_k`` counts 16-bit elements: rows of
    128 bytes are block_k=64 whatever the type."""
    return stages * (block_m + block_n) * block_k * 2 + 2048


def _epilogue_smem(block_m: int, block_n: int) -> int:
    """D staging buffers of the TMA-store epilogue: the whole 16-bit CTA tile."""
    return block_m * block_n * 2


def _dt_ring_smem(block_m: int, block_n: int) -> int:
    """D_IN_RING's own buffer: the 8-token blocks of a D^T tile (1 KB each) that its last k-tile's ring slot
    ((block_m + block_n) rows of 128 bytes) cannot hold (kernels/include/hopper_epilogue.cuh: DtRing); 0 where
    the slot holds the whole tile."""
    return max(0, block_m * block_n * 2 - (block_m + block_n) * 128)


def _swap_smem(stages: int, tokens: int, rows: int, ksub: int = 1, planes: int = 1) -> int:
    """Dynamic shared memory of the swap-AB kernel's ring (hopper/05_swap_ab_stream_k.cu): per stage ``ksub``
    boxes of a weight tile of ``rows`` and of ``planes`` token tiles of ``tokens`` rows of 128 bytes (3 for fp32's
    split tokens); 1 KB to align them, then 2 x STAGES mbarriers (3 x with the split) and the fixup's flag."""
    return 1024 + stages * (rows + planes * tokens) * 128 * ksub + 8 * (3 if planes > 1 else 2) * stages + 16


def _swap_cfg(tokens: int, precision: str, rows: int = 64, ksub: int = 4, per_sm: int = 2, stages: int = 0,
              auto_max_m: int = 0, auto_min_k: int = 0, auto_max_n: int = 0, prefetch: int = 1,
              auto_yield_nk: tuple[int, int] = (0, 0), split_steps: int = 0, consumers: int = 0,
              auto_min_n: int = 0, whole_fill_pct: int = 0) -> TileConfig:
    """A swap-AB config: ``tokens`` (BLOCK_M, wgmma N) x ``rows`` weight rows, ``ksub`` boxes of 128 bytes
    of k per stage, ``per_sm`` CTAs per SM in the stream-K grid; stages (0: as many as fit twice in the SM's
    228 KB, 1 KB of it reserved per CTA: with one CTA per SM the rest leaves room for the next GEMM's CTA);
    the first ``prefetch`` rings' worth of the weight hinted into L2 before the wait for the grid before.
    ``auto_max_m``, ``auto_min_k``, ``auto_max_n``: auto runs the first config (registry order) whose bounds
    admit M, K and N (dispatch.stream_k_admits; auto_max_m 0: only when named, auto_max_n 0: any N);
    ``auto_yield_nk`` (lo, hi): a weight of lo <= N x K < hi elements with K >= 2048 goes to the next config;
    ``auto_min_n``: auto leaves narrower N to the next config. ``whole_fill_pct``: whole tiles from that share of
    the CTA places on (tcgemm.schedule.stream_k_shape; 0: its default).
    Names: tokens x rows x BLOCK_K, then q<ksub>, s<stages> (where not the most that fit twice), g1 (one
    CTA per SM), l<prefetch> (rings hinted into L2, where not 1). Weight fragments from registers (fp32's 3xTF32,
    tf32 with a row-major weight): ``split_steps`` k steps of 8 per wgmma group (SPLIT_STEPS in the kernel; 0: its
    default, a box of k); ``consumers`` warpgroups, an m64 atom of the weight tile each or more (0: two for fp32's
    split, else one)."""
    block_k = 32 if precision in ("tf32", "fp32") else 128 if precision.startswith("fp8") else 64
    planes = 3 if precision == "fp32" else 1  # fp32 (3xTF32): the token tile and its hi' and lo planes
    stage_bytes = (rows + planes * tokens) * 128 * ksub
    fit = (228 * 1024 // 2 - 1024 - 1024 - 64) // stage_bytes
    stages = stages or fit
    name = (f"{tokens}x{rows}x{block_k}" + (f"q{ksub}" if ksub > 1 else "") + (f"s{stages}" if stages != fit else "")
            + ("g1" if per_sm == 1 else "") + (f"l{prefetch}" if prefetch != 1 else ""))
    precisions = ((precision,) if precision in ("tf32", "fp32") else ("fp8e4m3", "fp8e5m2")
                  if precision.startswith("fp8") else ("fp16", "bf16"))
    return _cfg(name, precisions,
                BLOCK_M=tokens, BLOCK_N=rows, BLOCK_K=block_k, KSUB=ksub, STAGES=stages,
                THREADS=128 * (1 + (consumers or (2 if planes > 1 else 1))), STREAM_K=1,
                CTAS_PER_SM=per_sm, AUTO_MAX_M=auto_max_m, AUTO_MIN_K=auto_min_k, AUTO_MAX_N=auto_max_n,
                **({"AUTO_YIELD_NK_LO": auto_yield_nk[0], "AUTO_YIELD_NK_HI": auto_yield_nk[1]}
                   if auto_yield_nk[1] else {}),
                L2_PREFETCH=stages * prefetch,
                **({"SPLIT_STEPS": split_steps} if split_steps else {}),
                **({"AUTO_MIN_N": auto_min_n} if auto_min_n else {}),
                **({"WHOLE_FILL_PCT": whole_fill_pct} if whole_fill_pct else {}),
                SMEM_BYTES=_swap_smem(stages, tokens, rows, ksub, planes))


def _pipeline_smem(stages: int, block_m: int, block_n: int, block_k: int, elem_bytes: int) -> int:
    """Dynamic shared memory of the cp.async ring of mma_pipeline: A and B tiles per stage."""
    return stages * (block_m + block_n) * block_k * elem_bytes


LADDER: tuple[KernelSpec, ...] = (
    KernelSpec(
        name="simt_naive",
        family="simt",
        stage=0,
        technique="one thread per output, lanes along M (uncoalesced)",
        source="simt/00_naive.cu",
        entry="simt_naive",
        precisions=("fp32",),
        configs=(_cfg("16x16", BLOCK_M=16, BLOCK_N=16, THREADS=256),),
        seed=f"{_SEED_004} v00; {_SEED_002} stage 0",
    ),
    KernelSpec(
        name="simt_coalesced",
        family="simt",
        stage=1,
        technique="lanes along N: coalesced B loads and D stores",
        source="simt/01_coalesced.cu",
        entry="simt_coalesced",
        precisions=("fp32",),
        configs=(_cfg("8x32", BLOCK_M=8, BLOCK_N=32, THREADS=256),),
        seed=f"{_SEED_004} v01",
    ),
    KernelSpec(
        name="simt_smem_tiling",
        family="simt",
        stage=2,
        technique="CTA tiles of A and B staged in shared memory",
        source="simt/02_smem_tiling.cu",
        entry="simt_smem_tiling",
        precisions=("fp32",),
        configs=(_cfg("32x32x32", BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, THREADS=1024),),
        seed=f"{_SEED_004} v02; {_SEED_002} stage 1",
    ),
    KernelSpec(
        name="simt_double_buffering",
        family="simt",
        stage=3,
        technique="two shared buffers, next tile prefetched during compute",
        source="simt/03_double_buffering.cu",
        entry="simt_double_buffering",
        precisions=("fp32",),
        configs=(_cfg("32x32x32", BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, THREADS=1024),),
        seed=f"{_SEED_002} stage 2",
    ),
    KernelSpec(
        name="simt_thread_tiling_1d",
        family="simt",
        stage=4,
        technique="each thread computes a column of THREAD_M outputs",
        source="simt/04_thread_tiling_1d.cu",
        entry="simt_thread_tiling_1d",
        precisions=("fp32",),
        configs=(_cfg("64x64x8", BLOCK_M=64, BLOCK_N=64, BLOCK_K=8, THREAD_M=8, THREADS=512),),
        seed=f"{_SEED_004} v03",
    ),
    KernelSpec(
        name="simt_thread_tiling_2d",
        family="simt",
        stage=5,
        technique="each thread computes a THREAD_M x THREAD_N block (outer products)",
        source="simt/05_thread_tiling_2d.cu",
        entry="simt_thread_tiling_2d",
        precisions=("fp32",),
        configs=(
            _cfg("128x128x8", BLOCK_M=128, BLOCK_N=128, BLOCK_K=8, THREAD_M=8, THREAD_N=8, THREADS=256),
        ),
        seed=f"{_SEED_004} v04; {_SEED_002} stage 3",
    ),
    KernelSpec(
        name="simt_vectorized",
        family="simt",
        stage=6,
        technique="float4 global/shared access, A transposed in shared memory",
        source="simt/06_vectorized.cu",
        entry="simt_vectorized",
        precisions=("fp32",),
        configs=(
            _cfg("128x128x8", BLOCK_M=128, BLOCK_N=128, BLOCK_K=8, THREAD_M=8, THREAD_N=8, THREADS=256),
        ),
        seed=f"{_SEED_004} v05; {_SEED_002} stage 4",
        vector_loads=True,
        min_blocks=2,
    ),
    KernelSpec(
        name="simt_warp_tiling",
        family="simt",
        stage=7,
        technique="warp tiles with strided 4x4 thread pieces, double-buffered register prefetch",
        source="simt/07_warp_tiling.cu",
        entry="simt_warp_tiling",
        precisions=("fp32",),
        # min_m: at 32-64 rows (x 4096 x 4096, fp32's K-parts route, 8 parts) 64 x 64 x 8 took 69-77 us against
        # 103-106 for 128 x 128 x 16 (the estimate's pick), 105-107 for 128 x 128 x 8 and 139-145 for 128 x 64 x 16,
        # unsplit 273-295 against 412-445; at 96 and 128 rows 128 x 128 x 16 stays ahead (105-108 against 144-172)
        # (CUDA graphs, 2026-11-27-h100-fp32-few-rows-357d3ed.json). The estimate counts the 64 x 64 tiles in two
        # rounds of two CTAs an SM, where they fit four.
        configs=(
            _cfg("128x128x16", min_m=65, BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, WARP_M=32, WARP_N=64,
                 THREAD_M=8, THREAD_N=8, THREADS=256),
            _cfg("128x128x8", speed=0.94, min_m=65, BLOCK_M=128, BLOCK_N=128, BLOCK_K=8, WARP_M=32, WARP_N=64,
                 THREAD_M=8, THREAD_N=8, THREADS=256),
            # speed: rates at 4096^3 relative to 128 x 128 x 16 (same file as 128 x 64 x 16 below).
            _cfg("64x64x8", speed=0.76, BLOCK_M=64, BLOCK_N=64, BLOCK_K=8, WARP_M=32, WARP_N=32,
                 THREAD_M=4, THREAD_N=8, THREADS=128),
            # 128 x 64 tiles, BLOCK_K 16 (128 threads): at 1024^3 128 CTAs where 128 x 128 makes 64, 0.87x of
            # cuBLAS in CUDA graphs against 0.74x for 64 x 64 x 8 (auto's tile before), 0.79x at 4096^3 where
            # 128 x 128 x 16 runs 0.88x (2026-11-26-h100-explore-fp32-configs-d158e06.json): speed 0.89.
            # Tried in the same run and not kept: 128 x 128 x 16 with 64 x 32 warp tiles (the same as 32 x 64),
            # 128 x 64 x 8 and 64 x 128 x 8 (0.71-0.76x at 1024^3), 64 x 64 x 16 (0.83x at 1024^3, 0.70x at
            # 4096^3).
            _cfg("128x64x16", speed=0.89, min_m=65, BLOCK_M=128, BLOCK_N=64, BLOCK_K=16, WARP_M=32, WARP_N=64,
                 THREAD_M=8, THREAD_N=8, THREADS=128),
        ),
        seed=f"{_SEED_004} v06; {_SEED_002} stage 5",
        vector_loads=True,
        min_blocks=2,
    ),
    KernelSpec(
        name="simt_skinny",
        family="simt",
        stage=8,
        technique="few rows (decode): each CTA streams BLOCK_N columns of B straight into registers, 16-byte loads "
                  "along B's contiguous dimension, all M rows at once; K split across CTAs by tcgemm.api",
        source="simt/08_skinny.cu",
        entry="simt_skinny",
        precisions=("fp32",),
        configs=(
            # (Tried and removed: one-row configs, 1 x 128 and 1 x 32 with four CTAs an SM, K in parts summed after:
            # CUDA graphs, fp32 1 x 4096 x 4096 29.0 us rr and rc, 2.3 TB/s, where auto's 3xTF32 decode tile took
            # 29.7 / 30.0 and cuBLAS 24.7 / 29.0; 1 x 4096 x 14336 86-90 against 85-89
            # (2026-11-27-h100-gemv-probe-3b26d26.json).)
            # B row-major: lanes along n, 8 k slices summed in order in shared memory.
            _cfg("16x128", layouts=("rr", "cr"), BLOCK_M=16, BLOCK_N=128, THREADS=256),
            # B column-major (nn.Linear's weight): a warp per 4 weight rows, lanes along k, A's rows through shared
            # memory, shuffles at the end (16x32s at cc311b0, where 16x32 read A from global).
            _cfg("16x32", layouts=("rc", "cc"), BLOCK_M=16, BLOCK_N=32, THREADS=256),
        ),
        seed="tcgemm (fp32 decode: 0.73x / 0.48x of cuBLAS at 16 x 4096 x 4096 on the tiled stages)",
        vector_loads=True,
        auto_max_m=16,
    ),
    KernelSpec(
        name="wmma_naive",
        family="wmma",
        stage=0,
        technique="one warp per 16x16 tile, wmma fragments straight from global (zero-padded copies at edges)",
        source="wmma/00_wmma_naive.cu",
        entry="wmma_naive",
        precisions=("fp16", "bf16", "tf32", "int8"),
        configs=(_cfg("32x64", BLOCK_M=32, BLOCK_N=64, THREADS=256),),
        seed=f"{_SEED_003}; {_SEED_001}",
        auto=False,
    ),
    KernelSpec(
        name="wmma_smem",
        family="wmma",
        stage=1,
        technique="CTA tiles in skewed shared memory, warp tiles of wmma fragments, register double buffering",
        source="wmma/01_wmma_smem.cu",
        entry="wmma_smem",
        precisions=("fp16", "bf16", "tf32", "int8"),
        # Every config's K tile is 64 bytes per line (32 halves, 16 floats, 64 int8).
        configs=(
            _cfg("128x128x32", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x16", ("tf32",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x64", ("int8",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, WARP_M=64, WARP_N=32,
                 THREADS=256),
        ),
        seed=f"{_SEED_004} v07; {_SEED_003}",
        vector_loads=True,
    ),
    KernelSpec(
        name="mma_fragments",
        family="mma_sync",
        stage=0,
        technique="mma.sync tensor cores; fragments loaded register by register at their PTX coordinates",
        source="mma_sync/00_mma_fragments.cu",
        entry="mma_fragments",
        precisions=("fp16", "bf16", "tf32", "int8"),
        configs=(
            _cfg("128x128x32", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x16", ("tf32",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x64", ("int8",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, WARP_M=64, WARP_N=32,
                 THREADS=256),
        ),
        seed=f"{_SEED_000} (mma fragments)",
        min_arch=80,
        auto=False,
    ),
    KernelSpec(
        name="mma_ldmatrix",
        family="mma_sync",
        stage=1,
        technique="fragments through ldmatrix.x4 (.trans for MN-major 16-bit operands)",
        source="mma_sync/01_mma_ldmatrix.cu",
        entry="mma_ldmatrix",
        precisions=("fp16", "bf16", "tf32", "int8"),
        configs=(
            _cfg("128x128x32", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x16", ("tf32",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, WARP_M=64, WARP_N=32,
                 THREADS=256),
            _cfg("128x128x64", ("int8",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, WARP_M=64, WARP_N=32,
                 THREADS=256),
        ),
        seed=f"{_SEED_000} (ldmatrix)",
        min_arch=80,
        auto=False,
    ),
    KernelSpec(
        name="mma_pipeline",
        family="mma_sync",
        stage=2,
        technique="multistage cp.async pipeline, XOR-swizzled shared memory, 64x64 warp tiles, ldmatrix",
        source="mma_sync/02_cp_async_pipeline.cu",
        entry="mma_pipeline",
        precisions=("fp16", "bf16", "tf32", "int8"),
        configs=(
            # Large tiles first (the default): 8 warps of 64 x 64, one CTA per SM, a 64-element
            # (128-byte) K tile.  Alternatives for the benchmark to decide: the transposed CTA
            # shape, and 4-warp 128 x 128 CTAs two per SM (independent barriers, more L2 traffic).
            # int8 has no tile under 128 x 128: MN-major s8 tiles need rows of 128 bytes.
            _cfg("128x256x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 128, 256, 64, 2)),
            _cfg("256x128x64", ("fp16", "bf16"), BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 256, 128, 64, 2)),
            _cfg("128x128x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, WARP_M=64, WARP_N=64,
                 STAGES=3, THREADS=128, SMEM_BYTES=_pipeline_smem(3, 128, 128, 64, 2)),
            _cfg("128x64x32", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, WARP_M=64, WARP_N=32,
                 STAGES=4, THREADS=128, SMEM_BYTES=_pipeline_smem(4, 128, 64, 32, 2)),
            # tf32: 256 x 128 first (truncating: 204 / 210 TFLOP/s at 4096^3 / 8192^3 against 200 / 201 for
            # 128 x 256, 2026-11-23-h100-explore-tf32-truncate.json)
            _cfg("256x128x32", ("tf32",), BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 256, 128, 32, 4)),
            _cfg("128x256x32", ("tf32",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 128, 256, 32, 4)),
            _cfg("256x128x32s3", ("tf32",), BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=64,
                 STAGES=3, THREADS=256, SMEM_BYTES=_pipeline_smem(3, 256, 128, 32, 4)),
            _cfg("256x128x32g16", ("tf32",), BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, GROUP_M=16, SMEM_BYTES=_pipeline_smem(4, 256, 128, 32, 4)),
            _cfg("128x256x32rn", ("tf32",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, TF32_ROUND=1, SMEM_BYTES=_pipeline_smem(4, 128, 256, 32, 4)),
            _cfg("128x128x16", ("tf32",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=128, SMEM_BYTES=_pipeline_smem(4, 128, 128, 16, 4)),
            _cfg("128x64x16", ("tf32",), BLOCK_M=128, BLOCK_N=64, BLOCK_K=16, WARP_M=64, WARP_N=32,
                 STAGES=4, THREADS=128, SMEM_BYTES=_pipeline_smem(4, 128, 64, 16, 4)),
            _cfg("128x256x128", ("int8",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 128, 256, 128, 1)),
            _cfg("256x128x128", ("int8",), BLOCK_M=256, BLOCK_N=128, BLOCK_K=128, WARP_M=64, WARP_N=64,
                 STAGES=4, THREADS=256, SMEM_BYTES=_pipeline_smem(4, 256, 128, 128, 1)),
            _cfg("128x128x128", ("int8",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, WARP_M=64, WARP_N=64,
                 STAGES=3, THREADS=128, SMEM_BYTES=_pipeline_smem(3, 128, 128, 128, 1)),
        ),
        seed=f"{_SEED_000} (ldmatrix); {_SEED_002} stage 6 (cp.async + swizzle + warp tiling, generalised)",
        min_arch=80,
    ),
    KernelSpec(
        name="wgmma_tma",
        family="hopper",
        stage=0,
        technique="TMA tile loads into 128B-swizzled shared memory, mbarrier ring, async wgmma from shared memory",
        source="hopper/00_wgmma_tma.cu",
        entry="wgmma_tma",
        precisions=("fp16", "bf16"),
        configs=(
            _cfg("128x128x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=3, THREADS=256,
                 SMEM_BYTES=_hopper_smem(3, 128, 128)),
            _cfg("128x64x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, STAGES=4, THREADS=256,
                 SMEM_BYTES=_hopper_smem(4, 128, 64)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        min_blocks=2,
        requires_aligned16=True,
        tma=True,
    ),
    KernelSpec(
        name="wgmma_ws",
        family="hopper",
        stage=1,
        technique="warp specialisation: TMA producer warpgroup, two wgmma consumers, full/empty mbarriers, "
                  "setmaxnreg, grouped tile order",
        source="hopper/01_warp_specialized.cu",
        entry="wgmma_ws",
        precisions=("fp16", "bf16"),
        configs=(
            _cfg("128x256x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4, THREADS=384,
                 SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x128x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=6, THREADS=384,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
    ),
    KernelSpec(
        name="wgmma_ws_kmajor",
        family="hopper",
        # Stage 1's technique for the types wgmma reads K-major only; numbered 1 so that later fp16/bf16
        # stages rank above it should they learn tf32/int8 (auto picks per precision).
        stage=1,
        technique="wgmma_ws for tf32, int8 and fp8: both operands K-major (auto stages other layouts as "
                  "K-major copies), 128-byte tile rows = 32 tf32 or 128 int8/fp8 of k; fp8 with per-tensor "
                  "scales and per-k-tile fp32 accumulation",
        source="hopper/10_wgmma_kmajor.cu",
        entry="wgmma_ws_kmajor",
        precisions=("tf32", "int8", "fp8e4m3", "fp8e5m2"),
        # Rows of 128 bytes (BLOCK_K = 32 floats or 128 int8/fp8), so the shared memory is that of wgmma_ws.
        # fp8 keeps two accumulator arrays (per-k-tile partial sums): BLOCK_N <= 192.
        configs=(
            _cfg("128x256x32", ("tf32",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, STAGES=4, THREADS=384,
                 SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x128x32", ("tf32",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, STAGES=6, THREADS=384,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
            _cfg("128x256x128", ("int8",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, STAGES=4, THREADS=384,
                 SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x192x128", ("fp8e4m3", "fp8e5m2"), BLOCK_M=128, BLOCK_N=192, BLOCK_K=128, STAGES=5,
                 THREADS=384, SMEM_BYTES=_hopper_smem(5, 128, 192)),
            _cfg("128x128x128", ("int8", "fp8e4m3", "fp8e5m2"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=6,
                 THREADS=384, SMEM_BYTES=_hopper_smem(6, 128, 128)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rc",),
        scale_args=True,
    ),
    KernelSpec(
        name="wgmma_persistent",
        family="hopper",
        stage=2,
        technique="persistent CTAs (one per SM) over grouped tiles; the producer loads the next tile "
                  "during the epilogue",
        source="hopper/02_persistent.cu",
        entry="wgmma_persistent",
        precisions=("fp16", "bf16"),
        configs=(
            _cfg("128x256x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4, THREADS=384,
                 SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x128x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=6, THREADS=384,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        persistent=True,
    ),
    KernelSpec(
        name="wgmma_cluster",
        family="hopper",
        stage=3,
        technique="2-CTA clusters: each CTA loads half of the shared B tile and TMA-multicasts it to both "
                  "(a third less L2 traffic per CTA)",
        source="hopper/03_cluster_multicast.cu",
        entry="wgmma_cluster",
        precisions=("fp16", "bf16"),
        configs=(
            _cfg("128x256x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x128x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=6, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=64, SMEM_BYTES=_hopper_smem(6, 128, 128)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        persistent=True,
        cluster=2,
        pdl=True,
    ),
    KernelSpec(
        name="wgmma_tma_store",
        family="hopper",
        stage=4,
        technique="epilogue through shared memory: stmatrix into a swizzled buffer, TMA stores overlapping "
                  "the next tile's main loop (stage 3's kernel otherwise)",
        source="hopper/04_tma_store_epilogue.cu",
        entry="wgmma_tma_store",
        precisions=("fp16", "bf16"),
        epilogues=True,
        # The staging buffers (32 KB per consumer at BLOCK_N = 256) cost one ring stage.
        # Tried and removed: a stream-K tail (the last partial wave and one full wave before it cut into
        # equal k ranges, one per cluster, partial tiles summed through a workspace) to recover the idle
        # tail of 3.88 waves at 4096^3. It ran at 0.72-0.86x the speed of this config at 4096^3 and
        # 4096x4096x14336, 0.87-0.94x at 4096x14336x4096 and 8192x8192x1024, 0.98-1.02x at 8192^3, fp8
        # 0.63-0.69x (2026-11-23-h100-explore-stream-k.json). Likely (not profiled): the 66 clusters then
        # read A and B at 66 different k offsets, so the L2 no longer serves one cluster's k-tiles to the
        # clusters beside it, as the grouped tile order does.
        # EPI_32BIT in every config: an fp32 D (out_dtype=torch.float32) goes through the staging buffer
        # too, in twice the column parts. bf16 -> fp32 at 4096^3 / 8192^3 / 4096x14336x4096: 0.94x / 1.00x /
        # 0.94x of torch.mm(..., out_dtype=torch.float32), against 0.82x / 0.93x / 0.86x written from
        # registers, same run (2026-11-23-h100-explore-bf16-fp32-out.json, `tcgemm bench --out-dtype fp32`).
        defines=MappingProxyType({"EPI_32BIT": "1"}),
        configs=(
            # EPI_OVERLAP (hopper_epilogue.cuh), the next tile's first k-tile issued in two column halves between
            # the epilogue's halves, so the tensor cores wait for half an epilogue per tile instead of a
            # whole one; every k-tile as two m64n128 halves (with m64n256 in the main loop, the two shapes
            # on one accumulator made ptxas serialize every wgmma). D through TMA only (a D the tensor map
            # cannot describe goes to s4b2 below). Same process, two rounds, against s4b2 / s4b2t: bf16
            # 4096^3 99.7% of cuBLAS against 98.0%, 8192x8192x1024 100.4 against 97.4-97.9%,
            # 4096x4096x14336 100.5 against 99.5-99.9%, 4096x14336x4096 (ot) 101.0-102.2 against 100.6%; fp16
            # 4096^3 100.2% (ot, which does not split there; o 99.9 and 91.9% in its two rounds) against
            # 97.7-98.1% (2026-11-23-h100-ab-epi-overlap-59e691b.json). Old build against new (auto, two rounds):
            # bf16 / fp16 8192x8192x1024 100.5 / 101.2% against 97.5 / 98.0%, 4096x14336x4096 100.9 / 100.9%
            # against 100.3 / 99.9% (2026-11-23-h100-ab-epi-overlap-da8fdae.json). But at 4096^3 it ran 91.2 /
            # 100.0 / 97.9% (fp16 95.4 / 99.8 / 93.5%) in three processes against 97.8-99.3% for s4b2 (...-ab-
            # epi-overlap-1aa55e2.json; fp16 91.9-104.4% over the runs before): some processes run it ~8% slower,
            # not yet understood (auto then took it only where K is short). With the L2 promotion at 128 bytes
            # (tma.py) and the wait below the tile loop (no drain per tile; alone +0.3-0.6%, ...-ab-overlap-wait-
            # a65615f.json), four processes, each timing both after a second of warm-up (tcgemm.bench), in
            # alternating order: bf16 4096^3 100.0-101.2% of cuBLAS against 95.5-101.1% for s4b2 (medians 100.3 /
            # 98.9), fp16 99.8-100.8 against 97.6-99.9, 8192x8192x1024 100.5-102.4 / 101.6-101.8 against
            # 97.6-103.7 / 96.1-97.7, 4096x4096x14336 within the spread (...-overlap-vs-s4b2-warm-3e188bc.json).
            # First: auto's pick for large 16-bit problems (the s4b2 configs below cost one k-tile more per
            # tile: their `epilogue`), ot where the tail split applies. (Without that warm-up the first config
            # timed in a process ran 1-2% low: an earlier ten-process comparison with s4b2 first, and one of
            # tile orders that had groups of 32 tile rows ahead of 8 by 1.5%, are biased so; warmed and in
            # alternating order 32 and 8 rows tied, ...-group-order-8-vs-32-warm-3e188bc.json.)
            # Tried and removed: each half staged at once (one wait, two barriers) and its wgmmas issued right
            # after the stmatrix writes, before the stores' barrier: 98.2 / 100.8 / 100.0% at 4096^3 /
            # 8192x8192x1024 / 4096x4096x14336 against 98.8 / 101.2 / 100.5% (...-ab-overlap-group-c549c0e.json);
            # one 16 KB part per half (EPI_PARTS = 2, one buffer): 99.2 / 100.4% against 99.4 / 100.6%.
            # Tile order: groups of 8 tile rows (4 cluster-unit rows) make a wave of 66 units 4 x 16.5 units at
            # 4096^3, reading all of B; groups of 16 make it 8 x 8.25 (square), and Nsight Compute saw DRAM reads
            # fall from 187 to 149 MB (cuBLAS 150; 2026-11-24-h100-ncu-tf32-cublas-and-group-order.txt). Timed,
            # the 16-bit shapes did not follow: five processes with 16 rows, bf16 4096^3 / 4096x4096x14336
            # 98.8-101.2 / 97.9-99.9% of cuBLAS (medians 99.6 / 98.9), fp16 97.3-100.8 / 99.3-100.9 (99.0 / 99.9)
            # (2026-11-24-h100-group16-{bf16,fp16}-*-8937fb2.json), against 99.9-100.0 / 99-100 and 100.1-100.6 /
            # 98-100 with 8 (the b8c083a release); an A/B 102.3 / 99.3% (8) against 99.2 / 100.0% (16) bf16
            # (...-ab-group16-vs-8-8937fb2.json). So the 16-bit configs kept 8 (s4b2o and s4b2ot take 16 with
            # WAVE_SNAKE, below); tf32 and int8 take 16 (their notes).
            # Since 12b9598: WAVE_SNAKE (hopper_sched.cuh: odd groups walk their columns backwards, every
            # other wave walks k backwards, so each wave starts on what the wave before has just read) in groups of
            # 16 tile rows. Nsight Compute, bf16 4096^3: DRAM reads 186.7 MB (this config before) -> 143.4 (snake, 8
            # rows) -> 123.7 (snake, 16 rows; cuBLAS 150), L2 traffic unchanged
            # (2026-11-24-h100-ncu-wave-snake-dram-12b9598.txt). Under sustained load (probes/power_probe.py, 1-s
            # blocks alternating, same process) bf16 4096^3 / 4096x4096x14336 / 8192x8192x1024 665.6 / 683.8 /
            # 621.5 TFLOP/s against 655.2 / 677.7 / 612.3 before (cuBLAS 662.3 / 691.2 / 616.0), fp16 4096^3 /
            # 4096x4096x14336 635.3 / 657.2 against 628.5 / 648.7 (cuBLAS 636.1 / 663.2); the snake in groups of 8
            # in between (...-power-wave-snake-12b9598.json). tcgemm bench, four processes (two for fp16): within
            # the processes' spread, bf16 4096x4096x14336 99.5-99.9% of cuBLAS against 95.8-103.1%
            # (...-explore-wave-snake-12b9598.json).
            _cfg("128x256x64s4b2o", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2, EPI_OVERLAP=1, D_FROM_REGISTERS=0,
                 WAVE_SNAKE=1, GROUP_M=16, SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # g: the same with GPC_ORDER (kernels/include/gpc_order.cuh): each cluster counts itself into its GPC
            # and takes the wave position tcgemm.placement's list gives it there, the clusters of one GPC on one
            # unit row of every wave, where the L2's request coalescer merges their reads of A. Nsight Compute,
            # bf16 4096x4096x14336: merged 33.3 M of the 58.7 M sectors not multicast (s4b2o 10.9 M, cuBLAS
            # 27.6 M), L2 read requests 21.0 M against 26.5 M (cuBLAS 22.5 M); 4096^3 6.20 M against 7.70 M
            # (cuBLAS 6.54 M) (2026-11-24-h100-ncu-lrc-coalescing.txt). Sustained (probes/power_probe.py) at long K
            # bf16 706.4 TFLOP/s against 699.8 for s4b2o and cuBLAS's 704.7, fp16 676.4 / 669.9 / 674.4; but
            # 4096^3 +0.1% bf16 / -0.9% fp16, 8192x8192x1024 -0.4%, and with the tail split (s4b2otg, removed)
            # 4096x14336x4096 / 8192^3 -0.2% (2026-11-24-h100-power-gpc-order-b48c32d.json; s4b2ot's tail split
            # there reduced through counters that s4b2otg's table shared a buffer with: its tail reductions, not
            # its main loop, ran on wrong counts). So auto takes it where K >= 12288 only (long_k). Claims by
            # compare-and-swap before it cost 2.6% at 4096^3 (...-claims-11c8ebf.json; gpc_order.cuh says why).
            _cfg("128x256x64s4b2og", ("fp16", "bf16"), long_k=12288, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                 STAGES=4, THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2, EPI_OVERLAP=1,
                 D_FROM_REGISTERS=0, WAVE_SNAKE=1, GROUP_M=16, GPC_ORDER=1,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # The staged epilogue in four 64-column parts through two 8 KB buffers per consumer in turn (b2, the
            # shared memory of s4's one 16 KB buffer), so a part waits only for the TMA unit to read the part before
            # last, not the one just handed over. auto's pick for large problems where D has no tensor map (o above
            # writes D through TMA only). Of
            # cuBLAS at 4096^3 / 8192^3 / 4096x14336x4096 / 4096x4096x14336 / 8192x8192x1024, same run, bf16 97.1 /
            # 103.4 / 97.3 / 99.6 / 93.7% and fp16 97.5 / 101.4 / 96.8 / 99.5 / 93.0%, against 96.5 / 101.1 / 96.3 /
            # 99.2 / 92.1% and 96.0 / 98.3 / 98.8 / 99.4 / 92.5% for s3 below, 92.7-103.2% / 91.4-101.6% for s4
            # (2026-11-23-h100-explore-epilogue-bufs-bf16-fp16.json; mean over the ten: 98.0 / 97.0 / 97.5%). Tried
            # and removed (same files): L2 eviction hints on the TMA accesses (createpolicy + .L2::cache_hint: D's
            # stores evict_first, A and B evict_last; on the skinny config B evict_first, A evict_last), no better
            # than none (2026-11-23-h100-explore-l2-hints-epilogue-bufs.json); the producer's slot waits at CTA scope
            # (no L1 invalidation per wait), 95.7-102.4%, no better.
            _cfg("128x256x64s4b2", ("fp16", "bf16"), grouped=True, epilogue=1.0, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64,
                 STAGES=4, THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # s: the same in s4b2o's tile order (WAVE_SNAKE in groups of 16 tile rows), for grouped GEMMs at
            # prefill sizes, where an expert's weight (Mixtral's gate_up: 235 MB) streams from DRAM once per group
            # of tile rows: 16 rows of 128 would halve those passes at 2048 tokens per expert. Timed against auto's
            # s4b2 (benchmarks/probes/grouped_config_ab.py, contiguous, CUDA graphs, time of s4b2 over this): H100
            # Mixtral 1.03 / 1.03 at 512 tokens per expert and 1.015 / 1.016 at 2048 in one process
            # (2026-11-28-h100-grouped-snake-ab-mixtral-0963da4.json), but 1.00 / 0.94 at 2048, 1.00 / 1.02 at 4096
            # and DeepSeek-V3 0.98-1.01 in the next (...-4d5ed44.json, where this config's two timings of one row
            # differ by up to 10%); H200 0.98-1.00 (...-h200-grouped-snake-ab-*-4d5ed44.json). No steady gain:
            # named only. GPU tests: ...-gpu-tests-grouped-s4b2s-0963da4.txt.
            _cfg("128x256x64s4b2s", ("fp16", "bf16"), grouped=True, named_only=True, epilogue=1.0, BLOCK_M=128,
                 BLOCK_N=256, BLOCK_K=64, STAGES=4, THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2,
                 WAVE_SNAKE=1, GROUP_M=16,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # And with the tail split (below): auto's pick where the split applies. WAVE_SNAKE as s4b2o: with 8 tile
            # rows per group, sustained bf16 4096x14336x4096 / 8192^3 674.2 / 688.7 TFLOP/s against 670.9 / 682.2
            # without (cuBLAS 673.6 / 674.2; 2026-11-24-h100-power-wave-snake-12b9598.json); 16 rows as s4b2o.
            _cfg("128x256x64s4b2ot", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2, EPI_OVERLAP=1, D_FROM_REGISTERS=0,
                 TAIL_SPLIT=1, WAVE_SNAKE=1, GROUP_M=16,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # t4: up to four second parts per idle cluster (TAIL_PARTS; tail_split.cuh), where the last turn is
            # 45-52 units of 66 and K is long enough that the estimate's 16 k-tiles of overhead still leave a gain
            # (K >= ~8192): 4096 x 8192 x 14336, the reduce-scatter's block GEMM at 8192 tokens on two ranks
            # (7.76 rounds; a whole GEMM of 8192 rows makes 15.5 and splits its tail), and 8192 x 4096 x 14336.
            _cfg("128x256x64s4b2ot4", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2, EPI_OVERLAP=1, D_FROM_REGISTERS=0,
                 TAIL_SPLIT=1, TAIL_PARTS=4, WAVE_SNAKE=1, GROUP_M=16,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # The same with the tail split (kernels/include/tail_split.cuh): the last partial wave's tiles cut along
            # k, the clusters that would idle through it computing their second parts, where each has at most two
            # (tcgemm.schedule; auto takes s4b2ot, the same with EPI_OVERLAP, there). Same process, old build against
            # new: bf16 4096x14336x4096 100.2% of cuBLAS against 98.8%, 8192^3 103.7 against 101.6%, fp16 101.4 /
            # 106.8% against 98.5 / 104.2% (2026-11-23-h100-ab-tail-split-ad5198f.json). With eight parts per helper
            # (4096^3, before the rule) 0.84-0.86x against 0.98x (...-cba26e0.json).
            _cfg("128x256x64s4b2t", ("fp16", "bf16"), epilogue=1.0, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2, TAIL_SPLIT=1,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # Tried and removed: per-warp TMA stores of D (each warp its own 16 rows, 16-row boxes; no
            # warpgroup barrier between the stmatrix writes and the store). 98.3-99.9% of cuBLAS at 4096^3
            # against 97.9-100.0% for this config, but 92.7-98.9% against 98.6-100.2% at 4096x14336x4096
            # (four runs, 2026-11-23-h100-ab-epilogue-alpha1-2a4995e.json, ...-ab-tile-shadow-*.json).
            # Tried and removed: a consumer lag (the second consumer warpgroup starting 1 or 2 k-tiles after the
            # first, a named barrier letting it go, so that one's epilogue would overlap the other's wgmmas).
            # Correct, but no faster: 93.0-102.5% of cuBLAS against 93.7-101.6% for this config at 4096^3,
            # 8192^3, 4096x14336x4096, 8192x8192x1024 (bf16, fp16), and fp8 (128 x 128 x 128) fell to
            # 0.57-0.72x against 0.85-0.89x (2026-11-23-h100-explore-consumer-lag.json): a consumer alone on
            # the tensor cores uses up its slots twice as fast as the pair, and every slot waits for both.
            # 2 x 2 clusters (CLUSTER_2D): each CTA loads half its A (shared along N) and half its B (shared
            # along M), 24 KB per k-tile from the L2 against 2 x 1's 32 KB. Correct (GPU tests, sanitizers) but
            # slower: 0.78 / 0.89 / 0.89 / 0.74 / 0.84x of cuBLAS at 4096^3 / 8192^3 / 4096x14336x4096 /
            # 4096x4096x14336 / 8192x8192x1024 against 0.97 / 1.02 / 0.97 / 0.99 / 0.93x for s4b2, same run
            # (2026-11-23-h100-explore-2x2-clusters.json). Only 30 clusters of 4 are resident (120 of 132 SMs,
            # 2026-11-23-h100-cluster-occupancy.txt): that costs 9%, the rest is four CTAs in lockstep (a slot
            # comes back when all four have read it). Kept off auto (speed 0.5).
            _cfg("128x256x64c4", ("fp16", "bf16"), speed=0.5, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=4, CLUSTER_2D=2, A_BOX_M=64, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            _cfg("128x256x64", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=3, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, SMEM_BYTES=_hopper_smem(3, 128, 256) + _epilogue_smem(128, 256)),
            _cfg("128x256x64c1", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=3, THREADS=384,
                 CLUSTER_M=1, B_BOX_N=256, SMEM_BYTES=_hopper_smem(3, 128, 256) + _epilogue_smem(128, 256)),
            _cfg("128x256x64g16", ("fp16", "bf16"), BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, STAGES=3, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, GROUP_M=16,
                 SMEM_BYTES=_hopper_smem(3, 128, 256) + _epilogue_smem(128, 256)),
            # Tile order (GROUP_M tile rows per group) changes little: the configs above and g16 with 4
            # stages, g32 and g64 (whole columns), same run, all within 0.93-0.98x, 0.98-1.02x, 0.96-0.97x,
            # 0.99x, 0.90-0.93x of cuBLAS at 4096^3, 8192^3, 4096x14336x4096, 4096x4096x14336,
            # 8192x8192x1024 (2026-11-23-h100-explore-tile-order-bf16.json), though this order reads more from DRAM
            # than cuBLAS (187 against 150 MB at 4096^3, 138 against 62 MB at 8192x8192x1024) and its
            # tensor pipe idles 3% more of the SMs' active cycles
            # (2026-11-23-h100-ncu-bf16-stage4-vs-cublas.txt; benchmarks/probes/ncu_compare.sh).
            # Tried and removed: ping-pong consumers (each consumer warpgroup a whole 64 x 256 tile in turn,
            # turn barriers between their main loops, so that one writes its tile out while the other
            # multiplies; commit 92aae3d). Correct and sanitizer-clean, but 553 against 759 TFLOP/s at 4096^3
            # with B multicast to a cluster of 2, 367 with a cluster of 4 (rows "64x256x64 s4" of
            # 2026-11-23-h100-explore-pingpong.json, in that order: pp4, then pp2). A 64-row tile makes every
            # wgmma read its A afresh for half the multiply-adds, and the TMA unit writes 40 KB into shared
            # memory per 1M multiply-adds against 24 KB: about 160 bytes per clock at the tensor rate
            # where an SM's shared memory gives 128.
            # 256 x 128 (WG_M = 128): two m64n128 wgmmas per consumer and k step with one B descriptor, as
            # cuBLAS's nvjet 256x128 ... 1x2 coopA. Measured (2026-11-23-h100-explore-256x128-w128.json, same
            # run): correct, no faster than 128 x 256. At 4096^3 / 8192^3 / 4096x14336x4096 / 4096x4096x14336 /
            # 8192x8192x1024 of cuBLAS: cluster along M 0.97x / 1.01x / 0.96x / 0.99x / 0.89x, along N (w128n)
            # 0.97x / 1.01x / 0.95x / 0.99x / 0.90x, 128 x 256 s4 0.97x / 1.03x / 0.95x / 0.99x / 0.91x; 3 stages
            # with a whole staging buffer 0.82-0.88x (removed). So back-to-back wgmmas sharing B do not save
            # what the shared-memory count suggested. Kept (correct, sanitizer-clean) for tuning; speed 0.5
            # keeps auto on 128 x 256.
            _cfg("256x128w128", ("fp16", "bf16"), speed=0.5, BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, WG_M=128, EPI_PARTS=2,
                 SMEM_BYTES=_hopper_smem(4, 256, 128) + _epilogue_smem(256, 128) // 2),
            # n: the same with the cluster side by side along N, sharing the A tile (each CTA loads 128 of its
            # 256 rows and multicasts them; B whole): cuBLAS's nvjet 256x128 ... 1x2 coopA. Along M (above)
            # each CTA reads 40 KB per k-tile from L2 (all of A, half of B), along N 32 KB, as 128 x 256 does.
            _cfg("256x128w128n", ("fp16", "bf16"), speed=0.5, BLOCK_M=256, BLOCK_N=128, BLOCK_K=64, STAGES=4,
                 THREADS=384, CLUSTER_M=2, CLUSTER_ALONG_N=1, A_BOX_M=128, B_BOX_N=128, WG_M=128, EPI_PARTS=2,
                 SMEM_BYTES=_hopper_smem(4, 256, 128) + _epilogue_smem(256, 128) // 2),
            # Skinny, wide problems (B streams from DRAM): auto used to take 128 x 128 at 128 x 14336 x 4096
            # (56.8 us in a CUDA graph; 128 x 64 50.4, cuBLAS 46.0) and at 64 x 14336 x 4096 (70.6 against
            # cuBLAS's 43.4), counting one CTA per 128-row tile where its cluster of 2 along M occupies two.
            # Counted in whole cluster blocks (dispatch.pick_config) it takes 128 x 64 / 64 x 64 (no cluster):
            # 49.3 / 46.8 us against 55.8 / 71.1 for 128 x 128, 92.6% / 92.7% of cuBLAS in CUDA graphs; fp8
            # 128 x 128 c1 26.8 / 27.4 against 33.0 / 39.2 (98.5% / 91.8%); tf32 and int8 128 x 256
            # (2026-11-23-h100-skinny-wide-dispatch.json). `tcgemm tune` measures other such shapes.
            # speed: relative rates measured at 4096^3 bf16 on the H100 (128 x 128: 0.91x of 128 x 256;
            # 128 x 64: 0.57x; split-K: see their notes), which the dispatcher weighs against wave fill.
            # b2: D staged in two 64-column parts through two 8 KB buffers per consumer in turn (the shared memory
            # of one 16 KB buffer), as s4b2 does: auto's 128 x 128 tile, because the bias path of the epilogue
            # (C_ROW, epilogue_tma.cuh) needs a tile stored in parts to compile without spills.
            _cfg("128x128x64b2", ("fp16", "bf16"), speed=0.9, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=5,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            _cfg("128x128x64", ("fp16", "bf16"), grouped=True, speed=0.9, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                 STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # 128 x 192 (no cluster: a CTA's half of B, 96 columns, is not whole 64-column boxes of a row-major
            # B): 128 tiles fill one wave at 512 x 6144 (Llama-3-8B's qkv; 128 x 256 makes 96), 96 at 512 x
            # 4608 (Qwen2.5-7B's; 72). CUDA graphs, H100, bf16, beta = 0: 45.2 / 32.3 us there against 47.0 /
            # 38.6 for s4b2o; 36.3 against 27.7 for 128 x 128 at 512 x 4096 x 4096; 1.37x cuBLAS's time at
            # 4096^3 against s4b2o's 1.00x (2026-11-26-h100-explore-128x192-3aa6577.json): speed 0.8 in the
            # estimate, which then takes it only where it fills a round the wider tile leaves part empty.
            # Speed 0.95, epilogue 1 since 12be5fd (tools/fit_estimate.py over the explorations of 2026-11-26):
            # one round of 128 tiles at 512 x 6144 x 4096 1.00x cuBLAS against 0.89x for 112 tiles of 128 x 224,
            # 1024 x 3072 x 3072 the same, 8192 x 768 x 3072 1.01x against 0.99x for 128 x 128
            # (2026-11-26-h100-explore-224-picks-12be5fd.json, ...-gpt2-8192-6bd15ac.json); the k-tile of
            # epilogue keeps it off GPT-2's K = 768 shapes, where 128 x 144 and 192 x 128 measured faster.
            _cfg("128x192x64c1", ("fp16", "bf16"), speed=0.95, epilogue=1, BLOCK_M=128, BLOCK_N=192, BLOCK_K=64,
                 STAGES=4, THREADS=384, CLUSTER_M=1, B_BOX_N=192, EPI_PARTS=3,
                 SMEM_BYTES=_hopper_smem(4, 128, 192) + _epilogue_smem(128, 192) // 3),
            # Skinny problems (decode-like M <= 128): twice the CTAs of 128 x 128, each streaming its own B.
            # (Split-K over these, 128 x 64 x 64 with SPLIT_K = 2, ran faster with B in L2 (18.5 against
            # 23.6 us in a CUDA graph) but slower in the benchmark, which times each call with its host
            # cost and B from DRAM: 0.62x against 0.86x of cuBLAS, 2026-11-23-h100-explore-skinny-splitk.json.)
            _cfg("128x64x64", ("fp16", "bf16"), grouped=True, speed=0.57, BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, STAGES=8,
                 THREADS=384,
                 CLUSTER_M=1, B_BOX_N=64, SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            # Tried and removed: the same tiles in clusters of 2 side by side along N sharing A (each CTA loading 64
            # of its 128 rows), as cuBLAS's nvjet_sm90_tst_128x64_64x8_1x2 at 1024^3, where Nsight Compute saw our
            # SMs read 47.6 MB through the L2 against its 29.0 and run 12.6k active cycles against 8.6k
            # (2026-11-26-h100-ncu-small-shapes-1024-11ae726.txt). Correct, but in CUDA graphs 7.4 against 7.5 us at
            # 1024^3 (cuBLAS 5.8), and slower than auto's tiles at 1024 x 2048 x 1024 and GPT-2's K = 768 shapes
            # (2026-11-26-h100-explore-128x64-c2n-{bf16,fp16,gpt2}-a4ec9cc.json): the L2 bytes are not what costs.
            # M <= 64 rows per tile, one consumer warpgroup: at M = 128, 128 x 64 tiles give one CTA per
            # 64 columns (64 of 132 SMs, each multiplying for ~18 us at the tensor cores' rate); 64 x 64
            # tiles put twice the CTAs on the GPU, each with half the multiply-adds, and at M = 16 they
            # skip the second warpgroup's rows of zeros. In a CUDA graph (B in L2): M = 128 21.7 against
            # 23.8 us, M = 16 21.1 against 31.6 us (cuBLAS 14.3 and 8.8); in the benchmark 0.88x / 0.88x
            # of cuBLAS (2026-11-23-h100-explore-fp8-stagger-skinny.json). Not the wgmma accumulator chain:
            # a second, independent chain of accumulators changed nothing
            # (2026-11-23-h100-explore-skinny-chains.json); split-K 2 over these tiles (128 CTAs at M <= 64)
            # won in a CUDA graph and lost in the benchmark (2026-11-23-h100-explore-skinny-64x64k2.json), as
            # did 64 x 128 k4 and 64 x 256 k8 (2026-11-23-h100-explore-skinny-wide-splitk.json). Nor the
            # wgmma latency of one warpgroup: two consumer warpgroups per tile on alternate k-tiles, partial
            # sums added through shared memory, took 22.0-22.6 against 21.1-21.7 us in a CUDA graph
            # (2026-11-23-h100-explore-skinny-kgroups.json; reverted).
            # speed: a guess, not measured (it keeps large problems on big tiles).
            _cfg("64x64x64", ("fp16", "bf16"), grouped=True, speed=0.35, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, STAGES=10,
                 THREADS=256, CLUSTER_M=1, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # cuBLAS at M = 128 (nvjet_sm90_tst_64x64_64x13_2x1: 64 x 64 tiles, 13 stages, clusters of 2 along
            # M multicasting B; 2026-11-23-h100-ncu-skinny-vs-cublas-nvjet64x64.txt) reads the same DRAM bytes
            # as the config above but 100 against 143 MB through L2. The same here: B's 64 columns split along
            # k between the two CTAs when B is MN-major (B_BOX_K k rows each), by rows when K-major.
            # Measured in CUDA graphs at M = 128 / 64 / 16, N = K = 4096, rr (2026-11-23-h100-explore-skinny-
            # 64x64-cluster2.json): 18.8 / 18.9 / 21.9 us (c2), 18.6 / 18.4 / 21.3 (c2s13) against 21.8 / 21.7 /
            # 21.2 without the cluster and cuBLAS's 15.3 / 14.8 / 16.5; at 128 x 14336 x 4096 63.3 against 74.3
            # (cuBLAS 45.8). So c2s13 (speed 0.36) takes the skinny problems from the config above.
            # With programmatic dependent launch (pdl.cuh; on for this spec) 18.4 against 19.4 us at M = 128
            # and 20.2 against 21.2 at M = 16 in CUDA graphs (2026-11-23-h100-explore-pdl.json).
            # The barrier watchdog's trap (now a faulting store, mbarrier.cuh) had cost 2.7 us of that: A/B in
            # one session, 18.5 / 18.4 us with the trap against 15.7 / 15.9 without at M = 128 (cuBLAS ~15.2),
            # 18.4 / 18.0 against 15.5 / 15.5 at M = 64 (2026-11-23-h100-ab-watchdog-*.json).
            # Tiles whose width is not a multiple of 64, so that a problem's tiles make whole waves where N is 768,
            # 2304 or 4608 (GPT-2, Qwen2.5's qkv), as cuBLAS's nvjet tiles do (96 x 128, 128 x 144, 192 x 80, ...:
            # 2026-11-26-h100-cublas-kernels-da74878.txt): 128 x 96 at 2048 x 768 (16 x 8 = 128 tiles on 132 SMs),
            # 192 x 96 at 3000 x 768, 128 x 144 at 2048 x 2304 and 512 x 4608 (16 x 16, 4 x 32), 64 x 48 at 512 x
            # 768. D goes out through boxes of 32-byte rows (D_BOX_BYTES, epilogue_tma.cuh), in column parts so that
            # a bias row takes the epilogue's fast path; B must be K-major (an MN-major B comes in boxes of 64
            # columns): layouts rc and cc only. CUDA graphs, bf16 rc, interleaved with cuBLAS (ratio cuBLAS time /
            # ours; 2026-11-26-h100-explore-no-cluster-barrier-6ef9b66.json, ...-explore-narrow-picks-6ef9b66.json):
            # 2048 x 768 x 768 128 x 96 n 1.00 (128 x 128 b2 0.87), 3000 x 768 x 768 192 x 96 0.93 (128 x 192 c1
            # 0.85), 2048 x 2304 x 768 128 x 144 0.96 (0.86), 1024 x 4608 x 3584 0.97 (128 x 256 s4b2ot 0.69),
            # 3000 x 3072 x 768 192 x 128 1.04 (0.92), 512 x 768 x 3072 64 x 48 1.02 (64 x 64 c2s13 0.90). speed:
            # fitted to those runs (the estimate's pick against the best measured config over 35 shapes); 192 x 128
            # stays below 128 x 256 (0.88x of it at 4096^3). max_k: at long K these tiles lose more than the one speed
            # says (300 x 4096 x 4096: 128 x 96 n 0.73x against 128 x 128 b2 0.86x; 2026-11-26-h100-models-c26801c-
            # p{1,2,3}.json); 64 x 48 was measured up to K = 3072 only (at 128 x 1280 x 8192 0.70x, no better than
            # 64 x 64 c2s13's 0.68-0.70x).
            # Tried and removed: 128 x 96 in clusters along M sharing B, and without a cluster (0.93x / 0.93x of
            # cuBLAS at 2048 x 768 x 768 against 1.00x along N sharing A, as cuBLAS's 2x1 does); 64 x 192 (1.03x
            # there, but 0.61-0.73x at 300 x 4096-4608 x 3584-4096, where 128 x 128 made 0.80-0.86x); 64 x 256
            # with and without EPI_OVERLAP, one consumer (0.64-0.67x at 300 x 4096-6144 x 4096: a lone warpgroup's
            # m64n256 wgmmas with 40 KB of TMA writes per k-tile; ...-explore-m300-tiles-da74878.json).
            _cfg("128x96x64n", ("fp16", "bf16"), speed=0.75, max_k=3584, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=96,
                 BLOCK_K=64, STAGES=7, THREADS=384, CLUSTER_M=2, CLUSTER_ALONG_N=1, A_BOX_M=64, B_BOX_N=96,
                 D_BOX_BYTES=32, EPI_PARTS=2, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(7, 128, 96) + _epilogue_smem(128, 96)),
            _cfg("192x96x64", ("fp16", "bf16"), speed=0.9, max_k=4096, layouts=("rc", "cc"), BLOCK_M=192, BLOCK_N=96,
                 BLOCK_K=64, STAGES=5, THREADS=512, CLUSTER_M=2, B_BOX_N=48, D_BOX_BYTES=32, EPI_PARTS=2, EPI_BUFS=2,
                 PRODUCER_REGS=40, CONSUMER_REGS=152,
                 SMEM_BYTES=_hopper_smem(5, 192, 96) + _epilogue_smem(192, 96)),
            # 128 x 144 at speed 0.96 (0.95 until 709e52c): ahead of 128 x 192 (no cluster) where the two tie in the
            # estimate, as at 2048 x 4608 x 3584 (Qwen's qkv): 0.98x cuBLAS against 0.92x
            # (2026-11-26-h100-explore-192c1-picks-709e52c.json).
            _cfg("128x144x64", ("fp16", "bf16"), speed=0.96, max_k=4096, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=144,
                 BLOCK_K=64, STAGES=6, THREADS=384, CLUSTER_M=2, B_BOX_N=72, D_BOX_BYTES=32, EPI_PARTS=3,
                 SMEM_BYTES=_hopper_smem(6, 128, 144) + _epilogue_smem(128, 144) // 3),
            # 192 x 128, three consumer warpgroups of 64 accumulators each (152 registers: no spills, where 192 x 192
            # spilled).
            _cfg("192x128x64", ("fp16", "bf16"), speed=0.85, max_k=4096, BLOCK_M=192, BLOCK_N=128, BLOCK_K=64, STAGES=4,
                 THREADS=512, CLUSTER_M=2, B_BOX_N=64, PRODUCER_REGS=40, CONSUMER_REGS=152, EPI_PARTS=2, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(4, 192, 128) + _epilogue_smem(192, 128)),
            # 128 x 224 and 128 x 112: four rounds of 128 x 224 tiles (97% full) at M = 512, N = 28672 (Llama-3-8B's
            # gate_up) where 128 x 256 makes 85%; one round of 128 x 112 (128 tiles) at 512 x 3584 where 128 x 128
            # leaves 20 SMs idle. CUDA graphs, bf16 rc, ratio to cuBLAS (2026-11-26-h100-explore-224-79ea865.json):
            # 512 x 3584 x 3584 / x 18944 128 x 112 0.97x / 0.98x (128 x 128 b2 0.88x), 512 x 7168 x 8192 128 x 224
            # 1.13x (128 x 256 1.00x), 512 x 28672 x 4096 0.94x (0.92x); 0.89x / 0.84x of 128 x 256 at 4096^3.
            # Speed 1.0: per multiply-add 128 x 224 runs as fast as 128 x 256; what it lost at 4096^3 was the
            # fifth round its 608 tiles need (of 4.6) where 128 x 256 fills four. At M = 3000 its whole rounds beat
            # 128 x 256's tail split: 3000 x 7168 x 8192 0.96x against 0.89x, 3000 x 3584 x 3584 0.95x against
            # 0.90x, x 18944 1.00x against 0.94x (2026-11-26-h100-explore-176-224-b70b1b9.json).
            _cfg("128x224x64", ("fp16", "bf16"), speed=1.0, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=224,
                 BLOCK_K=64, STAGES=4, THREADS=384, CLUSTER_M=2, B_BOX_N=112, D_BOX_BYTES=64, EPI_PARTS=7,
                 SMEM_BYTES=_hopper_smem(4, 128, 224) + _epilogue_smem(128, 224) // 7),
            # 128 x 176 (cuBLAS's nvjet 176x128 1x2 at 512 x 28672 x 4096: 652 tiles, 4.94 rounds, against 3.39 of
            # 128 x 256 and 3.88 of 128 x 224; Nsight, 2026-11-26-h100-ncu-mid-shapes-59b3035.txt). Named only
            # until measured.
            _cfg("128x176x64", ("fp16", "bf16"), named_only=True, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=176,
                 BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=88, D_BOX_BYTES=32, EPI_PARTS=11,
                 SMEM_BYTES=_hopper_smem(5, 128, 176) + _epilogue_smem(128, 176) // 11),
            # Ping-pong (PINGPONG, hopper_sched.cuh): each consumer warpgroup a whole 128 x 128 tile (two m64n128
            # wgmmas per k step on one B), the two in turn, one's epilogue under the other's main loop; D staged
            # per consumer, both tiles' buffers beside a 5-stage ring. Against the same tiles cooperative (b2),
            # bf16 rc, ratio to cuBLAS (CUDA graphs where timed; 2026-11-26-h100-explore-pingpong-128-e3bfb7c.json):
            # 8192 x 2304 x 768 1.13x against 1.05x (auto's 128 x 144 0.99x), 2048 x 3072 x 768 1.11x / 1.04x,
            # 512 x 28672 x 4096 0.96x / 0.93x (128 x 256 tail split 0.91x), 2048 x 7168 x 8192 0.98x / 0.97x
            # (0.94x), 512 x 37888 x 3584 1.01x / 0.95x (0.97x); at 4096^3 0.94x / 0.95x against 1.01x for
            # 128 x 256, 8192^3 0.90x / 0.89x (1.05x). Against the picks before (...-explore-pp-ab-*-3dffb8e.json):
            # 8192 x 3072 x 768 1.15x against 1.10x (128 x 256), 8192 x 8192 x 1024 1.14x / 1.09x, 2048 x 3072 x 768
            # 1.09x / 1.04x (b2); but 8192 x 768 x 3072 0.95x against 1.01x for 128 x 192 c1, and with one tile per CTA
            # (nothing to hide) 0.86x / 0.87x against 1.08x / 1.00x (300 x 3072 x 768, 2048 x 768 x 768). So speed
            # 0.9, two k-tiles of epilogue hidden per tile but the last of a CTA (dispatch: epilogue=-2 scaled by
            # 1 - 1 / rounds), ahead of b2, which it replaces where 128 x 128 tiles fit. Those figures are of a 5-stage
            # ring beside whole-tile D buffers; six stages beside four 32-column parts in two buffers per consumer
            # (half the shared memory) ran ahead at all seven shapes timed side by side, 0.5-4%: 512 x 28672 x 4096
            # 0.97x against 0.94x, 512 x 37888 x 3584 1.05x / 1.00x, 8192 x 2304 x 768 1.20x / 1.15x
            # (2026-11-26-h100-explore-s6pp-e4bf729.json): more k-tiles loaded ahead when a turn passes.
            # With an activation on the SFU (bias + gelu_tanh, H200, CUDA graphs against cuBLASLt's GELU_BIAS in the
            # same process, 2026-11-27-h200-explore-gelu-pp-3ec7954.json): 8192 x 4096 -> 14336 1390 us against 1444
            # for 128 x 256 s4b2ot (1399 with the bias alone) and 1504 for 128 x 176; 2048 rows 359 against 363 / 377;
            # 512 rows 101.5 against 87.6 for 128 x 224 (whose four rounds hide little); on the H100, against cuBLASLt,
            # 8192 rows 1.06x (s4b2ot 1.00-1.03x), 2048 rows 1.02-1.03x (2026-11-27-h100-explore-gelu-pp-7e89147.json).
            # So act_speed 1.0: its main loop as fast as 128 x 256's at those shapes, its epilogues hidden where the
            # others pay the SFU's two k-tiles.
            _cfg("128x128x64pp", ("fp16", "bf16"), speed=0.9, epilogue=-2, act_speed=1.0, mid_speed=1.0, BLOCK_M=128,
                 BLOCK_N=128,
                 BLOCK_K=64, STAGES=6, THREADS=384, CLUSTER_M=2, B_BOX_N=64, WG_M=128, PINGPONG=1, D_BOX_BYTES=64,
                 EPI_PARTS=4, EPI_BUFS=2, SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128)),
            # 128 x 144 ping-pong (GPT-2 at M = 3000: 384 tiles of 128 x 144 against 432 of 128 x 128; one buffer of
            # three 48-column parts per consumer, 5 stages), D^T in 144-token tiles in clusters of 2 along the
            # features (cuBLAS's nvjet 128x144 2x1 at 3000 x 768 x 768 and x 3072: 126 tiles), 232-token tiles (its
            # 128x232 2x1 at 3000 x 1280 x 8192: 130 tiles; three stages beside the D^T buffer; 32 bytes of spills,
            # in the epilogue). CUDA graphs, bf16 rc, ratio to cuBLAS (2026-11-26-h100-explore-144-pp-tc2-99419b1.json,
            # ...-explore-232t-long-k-99419b1.json, ...-explore-picks-g{1,2,3}-4fe500d.json): 3000 x 2304 x 768 144 pp
            # 1.03-1.09x against 0.93-0.95x for 128 x 144, 3000 x 3072 x 768 1.07x / 0.96x, 2048 x 2304 x 768 1.01-1.03x
            # / 0.97x, 2048 x 8192 x 1024 1.15-1.17x against 1.08x for 128 x 256 s4b2o; 3000 x 768 x 768 144 Tc2 1.05x
            # against 0.93-0.94x for 192 x 96, 3000 x 768 x 3072 0.99-1.00x / 0.89x; 3000 x 1280 x 8192 232 T
            # 0.98-1.01x against 0.90x for s4b2o, 3000 x 6144 x 4096 0.98x against 0.97x for s4b2ot (and 1.00x for
            # 144 Tc2). Both ping-pong tiles lose where a CTA has one tile (512 x 2304 x 768: 0.77x / 0.85x against
            # 0.81x for 128 x 96 n) and the D^T tiles at M = 128 (64 x 152 T 0.83-1.00x against 0.93-1.05x for
            # 128 x 64; dispatch.TRANSPOSED_MARGIN). Speeds: 144 pp as 128 pp's; 232 T 0.97, short of 128 x 256's,
            # where it was not measured (M = 4096 and more).
            _cfg("128x144x64pp", ("fp16", "bf16"), speed=0.9, epilogue=-2, layouts=("rc", "cc"), BLOCK_M=128,
                 BLOCK_N=144, BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=72, WG_M=128, PINGPONG=1,
                 D_BOX_BYTES=32, EPI_PARTS=3,
                 SMEM_BYTES=_hopper_smem(5, 128, 144) + _epilogue_smem(128, 144) * 2 // 3),
            _cfg("128x144x64Tc2", ("fp16", "bf16"), speed=0.95, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=144,
                 BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=72, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(5, 128, 144) + _epilogue_smem(128, 144)),
            # 104-token D^T tiles: 108 tiles at 300 x 4608 (Qwen2.5's qkv at 300 tokens; cuBLAS's nvjet 128x104 4x1).
            # CUDA graphs, bf16 rc, ratio to cuBLAS, two processes (2026-11-26-h100-explore-104t-p{1,2}-2379f7a.json):
            # 300 x 4608 x 3584 0.82x / 0.85x against 0.78x / 0.81x for 128 x 144 (0.81x for 128 x 152 T), 200 x 4608 x
            # 3584 0.86x / 0.90x against 0.83x / 0.88x for 128 x 96 n; 0.62-0.64x at 300 x 6144 x 4096 (two rounds),
            # 0.90x at 300 x 4096 x 4096 against 1.07x for 64 x 152 T. Speed 0.8: taken at the first two only.
            # Without programmatic dependent launch: in CUDA graphs of one call after another, at 300 x 4608 x 3584,
            # 23.3 us with it and 21.0-21.1 without, in one process, two processes (0.88-0.90x cuBLAS against
            # 0.98x); no other config measured there lost by it (2026-11-27-h100-pdl-ab-944d546-p{1,2}.json).
            _cfg("128x104x64T", ("fp16", "bf16"), speed=0.8, pdl=False, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=104,
                 BLOCK_K=64, STAGES=6, THREADS=384, CLUSTER_M=1, B_BOX_N=104, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(6, 128, 104) + _epilogue_smem(128, 104)),
            _cfg("128x232x64T", ("fp16", "bf16"), speed=0.97, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=232,
                 BLOCK_K=64, STAGES=3, THREADS=384, CLUSTER_M=1, B_BOX_N=232, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(3, 128, 232) + _epilogue_smem(128, 232)),
            _cfg("128x112x64", ("fp16", "bf16"), speed=0.85, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=112,
                 BLOCK_K=64, STAGES=7, THREADS=384, CLUSTER_M=2, B_BOX_N=56, D_BOX_BYTES=32, EPI_PARTS=7,
                 SMEM_BYTES=_hopper_smem(7, 128, 112) + _epilogue_smem(128, 112) // 7),
            _cfg("64x48x64", ("fp16", "bf16"), speed=0.3, max_k=4096, layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=48,
                 BLOCK_K=64, STAGES=15, THREADS=256, CLUSTER_M=2, B_BOX_N=24, D_BOX_BYTES=32,
                 SMEM_BYTES=_hopper_smem(15, 64, 48) + _epilogue_smem(64, 48)),
            # D written transposed (D_TRANSPOSED; problem.transposed_store): the kernel computes D^T = W X^T with the
            # weight's rows (features) as BLOCK_M and the tokens as BLOCK_N, the wgmma's N, which may be any multiple of
            # 8: M = 300 tokens in two tiles of 152 or 160 (304 or 320 rows) where 64-row multiples of M compute 384.
            # cuBLAS does the same at M = 300 (nvjet 64x152 2x1, 192x80 1x2, 128x104 4x1: features x tokens;
            # 2026-11-26-h100-cublas-kernels-da74878.txt). Clusters along the features share the token tile. The
            # estimate weighs the transposed problem against the problem as given (dispatch._orientation).
            # CUDA graphs, bf16 rc, ratio to cuBLAS (2026-11-26-h100-explore-transposed-fe34b33.json): 300 x 6144 x
            # 4096 128 x 152 T 0.93 (192 x 96 0.88), 300 x 28672 x 4096 0.94 (128 x 256 c1 0.75), 300 x 7168 x 8192
            # 1.00 (128 x 192 c1 0.79); 300 x 4096 x 4096 64 x 152 T 1.08 (128 x 128 b2 0.85), 300 x 3584 x 18944
            # 0.95 (0.73); 3000 x 768 x 3072 128 x 160 Tc2 0.93 (192 x 96 0.89); 512 x 4096 x 4096 0.36-0.65 against
            # 0.95 (the estimate keeps those on 128-row tiles). speed: from those runs. Tried and removed: 64 x 160
            # Tc2 and 192 x 80 Tc2 (never the best there; 0.58-0.89 and 0.48-1.07); 192 x 80 with the pair along the
            # tokens sharing the weight's tile (cuBLAS's nvjet 192x80 1x2 at 300 x 6144 x 4096: 128 tiles where 128 x
            # 152 T makes 96), CUDA graphs 0.914x cuBLAS against 0.909x for 128 x 152 T there, 0.82x against 0.92x at
            # 300 x 37888 x 3584 (2026-11-27-h100-explore-192x80tn-9ffa73a.json): filling the SMs did not pay for
            # its narrower wgmmas. Also tried and removed (CUDA graphs, ratio to cuBLAS): the same 96 tiles of
            # 128 x 152 T cut into equal stream-K runs for all 132 SMs, 0.69-0.74x against 0.95x whole (a fixup with
            # a fence per thread, then with release/acquire atomics: 2026-11-27-h100-explore-stream-k-runs-09c5fc6
            # .json, ...-7ef788e.json), or split along k (2-4 ranges: 0.50-0.63x; ...-explore-split-k-dt-91c7300
            # .json), and likewise at 300 x 4608 / 7168 / 28672, 512 / 1024 x 1280 x 8192 and 128 x 28672 x 4096
            # (128 x 256 tiles): CTAs at different k no longer read the shared token tile together
            # (docs/findings.md, "Stream-K and split-K in the production kernel").
            _cfg("64x152x64T", ("fp16", "bf16"), speed=0.7, layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=152,
                 BLOCK_K=64, STAGES=7, THREADS=256, CLUSTER_M=1, B_BOX_N=152, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(7, 64, 152) + _epilogue_smem(64, 152)),
            # (Tried and removed: cuBLAS's own tile at 300 x 768 x 3072, nvjet 32x64 4x1 (Nsight Compute): 64 features x
            # 32 tokens, D^T, clusters of 4 sharing the token tile, 120 CTAs: 8.6 us, as every tile of ours there, where
            # cuBLAS takes 7.2 (2026-11-27-h100-explore-32t-d039476.json; docs/findings.md).)
            _cfg("128x160x64Tc2", ("fp16", "bf16"), speed=0.95, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=160,
                 BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=80, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(5, 128, 160) + _epilogue_smem(128, 160)),
            _cfg("128x152x64T", ("fp16", "bf16"), speed=1.0, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=152,
                 BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=1, B_BOX_N=152, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(5, 128, 152) + _epilogue_smem(128, 152)),
            # 128 x 152 T with the tail split (tail_split.cuh): where the tiles leave a partial last wave (Llama-3-8B's
            # gate_up at 300 tokens: 448 tiles, 3.4 waves) its tiles are cut along k between owners and the idle SMs.
            # bf16 rc, vs 128 x 152 T, us (2026-11-27-h100-explore-tail-split-dt-83c4e4d.json): 300 x 28672 x 4096
            # 123.7 against 132.3 (cuBLAS 131.4), 290 x 28672 x 4096 126.6 / 133.4 (127.8), 300 x 37888 x 3584 145.3
            # / 152.3 (134.4), 300 x 18944 x 4096 89.0 / 95.2 (80.3); but at 257 tokens 146.1 against 134.2 for
            # auto's 128 x 144 Tc2 (not understood): min_n keeps it to the measured 290-304 tokens.
            _cfg("128x152x64Tt", ("fp16", "bf16"), min_n=290, layouts=("rc", "cc"), BLOCK_M=128, BLOCK_N=152,
                 BLOCK_K=64, STAGES=5, THREADS=384, CLUSTER_M=1, B_BOX_N=152, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 TAIL_SPLIT=1, SMEM_BYTES=_hopper_smem(5, 128, 152) + _epilogue_smem(128, 152)),
            # 192 x 80 T with the pair along the tokens sharing the weight's tile (cuBLAS's nvjet 192x80 1x2 at
            # 300 x 6144 x 4096: 128 tiles where 128 x 152 T makes 96), its D^T staged in the last k-tile's ring
            # slot (D_IN_RING: hopper_epilogue.cuh, DtRing), which makes room for a sixth stage as cuBLAS has.
            # CUDA graphs, bf16 rc, us (2026-11-27-h100-explore-ring-a-c7c5838.json): 300 x 6144 x 4096 28.4
            # against 29.6 for 128 x 152 T (cuBLAS 28.3; with 5 stages and its own staging buffer it had run no
            # faster than 128 x 152 T); where its tiles make two rounds it loses (300 x 8192 x 3584 43.3 / 30.3,
            # 300 x 7168 x 8192 97.3 / 59.1). The same ring staging gave 128 x 152 T, 128 x 104 T and 64 x 152 T a
            # stage more each and nothing (29.8 / 29.6, 23.1 / 21.5, 22.0 / 20.8 us: removed).
            # min_n, max_n: 280-320 tokens (four token tiles; at 256 tokens 33.0 us against 24.9 for auto,
            # 2026-11-27-h100-explore-trn-e5109c6.json).
            _cfg("192x80x64Trn", ("fp16", "bf16"), speed=0.81, min_n=280, max_n=320, layouts=("rc",), BLOCK_M=192,
                 BLOCK_N=80, BLOCK_K=64, STAGES=6, THREADS=512, CLUSTER_M=2, CLUSTER_ALONG_N=1, A_BOX_M=96, B_BOX_N=80,
                 D_TRANSPOSED=1, D_FROM_REGISTERS=0, D_IN_RING=1, PRODUCER_REGS=40, CONSUMER_REGS=152,
                 SMEM_BYTES=_hopper_smem(6, 192, 80) + _dt_ring_smem(192, 80)),
            # 64 x 128, one consumer: 1.14x of cuBLAS at 300 x 3072 x 768 (GPT-2's fc1; 128 x 128 b2 0.90x).
            _cfg("64x128x64", ("fp16", "bf16"), grouped=True, speed=0.55, max_k=4096, BLOCK_M=64, BLOCK_N=128,
                 BLOCK_K=64, STAGES=7, THREADS=256, CLUSTER_M=1, B_BOX_N=128, EPI_PARTS=2, EPI_BUFS=2,
                 SMEM_BYTES=_hopper_smem(7, 64, 128) + _epilogue_smem(64, 128)),
            # 64 x 144, one consumer, clusters of 2 along M: one round of 128 tiles at 512 x 2304 (GPT-2's qkv), where
            # 128 x 96 n makes 96. CUDA graphs, bf16 rc, ratio to cuBLAS (2026-11-26-h100-explore-64x144-37b0e24.json):
            # 512 x 2304 x 768 0.97x against 0.86x for 128 x 96 n (0.94x without the cluster, removed); where it makes
            # more than one round or leaves it part empty it loses: 512 x 3072 x 768 0.71x / 0.92x, 1024 x 2304 x 768
            # 0.84x against 0.98x for 128 x 144, 300 x 2304 x 768 0.99x against 1.07x for 128 x 64. Speed 0.6: between
            # what those picks need (> 0.57 at 512 x 2304, < 0.64 at 300 x 2304); max_k: measured at K = 768.
            _cfg("64x144x64c2", ("fp16", "bf16"), speed=0.6, max_k=1024, layouts=("rc", "cc"), BLOCK_M=64,
                 BLOCK_N=144, BLOCK_K=64, STAGES=7, THREADS=256, CLUSTER_M=2, B_BOX_N=72, D_BOX_BYTES=32, EPI_PARTS=3,
                 SMEM_BYTES=_hopper_smem(7, 64, 144) + _epilogue_smem(64, 144)),
            # The same tiles at 65-128 rows of a weight with K >= 8192 (the 70B shard's gate_up, 7168 x 8192): two rows
            # of tiles in clusters that share each weight tile, 100 clusters where 128 x 64 tiles make 112 CTAs each
            # loading its own. H200, CUDA graphs, bf16 rc, ratio to cuBLAS
            # (2026-11-28-h200-explore-64x144c2-d7c1ca3.json): 65 / 72 / 96 / 112 / 128 rows 0.91 / 0.91 / 0.94 / 0.93 /
            # 0.94x against 0.73 / 0.81 / 0.84 / 0.85 / 0.89x for auto's 128 x 64 (h below 128 rows); at K = 3584-4096
            # (6144 x 4096, 8192 x 3584) ahead at 65-80 rows only, behind at 96-128: long_k keeps it to K >= 8192.
            # Speed: what puts it ahead of 128 x 64 h there. In the model bench (the layers in sequence, two processes
            # each, 2026-11-28-h200-models-70b-mid-db36e8f.json, ...-models-all-*-p{1,2}.json against
            # ...-models-70b-d7c1ca3-p{1,2}.json) it led at 72 / 96 rows (0.886 / 0.884x against 0.73 / 0.82-0.84x) but
            # not at 112 (0.878x against 0.883-0.885x) nor 128 (0.912-0.919x against 0.927-0.929x for 128 x 64):
            # max_m 104. Not measured on an H100.
            # (The 70B gate_up itself now runs 64 x 112 pairs at 65-128 rows, below.)
            _cfg("64x144x64c2l", ("fp16", "bf16"), speed=0.7, long_k=8192, min_m=65, max_m=104, layouts=("rc", "cc"),
                 BLOCK_M=64, BLOCK_N=144, BLOCK_K=64, STAGES=7, THREADS=256, CLUSTER_M=2, B_BOX_N=72, D_BOX_BYTES=32,
                 EPI_PARTS=3, SMEM_BYTES=_hopper_smem(7, 64, 144) + _epilogue_smem(64, 144)),
            # For 512 x 1280 x 8192 (Llama-3-70B-TP8's qkv at 512 tokens; 40 tiles of 128 x 128, in three k ranges
            # 120 units): one round of 128 tiles of 64 x 80, or 64 tiles of 128 x 80 in two k ranges. CUDA graphs, bf16
            # rc, ratio to cuBLAS, two processes (2026-11-26-h100-explore-x80-p{1,2}-2379f7a.json): 128 x 80 k2 0.83x /
            # 0.83x against 0.78x / 0.77x for 128 x 128 b2k3, 64 x 80 c2 0.78x / 0.77x; at 512 x 1280 x 4096 64 x 80 c2
            # 0.94x / 0.98x, k2 0.93x / 0.93x, b2k3 0.83x / 0.85x; at 256, 384 and 1024 rows neither ahead of auto's
            # picks (0.58-0.82x against 0.71-0.83x). Still short of cuBLAS: its kernel there is not known. 128 x 80 k2:
            # speed 0.44 between what those picks need, long_k 8192 (a split's fixed cost is not in the estimate, and
            # it was measured at K = 8192 only). Tried and removed: 128 x 160 tiles (N = 1280 in 8 columns) in 2 or 4 k
            # ranges, alone and in pairs along M, 128 units at 512-2048 rows: 0.63-0.76x at 512 x 1280 x 8192 (k2 here
            # 0.85x), 0.81 / 0.83x at 1024 rows against 0.72x for auto's 128 x 112 (not a model shape), behind at 384
            # and 2048 rows (2026-11-27-h100-explore-160-430101d.json). 64 x 80 c2 (named only until 1164777): where
            # 128 x 64 tiles fill about half the GPU at 65-128 rows and 64 x 80 tiles in pairs one round, it leads:
            # Qwen2.5's qkv at 128 tokens
            # (128 x 4608 x 3584; 144 tiles of 64 x 64 make two rounds) 15.2 us against 16.6 for 128 x 64 in CUDA
            # graphs (`tcgemm tune`, 2026-11-27-h100-tune-models-exact-3d2b970.json), the layer 0.92x -> 1.00x of torch
            # with that tune cache (...-models-tuned-3d2b970-p*.json); level at 64 x 4608 and 128 x 4096 x 4096. Speed
            # 0.38 takes it there and at no other model shape of four models (1-8192 tokens); max_m 128: at 256-384
            # rows and N = 1280 it was behind auto's picks (above).
            _cfg("64x80x64c2", ("fp16", "bf16"), speed=0.38, max_m=128, layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=80,
                 BLOCK_K=64, STAGES=11, THREADS=256, CLUSTER_M=2, B_BOX_N=40, D_BOX_BYTES=32,
                 SMEM_BYTES=_hopper_smem(11, 64, 80) + _epilogue_smem(64, 80)),
            # The same at N = 6144 (the 8B qkv): 64 tiles of 96 x two rows of tiles, one round of 128 CTAs whose pairs
            # share each weight tile, where 128 x 64 h puts 96 CTAs on it. H200, CUDA graphs (2026-11-28-h200-explore-
            # qkv-96c2-45edb27.json): 65 / 72 / 80 / 96 / 112 / 128 x 6144 x 4096 1.02 / 1.00 / 1.01 / 1.04 / 1.05 /
            # 1.04x cuBLAS against 0.87 / 0.87 / 0.89 / 0.93 / 0.95 / 0.98x. Bounded to what was measured (min_m,
            # max_m, min_n, max_n); speed 0.45 (its measured rate over 128 x 64's there) takes it. Not measured on an
            # H100.
            _cfg("64x96x64c2", ("fp16", "bf16"), speed=0.45, min_m=65, max_m=128, min_n=6144, max_n=6144,
                 layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=96, BLOCK_K=64, STAGES=10, THREADS=256, CLUSTER_M=2,
                 B_BOX_N=48, D_BOX_BYTES=32,
                 SMEM_BYTES=_hopper_smem(10, 64, 96) + _epilogue_smem(64, 96)),
            # (Tried and removed, at 256-512 tokens, N = 768 / 1280: 64 x 48, 64 x 64 and 64 x 80 tiles in 2 x 2
            # clusters, A shared along N and B along M, within 1% of their 2 x 1 forms, 0.79-0.84x cuBLAS at 300 x 768 x
            # 3072; and with WGMMA_LAG, each k-tile's wgmma group left queued 2-3 k-tiles deep before its slot went
            # back: 3-13% slower, 64 x 48 9.7 against 8.6 us (2026-11-27-h100-explore-c2x2-p{1,2}-1dcc529.json,
            # ...-explore-lag-p{1,2}-b8d37bb.json; docs/findings.md).)
            # Without the early producer (EARLY_PRODUCER=0, 04_tma_store_epilogue.cu): processes alternating the two
            # builds, CUDA graphs against cuBLAS at 512 x 1280 x 8192, 0.885x (0.885-0.897) against 0.863x
            # (0.859-0.864) with it, while the early producer gained at 300 x 768 x 3072 (0.886x against 0.834x) and
            # 128 x 4096 x 4096 (1.034x / 1.019x) and was level at 4096^3 (1.010x both, five processes each;
            # 2026-11-28-h100-build-ab-early-producer-13c23ad.json). At 300 x 1280 x 8192 on an H200 (CUDA graphs) it
            # ran 1.08x cuBLAS against 0.93x for auto's 64 x 64 c2s13 (128 x 128 in four k ranges 1.16x;
            # 2026-11-28-h200-explore-qkv300-gateup40-e668682.json), but on the H100 at 384 rows every split config
            # was behind c2s13 (docs/findings.md, "Split-K tiles at the 70B shard's qkv"): the estimate stays as it is.
            _cfg("128x80x64k2", ("fp16", "bf16"), speed=0.44, long_k=8192, layouts=("rc", "cc"), BLOCK_M=128,
                 BLOCK_N=80, BLOCK_K=64, STAGES=7, THREADS=384, CLUSTER_M=2, B_BOX_N=40, D_BOX_BYTES=32, SPLIT_K=2,
                 EARLY_PRODUCER=0,
                 SMEM_BYTES=_hopper_smem(7, 128, 80) + _epilogue_smem(128, 80)),
            # Clusters of eight as 4 x 2 tiles (CLUSTER_2D = 2 tile columns): cuBLAS's kernel at 512 x 1280 x 8192 (the
            # 70B shard's qkv at 512 tokens) is 64 x 96 tiles (features x tokens) in clusters of eight, no split
            # (ncu-mid-shapes-59b3035.txt). Each k-tile of A is loaded once for two tiles, of B once for four: 56 KB a
            # cluster from the L2 against 160 KB for eight lone CTAs; 120 tiles in 15 clusters. CUDA graphs, bf16 rc,
            # ratio to cuBLAS, four processes (2026-11-26-h100-explore-c8-p{1,2}-bde12df.json,
            # ...-explore-pairs-1280-p{1,2}-20cd029.json): 512 x 1280 x 8192 0.86-0.87x against 0.81-0.82x for 128 x 80
            # k2; 512 x 1280 x 4096 1.10-1.13x against 0.84-0.86x (128 x 128 b2k3); behind auto at 256 / 384 rows
            # (0.76-0.77x against 0.81x) and N = 2048 (0.73x against 0.86x), level at 1024 rows and N = 1024. The same
            # tiles without the cluster 0.50x at 512 x 1280 x 8192: the L2's bytes decide there. But in the model
            # benchmark (the layers in sequence, weights rotated) auto with it ran the 70B shard's qkv at 512 tokens
            # 0.85x (25.1 against 21.2 us; 2026-11-26-h100-models-tc8-312d8ea-p1.json) where 128 x 80 k2 had run
            # 0.87-0.89x (models-da50fe3-p{1,2,3}): named only. (Speed 0.556, long_k 4096 make auto take it at 448-576
            # rows there and nowhere else among the model shapes.) Tried and removed: 64 x 80 in 2 x 4 clusters (16
            # clusters of eight, one more than fit at once: 0.48x); two consumer warpgroups taking the 64-row tile's
            # k-tiles in turn, adding their sums at the end (0.83-0.84x against 0.86-0.87x here; 64 x 64 c2 0.97-1.01x
            # against 1.01-1.03x: the lone consumer's gaps between k-tiles are not what is lost).
            _cfg("64x96x64Tc8", ("fp16", "bf16"), named_only=True, speed=0.556, long_k=4096, layouts=("rc",),
                 BLOCK_M=64, BLOCK_N=96, BLOCK_K=64, STAGES=10, THREADS=256, CLUSTER_M=8, CLUSTER_2D=2, A_BOX_M=32,
                 B_BOX_N=24, D_TRANSPOSED=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(10, 64, 96) + _epilogue_smem(64, 96)),
            _cfg("64x64x64c2", ("fp16", "bf16"), speed=0.35, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, STAGES=10,
                 THREADS=256, CLUSTER_M=2, B_BOX_N=32, B_BOX_K=32,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            _cfg("64x64x64c2s13", ("fp16", "bf16"), speed=0.36, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, STAGES=13,
                 THREADS=256, CLUSTER_M=2, B_BOX_N=32, B_BOX_K=32,
                 SMEM_BYTES=_hopper_smem(13, 64, 64) + _epilogue_smem(64, 64)),
            # Neither the ring depth nor wider tiles move it (CUDA-graph times, B streaming from DRAM, M = 128 /
            # 64 / 16): 5, 10, 13 stages 22.6 / 21.9 / 21.8 us at M = 128
            # (2026-11-23-h100-explore-skinny-stages.json); 64 x 128 tiles (half the CTAs) 24.5 / 24.2 /
            # 23.9, split in 2 along K 22.7 / 19.1 / 19.8, 64 x 256 in 4 28.1 / 23.0 / 22.4, against 21.9 /
            # 21.5 / 21.2 here and cuBLAS's 15.1 / 14.8 / 16.3
            # (2026-11-23-h100-explore-skinny-wide-tiles.json). The time hardly depends on the CTA count or
            # the bytes per CTA: B (32 MB) arrives at ~1.5 TB/s in aggregate against cuBLAS's ~2.1 (not
            # yet known why; one guess: 64 CTAs reading 128-byte pieces of the same B rows at drifting k
            # offsets keep reopening DRAM rows).
            # Split-K (kernels/include/split_k.cuh): SPLIT_K units per tile for problems with few tiles.
            # speed 0.25: at 128 x 4096 x 4096 (bf16, H100) it ran at 0.72x the rate of 128 x 64 without split.
            _cfg("128x128x64k4", ("fp16", "bf16"), speed=0.25, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=5,
                 THREADS=384,
                 CLUSTER_M=1, B_BOX_N=128, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # 128 x 128 in three k ranges: at 512 x 1280 x 8192 (CUDA graphs, H100) 27.0 us against 32.6 for
            # 128 x 64, cuBLAS 19.8; 48.0 against 27.9 for 128 x 128 unsplit at 512 x 4096 x 4096. Speed 0.45:
            # the estimate takes it only where unsplit tiles leave most of the SMs idle through a long K. Removed
            # (slower everywhere measured): 128 x 256 in 2, 3 or 6 k ranges, 128 x 128 in 12, 192 x 128 in 4
            # (2026-11-26-h100-explore-split-k-6db8162.json, ...-split-k-qkv70-42030cd.json,
            # ...-dw-split-k-6b5f1fc.json); the 128 x 256 ones also spilled 8 bytes with a 32-bit D under NVRTC 13.5.
            _cfg("128x128x64b2k3", ("fp16", "bf16"), speed=0.45, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=5,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2, EPI_BUFS=2, SPLIT_K=3,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # Small tiles in 4 k ranges, for few tiles at moderate K: GPT-2's fc2 (N = 768, K = 3072), 16 or 32 tiles
            # of 64 x 48 at M = 64 / 128: CUDA graphs 1.00x / 1.02x cuBLAS against 0.83x / 0.85x unsplit, 64 x 64
            # in 4 1.09x / 0.98x; at K = 768 a split loses: 5.7 us against 3.9, the reduction's ~1.8 us of fixed
            # cost (2026-11-26-h100-explore-gpt2-small-m-42030cd.json). epilogue = 20 k-tiles: what fits both;
            # max_k: measured to K = 4096 (the estimate's picks at 32-128 rows, N 256-2048, K 2048-4096: 0.80-1.14x
            # against 0.63-1.01x for the configs it took before, one loss, 0.90x against 0.93x at 64 x 768 x 2048;
            # 2026-11-26-h100-explore-k4-picks-{rc,rr}-f2eed47.json).
            _cfg("64x48x64k4", ("fp16", "bf16"), speed=0.3, epilogue=20, max_k=4096, layouts=("rc", "cc"), BLOCK_M=64,
                 BLOCK_N=48, BLOCK_K=64, STAGES=15, THREADS=256, CLUSTER_M=2, B_BOX_N=24, D_BOX_BYTES=32, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(15, 64, 48) + _epilogue_smem(64, 48)),
            _cfg("64x64x64k4", ("fp16", "bf16"), speed=0.35, epilogue=20, max_k=4096, BLOCK_M=64, BLOCK_N=64,
                 BLOCK_K=64, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # The same tiles in two k ranges, for GPT-2's fc2 at ~300 tokens (300 x 768 x 3072: 60 tiles of 64 x 64,
            # 120 units, one wave, so the ranges own their rows, split_k.cuh): each CTA streams half of K, (64 + 64)
            # x 1536 x 2 bytes, for a reduction of 16 KB a tile. CUDA graphs, bf16 rc, two processes
            # (2026-11-28-h100-explore-k2-176pp-f5d7391-p{1,2}.json): 300 x 768 x 3072 8.22 / 8.14 us against 8.95 /
            # 8.89 for auto's 64 x 48 and 8.39 / 8.27 unsplit (cuBLAS 7.2); 256 x 768 x 3072 7.56 / 7.52 against
            # 8.76 / 8.72 (cuBLAS 7.7). Speed 0.4 with the k4 form's epilogue of 20 k-tiles puts its estimate 8% under
            # 64 x 48's there, as measured; it is taken only where its units fill one round and K is long enough for
            # half of it to outweigh the reduction (K >= ~2048 at these widths). The k4 form above, several waves there
            # (240 units) and so the reduction that waits for nothing, ran 12.9 us. (Held to N <= 1024 and K <= 4096
            # until the H200 measured it at 48-64 rows of wider weights, below; two ranges had lost at 64 x 4096 x
            # 4096 on an H100 in 2026-11-23, before the ranges owned their rows.)
            # On an H200 (HBM ~1.4x the H100's) the unsplit 64-row tiles cannot keep up at 48-64 rows of a long K:
            # 64 CTAs stream the weight at ~3.1 TB/s of the ~4.2 a copy reaches, and two k ranges put 128 CTAs on
            # it. CUDA graphs / eager, bf16 rc, against 64 x 64 c2s13, auto's pick then
            # (2026-11-28-h200-explore-mid-ccb8d4b.json): 64 x 4096 x 14336 34.0 / 36.6 us against 38.1 / 40.7
            # (cuBLAS 36.6), 64 x 3584 x 18944 39.5 / 45.7 against 48.5 / 51.3 (cuBLAS 42.2), 64 x 3584 x 3584
            # 10.2 against 11.2, 64 x 4096 x 4096 12.5 against 12.7; at 128 rows (two rows of tiles, two rounds)
            # 0.71-0.73x against 0.94x. Hence N up to 4096 and any K; the estimate takes it there at 33-64 rows
            # (one round of units) and nowhere at 128. Not measured on an H100 at N > 1024.
            _cfg("64x64x64k2", ("fp16", "bf16"), speed=0.4, epilogue=20, max_n=4096, BLOCK_M=64,
                 BLOCK_N=64, BLOCK_K=64, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # 128 x 64 tiles in two k ranges at 65-128 rows of a long K (one round of 128 units where 64 x 64 c2s13
            # puts 128 CTAs of half the rows on it). H200, CUDA graphs / eager, bf16 rc
            # (2026-11-28-h200-explore-k2-8afa40f.json): 128 x 4096 x 14336 36.8 / 39.2 us against 39.4 / 42.1 for
            # c2s13 (cuBLAS 37.6), 128 x 3584 x 18944 44.4 / 47.0 against 49.7 / 52.4 (cuBLAS 45.4); at K = 3584
            # level (11.0 against 10.9), at 128 x 4096 x 4096 behind (13.4 against 12.6), two rounds (N >= 6144)
            # 0.71-0.74x against 0.89-0.98x. Speed and epilogue fitted to the first and the K = 4096 pair against
            # c2s13's 0.36: the estimate takes it from K ~ 6300 where its units make one round. max_m: measured at
            # one row of tiles only. Below ~112 rows its tile is mostly rows TMA fills (1.16-1.29x its 128-row time
            # at 80-100 rows): dispatch.OOB_ROW_COST hands those to c2s13.
            _cfg("128x64x64k2", ("fp16", "bf16"), speed=0.41, epilogue=6.5, max_m=128, BLOCK_M=128,
                 BLOCK_N=64, BLOCK_K=64, STAGES=8, THREADS=384, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            # 128 x 224 without a cluster, for one row of tiles of 65-128 rows (min_m, max_m): at Llama-3-8B's gate_up
            # (N = 28672 = 128 x 224) its 128 tiles are one round, where 128 x 256 c1 streams the weight from 112 CTAs
            # with 3 stages. H200, bf16 rc, CUDA graphs (2026-11-28-h200-explore-one-round-0a0feaf.json,
            # ...-explore-gate-up-8b-46bb2ea.json): at 72 / 96 / 112 / 128 rows 0.95 / 0.99 / 1.00 / 1.06x cuBLAS
            # against 0.92 / 0.93 / 0.92 / 0.98x for 128 x 256 c1 (128 x 104 T 0.92 / 1.00x at 72 / 96); at 24-64
            # rows 0.77-0.90x against 64 x 128's 0.86-1.04x, hence min_m; max_n: one round, and measured there only
            # (at Qwen's 37888 its 170 tiles would take 1.3 rounds). Not measured on an H100. (Tried and dropped
            # there: one round of 96-144-wide tiles in two or four k ranges at N = 3584-7168, 33-128 rows: 0.42-0.92x
            # against auto's 0.90-1.04x, the first file.)
            _cfg("128x224x64c1", ("fp16", "bf16"), min_m=65, max_m=128, max_n=28672, speed=1.0, layouts=("rc", "cc"),
                 BLOCK_M=128, BLOCK_N=224, BLOCK_K=64, STAGES=4, THREADS=384, CLUSTER_M=1, B_BOX_N=224,
                 D_BOX_BYTES=64, EPI_PARTS=7, SMEM_BYTES=_hopper_smem(4, 128, 224) + _epilogue_smem(128, 224) // 7),
            # And with A in one box per consumer (A_HALVES, as 128 x 64 h): at 65-127 rows no row of its tile is one TMA
            # fills (...-explore-gate-up-8b-h-823d378.json: 65 / 72 / 80 / 96 rows 1.00 / 1.01 / 1.02 / 1.00x cuBLAS
            # against 0.91 / 0.94 / 0.98 / 0.99x without; 112-128 rows level). auto counts no filled rows for it.
            _cfg("128x224x64c1h", ("fp16", "bf16"), min_m=65, max_m=128, max_n=28672, speed=1.0, layouts=("rc",),
                 BLOCK_M=128, BLOCK_N=224, BLOCK_K=64, STAGES=4, THREADS=384, CLUSTER_M=1, B_BOX_N=224,
                 D_BOX_BYTES=64, EPI_PARTS=7, A_HALVES=1,
                 SMEM_BYTES=_hopper_smem(4, 128, 224) + _epilogue_smem(128, 224) // 7),
            # 128 x 64 and 128 x 64 in two k ranges with A in one box per consumer (A_HALVES, hopper_config.cuh): at
            # 65-127 rows the second consumer's rows start at M - 64 instead of running past the matrix, and the
            # estimate counts no rows outside (dispatch.OOB_ROW_COST); at full tiles level with the configs they copy,
            # which come first and keep those rows. A row-major only (K-major boxes). H200, CUDA graphs, bf16 rc,
            # ratio to cuBLAS, against auto's pick before (2026-11-28-h200-explore-a-halves-f81b977.json): 72 / 96 /
            # 112 x 7168 x 8192 0.81 / 0.86 / 0.89x against 0.71 / 0.81 / 0.81x (128 x 104 T, 128 x 64), x 6144 x 4096
            # 0.90 / 0.95 / 0.98x against 0.82 / 0.83 / 0.85x (64 x 128), x 8192 x 3584 0.92 / 0.98 / 1.03x against
            # 0.86 / 0.88 / 0.89x; in two k ranges x 3584 x 18944 0.92 / 0.95 / 1.03x against 0.89 / 0.91 / 0.92x
            # (c2s13), x 4096 x 14336 0.95 / 1.01 / 1.05x against 0.96 / 0.98 / 1.01x. Full tiles, 128 rows: 0.94 /
            # 1.02 / 1.02x against 0.93 / 1.01 / 1.02x. Not measured on an H100.
            _cfg("128x64x64h", ("fp16", "bf16"), layouts=("rr", "rc"), speed=0.57, BLOCK_M=128,
                 BLOCK_N=64, BLOCK_K=64, STAGES=8, THREADS=384, CLUSTER_M=1, B_BOX_N=64, A_HALVES=1,
                 SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            _cfg("128x64x64k2h", ("fp16", "bf16"), layouts=("rr", "rc"), speed=0.41, epilogue=6.5,
                 max_m=128, BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, STAGES=8, THREADS=384, CLUSTER_M=1, B_BOX_N=64,
                 SPLIT_K=2, A_HALVES=1, SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            # A narrow weight with a long K (the 70B shard's qkv, N = 1280, K = 8192) at 33-128 rows: tiles in six k
            # ranges, 120 units on 132 SMs, where the decode kernel's 48- and 64-token tiles had taken them (and
            # 64-token tiles twice over past 64 rows). H200, CUDA graphs, bf16 rc, ratio to cuBLAS
            # (2026-11-28-h200-explore-qkv70-small-d1d50b9.json, ...-qkv70-mid-d1d50b9.json): 64 x 64 in six at 40 /
            # 48 / 56 / 64 rows 0.99 / 1.08 / 1.09 / 1.09x against 0.94 / 0.99 / 0.95 / 0.94x for the decode kernel's
            # pick (in three or four ranges 0.94-1.07x); 128 x 64 in six (A_HALVES) at 72 / 96 / 112 / 128 rows 0.96 /
            # 1.04 / 1.06 / 1.00x against 0.67 / 0.80 / 0.89 / 0.88x (in four 0.88-1.02x, in two 0.70-0.79x). long_k
            # and max_n hold them to that class of weight: not measured elsewhere, nor on an H100.
            _cfg("64x64x64k6", ("fp16", "bf16"), speed=0.35, epilogue=20, long_k=8192, max_n=2048, max_m=64,
                 BLOCK_M=64, BLOCK_N=64, BLOCK_K=64, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=6,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            _cfg("128x64x64k6h", ("fp16", "bf16"), layouts=("rr", "rc"), speed=0.3, epilogue=6.5, long_k=8192,
                 max_n=2048, min_m=65, max_m=128, BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, STAGES=8, THREADS=384,
                 CLUSTER_M=1, B_BOX_N=64, SPLIT_K=6, A_HALVES=1,
                 SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            # The 70B shard's gate_up (N = 7168 = 64 x 112, K = 8192) at 65-128 rows: 64 tile columns x two rows of
            # tiles, pairs sharing each weight tile, one round of 128 CTAs, where 64 x 144 pairs make 100 and 128 x 64
            # tiles 56-112 (on the H200 each CTA streams its share of a weight at about the same rate whatever its
            # tile: docs/findings.md). H200, CUDA graphs, bf16 rc, ratio to cuBLAS
            # (2026-11-28-h200-explore-gu70-mid-c1c776c.json): 72 / 80 / 96 / 112 / 128 rows 0.98 / 0.97 / 0.98 / 1.01 /
            # 1.03x against 0.92 / 0.92 / 0.94 / 0.87 / 0.89x for auto's picks before (64 x 144 c2l, 128 x 64 h, 128 x
            # 64); the same 64 x 112 tiles in two k ranges without a cluster 0.63-0.64x. Bounded to that weight (min_n,
            # max_n, long_k) and to 65-128 rows: measured there only, and not on an H100.
            _cfg("64x112x64c2", ("fp16", "bf16"), speed=1.0, long_k=8192, min_m=65, max_m=128, min_n=7168,
                 max_n=7168, layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=112, BLOCK_K=64, STAGES=8, THREADS=256,
                 CLUSTER_M=2, B_BOX_N=56, D_BOX_BYTES=32,
                 SMEM_BYTES=_hopper_smem(8, 64, 112) + _epilogue_smem(64, 112)),
            # Qwen2.5's gate_up (N = 37888, K = 3584) at 65-112 rows: 264 tiles of 128 x 144 are two whole rounds,
            # where 128 x 104 T makes 364 tiles (2.8 rounds) and 128 x 96 n 395; A in one box per consumer (A_HALVES).
            # H200, CUDA graphs (2026-11-28-h200-explore-qwen-gu-c1c776c.json): 72 / 96 / 112 rows 1.03 / 1.05 /
            # 0.99x cuBLAS against 0.92 / 0.98 / 0.97x for auto's picks before; at 128 rows level (1.00x / 1.01x for 128
            # x 96 n), hence max_m. Bounded to that N (min_n, max_n); not measured on an H100.
            _cfg("128x144x64c1h", ("fp16", "bf16"), speed=1.0, min_m=65, max_m=112, min_n=37888, max_n=37888,
                 layouts=("rc",), BLOCK_M=128, BLOCK_N=144, BLOCK_K=64, STAGES=6, THREADS=384, CLUSTER_M=1,
                 B_BOX_N=144, D_BOX_BYTES=32, EPI_PARTS=3, A_HALVES=1,
                 SMEM_BYTES=_hopper_smem(6, 128, 144) + _epilogue_smem(128, 144) // 3),
            # The 70B shard's down (N = 8192 = 64 x 128, K = 3584) at 65-96 rows: 64 tile columns x two rows of tiles,
            # pairs sharing each weight tile, where 128 x 64 h tiles put 128 CTAs on the weight with a second consumer
            # re-doing rows. H200, CUDA graphs (2026-11-28-h200-explore-down70-44f080b.json): 72 / 96 rows 1.01 / 1.04x
            # cuBLAS against 0.92 / 0.98x for 128 x 64 h. Bounded to that weight and those rows; not measured on an
            # H100. (Tried there and dropped, same call: 128 x 112 in four k ranges at Qwen2.5's o, 112 / 128 x 3584 x
            # 3584, 0.78 / 0.81x against c2s13's 0.89 / 0.93x; 64 x 96 in two k ranges at GPT-2's fc2, 300 / 512 x 768 x
            # 3072, 0.90 / 0.85x against 0.94 / 0.89x; ...-explore-qwen-o-44f080b.json, ...-explore-fc2-44f080b.json.)
            _cfg("64x128x64c2", ("fp16", "bf16"), speed=1.0, long_k=3584, max_k=4096, min_m=65, max_m=96, min_n=8192,
                 max_n=8192, layouts=("rc", "cc"), BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, STAGES=8, THREADS=256,
                 CLUSTER_M=2, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(8, 64, 128) + _epilogue_smem(64, 128)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        persistent=True,
        cluster=2,
        grouped=True,
        tma_store=True,
        c_matrix=True,
        pdl=True,
    ),
    KernelSpec(
        name="wgmma_tma_store_kmajor",
        family="hopper",
        stage=4,
        technique="stage 4 (persistent 2-CTA clusters, multicast B, TMA-store epilogue for 16-bit D) for "
                  "tf32 and fp8: K-major operands, fp8 scales and per-k-tile fp32 accumulation",
        source="hopper/04_tma_store_epilogue.cu",
        entry="wgmma_tma_store",
        # int8 with its s32 D written from registers ran at 0.79x (4096^3) and 0.83x (8192^3) of
        # wgmma_ws_kmajor (2026-11-23-h100-kmajor-stage4.json); with D staged for TMA stores (EPI_32BIT) at
        # 1.45x / 1.19x of it, 1.55x / 1.81x of torch._int_mm (rc), and the 128 x 256 register fallback no
        # longer spills (2026-11-23-h100-explore-int8-stage4-staged.json): auto now takes this stage.
        precisions=("tf32", "int8", "fp8e4m3", "fp8e5m2"),
        # Rows of 128 bytes (BLOCK_K = 32 floats or 128 int8/fp8), so the ring is that of the 16-bit kernel.
        # tf32 and int8 stage their 32-bit D for TMA stores like 16-bit D (EPI_32BIT); fp8 keeps two
        # accumulator arrays and stages 16-bit D.
        defines=MappingProxyType({"EPI_32BIT": "1"}),  # every config stages a 32-bit D (tf32, int8, fp8's fp32 D)
        configs=(
            # fp32 D through shared memory and TMA stores (EPI_32BIT: the 16-bit buffer's bytes hold half
            # the columns, so twice the column parts), 4 stages and half a buffer: 1.00x / 0.99x / 1.00x of
            # cuBLAS at 4096^3 / 8192^3 / 4096x14336x4096 (rc), against 0.94x / 0.97x / 0.94x written from
            # registers (that config removed) and 0.96x / 0.97x / 0.98x with a whole buffer and 3 stages,
            # same run (2026-11-23-h100-explore-tf32-tma-store-fp32.json).
            # Tile order in groups of 16 tile rows (a square wave of 8 x 8.25 cluster units at 4096^3; groups of 8
            # read all of B each wave: tf32's operands are 128 MB there, DRAM reads 373 MB against cuBLAS's 294,
            # 2026-11-24-h100-ncu-tf32-cublas-and-group-order.txt): A/B 98.9 / 98.4% of cuBLAS at 4096^3 against
            # 96.2 / 97.9% with 8, 8192^3 101.0 against 100.7 (...-ab-group16-vs-8-8937fb2.json); release runs
            # 97.9-98.5% at 4096^3 (...-release-tf32-{1,2,3}-8937fb2.json) against 97.1-97.3 (b8c083a). Under
            # sustained load both sides sit at the board's power cap (probes/power_probe.py): at 4096^3 this kernel
            # spends 1-2% more energy per GEMM than cuBLAS's (sm90_xmma 128 x 256 x 32, no cluster) at the same
            # cycle count under Nsight Compute, so runs at a lower clock (...-power-group-order-f8dc3a7.json).
            # Since 41f57f8 A and B go through TFLOAT32 maps: the TMA copy rounds each value to tf32, so shared
            # memory holds operands with 13 zero mantissa bits. Error 3e-4 against 8e-4 truncated (cuBLAS 3e-4),
            # and less energy: sustained (probes/power_probe.py, one process, alternating) 4096^3 354.5 TFLOP/s at
            # 275.0 mJ per GEMM against 344.7 at 287.0 truncating (es4z), cuBLAS 348.1 at 276.1; 8192^3 365.5
            # against 355.2 (cuBLAS 356.0) (2026-11-24-h100-power-tf32-tma-rounding-64a7a42.json). tcgemm bench,
            # four processes: 100.7-101.4% of cuBLAS against 97.3-100.5% (...-ab-tf32-tma-rounding-64a7a42.json).
            # Since 12b9598 with WAVE_SNAKE (as the 16-bit s4b2o): DRAM reads at 4096^3 297.9 -> 278.0 MB (Nsight
            # Compute, ...-ncu-wave-snake-dram-12b9598.txt); sustained 340.7 against 339.6 TFLOP/s (cuBLAS 341.5),
            # es4t at 8192^3 353.1 against 352.3 (cuBLAS 351.1; ...-power-wave-snake-12b9598.json); tcgemm bench
            # 98.0 / 98.7% of cuBLAS at 4096^3 against 95.9 / 97.9% (two processes,
            # ...-explore-wave-snake-12b9598.json).
            _cfg("128x256x32es4", ("tf32",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, STAGES=4, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=2, WAVE_SNAKE=1,
                 GROUP_M=16, SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # Tried and removed: es4 with FLOAT32 maps (the tensor cores truncate), as every tf32 config was before
            # 41f57f8; the measured comparison for the rounding TMA copy (es4 above, config es4z in the files).
            # Tried and removed: D in eight 32-column parts through two 8 KB buffers in turn (es4b2, as the 16-bit
            # s4b2), alone, with the overlapped epilogue (es4b2o) and with the tail split (es4b2t): correct (GPU
            # tests, memcheck, synccheck), within the processes' spread of es4 / es4t, four processes: 4096^3
            # medians 98.8 (es4) / 98.8 / 98.4%, 8192^3 101.7 (es4t) / 100.3 / 101.7%
            # (2026-11-24-h100-explore-epilogue-b2-tf32-int8-355b903.json).
            # Tried and removed: the overlapped epilogue (EPI_OVERLAP, as the 16-bit s4b2o; correct on the GPU
            # tests): 95.0-95.9% of cuBLAS at 4096^3 against 95.3-97.6% for es4, 8192x8192x1024 and
            # 4096x4096x14336 within the spread, three warmed processes in alternating order
            # (2026-11-23-h100-tf32-overlap-15d291b.json).
            # With the tail split (tail_split.cuh); D through TMA only: with the register-path epilogue too,
            # the split's state spilled (24 bytes). 8192^3: 103.3% of cuBLAS against 100.0%; 8192x8192x1024
            # 89.2% against 89.7% (2026-11-23-h100-ab-tail-split-ad5198f.json).
            _cfg("128x256x32es4t", ("tf32",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, STAGES=4, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=2, TAIL_SPLIT=1, D_FROM_REGISTERS=0, WAVE_SNAKE=1,
                 GROUP_M=16, SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            # int8, s32 D staged as fp32 D is: 4 stages and half a buffer ran 1345 / 1492 TOP/s at 4096^3 /
            # 8192^3, a whole buffer and 3 stages 1215 / 1383, 128 x 128 with 6 stages 1177 / 1315.
            # Groups of 16 tile rows, as tf32: 712.9 / 899.9% of torch._int_mm at 4096^3 / 8192^3 against
            # 702.5 / 888.3% with 8 (A/B, ...-ab-group16-vs-8-8937fb2.json).
            # Since 355b903, D through two 8 KB buffers in turn (b2, as the 16-bit s4b2): 143.5 / 146.0% of
            # torch._int_mm at 4096^3 and 148.1 / 150.3% at 8192^3 against 141.4 / 139.6% and 147.6 / 148.6% with
            # one 16 KB buffer (es4), two processes (2026-11-24-h100-explore-epilogue-b2-tf32-int8-355b903.json).
            _cfg("128x256x128es4b2", ("int8",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, STAGES=4, THREADS=384,
                 CLUSTER_M=2, B_BOX_N=128, EPI_PARTS=4, EPI_BUFS=2,
                 GROUP_M=16, SMEM_BYTES=_hopper_smem(4, 128, 256) + _epilogue_smem(128, 256) // 2),
            _cfg("128x128x128es6", ("int8",), speed=0.9, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128) // 2),
            # tf32 at 128 x 128 (mid-size problems), fp32 D staged: against the same tile written from
            # registers (removed), same run: 15.5 against 17.6 us at 1024^3 in a CUDA graph (cuBLAS 13.0),
            # 0.96x against 0.82x of cuBLAS at 2048^3, 0.77x against 0.75x at 1536x1536x4096
            # (2026-11-23-h100-explore-tf32-128x128-staged.json).
            _cfg("128x128x32es6", ("tf32",), speed=0.9, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128) // 2),
            # tf32 rc with few row tiles (128 x 4096 x 4096: 32 tiles of 128 x 128): 128 x 64 tiles in two k ranges,
            # as the rT configs below do for B row-major. CUDA graphs, ratio to cuBLAS
            # (2026-11-26-h100-explore-tf32-ek-388971c.json): 128 / 64 x 4096 x 4096 0.90x / 0.80x against 0.71x /
            # 0.66x for 128 x 128 es6, 128 x 4096 x 14336 1.10x against 0.77x; behind at 256 x 4096 x 4096 (0.72x /
            # 0.84x), 128 x 14336 x 4096 (0.80x / 0.90x for 128 x 256 es4) and 1024^3 (0.67x / 1.00x). 128 x 128 in
            # four ranges was behind it at every shape (removed). Speed 0.4 between what those picks need; long_k
            # 2048, as the rT split configs.
            _cfg("128x64x32ek2", ("tf32",), speed=0.4, long_k=2048, BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, STAGES=8,
                 THREADS=384, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
            # tf32 with B row-major (x @ w, w stored K x N), without a copy: wgmma reads tf32 from shared memory
            # K-major only, so these run the transposed problem D^T = B^T A^T (dispatch._orientation), whose A
            # (B^T, MN-major) the consumers load into registers (A_REGS, hopper_ktile.cuh) and whose D^T goes
            # out transposed from registers. Layouts "cc" are the transposed problem's: they serve a row-major
            # A and B. Before them, B went through a transposing copy: 0.79-0.89x of cuBLAS at 4096^3 (rr),
            # 1.00x with B already K-major (rc) (2026-11-26-h100-explore-tf32-{rr-staged,rc}-d158e06.json).
            _cfg("128x256x32rT", ("tf32",), layouts=("cc",), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=128, A_REGS=1, D_TRANSPOSED=1, WAVE_SNAKE=1, GROUP_M=16,
                 SMEM_BYTES=_hopper_smem(4, 128, 256)),
            _cfg("128x128x32rT", ("tf32",), speed=0.9, layouts=("cc",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                 STAGES=6, THREADS=384, CLUSTER_M=2, B_BOX_N=64, A_REGS=1, D_TRANSPOSED=1,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
            # Few rows (M <= 128 tokens: the transposed problem's N): 32 tiles of 128 weight rows at N = 4096 ran
            # 55 us whatever M (0.48-0.70x of cuBLAS at M = 1-128, 2026-11-26-h100-bench-tf32-rr-b059238.json);
            # K in 4 ranges (split_k.cuh) makes 128 units: 0.97x / 1.13x at M = 16 / 64 (CUDA graphs 0.94x / 1.09x),
            # 0.76x at M = 1; at M = 128 the 64-token tiles take two rounds (0.77x: ...-tf32-rr-few-rows-d78697c.json),
            # so 128-token tiles come first (ties go to the first). speed 0.4: the partial tiles and their sum;
            # 1024^3 stays on 128 x 128 (1.16x eager there, ...-tf32-rr-7452a22.json).
            _cfg("128x128x32rTk4", ("tf32",), speed=0.4, long_k=2048, layouts=("cc",), BLOCK_M=128, BLOCK_N=128,
                 BLOCK_K=32, STAGES=6, THREADS=384, CLUSTER_M=1, B_BOX_N=128, A_REGS=1, D_TRANSPOSED=1, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
            # K in 2 ranges where 128 x 128 tiles fill half the GPU (CUDA graphs, ...-explore-tf32-rTk2-ca5fe17.json):
            # 1024^3 0.90x (0.85x unsplit), 1024 x 1024 x 4096 1.16x (0.79x). The 4-range configs only from K = 2048
            # (long_k): at 768^3 the estimate took 128x64x32rTk4, 0.46x against 0.78x unsplit (same file).
            _cfg("128x128x32rTk2", ("tf32",), speed=0.5, layouts=("cc",), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                 STAGES=6, THREADS=384, CLUSTER_M=1, B_BOX_N=128, A_REGS=1, D_TRANSPOSED=1, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(6, 128, 128)),
            # Tried at M = 16 / 64 / 128 (CUDA graphs, ...-explore-tf32-rT-split-variants-408d568.json): K in 8
            # ranges 0.64 / 0.73 / 0.67x, 2-CTA clusters sharing the tokens 0.79 / 0.89 / 0.88x, 64-row tiles 0.61 /
            # 0.78 / 0.82x, against 0.95 / 1.09 / 0.88x for the two configs here.
            _cfg("128x64x32rTk4", ("tf32",), speed=0.4, long_k=2048, layouts=("cc",), BLOCK_M=128, BLOCK_N=64,
                 BLOCK_K=32, STAGES=8, THREADS=384, CLUSTER_M=1, B_BOX_N=64, A_REGS=1, D_TRANSPOSED=1, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(8, 128, 64)),
            # The 3xTF32 GEMMs of fp32 products (tcgemm.emulation; named only, never tf32's auto): partial sums
            # promoted to an fp32 total every PROMOTE_EVERY k-tiles (hopper_ktile.cuh), since the tensor cores'
            # unrounded adds alone left 3e-5 / 1e-4 of error at K = 4096 / 14336 (cuBLAS fp32 1e-6 / 2e-6).
            # 128 x 192 ran 2.10x / 2.44x / 2.08x of cuBLAS's fp32 at 4096^3 / 4096x10240x4096 / 4096x4096x14336
            # against 1.94x / 1.91x / 1.34x for 128 x 128, which won at 2048^3 (1.57x against 1.36x), 512 x 4096^2
            # (1.38x / 1.25x) and 1024^3: speed 0.85 picks each (...-probe-fp32-3xtf32-2770538.json). Promoting
            # every k-tile (p1) cost 10-15% for half the error (2.4e-7 against 3.6e-7 at 4096^3; cuBLAS 1.1e-6).
            _cfg("128x128x32p4", ("tf32",), speed=0.85, named_only=True, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2, PROMOTE_PARTIALS=1, PROMOTE_EVERY=4,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128) // 2),
            _cfg("128x128x32p1", ("tf32",), named_only=True, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, EPI_PARTS=2, PROMOTE_PARTIALS=1, PROMOTE_EVERY=1,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128) // 2),
            _cfg("128x192x32p4", ("tf32",), named_only=True, BLOCK_M=128, BLOCK_N=192, BLOCK_K=32, STAGES=4,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=96, EPI_PARTS=3, D_FROM_REGISTERS=0, PROMOTE_PARTIALS=1,
                 PROMOTE_EVERY=4, SMEM_BYTES=_hopper_smem(4, 128, 192) + _epilogue_smem(128, 192) // 3),
            # fp8 configs stage a fp32 D too (EPI_32BIT): 0.90x / 0.82x of torch._scaled_mm(out_dtype=float32)
            # at 4096^3 / 8192^3 against 0.80x / 0.76x from registers (2026-11-23-h100-explore-fp8-fp32-out.json).
            # fp8: 128 x 128 (acc + partial sums = 128 registers). What took it from 0.89x to 0.97x of
            # torch._scaled_mm at 4096^3 (same-process ratios, runs below): (1) wgmma descriptors as sums in
            # uniform registers (wgmma.cuh): the issue of a k-tile's 4 wgmmas went from ~75 instructions to
            # ~20 (0.89 -> 0.93-0.95x with promotion every 4 k-tiles, p1 0.85 -> 0.93x;
            # 2026-11-23-h100-ab-uniform-descriptors-*.json); (2) promotion at the next group's start,
            # the consumers' groups half a group apart (04_tma_store_epilogue.cu): 0.94 / 0.92x at 4096^3 /
            # 8192^3 against 0.93 / 0.88x (...-explore-fp8-stagger-5db8f71-r*.json); (3) a 6th stage: Nsight
            # Compute showed the consumers waiting for data 14% of their time (...-ncu-stalls-fp8-a-bf16-
            # 5db8f71.txt), and 6 stages with the whole epilogue buffer (231424 of the 232448 bytes a block may have)
            # ran 0.97 / 0.96x against 0.94 / 0.93x for 5 (...-explore-fp8-s6-groups-6762da9-r*.json; 6
            # stages with half the epilogue buffer, EPI_PARTS=2, were slower than 5). Tile-order groups of
            # 16 or 32 tile rows (GROUP_M) instead of 8: within noise (same files). The cluster along N
            # (sharing A, as cuBLAS's 1 x 2) with 6 stages: 0.89x / 0.92x against 0.98x / 0.94x
            # (2026-11-23-h100-explore-fp8-along-n-s6-efb215c.json; removed).
            _cfg("128x128x128", ("fp8e4m3", "fp8e5m2"), grouped=True, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128)),
            # With the tail split: 4096x14336x4096 (10 units in the last wave, one part per helper) 99.1%
            # of _scaled_mm against 96.5% in one process, 96.6% against 97.9% (old build) in another
            # (2026-11-23-h100-ab-tail-split-{cba26e0,ad5198f}.json): within the runs' spread.
            _cfg("128x128x128t", ("fp8e4m3", "fp8e5m2"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=6,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, TAIL_SPLIT=1,
                 SMEM_BYTES=_hopper_smem(6, 128, 128) + _epilogue_smem(128, 128)),
            # Release run at 5ff0562 (2026-11-23-h100-release-fp8-5ff0562.json): 0.97x at 4096^3, 0.99x /
            # 0.98x at 4096x14336x4096 / 4096x4096x14336 (auto, this config). p1 (promotion every k-tile,
            # _scaled_mm's error exactly) is 0.91-0.93x at 4096^3; with 6 stages it ran 0.91x / 0.83x at
            # 4096^3 / 8192^3 against 0.92-0.93x / 0.88-0.89x with 5 (same runs), so it keeps 5.
            _cfg("128x128x128p1", ("fp8e4m3", "fp8e5m2"), BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=5,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=64, PROMOTE_EVERY=1,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            _cfg("128x128x128s5", ("fp8e4m3", "fp8e5m2"), speed=0.97, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128,
                 STAGES=5, THREADS=384, CLUSTER_M=2, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # 128 x 192: 96 accumulators + 96 partial sums per consumer thread. auto's pick where its tiles
            # fill the waves (8192^3, 4096x14336x4096): 1.00x / 0.92x of torch._scaled_mm against 0.84x /
            # 0.88x for 128 x 128 in the same run (2026-11-23-h100-explore-fp8-128x192.json), 0.97x / 0.94x
            # in the release run (2026-11-23-h100-fp8-auto-128x192.json); 8192x8192x1024 and 6144^3 0.95x /
            # 0.97x against 0.89x / 0.87x (2026-11-23-h100-fp8-auto-128x192-more-shapes.json). With the
            # promotion and 6 stages above, 128 x 128 closed most of that: speed 1.02 = its rate over 128 x
            # 128's at 8192^3 (0.97-0.99x against 0.96-0.97x, 2026-11-23-h100-explore-fp8-s6-groups-6762da9-r*.json);
            # release run 1.01x of torch._scaled_mm at 8192^3 (2026-11-23-h100-release-fp8-5ff0562.json).
            # At 4096^3 its 704 tiles take 6 rounds of 132 (5.33 waves): not there. At 8192x8192x1024 (8
            # k-tiles, so its larger epilogue counts) auto still takes it: 0.90x where 128 x 128 p1 ran 0.95x.
            # It spilled while the barrier watchdog trapped (mbarrier.cuh); the register-path epilogue
            # still does not fit beside its accumulators, so it has none (D_FROM_REGISTERS=0): dispatch
            # never picks it for a D that TMA cannot write, and launch stages a misaligned out= pointer.
            # Promoting every 8 k-tiles (p8, 0.91 / 0.89x against 0.89 / 0.84x at 4096^3 / 8192^3, +5% error)
            # was measured in the same run and not kept: `tcgemm tune` picks configs by speed alone.
            # Speed 1.04 since 2026-11-28 (1.02 before): both configs at issue 31's shapes in one process, CUDA
            # graphs (2026-11-28-h100-fp8-configs-4d5ed44.json), time of this over 128 x 128's per tensor /
            # row-wise: 4096 x 6144 x 4096 0.939 / 0.939, 2048 x 6144 x 4096 0.967 / 0.992, 4096 x 28672 x 4096
            # 0.949 / 0.960, 8192^3 0.923 / 0.950, where the estimate at 1.02 said 0.980 / 0.980 / 0.989 / 0.965
            # and kept 128 x 128 at the first three (inside its 2% tie margin); at N = 4096, 2048 and 4096 rows,
            # it loses (1.02-1.16) and stays out. The fitted speed is 1.04-1.06; 1.04 moves the picks of 34 of
            # 126 shapes checked on CPU, and where they moved it ran level or ahead (...-fp8-configs-flipped-
            # a4e5303.json: 6144^3 0.88 / 0.92, 4096 x 14336 x 4096 0.97 / 0.98, 1024 x 24576 x 1536 0.98 / 0.93,
            # 3000 x 8192 x 8192 0.98 / 0.97, 3000 x 4096 x 4096 0.99 / 0.97, 8192 x 7168 x 2048 1.01 / 0.99).
            _cfg("128x192x128", ("fp8e4m3", "fp8e5m2"), speed=1.04, BLOCK_M=128, BLOCK_N=192, BLOCK_K=128, STAGES=5,
                 THREADS=384, CLUSTER_M=2, B_BOX_N=96, EPI_PARTS=3, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(5, 128, 192) + _epilogue_smem(128, 192) // 3),
            # 256 x 128 with two m64 blocks a consumer (WG_M = 128), promoted every k-tile, the blocks taking turns on
            # one partial-sum array (128 accumulators + 64 partial sums a thread; 04_tma_store_epilogue.cu,
            # PROMOTE_EACH): DeepGEMM's tile for its dense shapes at 4096 tokens (256 x 128, its pair of CTAs sharing
            # one operand). Per multiply-add it loads 3/4 of 128 x 128's bytes into shared memory; its error is
            # _scaled_mm's (p1). "m": the pair along M sharing B; "n": along N sharing A (each loads 128 of the 256
            # rows). Block-wise scales against DeepGEMM in the same process, CUDA graphs, at 4096 tokens
            # (2026-11-27-h100-deepgemm-vs-tcgemm-w256-188e94c.json; auto then ran 128 x 128): x 7168 x 16384 m 0.98x,
            # n 0.95x against 0.88x; x 4096 x 7168 0.90x / 0.95x against 0.88x; x 7168 x 2048 0.95x / 0.90x against
            # 0.92x; behind at K = 512 and 1536 (0.81-0.88x against 0.87-0.98x) and at N = 2112 (17 tile columns:
            # 0.81-0.84x against 0.97x, which the estimate sees). With per-tensor or row-wise scales (every k-tile,
            # where 128 x 128 and 128 x 192 promote every 4) 2-13% behind those at 4096^3, 8192^3, 4096 x 14336 x 4096
            # and 4096 x 4096 x 14336 (...-explore-fp8-w256-188e94c.json): auto takes "m" for block-wise scales only,
            # from K = 2048 (long_k), at speed 1.1 (its measured gain at 4096 x 7168 x 16384).
            _cfg("256x128x128m", ("fp8e4m3", "fp8e5m2"), speed=1.1, long_k=2048, block_only=True, BLOCK_M=256,
                 BLOCK_N=128, BLOCK_K=128, STAGES=4, THREADS=384, CLUSTER_M=2, B_BOX_N=64, WG_M=128, EPI_PARTS=4,
                 D_BOX_BYTES=64, PROMOTE_EVERY=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(4, 256, 128) + _epilogue_smem(256, 128) // 4),
            _cfg("256x128x128n", ("fp8e4m3", "fp8e5m2"), named_only=True, BLOCK_M=256, BLOCK_N=128, BLOCK_K=128,
                 STAGES=4, THREADS=384, CLUSTER_M=2, CLUSTER_ALONG_N=1, A_BOX_M=128, B_BOX_N=128, WG_M=128,
                 EPI_PARTS=4, D_BOX_BYTES=64, PROMOTE_EVERY=1, D_FROM_REGISTERS=0,
                 SMEM_BYTES=_hopper_smem(4, 256, 128) + _epilogue_smem(256, 128) // 4),
            # Error of the promotion interval (relative Frobenius error against float64, bf16 D, same
            # data, 2026-11-23-h100-explore-fp8-promote-long.json): p1 1.666e-3, identical to
            # torch._scaled_mm's; every 4 k-tiles (default) 1.695e-3 (+1.8%); every 8 1.747e-3 (+5%),
            # every 16 1.867e-3 (+12%) for at most 3% more speed (0.90-0.92x against 0.87-0.90x): not taken.
            # Tried and removed: promoting every k-tile without draining, the k-tile's wgmmas issued per
            # 64-column block into two 32-register partial arrays in turn (block q - 1 added while block
            # q multiplies; chunks of 2 or 4 k-tiles unrolled, since ptxas serialises every wgmma when a
            # group is in flight across a loop back edge, the mbarrier spin loop included). Correct (and
            # sanitizer-clean) but slower: 962 / 1020 against 1210 TFLOP/s at 4096^3, 878 / 871 against
            # 1162 at 8192^3 (2026-11-23-h100-explore-fp8-column-blocks.json): n = 64 wgmmas read the A
            # tile once per 64 columns, ~125 bytes of shared memory per clock at the fp8 rate, its limit.
            # At 128 x 256 the same scheme needs 192 accumulator registers and spills. So does 128 x 256 with
            # the partial sums in two 128-column chunks (128 + 64 registers, promoted every k-tile): ptxas
            # needs 239 registers for it and compiles a 384-thread kernel within 168 (STACK 256), and a producer
            # of one warp (288 threads) does not help: 9 warps put 3 on one SM sub-partition, whose 16K
            # registers again allow 168 (256 threads give 239 without spills; checked with ptxas, no GPU run).
            # That would take the producer into a consumer warp.
            # 2 x 2 clusters: 16 KB per CTA and k-tile from the L2 against 24 KB (the fp8 rate needs twice the
            # bytes per clock of 16-bit inputs; 128 x 128 at 2 x 1 asks ~47 bytes per clock per SM). Slower:
            # 0.81 / 0.81 / 0.83x of torch._scaled_mm at 4096^3 / 8192^3 / 4096x14336x4096 against 0.89 / 0.86 /
            # 0.88x, same run, 30 clusters resident (2026-11-23-h100-explore-2x2-clusters.json). So the L2 -> SM
            # bytes are not what holds fp8 back. Kept off auto (speed 0.5).
            _cfg("128x128x128c4", ("fp8e4m3", "fp8e5m2"), speed=0.5, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128,
                 STAGES=5, THREADS=384, CLUSTER_M=4, CLUSTER_2D=2, A_BOX_M=64, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # From 65 rows only (min_m): at 64 rows and fewer half its rows lie below the matrix, and since the
            # producer loop's cut (7cc5bd2) 64 x 64 tiles ran ahead there, CUDA graphs on the H100: 64 x 24576 x 1536
            # 1.10x _scaled_mm against 0.96x (block-wise 1.00x DeepGEMM against 0.87x), 64 x 32768 x 512 1.12x against
            # 1.02x (1.00x against 0.95x), 64 x 14336 x 4096 1.03x against 0.94x, 64 x 7168 x 2048 1.19x against 0.96x
            # (2026-11-27-h100-explore-fp8-64x128-ab43ff8.json, ...-deepgemm-vs-tcgemm-64x128-ab43ff8.json).
            _cfg("128x128x128c1", ("fp8e4m3", "fp8e5m2"), min_m=65, BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, STAGES=5,
                 THREADS=384, CLUSTER_M=1, B_BOX_N=128,
                 SMEM_BYTES=_hopper_smem(5, 128, 128) + _epilogue_smem(128, 128)),
            # cuBLAS's fp8 kernels (torch 2.11, _scaled_mm without fast accumulation) under Nsight Compute:
            # nvjet_sm90_qqtst_128x128_128x6_1x2 at 4096^3 and ..._144x128_128x6_1x2 at 8192^3, i.e. this
            # tile, 6 stages, a cluster of 2 along N; their tensor pipes are busy 86.9% / 93.8% of active
            # cycles against 75.4% / 82.5% here (2026-11-23-h100-ncu-fp8-vs-cublas.txt, before the descriptor,
            # promotion and 6-stage changes above). Its main loop, read from its SASS under Nsight Compute
            # (2026-11-23-h100-ncu-stalls-fp8-vs-cublas-420f5dc.txt): per k-tile a data wait, a full wgmma
            # wait, the slot's release, 64 adds, then 4 wgmmas whose descriptors advance by uniform adds.
            # The cluster along N (sharing A; configs n5, n6, removed) did not help: 0.82-0.92x of
            # torch._scaled_mm against 0.84-0.89x for s5, same run (2026-11-23-h100-explore-fp8-stages-along-n.json).
            # cuBLAS promotes every k-tile (its error is p1's). Tried and removed: every k-tile through two
            # partial arrays in turn (one k-tile's sums added while the next multiplies), in straight-line
            # batches of 2 / 4 k-tiles so that ptxas can follow the commit groups (across any back edge,
            # spin loops included, it inserts a full wait, C7517): 0.84 / 0.83x at 4096^3, 0.85 / 0.78x at
            # 8192^3 against 0.89 / 0.84x, a batch waiting for all its k-tiles' data before its first wgmma
            # (2026-11-23-h100-explore-fp8-promote-pipeline.json). At the same tile cuBLAS's SMs request
            # fewer L2 sectors (20.1 M against 24.5 M at 4096^3) and half the cross-partition ones
            # (2026-11-23-h100-ncu-l2-sources.txt).
            # int8 too (s32 D staged as in the other int8 configs): at 1024^3 128 x 64 tiles make 128 CTAs where
            # 128 x 128 makes 64, at 128 x 4096 x 4096 64 x 64 tiles 128 CTAs; CUDA graphs, rc, against
            # torch._int_mm: 7.0 against 9.0 us (cuBLAS 6.4) and 11.2 against 16.0 (cuBLAS 11.7)
            # (2026-11-26-h100-explore-int8-small-rc-a4ec9cc.json; rr: ...-int8-small-rr-a4ec9cc.json).
            _cfg("64x64x128", ("int8", "fp8e4m3", "fp8e5m2"), grouped=True, speed=0.35, BLOCK_M=64, BLOCK_N=64,
                 BLOCK_K=128, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # fp8 at a few rows and a long K: 64 x 64 tiles in two k ranges. In CUDA graphs against torch._scaled_mm,
            # two processes each: 16 x 4096 x 14336 0.96x against 0.80x unsplit, but 16 / 64 x 4096 x 4096 0.84x /
            # 0.94-0.96x against 0.88x / 1.14x (2026-11-26-h100-explore-fp8-k2-small-m-dd7ed7e.txt): from K = 8192
            # only (long_k); speed 0.33 leaves 128 rows to the unsplit tiles.
            _cfg("64x64x128k2", ("fp8e4m3", "fp8e5m2"), speed=0.33, long_k=8192, BLOCK_M=64, BLOCK_N=64, BLOCK_K=128,
                 STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # Four k ranges where 64 x 64 tiles fill a quarter of the SMs or less (M <= 64, N <= 2560: DeepSeek-V3's
            # 2112 x 7168 makes 33 tiles). At 64 x 2112 x 7168, CUDA graphs: block-wise 0.985x DeepGEMM against 0.61x
            # unsplit (two k ranges 0.91x), per tensor 0.95x _scaled_mm against 0.77x, row-wise 1.99x against 1.63x;
            # at 128 rows (66 tiles) and at N = 4096 slower than two ranges or none
            # (2026-11-27-h100-deepgemm-vs-tcgemm-k-4c95b10.json, ...-explore-fp8-k4-4c95b10.json).
            _cfg("64x64x128k4", ("fp8e4m3", "fp8e5m2"), long_k=4096, max_m=64, max_n=2560, BLOCK_M=64, BLOCK_N=64,
                 BLOCK_K=128, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=4,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # The same two k ranges as 64x64x128k2 (the same build), with the bounds where they measured ahead at
            # 65-128 rows and narrow N below K = 8192: 128 x 2112 x 7168 (66 tiles of 64 x 64) block-wise 0.98x
            # DeepGEMM against 0.67x unsplit (four ranges 0.73x), per tensor 0.95x _scaled_mm against 0.81x, row-wise
            # 1.90x against 1.64x (...-deepgemm-vs-tcgemm-k-4c95b10.json, ...-explore-fp8-k4-4c95b10.json).
            # ("n": narrow N.)
            _cfg("64x64x128k2n", ("fp8e4m3", "fp8e5m2"), long_k=4096, min_m=65, max_m=128, max_n=2560, BLOCK_M=64,
                 BLOCK_N=64, BLOCK_K=128, STAGES=10, THREADS=256, CLUSTER_M=1, B_BOX_N=64, SPLIT_K=2,
                 SMEM_BYTES=_hopper_smem(10, 64, 64) + _epilogue_smem(64, 64)),
            # 64 x 32, named only: at 16 x 4096 x 4096 its 128 tiles ran no faster than 64 x 64's 64 (0.84x against
            # 0.87x _scaled_mm in CUDA graphs), 64 x 4096 x 4096 1.13-1.14x against 1.09x, 16 x 14336 x 4096 0.67x
            # against 0.89x (2026-11-26-h100-explore-fp8-64x32-10058c7.txt): not the few-row fix (a decode kernel is).
            _cfg("64x32x128", ("fp8e4m3", "fp8e5m2"), named_only=True, BLOCK_M=64, BLOCK_N=32, BLOCK_K=128,
                 STAGES=12, THREADS=256, CLUSTER_M=1, B_BOX_N=32, D_BOX_BYTES=64,
                 SMEM_BYTES=_hopper_smem(12, 64, 32) + _epilogue_smem(64, 32)),
            # 64 x 128: one consumer, m64n128 wgmmas. Named only: against DeepGEMM (block-wise, CUDA graphs, H100) ahead
            # of 64 x 64 only at 64 x 32768 x 512 (1.03x against 1.00x) and 128 x 24576 x 1536 (0.98x against 0.93x for
            # 128 x 128 c1); behind at 64 x 2112 / 4096 x 7168 (0.59x / 0.78x) and 128 x 4096 x 7168 (0.85x)
            # (2026-11-27-h100-deepgemm-vs-tcgemm-64x128-ab43ff8.json).
            _cfg("64x128x128", ("fp8e4m3", "fp8e5m2"), named_only=True, BLOCK_M=64, BLOCK_N=128, BLOCK_K=128,
                 STAGES=8, THREADS=256, CLUSTER_M=1, B_BOX_N=128,
                 SMEM_BYTES=_hopper_smem(8, 64, 128) + _epilogue_smem(64, 128)),
            _cfg("128x64x128", ("int8", "fp8e4m3", "fp8e5m2"), grouped=True, speed=0.57, BLOCK_M=128, BLOCK_N=64,
                 BLOCK_K=128, STAGES=8, THREADS=384, CLUSTER_M=1, B_BOX_N=64,
                 SMEM_BYTES=_hopper_smem(8, 128, 64) + _epilogue_smem(128, 64)),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rc",),
        scale_args=True,
        row_scales=True,
        block_scales=True,
        grouped=True,  # (block-scaled fp8 only: tcgemm.grouped_gemm)
        persistent=True,
        cluster=2,
        tma_store=True,
        c_matrix=True,
        pdl=True,
    ),
    KernelSpec(
        name="swap_ab_stream_k",
        family="hopper",
        stage=5,
        technique="decode: the weight as wgmma's A and the few tokens as its N (swap-AB), its k-tiles shared "
                  "evenly over the SMs (whole tiles, aligned splits or stream-K, a fixed-order fixup), the first "
                  "ring hinted into L2 before the PDL wait, D written transposed",
        source="hopper/05_swap_ab_stream_k.cu",
        entry="swap_ab_stream_k",
        precisions=("fp16", "bf16"),
        # Configs by token tile, narrowest first: auto takes the first whose BLOCK_M covers M
        # (dispatch.pick_config). Stages: as many as fit twice per SM (~110 KB each), so one CTA's fixup and
        # epilogue overlap the other's loads, and a following GEMM's CTAs find room (pdl.cuh); the s12
        # config, one CTA per SM with the deepest ring, is there to measure against.
        # Measured in tools/decode_step.py (the GEMMs of 4 decoder layers in one CUDA graph, weights rotated;
        # 2026-11-25-h100-explore-decode-step-configs-{ff5f7f4,6d1aab9}.json) and `tcgemm bench` at decode
        # shapes: one CTA per SM with the deepest ring of the biggest stages streams best (8 boxes of 128 bytes
        # of each weight row per stage): llama3-8b M = 1, 649 us a step against 657 with 4 boxes and two CTAs
        # per SM, 661 with 128-row tiles, 691 with one box per stage (torch 644-651); the first ring hinted
        # into L2 before the PDL wait, 649 against 667 without (l0) and 685 with two rings (they evict what
        # the GEMM before still reads). Where K holds fewer than two 8-box stages, the 16-token ring of 4-box
        # stages wins at M = 1 too: 1 x 2304 x 768 4.7 us against 5.7 (cuBLAS 4.5); at K = 1024 both 8-box
        # configs tie with cuBLAS (1 x 8192 x 1024: 7.9 / 8.0 us, cuBLAS 7.9; two 4-box CTAs per SM 9.7)
        # (2026-11-25-h100-explore-swap-ab-small-k-a7883c2.json). The 32- and 64-token configs: at narrow N
        # and long K they beat the general kernel (70B-TP8 qkv, 1280 x 8192: M = 32 13.4 us against 20.8,
        # M = 64 14.8 against 20.8, cuBLAS 11.7 and 13.3) and elsewhere lose to it (N = 4096, K = 4096 at
        # M = 64: 19.6 against 15.5; GPT-2's qkv, K = 768: 6.9 against 4.8; N = 8192, K = 3584: 28.7 against
        # 24.5) (2026-11-25-h100-explore-swap-ab-narrow-b8e42f5.json): auto takes them only in the measured
        # winning range, N <= 2048 and K >= 8192, the 64-token config up to M = 128 (two token tiles: 15.3 us
        # against 20.5 for the general kernel's pick, cuBLAS 13.3; the 128-token config 17.6; split-K tiles of the
        # general kernel 18.1-35.3; H100, CUDA graphs, 2026-11-26-h100-explore-{qkv70,split-k-qkv70}-42030cd.json;
        # an earlier run had 20.0, a tie). On an
        # H200, same shape, CUDA graphs: M = 64 32-token 12.1 us, M = 128 64-token 13.7, the general kernel
        # 21.2 and 21.2, cuBLAS 11.7 and 11.8 (2026-11-25-h200-explore-configs-45eec90.json). Since then (H200,
        # 2026-11-28) the general kernel's tiles in six k ranges take 33-128 rows of that class (64x64x64k6,
        # 128x64x64k6h: 1.01-1.10x torch in the model bench where the 48- and 64-token tiles ran 0.67-0.95x), and
        # those two configs are named only; the six-range tiles are unmeasured on an H100.
        # Below K = 1024 (GPT-2's qkv, fc1 and o at M = 1-16) the general kernel's 64 x 64 tiles run ahead of the
        # 4-box config: 1 / 3 / 16 x 2304 x 768 4.06-4.09 us against 4.65-4.82 (cuBLAS 4.17-4.59), 16 x 3072 x 768
        # 1.10x against 0.95x cuBLAS, 1 / 16 x 768 x 768 3.77-3.80 against 3.89-4.06 (cuBLAS 3.92-3.99), CUDA graphs;
        # at K = 1024 the decode kernel keeps its lead (16 x 8192 x 1024 1.03x against 1.00x)
        # (2026-11-26-h100-explore-small-k-decode-c81685a-p1.json, -p2): so it takes K >= 1024 only.
        # At M <= 8 a weight of 8-14 Mi elements with K >= 2048 streams faster through the 16-token ring of two 8-box
        # stages than the 8-token ring of three (auto_yield_nk): CUDA graphs, rotated, 1 x 3584 x 3584 (Qwen2.5's o)
        # 11.8 / 11.9 us against 12.7 / 12.7 (cuBLAS 11.5), 1 x 1280 x 8192 (the 70B shard's qkv) 10.9 against 11.1
        # (cuBLAS 12.0); above, the 8-token ring leads or ties (4096^2 14.6 / 14.4, 4608 x 3584 13.7 / 13.4, but
        # 6144 x 4096 20.3 / 20.8); below 8 Mi, not measured (2026-11-26-h100-explore-decode-{o,m1}-67a57f1.json).
        # On an H200 (CUDA graphs, weights rotated; 2026-11-28-h200-explore-decode-configs-c1c776c.json, and the model
        # bench in processes with and without each pick, ...-h200-models-decode-pins-5ca9c9a-{U,P}.json): the 8-token
        # ring without the L2 hint (l0) at 1 / 3 x 8192 x 3584 (the 70B shard's down) 16.1 / 16.3 us against 17.6 /
        # 17.8 (1.05 / 1.03x torch against 0.96 / 0.95x), at 1 / 3 x 28672 x 4096 (the 8B gate_up) 58.5 / 58.8
        # against 59.1 / 59.4 (0.97 / 0.98x against 0.96x). It comes first at N = 8192, K >= 3584 only (auto_min_n,
        # auto_max_n): the H100's decode step had the hint ahead over all four 8B layers (649 against 667 us, above),
        # so the 8B gate_up's 1-2% on the H200 does not outweigh that; the 70B down was not in it. Qwen2.5's qkv
        # (4608 x 3584, 15.75 Mi elements) on the 16-token ring of five 4-box stages: 1 / 3 / 16 rows 12.5 / 13.2 /
        # 12.5 us against 13.8 / 13.8 / 12.7 (0.94 / 0.87 / 0.91x against 0.85 / 0.83 / 0.90x): the two rings before
        # it yield weights of 14-16 Mi elements. The decode step of four layers (tools/decode_step.py,
        # ...-decode-pins-5ca9c9a-decode-step-{U,P}.json): the 70B shard 261.5 / 262.2 us against 267.8 / 269.1 at
        # 1 / 3 rows, the others level.
        # Not measured on an H100.
        configs=(
            _swap_cfg(8, "bf16", per_sm=1, ksub=8, stages=3, prefetch=0, auto_max_m=8, auto_min_k=3584,
                      auto_min_n=8192, auto_max_n=8192),
            _swap_cfg(8, "bf16", per_sm=1, ksub=8, stages=3, auto_max_m=8, auto_min_k=1024,
                      auto_yield_nk=(8 << 20, 16 << 20)),
            _swap_cfg(16, "bf16", per_sm=1, ksub=8, stages=2, auto_max_m=16, auto_min_k=2048,
                      auto_yield_nk=(14 << 20, 16 << 20)),
            _swap_cfg(16, "bf16", per_sm=1, stages=5, auto_max_m=16, auto_min_k=1024),
            _swap_cfg(8, "bf16"),
            # 32 tokens also where N <= 8192 and K >= 3584 (batched decode of 17-32 rows: the general kernel's 64 x 64
            # tiles there leave most of the SMs idle or read the weight twice): CUDA graphs, bf16 rc, ratio to cuBLAS,
            # this config against auto's pick before (2026-11-27-h100-explore-m32-8b2923b.json): 24 x 4096 x 4096
            # 0.98x against 0.76x, 32 x 4096 x 4096 0.99x against 0.83x, 32 x 6144 x 4096 1.06x against 0.99x,
            # 32 x 4096 x 14336 1.04x against 0.86x, 32 x 7168 x 8192 0.99x against 0.94x; behind at 32 x 28672 x
            # 4096 (0.97x against 0.99x, a weight of 117 Mi elements), hence the bound on N.
            _swap_cfg(32, "bf16", per_sm=1, stages=4, auto_max_m=32, auto_min_k=3584, auto_max_n=8192),
            # 48 tokens, where the 64-token tile is a quarter empty: CUDA graphs, 48 / 40 x 1280 x 8192 (the 70B shard's
            # qkv) 12.5 / 12.4 us against 12.9 / 12.8 for the 64-token config (cuBLAS 11.9-12.5); at N >= 6144 level
            # with the others (2026-11-27-h100-explore-48-b3bafcf.json; 4 stages no better).
            # (The 48- and 64-token configs are named only since the H200 measurements of 64x64x64k6 and 128x64x64k6h
            # of the general kernel, whose six k ranges run that class at 33-128 rows 1.04-1.45x faster.) The 48-token
            # tiles take the 70B shard's gate_up (7168 x 8192) at 33-48 rows, where the general kernel's 64 x 64 tiles
            # carry 16-31 rows TMA fills: H200, CUDA graphs (2026-11-28-h200-explore-gu70-48-38c6f7c.json): 33 / 40 /
            # 48 rows 0.93 / 0.96 / 0.96x cuBLAS against 0.75 / 0.86 / 0.96x. Bounded to that weight; not measured on
            # an H100.
            _swap_cfg(48, "bf16", per_sm=1, stages=3, auto_max_m=48, auto_min_k=8192, auto_min_n=7168,
                      auto_max_n=7168),
            _swap_cfg(64, "bf16", per_sm=1, stages=3),
            _swap_cfg(128, "bf16", per_sm=1, ksub=2, stages=4),
            # (Tried and removed: a wide token tile, 304 tokens x 128 weight rows in two consumers, stream-K over
            # every SM: 0.24-0.82x cuBLAS at the 300-token shapes where auto's tiles run 0.87-1.44x; 208b511,
            # 2026-11-27-h100-explore-wide-token-tile-208b511.json; docs/findings.md.)
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        # A row-major (the tokens K-major); the weight B = W^T column-major (W as torch.nn.Linear stores it), or
        # row-major (a K x N weight of torch.matmul: MN-major, wgmma's transposed A; W_K_MAJOR in the kernel).
        layouts=("rc", "rr"),
        min_blocks=2,  # registers for two CTAs per SM (64 tokens wanted 160 per thread uncapped)
        persistent=True,
        # (the TMA-store kernels' signature: the D map and flag arrive, unused; stream-K's workspace and counters)
        tma_store=True,
        pdl=True,
        auto_max_m=128,
    ),
    # The same kernel for tf32, which wgmma reads K-major only: B column-major (a row-major B is staged).
    KernelSpec(
        name="swap_ab_stream_k_fp8",
        family="hopper",
        stage=5,
        technique="swap_ab_stream_k for fp8: the weight streams at one byte an element, each stage's sums promoted "
                  "to fp32, per-tensor or row-wise scales applied at the store",
        source="hopper/05_swap_ab_stream_k.cu",
        entry="swap_ab_stream_k",
        precisions=("fp8e4m3", "fp8e5m2"),
        # The 16-bit configs' shapes (the same bytes a stage: 128-byte boxes of k, 128 fp8 elements each). Against
        # _scaled_mm per tensor, CUDA graphs, weights rotated (2026-11-27-h100-explore-fp8-decode-*-322c8c7.json):
        # 16 x 4096 x 4096 9.4-10.0 us for every config tried against 8.7 (the general kernel's 64 x 64 tiles
        # 0.86-0.88x); 16 x 4096 x 14336 1.10x, 16 x 1280 x 8192 1.29x with 4-box stages (q4s5), 0.92-0.93x at
        # 16 x 14336 x 4096 where two CTAs an SM (q4) ran 1.00x (named: one shape); 32 x 1280 x 8192 1.10x against
        # 1.03x for the general kernel, which keeps N = 4096 (0.90x against 0.96x) and 64-128 rows.
        # More tiles than SMs (N > 8448): two CTAs an SM (q4) ahead, 1 x 14336 x 4096 0.99x against 0.91x, 16 x
        # 28672 x 4096 0.97x against 0.94x, behind at N = 4096-6144 (...-explore-fp8-decode-q4-ec52c43.json).
        # Whole tiles from 40% of the SMs (WHOLE_FILL_PCT; tcgemm.schedule).
        configs=(
            _swap_cfg(16, "fp8e4m3", ksub=4, auto_max_m=16, auto_min_k=1024, auto_min_n=8449),
            _swap_cfg(8, "fp8e4m3", per_sm=1, stages=5, auto_max_m=8, auto_min_k=1024, whole_fill_pct=40),
            _swap_cfg(16, "fp8e4m3", per_sm=1, stages=5, auto_max_m=16, auto_min_k=1024, whole_fill_pct=40),
            _swap_cfg(32, "fp8e4m3", per_sm=1, stages=4, auto_max_m=32, auto_min_k=8192, auto_max_n=2048,
                      whole_fill_pct=40),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rc",),
        scale_args=True,
        row_scales=True,
        persistent=True,
        tma_store=True,
        pdl=True,
        auto_max_m=32,
    ),
    KernelSpec(
        name="swap_ab_stream_k_kmajor",
        family="hopper",
        stage=5,
        technique="swap_ab_stream_k for tf32: both operands K-major",
        source="hopper/05_swap_ab_stream_k.cu",
        entry="swap_ab_stream_k",
        precisions=("tf32",),
        configs=(
            _swap_cfg(8, "tf32", per_sm=1, ksub=8, stages=3, auto_max_m=8, auto_min_k=1024),
            _swap_cfg(16, "tf32", per_sm=1, ksub=8, stages=2, auto_max_m=16, auto_min_k=2048),
            _swap_cfg(16, "tf32", per_sm=1, stages=5, auto_max_m=16),
            # More tokens: tf32 at 32-256 tokens streams an fp32 weight, twice bf16's bytes, through half bf16's
            # tensor rate. CUDA graphs against cuBLAS, K = 4096 (2026-11-27-h100-tf32-swap-afee8d7.json): 32 / 64 /
            # 128 / 256 x 4096 x 4096 1.00 / 1.02 / 0.97 / 0.98x on the 32-, 32-, 64- and 128-token configs against
            # 0.74 / 0.80 / 0.89 / 0.87x for wgmma_tma_store_kmajor's tiles; at N = 14336 those stay ahead (the
            # swap configs 0.52-0.85x), at K = 14336 level (1.08 / 1.10x eager at 128 x 4096 x 14336).
            _swap_cfg(32, "tf32", per_sm=1, stages=4, auto_max_m=64, auto_min_k=2048, auto_max_n=4096),
            _swap_cfg(64, "tf32", per_sm=1, stages=3, auto_max_m=128, auto_min_k=2048, auto_max_n=4096),
            _swap_cfg(128, "tf32", per_sm=1, ksub=2, stages=4, auto_max_m=256, auto_min_k=2048, auto_max_n=4096),
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rc",),
        min_blocks=2,
        persistent=True,
        tma_store=True,
        pdl=True,
        auto_max_m=256,
    ),
    # tf32 with the weight row-major (K x N, "rr": torch.matmul's B): wgmma reads tf32 K-major only, so the kernel loads
    # each consumer's A fragments from the MN-major weight tile into registers (W_REGS in the kernel, the 3xTF32
    # path's loads with one part and no split) instead of staging a K-major copy of the weight.  Before it, auto ran
    # these rows on the general kernel's transposed tiles (rT, split-K): 0.81 / 0.96 / 0.89x cuBLAS at 1 / 16 / 128 x
    # 4096 x 4096 in CUDA graphs, 0.58x at 100 x 1000 x 2044.  Measured (CUDA graphs, us, H100,
    # 2026-11-27-h100-explore-tf32mn-29c4c5b.json; cuBLAS TF32 in the same process): 1-16 rows x 4096 x 4096 the
    # 128-row tile in two consumers 26.9 / 27.0 / 27.3 at 1 / 8 / 16 (cuBLAS 25.3 / 29.5 / 30.3); 17-64 the
    # 32-token tile 28.7 / 29.8 / 29.1 at 32 / 48 / 64 (cuBLAS 31.6 / 33.2 / 34.9); 65-128 the 128-token tile
    # 33.9 / 33.7 at 96 / 128 (cuBLAS 31.7 / 32.1; the 64-token tile 37.7 / 33.5, the general kernel 35.8 / 35.9);
    # 64 x 1280 x 8192 23.1 (cuBLAS 26.7); 100 x 1000 x 2044 13.8 (cuBLAS 10.7, the general kernel 18.6).  At
    # N = 14336 with 128 tokens the swap tiles ran 107-1290 us against 89 for the general kernel (cuBLAS 90): N <=
    # 4096 beyond 16 tokens, as for the K-major configs.  (Measured and dropped: 16 x 64 q8, 32 x 128, 64 x 128
    # tiles, within 1-10% of these or behind.)
    KernelSpec(
        name="swap_ab_stream_k_tf32_mn",
        family="hopper",
        stage=5,
        technique="swap_ab_stream_k for tf32 with a row-major weight: wgmma's A fragments loaded from the "
                  "MN-major weight tile into registers (tf32 descriptors are K-major only)",
        source="hopper/05_swap_ab_stream_k.cu",
        entry="swap_ab_stream_k",
        precisions=("tf32",),
        configs=(
            _swap_cfg(16, "tf32", rows=128, per_sm=1, ksub=2, stages=5, consumers=2, auto_max_m=16, auto_min_k=1024),
            _swap_cfg(32, "tf32", per_sm=1, stages=4, auto_max_m=64, auto_min_k=1024, auto_max_n=4096),
            _swap_cfg(128, "tf32", per_sm=1, ksub=2, stages=4, auto_max_m=128, auto_min_k=1024, auto_max_n=4096),
            _swap_cfg(8, "tf32", per_sm=1, ksub=8, stages=3),
            _swap_cfg(64, "tf32", per_sm=1, stages=3),
            # (Tried and removed: 256-row weight tiles, two atoms a consumer, 1 KB of each k row a stage where 128 rows
            # read 512 bytes: 16 x 256 28.5-28.8 us against 26.8-27.0 at 1-16 x 4096 x 4096, 8 x 256 level (27.1) and
            # 1-3% ahead at N or K = 14336; 2026-11-27-h100-explore-tf32mn-256-402b45d.json.)
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rr",),
        persistent=True,
        tma_store=True,
        pdl=True,
        auto_max_m=128,
    ),
    # fp32 at 1-128 rows: the same kernel, 3xTF32 with both operands split on chip (SPLIT3 in the kernel). tcgemm.api's
    # fp32 route sends these rows here on Hopper instead of to the CUDA-core kernels (simt_skinny, K in parts). Token
    # tiles by M, CUDA graphs against cuBLAS's fp32, rc / rr (2026-11-27-h100-fp32-decode-{rc,rr}-d982490.json): 8 at
    # 1-8 rows (0.98 / 0.84x at one row, 1.57 / 1.43x at 8; 3-4% ahead of 16 there, ...-explore-fp32dec-8tok-*), 16 at
    # 9-16 (1.60 / 2.48x), 32 at 17-32 (32 x 128 with one box a stage ahead of two boxes: 35 against 40 us; 1.33 /
    # 1.18x), 64 from 33 (1.26 / 1.07x at 64, 1.10 / 1.02x eager at 128; ...-explore-fp32dec-configs-*-05e6f32.json).
    KernelSpec(
        name="swap_ab_stream_k_3xtf32",
        family="hopper",
        stage=5,
        technique="swap_ab_stream_k for fp32 as 3xTF32: the weight split into tf32 parts in registers (wgmma's A), "
                  "the tokens split into three planes in shared memory, each box of k's sums promoted to fp32",
        source="hopper/05_swap_ab_stream_k.cu",
        entry="swap_ab_stream_k",
        precisions=("fp32",),
        configs=(
            _swap_cfg(8, "fp32", rows=128, per_sm=1, ksub=2, stages=5, auto_max_m=8, auto_min_k=512),
            _swap_cfg(16, "fp32", rows=128, per_sm=1, ksub=2, stages=5, auto_max_m=16, auto_min_k=512),
            _swap_cfg(32, "fp32", rows=128, per_sm=1, ksub=1, stages=6, auto_max_m=32, auto_min_k=512),
            _swap_cfg(64, "fp32", rows=128, per_sm=1, ksub=1, stages=5, auto_max_m=128, auto_min_k=512, split_steps=2),
            # (Tried and removed: 256-row weight tiles, two atoms a consumer, at 8, 16 and 32 tokens: 1-8% slower
            # than the 128-row tiles at 1-32 rows, 2026-11-27-h100-explore-fp32dec-256-{rc,rr}-ff3c5cc.json.)
        ),
        seed=_SEED_HOPPER,
        min_arch=90,
        requires_aligned16=True,
        tma=True,
        layouts=("rc", "rr"),
        persistent=True,
        tma_store=True,
        pdl=True,
        auto_max_m=128,
    ),
)

_BY_NAME: dict[str, KernelSpec] = {spec.name: spec for spec in LADDER}


def get(name: str) -> KernelSpec:
    """The spec named ``name``; a ValueError lists the known names otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        known = ", ".join(_BY_NAME)
        raise ValueError(f"unknown kernel {name!r}; choose 'auto' or one of: {known}") from None


def all_specs() -> tuple[KernelSpec, ...]:
    return LADDER


@cache
def with_block_scales(cfg: TileConfig) -> TileConfig:
    """``cfg`` built for block-wise fp8 scales: each ring slot gains a scale slot (BLOCK_M + 4 floats of scale_a, 4
    of scale_b: kernels/include/block_scales.cuh, SCALE_SLOT), and where that leaves the ring beyond the 227 KB a CTA
    may have, one stage fewer per overflow. One object per config (the launch caches key on identity)."""
    slot = (cfg["BLOCK_M"] + 4) * 4 + 16
    stage = (cfg["BLOCK_M"] + cfg["BLOCK_N"]) * 128  # fp8: 128 bytes of k per row
    stages, smem = cfg["STAGES"], cfg.smem_bytes + cfg["STAGES"] * slot
    while smem > MAX_DYNAMIC_SMEM and stages > 2:
        stages, smem = stages - 1, smem - stage - slot
    return replace(cfg, params=MappingProxyType({**cfg.params, "STAGES": stages, "SMEM_BYTES": smem}))
