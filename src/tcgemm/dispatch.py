"""Choose a (KernelSpec, TileConfig) for a GemmProblem.

Constraints filter (precision, architecture), a heuristic orders: the
highest ladder stage of the fastest family that serves the problem (memoised on
the few properties that decide it), with the tile config picked by how many
CTAs its tiles make for the problem.
"""

from __future__ import annotations

from functools import lru_cache

from . import registry, tma, tuned
from .problem import GemmProblem, transposed_layouts_of, transposed_store
from .registry import KernelSpec, TileConfig
from .schedule import TAIL_ESTIMATE_FIXED_KTILES, TAIL_ESTIMATE_MIN_KTILES, TAIL_MAX_PARTS, cluster_units, tail_split

# Families in the order auto prefers them, fastest first.
_FAMILY_ORDER = ("hopper", "mma_sync", "wmma", "simt")


class KernelUnavailable(ValueError):
    """The requested kernel cannot serve this problem on this GPU."""


def why_not(spec: KernelSpec, problem: GemmProblem, arch: int) -> str | None:
    """None if ``spec`` can serve ``problem`` on compute capability ``arch``, else the reason."""
    if problem.precision not in spec.precisions:
        return f"it computes {', '.join(spec.precisions)}, not {problem.precision}"
    if arch < spec.min_arch:
        return f"it needs sm_{spec.min_arch} or newer, this GPU is sm_{arch}"
    if problem.layouts not in spec.layouts and not _serves_transposed(spec, problem):
        return (
            f"it serves layouts {', '.join(spec.layouts)} only (r: row-major, c: column-major, A then B), "
            f"not {problem.layouts}; kernel='auto' copies the operands into a served layout when worth it"
        )
    if spec.requires_aligned16 and not (problem.a.aligned16 and problem.b.aligned16):
        return (
            "it needs A and B 16-byte aligned (base address, leading dimension and batch stride "
            "multiples of 16 bytes); kernel='auto' falls back to a kernel without that need"
        )
    if spec.tma:
        reason = tma.why_not(problem)
        if reason is not None:
            return reason
    if (problem.activation or problem.gated) and not spec.epilogues:
        return "it has no fused epilogue (activation=); tcgemm.gemm runs the activation after the GEMM there"
    if problem.row_scales and not spec.row_scales:
        return ("it takes per-tensor fp8 scales only; row-wise scales (scale_a (M, 1), scale_b (1, N)) run on "
                "wgmma_tma_store_kmajor")
    if problem.grouped and not spec.grouped:
        return "it has no masked grouped schedule (tcgemm.grouped_gemm runs on wgmma_tma_store)"
    if problem.block_scales and not spec.block_scales:
        return ("it takes per-tensor fp8 scales only; block-wise scales (scale_a (M, ceil(K/128)), scale_b "
                "(ceil(N/128), ceil(K/128))) run on wgmma_tma_store_kmajor")
    if problem.gated and (problem.b.layout != "col" or problem.b.batch_stride or problem.swapped):
        return ("its gated epilogue reads b K-major (b = w.t() of a row-major (N, K) weight, as F.linear passes it), "
                "one matrix for every batch entry, and writes a row-major output")
    return None


def _tma_ok(problem: GemmProblem) -> bool:
    """Whether kernels needing aligned operands / TMA tensor maps can serve ``problem``."""
    return problem.a.aligned16 and problem.b.aligned16 and tma.why_not(problem) is None


def cluster_blocks(cfg: TileConfig) -> tuple[int, int]:
    """(tile rows, tile columns) of the block of tiles one thread-block cluster of ``cfg`` computes:
    (1, 1) without clusters; CLUSTER_M CTAs stacked along M by default, side by side along N with
    CLUSTER_ALONG_N, CLUSTER_M / CLUSTER_2D x CLUSTER_2D with CLUSTER_2D (include/hopper_cluster.cuh)."""
    size = cfg.get("CLUSTER_M", 1)
    if cfg.get("CLUSTER_2D", 0):
        return size // cfg["CLUSTER_2D"], cfg["CLUSTER_2D"]
    return (1, size) if cfg.get("CLUSTER_ALONG_N", 0) else (size, 1)


def config_refuses(cfg: TileConfig, problem: GemmProblem, spec: KernelSpec | None = None) -> str | None:
    """Why ``cfg`` cannot serve this problem, or None: it is built for other layouts (tiles whose width is
    not a multiple of 64 read B K-major only; with ``spec``, a config of all the kernel's layouts and a
    problem the kernel serves only transposed), or it has no register-path epilogue (D_FROM_REGISTERS=0)
    and stores D through TMA only, which needs D's rows 16-byte aligned."""
    if spec is not None and cfg.layouts is None and problem.layouts not in spec.layouts:
        return (f"config {cfg.name!r} serves layouts {', '.join(spec.layouts)} only (those {spec.name} reads as "
                f"given), not {problem.layouts}; use kernel='auto' or another config")
    if bool(cfg.get("D_TRANSPOSED")) != problem.d_transposed:
        return (f"config {cfg.name!r} computes D^T and writes it transposed (the token count as the wgmma's N); "
                "it runs the transposed problem, which auto chooses where it estimates it faster"
                if cfg.get("D_TRANSPOSED") else f"config {cfg.name!r} does not write D transposed")
    if cfg.get("D_TRANSPOSED") and not cfg.get("A_REGS") and _c_extent(problem) >= 2**31:
        return (f"config {cfg.name!r} reads a C other than a bias row at 32-bit offsets (epilogue_tma.cuh), and this "
                "C spans 2^31 elements or more; use kernel='auto' or another config")
    if not cfg.writes(problem.out_dtype.itemsize):
        return (f"config {cfg.name!r} writes a 16-bit D only (its tile does not split into the 32-bit epilogue's "
                "parts); use kernel='auto' or another config")
    if not cfg.serves_layouts(problem.layouts):
        return (f"config {cfg.name!r} serves layouts {', '.join(cfg.layouts or ())} only (its tile width needs a "
                f"K-major B), not {problem.layouts}; use kernel='auto' or another config")
    if problem.grouped and not cfg.grouped:
        return (f"config {cfg.name!r} is not built for masked grouped GEMMs (kernels/include/group_rows.cuh: "
                "`tcgemm list` marks those that are); use kernel='auto' or one of them")
    if problem.block_scales and not cfg.serves_block_scales():
        return (f"config {cfg.name!r} cannot apply block-wise fp8 scales (kernels/include/block_scales.cuh: m64 "
                "consumers, tiles 32, 64 or 128 wide); use kernel='auto' or another fp8 config")
    if problem.gated and (not cfg.gated_parts() or cfg.get("D_TRANSPOSED")):
        return (f"config {cfg.name!r}: its gated epilogue cannot store half of a tile {cfg['BLOCK_N']} wide in whole "
                f"boxes of {cfg.get('D_BOX_BYTES', 128)} bytes (kernels/include/hopper_config.cuh: gated_parts)")
    if not cfg.tma_d_only or tma.d_geometry(problem, cfg) is not None:
        return None
    return (f"config {cfg.name!r} writes D through TMA stores only, which need a 16-bit or 32-bit D with "
            "16-byte aligned rows (leading dimension and batch stride multiples of 16 bytes); "
            "use kernel='auto' or another config")


def _c_extent(problem: GemmProblem) -> int:
    """One past the largest element offset within a batch entry at which the epilogue reads C (0: no C)."""
    if problem.c_strides is None:
        return 0
    row, col, _ = problem.c_strides
    return (problem.m - 1) * abs(row) + (problem.n - 1) * abs(col) + 1


def stream_k_admits(cfg: TileConfig, problem: GemmProblem) -> bool:
    """Whether auto may run the stream-K config ``cfg`` for ``problem``: M <= AUTO_MAX_M (0: never),
    K >= AUTO_MIN_K, AUTO_MIN_N <= N <= AUTO_MAX_N (0: any N): the ranges where it measured faster than the
    general kernel (or than the configs after it);
    and not a weight of AUTO_YIELD_NK_LO <= N x K < AUTO_YIELD_NK_HI elements with K >= YIELD_MIN_K (the next
    config's)."""
    max_n = cfg.get("AUTO_MAX_N")
    if problem.k >= YIELD_MIN_K and cfg.get("AUTO_YIELD_NK_LO") <= problem.n * problem.k < cfg.get("AUTO_YIELD_NK_HI"):
        return False  # (a weight the next config streams faster: the registry's auto_yield_nk)
    return (problem.m <= cfg.get("AUTO_MAX_M") and problem.k >= cfg.get("AUTO_MIN_K")
            and (not max_n or problem.n <= max_n) and problem.n >= cfg.get("AUTO_MIN_N")
            and config_refuses(cfg, problem) is None)


# AUTO_YIELD_NK_LO / _HI apply from this K on: there the next decode config (16 tokens, two 8-box stages)
# serves the weight.
YIELD_MIN_K = 2048


# Below this many rows auto leaves out clusters stacked along M (their second CTA computes rows below the
# matrix). Measured at M = 1-16, K = 768, N = 2304 / 3072, CUDA graphs: 64 x 64 tiles in clusters of two 0.80-0.91x
# cuBLAS against 1.03-1.12x without a cluster, 64 x 48 in clusters of two 0.79-0.94x; at M = 48-128 the clusters
# of two ran as fast as at their full rows (64 x 48 4.3 us; 2026-11-26-h100-explore-64x64-c2-small-m-5455355.json,
# ...-explore-small-k-decode-c81685a-p1.json, ...-explore-64x64-gpt2-d96d2c7.json). Only at short K, where it was
# measured: streaming a long K, the cluster's two SMs share each B tile's loads (not measured without).
CLUSTER_ALONG_M_MIN_ROWS = 17
CLUSTER_ALONG_M_SHORT_K = 1024  # (K below which the rule applies)


# What an activation that goes through the SFU (gelu, gelu_tanh, silu: one MUFU a value, epilogue_act.cuh) adds to a
# tile's epilogue, in k-tiles of 64: the SFU's 16 values a clock and SM against the tensor cores' 2048 multiply-adds
# take BLOCK_M x BLOCK_N / 16 cycles, two k-tiles' time for any tile. Measured (H200, bias + gelu_tanh at 8192 x 4096
# -> 14336: 128 x 256 s4b2ot 1444 us against 1399 with the bias alone, 64 k-tiles: 2.05 k-tiles; ping-pong 128 x 128
# 1390 us, its epilogues under the other consumer's main loop; 2026-11-27-h200-explore-gelu-pp-3ec7954.json).
# relu is a max: nothing. A gated pair (SwiGLU) is left as it was measured (its configs and cost unchanged).
ACTIVATION_KTILES = 2.0
# TileConfig.mid_speed applies at M <= MID_ROWS where the config makes MID_MIN_ROUNDS rounds or more (measured for
# ping-pong 128 x 128 at 6.8 and 9 rounds: 512 x 28672 x 4096 and 512 x 37888 x 3584; with one or two tiles a CTA
# ping-pong hides little and lost, registry).
MID_ROWS = 512
MID_MIN_ROUNDS = 6
SFU_ACTIVATIONS = (2, 3, 4)  # tcgemm.epilogue.ACTIVATIONS: gelu, gelu_tanh, silu
# A CTA tile taller than the whole matrix (M < BLOCK_M) cannot be pulled up over the rows above it (the last row
# tile's shift, hopper/04_tma_store_epilogue.cu: shift_rows), nor one wider than it (N < BLOCK_N) to the left, so
# every k-tile's loads carry rows that TMA fills with zeros, and those rows cost: little for a few, much for many.
# H200, bf16, CUDA graphs, the tile's time against its time at 128 rows: 128 x 64 at M x 7168 x 8192 1.64 / 1.56 /
# 1.35 / 1.10x at 72 / 80 / 96 / 112 rows, at M x 6144 x 4096 1.49x at 80, 1.08x at 112, 1.00x at 120
# (2026-11-28-h200-explore-70b-gate-up-888680b.json, ...-explore-oob-7a3aad9.json,
# ...-explore-few-empty-rows-3a0559f.json); 128 x 64 in two k ranges at M x 4096 x 14336 1.29 / 1.19 / 1.16x at 80 /
# 96 / 100 rows, 1.06 / 1.02x at 112 / 120 (2026-11-28-h200-models-odd-02ab629.json). The estimate scales such a
# tile's time by 1 + OOB_ROW_COST x s^2, s the share of the rows each k-tile loads (BLOCK_M + BLOCK_N) that lie
# outside: 12 puts every pick measured at 72-124 rows on the faster config but one (112 x 6144 x 4096: 64 x 128,
# 7% behind 128 x 64). Only where the matrix has more than OOB_MIN_EXTENT rows (or columns): below, every tile
# the estimate weighs is mostly empty, and its picks there were measured as they are (decode, GPT-2 at 1-32 rows);
# only for 16-bit operands, where it was measured: at tf32 rr a linear form sent 80-96 rows of 7168 x 8192 and
# 8192 x 3584 to 128 x 64 rTk4 tiles, 1.65-1.7x slower than their 128 x 128 rTk2
# (2026-11-28-h200-explore-oob-tf32-888680b.json), and int8 moved either way (...-oob-int8-888680b.json).
OOB_ROW_COST = 12.0
OOB_MIN_EXTENT = 64
OOB_PRECISIONS = ("fp16", "bf16")


def _rows_outside(block: int, extent: int) -> int:
    """Rows of a ``block``-row tile that lie outside a matrix ``extent`` rows long, where OOB_ROW_COST counts them:
    only beyond OOB_MIN_EXTENT (below, every candidate tile is mostly empty and the measured picks stand)."""
    return block - extent if OOB_MIN_EXTENT < extent < block else 0


def pick_config(spec: KernelSpec, problem: GemmProblem, sms: int, among: tuple[str, ...] = ()) -> TileConfig:
    """The config with the least estimated time (see _pick); ``among``: only these (named-only ones too)."""
    return _pick(spec, problem, sms, among)[0]


def _pick(spec: KernelSpec, problem: GemmProblem, sms: int, among: tuple[str, ...] = ()) -> tuple[TileConfig, float]:
    """The config with the least estimated time: rounds of work units over the GPU's CTA slots
    (a last, partial round costs a whole one) times the multiply-adds of one unit, divided by the
    config's measured relative speed. Ties go to the first config (the registry orders by preference).

    A cluster's CTAs take a block of adjacent tiles and are resident together, so the tiles are
    counted in whole blocks: at M = 128, a 128-row tile in a cluster of two along M occupies two
    CTA slots, one of them computing rows below the matrix (it still loads its share of B).

    Small or skinny problems thus get smaller tiles or split-K, whose units fill the SMs; large
    ones keep the big tiles, which run fastest per multiply-add.

    A TAIL_SPLIT config's last round costs what its owners compute of it (tcgemm.schedule): it is
    taken over the config it copies wherever the kernel will split that round at all, with tiles of at
    least TAIL_ESTIMATE_MIN_KTILES k-tiles (below, the split's fixed costs measured larger). A config's
    ``epilogue`` (k-tiles a tile's epilogue costs beyond the others') is added to every tile's k-tiles; its
    ``act_speed`` replaces ``speed`` under an SFU activation, its ``mid_speed`` at M <= MID_ROWS where it makes
    MID_MIN_ROUNDS rounds or more; a tile taller (wider) than a matrix of more than OOB_MIN_EXTENT rows (columns)
    pays for the rows TMA fills (OOB_ROW_COST).
    A config with ``long_k`` goes first where K >= long_k (a gain the estimate does not see) and is
    left out below; one with ``max_k`` is left out where K > max_k (a loss it does not see), one with ``max_m``
    where M > max_m, one with ``min_m`` where M < min_m, one with ``min_n`` where N < min_n, one with ``max_n``
    where N > max_n, one with ``block_only`` unless the scales are block-wise; ``named_only`` configs are never
    taken. Below CLUSTER_ALONG_M_MIN_ROWS rows at short K,
    clusters stacked along M are left out."""
    configs = [c for c in spec.configs_for(problem.precision)
               if config_refuses(c, problem, spec) is None and problem.k >= c.long_k and not 0 < c.max_k < problem.k
               and not 0 < c.max_m < problem.m and problem.m >= c.min_m and problem.n >= c.min_n
               and not 0 < c.max_n < problem.n and (problem.block_scales or not c.block_only)
               and (c.name in among if among else not c.named_only)]
    if not among and problem.m < CLUSTER_ALONG_M_MIN_ROWS and problem.k < CLUSTER_ALONG_M_SHORT_K:
        configs = [c for c in configs if cluster_blocks(c)[0] == 1] or configs
    if configs and configs[0].get("STREAM_K"):
        # Stream-K configs all fill the GPU whatever the shape (kernels/include/stream_k.cuh): the first whose
        # measured range admits the problem (stream_k_admits), else the widest token tile.
        covering = [c for c in configs if stream_k_admits(c, problem)]
        return (covering[0] if covering else max(configs, key=lambda c: c["BLOCK_M"])), 0.0
    configs = [c for c in configs if c.long_k] + [c for c in configs if not c.long_k]
    slots = sms * max(1, spec.min_blocks)

    split_tail: set[str] = set()  # configs whose tail split applies to this problem

    def cost(cfg: TileConfig) -> float:
        ktiles = max(1, -(-problem.k // cfg["BLOCK_K"]) if "BLOCK_K" in cfg.params else 1)
        splits = min(cfg.get("SPLIT_K", 1), ktiles)
        rows, cols = cluster_blocks(cfg)
        tiles_m = -(-problem.m // (cfg["BLOCK_M"] * rows)) * rows
        tiles_n = -(-problem.n // (cfg["BLOCK_N"] * cols)) * cols
        rounds: float = -(-tiles_m * tiles_n * problem.batch * splits // slots)
        if cfg.get("TAIL_SPLIT") and splits == 1 and ktiles >= TAIL_ESTIMATE_MIN_KTILES:
            cluster = rows * cols
            units = cluster_units(problem.m, problem.n, problem.batch, cfg["BLOCK_M"], cfg["BLOCK_N"], rows, cols)
            tail = tail_split(units, ktiles, slots // cluster, cfg.get("TAIL_PARTS", TAIL_MAX_PARTS))
            if tail is not None:
                rounds = units // (slots // cluster) + (tail[1] + TAIL_ESTIMATE_FIXED_KTILES) / ktiles
                split_tail.add(cfg.name)
        # A ping-pong CTA's epilogues run under its other consumer's main loop, but for its last tile's: with
        # one tile per CTA (one round) it hides nothing (300 x 3072 x 768, 2048 x 768 x 768 ran 0.86x / 0.87x
        # against 1.08x / 1.00x for 64 x 128 and 128 x 96 tiles, 2026-11-26-h100-explore-pp-ab-short-k-3dffb8e.json).
        # An activation on the SFU (ACTIVATION_KTILES) adds to every tile's epilogue, but for ping-pong's, whose
        # epilogues but the last run under the other consumer's main loop.
        act = (ACTIVATION_KTILES * 64 / cfg.get("BLOCK_K", 64)
               if problem.activation in SFU_ACTIVATIONS and not problem.gated else 0.0)
        if cfg.get("PINGPONG"):
            epilogue = cfg.epilogue * (1 - 1 / max(rounds, 1)) + act / max(rounds, 1)
        else:
            epilogue = cfg.epilogue + act
        mid = cfg.mid_speed and problem.m <= MID_ROWS and rounds >= MID_MIN_ROUNDS
        speed = cfg.act_speed if act and cfg.act_speed else (cfg.mid_speed if mid else cfg.speed)
        # (A_HALVES: past 64 rows the second consumer's rows end at M, none outside)
        rows_out = 0 if cfg.get("A_HALVES") and problem.m > 64 else _rows_outside(cfg["BLOCK_M"], problem.m)
        outside = ((rows_out + _rows_outside(cfg["BLOCK_N"], problem.n))
                   / (cfg["BLOCK_M"] + cfg["BLOCK_N"]) if problem.precision in OOB_PRECISIONS else 0.0)
        return (rounds * cfg["BLOCK_M"] * cfg["BLOCK_N"] * (-(-ktiles // splits) + epilogue) / speed
                * (1 + OOB_ROW_COST * outside * outside))

    best = configs[0]
    for cfg in configs[1:]:
        c = cost(cfg)  # (fills split_tail)
        # clearly better, not a rounding tie; a tail split's gain is no rounding
        if c < (0.9999 if cfg.name in split_tail else 0.98) * cost(best):
            best = cfg
    return best, cost(best)


# The transposed problem runs only where estimated this much faster. Where measured (registry: the D^T configs), the
# wins were estimated 5-10% faster (300 x 6144 x 4096, 3000 x 768 x 768 and x 3072, 3000 x 1280 x 8192) and the
# losses 3-4% (64 x 152 T at M = 128, N = 4608-8192: 0.83-1.00x cuBLAS against 0.93-1.05x for 128 x 64 tiles,
# 2026-11-26-h100-explore-picks-g1-4fe500d.json). 0.85 until 4fe500d, when fewer D^T configs had been measured.
TRANSPOSED_MARGIN = 0.96


def transposed_problem(problem: GemmProblem) -> GemmProblem | None:
    """The problem D_TRANSPOSED configs run for ``problem`` (tcgemm.problem.transposed_store), or None where
    they cannot: a column-major out (already D^T), or neither a 16-bit GEMM with a 16-bit D nor tf32."""
    if problem.swapped or problem.d_transposed or problem.precision not in ("fp16", "bf16", "tf32"):
        return None
    if problem.precision != "tf32" and problem.out_dtype.itemsize != 2:
        return None
    return transposed_store(problem, {"a": None, "b": None})[0]


def transposed_layouts(spec: KernelSpec, precision: str) -> frozenset[str]:
    """Layouts (A then B) of problems ``spec`` serves only transposed, through its D_TRANSPOSED configs built
    for the exchanged operands' layouts (tf32 with B row-major: kernel layouts "cc" serve "rr")."""
    return frozenset(transposed_layouts_of(lay) for c in spec.configs_for(precision)
                     if c.get("D_TRANSPOSED") and c.layouts for lay in c.layouts) - frozenset(spec.layouts)


def _serves_transposed(spec: KernelSpec, problem: GemmProblem) -> bool:
    """Whether a D_TRANSPOSED config of ``spec`` runs ``problem``, whose layouts the kernel does not read as given
    (or ``problem`` is already the transposed one such a config serves)."""
    if problem.d_transposed:
        return any(c.get("D_TRANSPOSED") and config_refuses(c, problem) is None
                   for c in spec.configs_for(problem.precision))
    return problem.layouts in transposed_layouts(spec, problem.precision) and transposed_problem(problem) is not None


def _orientation(spec: KernelSpec, problem: GemmProblem, sms: int) -> TileConfig:
    """pick_config's config for ``problem``, or for its transposed problem (the tokens as the wgmma's N:
    configs with D_TRANSPOSED) where that is estimated clearly faster: at M = 300, tiles of 152 or 160 tokens
    cover 304 or 320 rows where 64-row multiples of M compute 384."""
    if problem.layouts not in spec.layouts:  # served transposed only (transposed_layouts): no choice to weigh
        return _pick(spec, transposed_problem(problem), sms)[0]
    cfg, normal = _pick(spec, problem, sms)
    pt = transposed_problem(problem)
    # (_pick's candidates for pt: the D_TRANSPOSED configs that serve it; none, and the problem stays as given)
    if pt is None or not any(config_refuses(c, pt) is None and not 0 < c.max_k < pt.k
                             for c in spec.configs_for(problem.precision)):
        return cfg
    cfg_t, transposed = _pick(spec, pt, sms)
    return cfg_t if transposed < TRANSPOSED_MARGIN * normal else cfg


@lru_cache(maxsize=1)
def _row_caps() -> tuple[int, ...]:
    """The distinct ``auto_max_m`` of the registered specialists, ascending."""
    return tuple(sorted({s.auto_max_m for s in registry.all_specs() if s.auto_max_m}))


def row_class(m: int) -> int:
    """The smallest specialist bound ``auto_max_m`` that covers ``m`` rows, 0 when none does: the part of
    M that decides auto's kernel (so the choice stays memoised on a handful of values)."""
    return next((cap for cap in _row_caps() if m <= cap), 0)


@lru_cache(maxsize=4096)
def _auto_order(precision: str, arch: int, aligned: bool = True, layouts: str = "rr", rows: int = 0,
                transposed: bool = True) -> tuple[KernelSpec, ...]:
    """The kernels auto may run, in the order it tries them: the specialists for few rows (KernelSpec.auto_max_m
    >= ``rows``, the row class of M), then the general kernels, each group by family and highest stage first;
    ``transposed``: kernels that serve these layouts only through the transposed problem count (not where there
    is none: transposed_problem)."""
    candidates = [s for s in registry.all_specs()
                  if precision in s.precisions and arch >= s.min_arch and s.auto
                  and (aligned or not (s.requires_aligned16 or s.tma))
                  and (layouts in s.layouts or (transposed and layouts in transposed_layouts(s, precision)))
                  and (not s.auto_max_m or 0 < rows <= s.auto_max_m)]
    return tuple(sorted(candidates, key=lambda s: (s.auto_max_m == 0, _FAMILY_ORDER.index(s.family), -s.stage)))



def select(
    problem: GemmProblem, arch: int, sms: int, kernel: str = "auto", config: str | None = None
) -> tuple[KernelSpec, TileConfig]:
    """The kernel and tile config to run ``problem`` with."""
    if kernel == "auto":
        aligned = _tma_ok(problem)
        transposed = transposed_problem(problem) is not None
        # The first specialist whose configs admit the shape (fp32 at K < 512: the 3xTF32 decode kernel declines,
        # simt_skinny takes it), else the general kernels.
        order = _auto_order(problem.precision, arch, aligned, problem.layouts, row_class(problem.m), transposed)
        spec = next((s for s in order if not s.auto_max_m or specialist_takes(s, problem, config)), None)
        if spec is None:
            detail = "" if aligned else " for operands that are not 16-byte aligned"
            raise KernelUnavailable(f"no kernel computes {problem.precision} on sm_{arch}{detail}")
        if config:
            return spec, _explicit(spec, config, problem)
        # A config measured by `tcgemm tune` for this shape class on this GPU, else the estimate (tcgemm.tuned).
        tuned_cfg = tuned.lookup(problem, spec, arch, sms)
        if tuned_cfg is not None and config_refuses(tuned_cfg, problem) is None:
            return spec, tuned_cfg
        return spec, _orientation(spec, problem, sms)
    spec = registry.get(kernel)
    reason = why_not(spec, problem, arch)
    if reason is not None:
        raise KernelUnavailable(f"kernel {kernel!r} cannot serve this problem: {reason}; use kernel='auto'")
    if config is None:
        return spec, pick_config(spec, problem, sms)
    return spec, _explicit(spec, config, problem)


def specialist_takes(spec: KernelSpec, problem: GemmProblem, config: str | None) -> bool:
    """Whether a specialist for few rows (KernelSpec.auto_max_m) runs ``problem`` under auto: one of its configs
    admits the shape, or ``config`` names one of its configs (a config of the general kernels falls to them)."""
    configs = spec.configs_for(problem.precision)
    if config:
        return any(c.name == config for c in configs)
    return any(stream_k_admits(c, problem) if c.get("STREAM_K") else config_refuses(c, problem) is None
               for c in configs)


def _explicit(spec: KernelSpec, config: str, problem: GemmProblem) -> TileConfig:
    cfg = spec.config(config, problem.precision)
    if cfg.get("D_TRANSPOSED") and not problem.d_transposed:  # (the caller runs it on the transposed problem)
        pt = transposed_problem(problem)
        if pt is None:
            raise KernelUnavailable(f"config {cfg.name!r} of {spec.name} writes D transposed: fp16/bf16 inputs with a "
                                    "16-bit row-major D, or tf32, only; use kernel='auto' or another config")
        problem = pt
    reason = config_refuses(cfg, problem, spec)
    if reason is not None:
        raise KernelUnavailable(f"kernel {spec.name!r} cannot serve this problem: {reason}")
    return cfg
