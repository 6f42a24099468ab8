"""DeepGEMM's contiguous grouped block-scaled fp8 GEMM against tcgemm's, in one process, on the same inputs.

The experts of a mixture-of-experts layer, every expert's tokens one segment of a (T, K) fp8 e4m3 tensor (1 x 128
activation scales), the experts' weights (E, N, K) fp8 with 128 x 128 block scales, bf16 out:

- tcgemm: ``tcgemm.grouped_gemm(x8, w8.transpose(1, 2), offsets=offs, scale_a=sa, scale_b=sb, out=out)``: the
  segments as they lie (any length, no padding), ``offs`` the E segment ends on the GPU, ``sa`` (T, K/128) M-major
  with rows padded to 4 (DeepGEMM's TMA-aligned layout).
- DeepGEMM (the bundle in .dg/, commit d374456: benchmarks/probes/deepgemm_bundle.md):
  ``m_grouped_gemm_fp8_fp8_bf16_nt_contiguous((lhs, lhs_scales), (w8, sb), out, m_indices)``: each expert's segment
  padded to ``get_m_alignment_for_contiguous_layout()`` (128) rows, ``m_indices`` the expert of each row (-1 on
  padding rows). Its padded lhs is tcgemm's x8 with the rows scattered into their padded places (padding rows and
  their scales zero), built once outside the timing: the padding a real layer pays in its permute is not timed.

Shapes: DeepSeek-V3's routed experts on one GPU of expert-parallel 8 (32 experts, gate_up N = 4096, K = 7168; down
N = 7168, K = 2048) and Mixtral-8x7B's (8 experts, gate_up N = 28672, K = 4096; down N = 4096, K = 14336), rows per
expert from ``tcgemm.grouped_bench.routed_counts`` (skewed top-k routing, seed 0) at the average tokens per expert
given. Timing as benchmarks/probes/deepgemm_vs_tcgemm.py: a CUDA graph of >= 20 calls replayed (per-call time) and
back-to-back eager calls (GPU time, a spin kernel queued first; host time per call too), in alternating order
(DeepGEMM first, then tcgemm first; the median of both). One input set, not rotated: the weights alone (>= 470 MB
per layer) are several times the 50 MB L2, so every call reads them from DRAM. TFLOP/s count the valid rows only
(2 T N K). Each side's rows of the largest expert are checked against the float64 product of the dequantized
operands, and the two sides' valid rows against each other.

    PYTHONPATH=src:benchmarks/probes python3 benchmarks/probes/deepgemm_grouped_vs_tcgemm.py \\
        --models deepseek,mixtral --tokens 128,512,2048 --json out.json

On the GPU machine carry ``.dg``. DeepGEMM's kernels are compiled (nvcc, in parallel, --jobs) before the first row
into its JIT cache ($DG_CACHE_DIR, else /tmp/deep_gemm_jit_cache_<uid>): the default rows need 6 distinct kernels
(the key is N, K, the expert count and the tile config, not M), about 11 s of nvcc 13.0 each on a cold cache; the
JSON's meta holds the time (deepgemm_precompile_s) and each row each side's first call (first_call_s_*, tcgemm's
NVRTC build included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

import deepgemm_runner as R
import torch

import tcgemm
from tcgemm.bench import environment
from tcgemm.grouped_bench import MODELS, routed_counts

LAYERS = ("gate_up", "down")
TOL = 2e-2  # relative Frobenius error against the float64 reference above which a row is flagged (as the runner)
DG_NAME = "m_grouped_gemm_fp8_fp8_bf16_nt"
METHOD = ("same process, same inputs (tcgemm: the unpadded (T, K) tokens and segment ends; DeepGEMM: the same "
          "rows scattered into segments padded to its M alignment, m_indices -1 on padding rows, built outside the "
          "timing); graph: per-call time of one CUDA graph of >= 20 calls replayed; eager: back-to-back calls with a "
          "spin kernel queued first (GPU time), host_us: host time per call; one input set (each layer's weights, "
          ">= 470 MB, are many times L2); order alternated (DeepGEMM first, then tcgemm first), median of both; "
          "TFLOP/s over the valid rows (2 T N K); rel_error_*: the largest expert's rows against the float64 product "
          "of the dequantized operands; rel_diff_sides: every valid row, DeepGEMM's against tcgemm's")

Side = Callable[[int], None]


# ----------------------------------------------------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------------------------------------------------
def m_major(scales: torch.Tensor) -> torch.Tensor:
    """(rows, KB) float32 scales, same values, M-major with rows padded to 4: strides (1, rows rounded up to 4), the
    TMA-aligned layout DeepGEMM's get_col_major_tma_aligned_tensor returns and tcgemm reads without a copy."""
    rows, kb = scales.shape
    return torch.empty((kb, -(-rows // 4) * 4), dtype=scales.dtype, device=scales.device)[:, :rows].t().copy_(scales)


def make_weights(experts: int, n: int, k: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(w8 (E, N, K) fp8 e4m3, sb (E, N/128, K/128) float32): random normal weights cast per 128 x 128 block."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    w8 = torch.empty((experts, n, k), dtype=torch.float8_e4m3fn, device="cuda")
    sb = torch.empty((experts, -(-n // 128), -(-k // 128)), dtype=torch.float32, device="cuda")
    for e in range(experts):  # (one expert at a time: a (E, N, K) float32 tensor would be 4 GB)
        w = torch.randn((n, k), device="cuda", dtype=torch.float32, generator=gen).to(torch.bfloat16)
        w8[e], sb[e] = R.per_block_cast_to_fp8(w)
    return w8, sb


def make_tokens(tokens: int, k: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(x8 (T, K) fp8 e4m3, scales (T, K/128) float32 row-major): random normal activations cast per 1 x 128 group."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((tokens, k), device="cuda", dtype=torch.float32, generator=gen).to(torch.bfloat16)
    return R.per_token_cast_to_fp8(x)


def pad_for_deepgemm(x8: torch.Tensor, scale_rows: torch.Tensor, counts: list[int],
                     align: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """DeepGEMM's contiguous layout of the same tokens: (lhs (M, K) fp8, lhs scales (M, K/128) TMA-aligned, m_indices
    (M,) int32, dst (T,) int64: the padded row of each token), M the sum of the counts rounded up to ``align``.

    Padding rows are zero (data and scales; their output rows are zero) and their m_indices -1, as later DeepGEMM
    releases mark padding. (At d374456 the scheduler reads m_indices only at the first row of each 128-row block,
    always a token's row since each segment gets fewer than 128 rows of padding: the -1 are never read.)"""
    tokens, k = x8.shape
    dev = x8.device
    experts = len(counts)
    counts_t = torch.tensor(counts, dtype=torch.int64, device=dev)
    padded_t = (counts_t + align - 1) // align * align
    m = int(padded_t.sum())
    expert = torch.repeat_interleave(torch.arange(experts, device=dev), counts_t)
    seg_start = counts_t.cumsum(0) - counts_t
    pad_start = padded_t.cumsum(0) - padded_t
    dst = pad_start[expert] + torch.arange(tokens, device=dev) - seg_start[expert]
    lhs = torch.zeros((m, k), dtype=torch.uint8, device=dev)
    lhs[dst] = x8.view(torch.uint8)  # (through uint8: index_put_ has no float8 kernel in every torch)
    scales = torch.zeros((m, scale_rows.shape[1]), dtype=torch.float32, device=dev)
    scales[dst] = scale_rows
    m_indices = torch.full((m,), -1, dtype=torch.int32, device=dev)
    m_indices[dst] = expert.to(torch.int32)
    return lhs.view(torch.float8_e4m3fn), m_major(scales), m_indices, dst


# ----------------------------------------------------------------------------------------------------------------------
# DeepGEMM's JIT: its config and parallel precompilation (the source text its wrapper generates -> disk cache hit)
# ----------------------------------------------------------------------------------------------------------------------
def deepgemm_config(m: int, n: int, k: int, groups: int, num_sms: int) -> dict[str, Any]:
    """The JIT keys m_grouped_gemm_fp8_fp8_bf16_nt_contiguous passes for an (m, K) lhs over ``groups`` experts (its
    get_best_configs call), plus the SMs and shared memory it launches with."""
    from deep_gemm.jit_kernels import m_grouped_gemm as G

    sms, block_m, block_n, stages, multicast, smem = G.get_best_configs(m, n, k, 1, num_sms, is_grouped_contiguous=True)
    return {"N": n, "K": k, "BLOCK_M": block_m, "BLOCK_N": block_n, "SWIZZLE_D_MODE": smem[1],
            "BLOCK_N_PADDING": smem[2], "NUM_GROUPS": groups, "NUM_STAGES": stages,
            "NUM_TMA_MULTICAST": multicast[0], "IS_TMA_MULTICAST_ON_A": multicast[1],
            "GEMM_TYPE": "GroupedContiguous", "grid_sms": sms, "smem_bytes": smem[0]}


def deepgemm_arg_defs() -> tuple[tuple[str, Any], ...]:
    """The launcher's arguments, as m_grouped_gemm_fp8_fp8_bf16_nt_contiguous declares them."""
    return (("lhs", torch.float8_e4m3fn), ("lhs_scales", torch.float),
            ("rhs", torch.float8_e4m3fn), ("rhs_scales", torch.float),
            ("out", torch.bfloat16),
            ("grouped_layout", torch.int32), ("m", int), ("num_groups", int),
            ("stream", torch.cuda.Stream), ("num_sms", int), ("smem_size", int))


def deepgemm_source(m: int, n: int, k: int, groups: int, num_sms: int) -> str:
    from deep_gemm.jit import cpp_format, generate
    from deep_gemm.jit_kernels import m_grouped_gemm as G

    cfg = deepgemm_config(m, n, k, groups, num_sms)
    keys = {key: cfg[key] for key in sorted(cfg) if key not in ("grid_sms", "smem_bytes")}
    return generate(G.includes, deepgemm_arg_defs(), cpp_format(G.template, keys))


def precompile(problems: Iterable[tuple[int, int, int, int]], num_sms: int,
               jobs: int) -> tuple[dict[tuple[int, int, int, int], str | None], float]:
    """Compile the grouped kernels of all (m, n, k, groups) in parallel. Returns ({problem: error or None}, seconds)."""
    from concurrent.futures import ThreadPoolExecutor

    from deep_gemm.jit import build

    sources: dict[str, list[tuple[int, int, int, int]]] = {}
    errors: dict[tuple[int, int, int, int], str | None] = {}
    for p in problems:
        try:
            sources.setdefault(deepgemm_source(*p, num_sms), []).append(p)
        except Exception as exc:  # noqa: BLE001 (a probe: reported, the run goes on)
            errors[p] = f"config/codegen failed: {exc!r}"

    def one(code: str) -> tuple[str | None, float]:
        t0 = time.time()
        try:
            build(DG_NAME, deepgemm_arg_defs(), code)
            return None, time.time() - t0
        except BaseException as exc:  # noqa: BLE001 (nvcc's CalledProcessError etc.: reported, the run goes on)
            return repr(exc), time.time() - t0

    t0 = time.time()
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for ps, (err, dt) in zip(sources.values(), ex.map(one, list(sources)), strict=True):
            for p in ps:
                errors[p] = err
            shapes = ",".join(f"{m}x{n}x{k}/{g}" for m, n, k, g in ps)
            print(f"  [jit] {'OK  ' if err is None else 'FAIL'} {dt:6.1f}s {shapes}" + (f" {err}" if err else ""),
                  flush=True)
    seconds = time.time() - t0
    print(f"  [jit] {len(sources)} grouped kernel(s) ready in {seconds:.1f}s (cache: {os.environ['DG_CACHE_DIR']})",
          flush=True)
    return errors, seconds


# ----------------------------------------------------------------------------------------------------------------------
# One row: a layer at one token count
# ----------------------------------------------------------------------------------------------------------------------
def rel_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """||a - b|| / ||b|| over rows, in float64, a few rows at a time."""
    step = max(1, (1 << 25) // max(1, a.shape[1]))
    num = den = 0.0
    for i in range(0, a.shape[0], step):
        x, y = a[i:i + step].double(), b[i:i + step].double()
        num += float((x - y).square().sum())
        den += float(y.square().sum())
    return (num / den) ** 0.5 if den > 0 else float("inf")


def compare(dg: Any, model: str, layer: str, tpe: int, counts: list[int], n: int, k: int,
            weights: tuple[torch.Tensor, torch.Tensor], args: argparse.Namespace,
            dg_error: str | None) -> dict[str, Any]:
    """One layer at one routing: inputs, each side's first call and check, then the timing. A side that fails
    (DeepGEMM's precompile, a call, the check that it wrote every valid row, a graph capture) is left out with its
    error in the row; the other side goes on."""
    w8, sb = weights
    experts = len(counts)
    tokens = sum(counts)
    align = dg.get_m_alignment_for_contiguous_layout()
    x8, scale_rows = make_tokens(tokens, k, args.seed + 1 + tokens)
    sa = m_major(scale_rows)  # tcgemm's scale_a: (T, K/128), strides (1, T rounded up to 4)
    offs = torch.tensor(counts, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    lhs, lhs_scales, m_indices, dst = pad_for_deepgemm(x8, scale_rows, counts, align)
    m_pad = lhs.shape[0]
    w8_t = w8.transpose(1, 2)  # (E, K, N) view of the (E, N, K) weights
    # NaN-filled: rows a side leaves unwritten show (DeepGEMM's grouped wrapper ignores its launcher's return code)
    out_tc = torch.full((tokens, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    out_dg = torch.full((m_pad, n), float("nan"), dtype=torch.bfloat16, device="cuda")
    flops = 2.0 * tokens * n * k
    row: dict[str, Any] = {
        "model": model, "layer": layer, "experts": experts, "tokens_per_expert": tpe, "counts": counts,
        "n": n, "k": k, "tokens": tokens, "deepgemm_m": m_pad, "deepgemm_padding_rows": m_pad - tokens,
        "weight_bytes": w8.numel() + 4 * sb.numel(), "ncopies": 1,
    }

    def deepgemm(_i: int) -> None:
        dg.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous((lhs, lhs_scales), (w8, sb), out_dg, m_indices)

    def ours(_i: int) -> None:
        tcgemm.grouped_gemm(x8, w8_t, offsets=offs, scale_a=sa, scale_b=sb, out=out_tc)

    sides: dict[str, Side] = {}
    for who, fn in (("deepgemm", deepgemm), ("tcgemm", ours)):
        if who == "deepgemm" and dg_error:
            row["deepgemm_error"] = f"precompile: {dg_error}"[:500]
            continue
        try:
            t0 = time.time()
            fn(0)
            torch.cuda.synchronize()
            row[f"first_call_s_{who}"] = round(time.time() - t0, 3)
            written = out_dg.index_select(0, dst) if who == "deepgemm" else out_tc
            if torch.isnan(written).any():
                raise RuntimeError("valid rows left unwritten (NaN) after the call; see stderr for a launch error")
            sides[who] = fn
        except Exception as exc:  # noqa: BLE001 (reported in the row; the other side goes on)
            row[f"{who}_error"] = repr(exc)[:500]
            print(f"  {who}: {exc!r}", flush=True)
            torch.cuda.synchronize()
    if "deepgemm" in sides:
        row["deepgemm_config"] = deepgemm_config(m_pad, n, k, experts, dg.get_num_sms())
    if "tcgemm" in sides:
        with tcgemm.launch.trace() as seen:
            ours(0)
        row["tcgemm_kernel"] = seen[-1] if seen else None

    # Correctness: the largest expert's rows against float64; every valid row, one side against the other
    e = max(range(experts), key=lambda i: counts[i])
    start, rows = sum(counts[:e]), counts[e]
    ref = R.dequant_reference(x8[start:start + rows], scale_rows[start:start + rows], w8[e], sb[e])
    row["checked_expert"], row["checked_rows"] = e, rows
    if "deepgemm" in sides:
        row["rel_error_deepgemm"] = R.rel_error(out_dg.index_select(0, dst[start:start + rows]), ref)
    if "tcgemm" in sides:
        row["rel_error_tcgemm"] = R.rel_error(out_tc[start:start + rows], ref)
    if len(sides) == 2:
        row["rel_diff_sides"] = rel_diff(out_dg.index_select(0, dst), out_tc)
    row["ok"] = all(row.get(f"rel_error_{who}", float("inf")) < TOL for who in ("deepgemm", "tcgemm"))
    del ref

    # Timing: one input set, not rotated (ncopies 1): each layer's fp8 weights (0.47 to 0.94 GB) alone exceed 2x L2
    # (R.L2_BYTES, 50 MB), so every call reads them from DRAM as a real layer does. Both orders, median of both.
    times: dict[str, dict[str, list[float]]] = {who: {"graph": [], "eager": [], "host": []} for who in sides}
    for order in (tuple(sides), tuple(reversed(sides))):
        for who in order:
            if who not in sides:  # (its timing failed in the first order)
                continue
            try:
                times[who]["graph"].append(statistics.median(R.time_graph(sides[who], 1, args.calls, args.replays)))
                eager, host = R.time_eager(sides[who], 1, args.iters, 10)
                times[who]["eager"].append(statistics.median(eager))
                times[who]["host"].append(host)
            except Exception as exc:  # noqa: BLE001 (reported in the row; the other side goes on)
                row[f"{who}_timing_error"] = repr(exc)[:500]
                print(f"  {who} timing: {exc!r}", flush=True)
                del sides[who]
                torch.cuda.synchronize()
    for who in sides:
        for kind, values in times[who].items():
            row[f"{who}_{kind}_us"] = statistics.median(values)
        row[f"{who}_graph_tflops"] = flops / row[f"{who}_graph_us"] / 1e6
        row[f"{who}_eager_tflops"] = flops / row[f"{who}_eager_us"] / 1e6
    if len(sides) == 2:
        row["ratio_graph"] = row["deepgemm_graph_us"] / row["tcgemm_graph_us"]
        row["ratio_eager"] = row["deepgemm_eager_us"] / row["tcgemm_eager_us"]
    return row


def describe(row: dict[str, Any]) -> str:
    def side(who: str) -> str:
        if f"{who}_graph_us" not in row:
            return f"{who} FAILED"
        return (f"{who} {row[f'{who}_graph_us']:8.1f} us ({row[f'{who}_graph_tflops']:5.0f} TF) "
                f"err {row.get(f'rel_error_{who}', float('nan')):.1e}")

    head = (f"{row['model']:8s} {row['layer']:7s} E={row['experts']:2d} tpe={row['tokens_per_expert']:5d} "
            f"T={row['tokens']:6d} M_dg={row.get('deepgemm_m', 0):6d}")
    if "error" in row:
        return f"{head}  ERROR {row['error']}"
    ratios = (f"ratio graph {row['ratio_graph']:.3f} eager {row['ratio_eager']:.3f}" if "ratio_graph" in row
              else "no ratio")
    return f"{head}  graph {side('deepgemm')}  {side('tcgemm')}  {ratios}  {row.get('tcgemm_kernel')}"


# ----------------------------------------------------------------------------------------------------------------------
def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="deepseek,mixtral", help=f"comma list of {', '.join(MODELS)}")
    ap.add_argument("--layers", default=",".join(LAYERS), help="comma list of gate_up, down")
    ap.add_argument("--tokens", default="128,512,2048", help="comma list of average tokens per expert")
    ap.add_argument("--json", default="deepgemm-grouped-vs-tcgemm.json",
                    help="write the results here (rewritten after every row)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random weights and tokens (routing: always 0)")
    ap.add_argument("--calls", type=int, default=20, help="calls captured per CUDA graph")
    ap.add_argument("--replays", type=int, default=10, help="graph replays timed per order")
    ap.add_argument("--iters", type=int, default=100, help="eager calls timed per order")
    ap.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="parallel nvcc jobs (precompile)")
    ap.add_argument("--no-precompile", action="store_true", help="compile DeepGEMM's kernels at their first call")
    ap.add_argument("--cache-dir", default=None,
                    help="DeepGEMM's JIT cache (default $DG_CACHE_DIR, else /tmp/deep_gemm_jit_cache_<uid>)")
    args = ap.parse_args()
    args.models = [m for m in args.models.split(",") if m]
    args.layers = [layer for layer in args.layers.split(",") if layer]
    args.tokens = [int(t) for t in args.tokens.split(",") if t]
    if bad := [m for m in args.models if m not in MODELS]:
        ap.error(f"unknown model(s) {bad}; known: {', '.join(MODELS)}")
    if bad := [layer for layer in args.layers if layer not in LAYERS]:
        ap.error(f"unknown layer(s) {bad}; known: {', '.join(LAYERS)}")
    if not args.tokens or min(args.tokens) < 1:
        ap.error("--tokens takes positive integers")
    return args


def main() -> None:
    args = parse_args()
    dg = R.setup(args.cache_dir)  # (DeepGEMM is imported here, after --help)
    align = dg.get_m_alignment_for_contiguous_layout()
    num_sms = dg.get_num_sms()

    # Every row's routing first (host only): DeepGEMM's padded M decides its kernel
    plan = []
    for model in args.models:
        experts, top_k, gate_up, down = MODELS[model]
        for layer in args.layers:
            n, k = gate_up if layer == "gate_up" else down
            for tpe in args.tokens:
                counts = routed_counts(experts, top_k, tpe, seed=0)
                m_pad = sum(-(-c // align) * align for c in counts)
                plan.append((model, layer, top_k, n, k, tpe, counts, (m_pad, n, k, experts)))
    errors: dict[tuple[int, int, int, int], str | None] = {}
    meta: dict[str, Any] = {"deepgemm_commit": R.DEEPGEMM_COMMIT, "cutlass_commit": R.CUTLASS_COMMIT,
                            "nvcc": R.nvcc_version(), "deepgemm_m_alignment": align, "deepgemm_num_sms": num_sms,
                            "jit_cache": os.environ.get("DG_CACHE_DIR"), "routing_seed": 0, "data_seed": args.seed,
                            "calls_per_graph": args.calls, "replays": args.replays, "eager_iters": args.iters}
    if not args.no_precompile:
        errors, meta["deepgemm_precompile_s"] = precompile(dict.fromkeys(p[-1] for p in plan), num_sms, args.jobs)

    rows: list[dict[str, Any]] = []
    weights: tuple[torch.Tensor, torch.Tensor] | None = None
    weights_of: tuple[str, str] | None = None
    for model, layer, top_k, n, k, tpe, counts, problem in plan:
        try:
            if weights is None or weights_of != (model, layer):  # (one set of weights per layer, all token counts)
                weights = weights_of = None
                torch.cuda.empty_cache()
                weights, weights_of = make_weights(len(counts), n, k, args.seed), (model, layer)
            row = compare(dg, model, layer, tpe, counts, n, k, weights, args, errors.get(problem))
            row["top_k"] = top_k
        except Exception as exc:  # noqa: BLE001 (reported in the row; the other rows go on)
            row = {"model": model, "layer": layer, "experts": len(counts), "top_k": top_k, "tokens_per_expert": tpe,
                   "counts": counts, "n": n, "k": k, "tokens": sum(counts), "deepgemm_m": problem[0],
                   "error": repr(exc)[:500]}
            try:
                torch.cuda.synchronize()
            except Exception as exc2:  # noqa: BLE001 (a sticky CUDA error: the later rows will say so too)
                print(f"  CUDA context unusable: {exc2!r}", flush=True)
        print(describe(row), flush=True)
        rows.append(row)
        torch.cuda.empty_cache()
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "method": METHOD, "meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
