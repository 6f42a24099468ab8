"""Benchmark of grouped GEMMs (mixture-of-experts layers): tcgemm.grouped_gemm against torch.

    python -m tcgemm.grouped_bench --json grouped.json [--models mixtral,deepseek] [--tokens 1,8,32,512,2048]
    python -m tcgemm.grouped_bench --layout contiguous --json grouped-contiguous.json
    python -m tcgemm.grouped_bench --dtype fp8 --models deepseek --json grouped-fp8.json
    python -m tcgemm.grouped_bench --block --tokens 1,16,128,512,2048 --json moe-block.json

Each row is one expert GEMM of a layer (gate_up or down) over E experts at an average token count per expert. The
counts come from a random top-k routing of E x tokens / k tokens with skewed expert popularity (softmax of Gaussian
logits with standard deviation 1): counts differ, are rarely multiples of 128, and some experts get none. tcgemm runs
the masked layout: a (E, M, K) with M the largest count rounded up to 64, the counts on the GPU (``--layout
contiguous``: the contiguous one, on the same (sum of counts, K) tensor and ``offs`` as torch's contiguous call). torch
runs, on the
same buffers: ``torch._grouped_mm`` of the padded batch (every row of every expert: what a capturable torch call
computes without host counts; skipped where this torch lacks it), ``torch._grouped_mm`` of the contiguous layout
(each expert's tokens one segment of a (sum of counts, K) tensor, the segment ends ``offs`` on the GPU: the valid rows
only, what torch offers for prefill and training) and a loop of ``torch.matmul`` over each expert's valid rows (what
a user with the counts on the host writes; its host-side count read is not timed).

``--dtype fp8``: e4m3 experts with DeepSeek-V3's block-wise scales per expert (tcgemm.scales); torch's side is a loop
of ``torch._scaled_mm`` block-wise calls over each expert's rows, rounded up to 16 (cuBLAS refuses some counts; torch
has no grouped block-scaled GEMM). With ``--layout contiguous`` tcgemm reads every token's scales as one (T, K / 128)
tensor in quantize_fp8's layout, and each expert's 128 x 128 weight blocks.

Shapes: Mixtral-8x7B's experts (8 experts, hidden 4096, intermediate 14336: gate_up N = 28672, K = 4096; down
N = 4096, K = 14336) and DeepSeek-V3's (256 routed experts of hidden 7168, intermediate 2048, 32 of them on one GPU of
an expert-parallel 8: gate_up N = 4096, K = 7168; down N = 7168, K = 2048), bf16 in and out.

``--block``: the whole mixture-of-experts block (``tcgemm.moe.MoE``: router, top-k routing, SwiGLU experts over the
contiguous layout, the weighted sum back) at T tokens against the same block as transformers' Mixtral writes it in
torch (per expert: the tokens routed to it found with ``torch.where``, its three GEMMs, the weighted rows added into
the output), on the same weights and tokens. torch's block reads how many tokens each expert got on the host, so it
runs eager only; tcgemm's both eager and replayed from a CUDA graph.

Both sides in one process on the same inputs, timed interleaved (tcgemm.model_bench.CudaTimer): eager (host work
included) and CUDA-graph replay. Ratios are torch's time / tcgemm's (> 1: tcgemm faster). Each side's valid rows are
checked against a float64 reference of one expert.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from .model_bench import CudaTimer, dump_rows

# (experts, top-k, gate_up (N, K), down (N, K))
MODELS = {
    "mixtral": (8, 2, (28672, 4096), (4096, 14336)),
    "deepseek": (32, 8, (4096, 7168), (7168, 2048)),
}
DEFAULT_TOKENS = (1, 8, 32, 128, 512, 2048)


@dataclass
class Row:
    model: str
    dtype: str
    layer: str
    experts: int
    tokens_per_expert: int
    max_rows: int
    counts: list[int]
    n: int
    k: int
    kernel: str
    eager_us_tcgemm: float
    graph_us_tcgemm: float | None
    eager_us_grouped_mm: float | None
    graph_us_grouped_mm: float | None
    eager_us_loop: float
    graph_us_loop: float | None
    eager_us_contiguous: float | None
    graph_us_contiguous: float | None
    graph_ratio_grouped_mm: float | None
    graph_ratio_loop: float | None
    graph_ratio_contiguous: float | None
    eager_ratio_grouped_mm: float | None
    eager_ratio_loop: float
    eager_ratio_contiguous: float | None
    tflops_tcgemm: float | None  # of the valid rows' products, CUDA-graph time
    layout: str = "masked"  # tcgemm's side: masked (a (E, M, K), counts) or contiguous (a (T, K), offsets)


def routed_counts(experts: int, top_k: int, tokens_per_expert: int, seed: int) -> list[int]:
    """Rows per expert of a random top-k routing with skewed popularity, tokens_per_expert on average."""
    gen = torch.Generator().manual_seed(seed)
    tokens = max(1, experts * tokens_per_expert // top_k)
    popularity = torch.randn(experts, generator=gen)
    logits = torch.randn(tokens, experts, generator=gen) + popularity
    chosen = logits.topk(top_k, dim=1).indices.flatten()
    return torch.bincount(chosen, minlength=experts).tolist()


def bench_row(model: str, layer: str, experts: int, counts: list[int], n: int, k: int, tokens: int,
              timer: CudaTimer, budget_s: float, dtype: str = "bf16", layout: str = "masked",
              config: str | None = None) -> Row:
    import tcgemm
    from tcgemm import launch

    m = max(64, -(-max(counts) // 64) * 64)
    gen = torch.Generator(device="cuda").manual_seed(n + k + m)
    fp8 = dtype == "fp8"
    in_dtype = torch.float8_e4m3fn if fp8 else torch.bfloat16
    a = torch.randn(experts, m, k, device="cuda", generator=gen).to(in_dtype)
    w = (torch.randn(experts, n, k, device="cuda", generator=gen) * (1.0 if fp8 else k**-0.5)).to(in_dtype)
    b = w.transpose(1, 2)
    kb, nb = -(-k // 128), -(-n // 128)
    sa = (torch.rand(experts, kb, m, device="cuda", generator=gen) * 0.01).transpose(1, 2) if fp8 else None
    sb = torch.rand(experts, nb, kb, device="cuda", generator=gen) * 0.01 if fp8 else None
    count_t = torch.tensor(counts, dtype=torch.int32, device="cuda")
    out_ours = torch.empty(experts, m, n, dtype=torch.bfloat16, device="cuda")
    out_loop = torch.empty_like(out_ours)
    grouped_mm = None if fp8 else getattr(torch, "_grouped_mm", None)

    x_cont = torch.cat([a[e, :rows] for e, rows in enumerate(counts)])
    offs = torch.tensor(counts, dtype=torch.int32, device="cuda").cumsum(0).to(torch.int32)
    out_cont = torch.empty(x_cont.shape[0], n, dtype=torch.bfloat16, device="cuda")
    sa_cont = None
    if fp8 and layout == "contiguous":  # (every token's scales, in quantize_fp8's layout: no copy in the call)
        t = x_cont.shape[0]
        sa_cont = torch.empty(kb, -(-t // 4) * 4, device="cuda")[:, :t].t()
        sa_cont.copy_(torch.cat([sa[e, :rows] for e, rows in enumerate(counts)]))  # type: ignore[index]
    named = {} if config is None else {"kernel": config.split(":")[0], "config": config.split(":")[1]}

    def ours(_i: int) -> torch.Tensor:
        if layout == "contiguous":
            return tcgemm.grouped_gemm(x_cont, b, offsets=offs, scale_a=sa_cont, scale_b=sb, out=out_cont, **named)
        return tcgemm.grouped_gemm(a, b, count_t, scale_a=sa, scale_b=sb, out=out_ours, **named)

    # _scaled_mm's block-wise scales per expert, as it takes them: scale_a (rows, KB) with strides (1, rows), scale_b
    # the (NB, KB) block scales transposed (made before timing). cuBLAS's block-wise kernels refuse some row counts
    # (CUBLAS_STATUS_NOT_SUPPORTED at a few rows): torch's calls take each expert's rows rounded up to 16.
    torch_rows = [min(m, -(-rows // 16) * 16) for rows in counts]
    sa_torch = [sa[e, :rows].t().contiguous().t() if fp8 else None for e, rows in enumerate(torch_rows)]  # type: ignore[index]
    sb_torch = [sb[e].t() if fp8 else None for e in range(experts)]  # type: ignore[index]

    def loop(_i: int) -> torch.Tensor:
        for e, rows in enumerate(counts):
            if rows and fp8:
                padded_rows = torch_rows[e]
                out_loop[e, :padded_rows] = torch._scaled_mm(a[e, :padded_rows], b[e], sa_torch[e], sb_torch[e],
                                                             out_dtype=torch.bfloat16)
            elif rows:
                torch.matmul(a[e, :rows], b[e], out=out_loop[e, :rows])
        return out_loop

    def padded(_i: int) -> torch.Tensor:
        return grouped_mm(a, b)  # type: ignore[misc]

    def contiguous(_i: int) -> torch.Tensor:
        return grouped_mm(x_cont, b, offs=offs)  # type: ignore[misc]

    with launch.trace() as seen:
        ours(0)
    loop(0)
    e_big = max(range(experts), key=lambda e: counts[e])
    if fp8:
        rows_big, cols = counts[e_big], torch.arange(n, device="cuda") // 128
        ref = torch.zeros(rows_big, n, dtype=torch.float64, device="cuda")
        for j in range(kb):
            ks = slice(128 * j, 128 * (j + 1))
            ref += (sa[e_big, :rows_big, j:j + 1].double() * sb[e_big, cols, j].double()  # type: ignore[index]
                    * (a[e_big, :rows_big, ks].double() @ b[e_big, ks].double()))
    else:
        ref = a[e_big, :counts[e_big]].double() @ b[e_big].double()
    start_big = sum(counts[:e_big])
    mine = out_cont[start_big:start_big + counts[e_big]] if layout == "contiguous" else out_ours[e_big, :counts[e_big]]
    for name, got in (("tcgemm", mine), ("loop", out_loop[e_big, :counts[e_big]])):
        err = (got.double() - ref).abs().max().item() if counts[e_big] else 0.0
        if err > 0.05 * (ref.abs().max().item() + 1e-9):
            raise RuntimeError(f"{name} differs from the float64 reference by {err:.3g} at {model} {layer}")
    extra = {}
    for name, fn in (("padded", padded), ("contiguous", contiguous)):
        if grouped_mm is None:
            break
        try:
            y = fn(0)
            if name == "contiguous" and counts[e_big]:
                start = sum(counts[:e_big])
                err = (y[start:start + counts[e_big]].double() - ref).abs().max().item()
                if err > 0.05 * (ref.abs().max().item() + 1e-9):
                    raise RuntimeError(f"wrong result (error {err:.3g})")
            extra[name] = fn
        except (RuntimeError, TypeError, ValueError) as exc:
            print(f"torch._grouped_mm ({name}) skipped: {str(exc).splitlines()[0][:100]}")
    e_o, e_l, _, _ = timer.eager((ours, loop), 1, budget_s)
    g_o, g_l = timer.graphs((ours, loop), 1, budget_s, min(e_o, e_l))
    e_g = g_g = e_c = g_c = None
    if "padded" in extra:
        e_g, _, _, _ = timer.eager((padded, ours), 1, budget_s)
        g_g, _ = timer.graphs((padded, ours), 1, budget_s, e_g)
    if "contiguous" in extra:
        e_c, _, _, _ = timer.eager((contiguous, ours), 1, budget_s)
        g_c, _ = timer.graphs((contiguous, ours), 1, budget_s, e_c)
    flops = 2.0 * sum(counts) * n * k
    row = Row(model, dtype, layer, experts, tokens, m, counts, n, k, seen[-1] if seen else "?", e_o, g_o, e_g, g_g, e_l,
              g_l, e_c, g_c, g_g / g_o if g_g and g_o else None, g_l / g_o if g_l and g_o else None,
              g_c / g_o if g_c and g_o else None, e_g / e_o if e_g else None, e_l / e_o, e_c / e_o if e_c else None,
              flops / g_o / 1e6 if g_o else None, layout)
    print(f"{layout[:6]} {model:8s} {dtype:4s} {layer:7s} {tokens:5d}/expert M={m:5d} {row.kernel:34s} "
          f"graph {g_o or 0:8.1f} us: padded "
          f"{row.graph_ratio_grouped_mm or 0:.3f}x contiguous {row.graph_ratio_contiguous or 0:.3f}x loop "
          f"{row.graph_ratio_loop or 0:.3f}x | eager {e_o:8.1f} us: {row.eager_ratio_grouped_mm or 0:.3f}x "
          f"{row.eager_ratio_contiguous or 0:.3f}x {row.eager_ratio_loop:.3f}x  {row.tflops_tcgemm or 0:5.0f} TFLOP/s",
          flush=True)
    return row


@dataclass
class BlockRow:
    model: str
    tokens: int
    experts: int
    top_k: int
    hidden: int
    intermediate: int
    eager_us_tcgemm: float
    graph_us_tcgemm: float | None
    eager_us_torch: float
    eager_ratio: float  # torch eager / tcgemm eager
    graph_ratio: float | None  # torch eager / tcgemm's CUDA graph


def block_row(model: str, tokens: int, timer: CudaTimer, budget_s: float) -> BlockRow:
    from .moe import MoE

    experts, top_k, (n2, hidden), _ = MODELS[model]
    inter = n2 // 2
    torch.manual_seed(tokens)
    moe = MoE(hidden, inter, experts, top_k, device="cuda")
    x = torch.randn(tokens, hidden, device="cuda").to(torch.bfloat16)

    def ours(_i: int) -> torch.Tensor:
        return moe(x)

    def loop(_i: int) -> torch.Tensor:  # (transformers' MixtralSparseMoeBlock, on the same weights)
        weight, chosen = moe.router(x).float().softmax(-1).topk(top_k, dim=-1)
        weight = (weight / weight.sum(-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for z in range(experts):
            tok, j = torch.where(chosen == z)
            if tok.numel() == 0:
                continue
            xs, w13 = x[tok], moe.experts.gate_up[z]
            h = torch.nn.functional.silu(xs @ w13[:inter].t()) * (xs @ w13[inter:].t())
            out.index_add_(0, tok, (h @ moe.experts.down[z].t()) * weight[tok, j, None])
        return out

    with torch.inference_mode():
        got, want = ours(0).float(), loop(0).float()
        err = (got - want).abs().max().item()
        if err > 0.05 * (want.abs().max().item() + 1e-6):
            raise RuntimeError(f"tcgemm's MoE block differs from torch's by {err:.3g} at {model}, {tokens} tokens")
        e_o, e_t, _, _ = timer.eager((ours, loop), 1, budget_s)
        g_o, _ = timer.graphs((ours, ours), 1, budget_s, e_o)
    row = BlockRow(model, tokens, experts, top_k, hidden, inter, e_o, g_o, e_t, e_t / e_o, e_t / g_o if g_o else None)
    print(f"block {model:8s} {tokens:5d} tokens: tcgemm eager {e_o:8.1f} us, graph {g_o or 0:8.1f} us; torch eager "
          f"{e_t:8.1f} us: {row.eager_ratio:.3f}x eager, {row.graph_ratio or 0:.3f}x graph", flush=True)
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tcgemm.grouped_bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--models", default="mixtral,deepseek", help=f"comma list of {', '.join(MODELS)}")
    parser.add_argument("--tokens", default=",".join(map(str, DEFAULT_TOKENS)),
                        help="average tokens per expert (comma list)")
    parser.add_argument("--budget", type=float, default=0.2, help="seconds of timing per side and row")
    parser.add_argument("--dtype", default="bf16", choices=("bf16", "fp8"),
                        help="bf16 experts, or fp8 e4m3 with block-wise scales (against a loop of _scaled_mm)")
    parser.add_argument("--layout", default="masked", choices=("masked", "contiguous"),
                        help="tcgemm's layout: masked (a (E, M, K) and counts) or contiguous (a (T, K) and offsets, "
                             "as torch._grouped_mm's contiguous call takes them)")
    parser.add_argument("--config", metavar="KERNEL:CONFIG",
                        help="run tcgemm's side on this kernel and tile config (e.g. wgmma_tma_store:128x128x64; "
                             "`tcgemm list` marks the grouped ones) instead of auto's pick")
    parser.add_argument("--block", action="store_true",
                        help="the whole MoE block (tcgemm.moe.MoE) against transformers' torch loop; --tokens are "
                             "the block's tokens")
    parser.add_argument("--json", help="write the rows and the environment here")
    args = parser.parse_args(argv)
    if args.config is not None and args.config.count(":") != 1:
        parser.error(f"--config takes KERNEL:CONFIG (e.g. wgmma_tma_store:128x128x64); got {args.config!r}")
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU (an H100)")
    names = [x for x in args.models.split(",") if x]
    for name in names:
        if name not in MODELS:
            parser.error(f"--models: {name!r} is not one of {', '.join(MODELS)}")
    from .bench import environment

    timer = CudaTimer()
    env = environment()
    if args.block:
        blocks = [block_row(name, int(t), timer, args.budget) for name in names for t in args.tokens.split(",") if t]
        dump_rows(args.json, env, blocks)
        return 0
    rows: list[Row] = []
    for name in names:
        experts, top_k, gate_up, down = MODELS[name]
        for tokens in (int(t) for t in args.tokens.split(",") if t):
            counts = routed_counts(experts, top_k, tokens, seed=tokens)
            for layer, (n, k) in (("gate_up", gate_up), ("down", down)):
                rows.append(bench_row(name, layer, experts, counts, n, k, tokens, timer, args.budget, args.dtype,
                                      args.layout, args.config))
                timer.empty_cache()
                dump_rows(args.json, env, rows)
    if args.json:
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
