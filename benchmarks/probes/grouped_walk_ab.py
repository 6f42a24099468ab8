"""The two walks of a grouped GEMM's tiles against each other, in one process on the same inputs (issue 31).

kernels/include/group_rows.cuh walks a grouped GEMM's row tiles either by expert (each expert's cluster rows of
CTAS_M x BLOCK_M rows: a cluster never straddles two experts and shares B, but an expert's last cluster row may hold
CTAS_M - 1 tiles past its tokens) or in pairs (one column of every expert's row tiles, taken CTAS_M at a time: no
tile past an expert's tokens, but a cluster straddling two experts loads two B tiles, one per CTA). The prefix
kernel picks one from the counts (tcgemm.grouped.WALK = "auto"); this times both, forced, and torch._grouped_mm's
contiguous call, on the grouped benchmark's routings (tcgemm.grouped_bench.routed_counts), contiguous layout, CUDA
graphs (the walk is an argument of the captured prefix kernel), each pair of sides interleaved
(tcgemm.model_bench.CudaTimer).

    PYTHONPATH=src python3 benchmarks/probes/grouped_walk_ab.py out.json [--models mixtral,deepseek]
        [--tokens 32,128,512,2048] [--dtype bf16|fp8]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import torch

import tcgemm
from tcgemm import grouped
from tcgemm.bench import environment
from tcgemm.grouped_bench import MODELS, routed_counts
from tcgemm.model_bench import CudaTimer


def row(model: str, layer: str, tpe: int, n: int, k: int, dtype: str, timer: CudaTimer, budget: float) -> dict:
    experts, top_k = MODELS[model][:2]
    counts = routed_counts(experts, top_k, tpe, seed=tpe)
    tokens = sum(counts)
    fp8 = dtype == "fp8"
    gen = torch.Generator(device="cuda").manual_seed(n + k + tpe)
    x = torch.randn(tokens, k, device="cuda", generator=gen)
    w = torch.randn(experts, n, k, device="cuda", generator=gen) * k**-0.5
    offs = torch.tensor(counts, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    out = torch.empty(tokens, n, dtype=torch.bfloat16, device="cuda")
    kw: dict = {}
    if fp8:
        kb, nb = -(-k // 128), -(-n // 128)
        x, w = x.to(torch.float8_e4m3fn), (w * 64).to(torch.float8_e4m3fn)
        sa = torch.empty(kb, -(-tokens // 4) * 4, device="cuda")[:, :tokens].t()
        sa.copy_(torch.rand(tokens, kb, device="cuda", generator=gen) * 0.01)
        kw = dict(scale_a=sa, scale_b=torch.rand(experts, nb, kb, device="cuda", generator=gen) * 0.01)
    else:
        x, w = x.to(torch.bfloat16), w.to(torch.bfloat16)
    b = w.transpose(1, 2)

    def side(walk: str):
        def call(_i: int) -> torch.Tensor:
            grouped.WALK = walk
            return tcgemm.grouped_gemm(x, b, offsets=offs, out=out, **kw)
        return call

    def torch_side(_i: int) -> torch.Tensor:
        return torch._grouped_mm(x, b, offs=offs)

    entries, pairs, auto = side("entries"), side("pairs"), side("auto")
    entries(0)
    want = out.clone()
    pairs(0)
    same = bool(torch.equal(out, want))  # (the two walks compute every tile alike: the same bits)
    with tcgemm.launch.trace() as seen:
        auto(0)
    e_us, p_us = timer.graphs((entries, pairs), 1, budget, 100.0)
    t_us = a_us = None
    if not fp8:
        t_us, a_us = timer.graphs((torch_side, auto), 1, budget, 100.0)
    else:
        _, a_us = timer.graphs((entries, auto), 1, budget, 100.0)
    grouped.WALK = "auto"
    r = dict(model=model, layer=layer, dtype=dtype, tokens_per_expert=tpe, counts=counts, n=n, k=k,
             kernel=seen[-1] if seen else None, bitwise_equal=same, graph_us_entries=e_us, graph_us_pairs=p_us,
             graph_us_auto=a_us, graph_us_grouped_mm=t_us, pairs_over_entries=e_us / p_us if e_us and p_us else None)
    print(f"{model:8s} {layer:7s} {dtype} {tpe:5d}/expert {r['kernel']}: entries {e_us:8.1f} pairs {p_us:8.1f} "
          f"({r['pairs_over_entries']:.3f}x) auto {a_us or 0:8.1f} grouped_mm {t_us or 0:8.1f} same bits {same}",
          flush=True)
    return r


def each_layer(json_path: str, models: str, tokens: str, one_row: Callable[[str, str, int, int, int], dict]) -> None:
    """``one_row(model, layer, tokens per expert, n, k)`` for each model's gate_up and down at each token count, the
    rows written to ``json_path`` after each (a cut run keeps what it measured). Shared with grouped_config_ab.py."""
    rows = []
    for model in models.split(","):
        _, _, gate_up, down = MODELS[model]
        for tpe in (int(t) for t in tokens.split(",")):
            for layer, (n, k) in (("gate_up", gate_up), ("down", down)):
                rows.append(one_row(model, layer, tpe, n, k))
                torch.cuda.empty_cache()
                with open(json_path, "w") as f:
                    json.dump({"environment": environment(), "rows": rows}, f, indent=1)


def probe_main(doc: str, tokens: str, budget: float, extra: Callable[[argparse.ArgumentParser], object],
               one_row: Callable[[argparse.Namespace, CudaTimer, str, str, int, int, int], dict]) -> None:
    """Parse json, --models, --tokens, --budget (these defaults) and what ``extra`` adds, then each_layer with
    ``one_row(args, timer, model, layer, tokens per expert, n, k)``. Shared with grouped_config_ab.py."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--models", default="mixtral,deepseek")
    ap.add_argument("--tokens", default=tokens)
    ap.add_argument("--budget", type=float, default=budget)
    extra(ap)
    args = ap.parse_args()
    timer = CudaTimer()
    each_layer(args.json, args.models, args.tokens, lambda *shape: one_row(args, timer, *shape))


def main() -> None:
    probe_main(__doc__, "32,128,512,2048", 0.3,
               lambda ap: ap.add_argument("--dtype", default="bf16", choices=("bf16", "fp8")),
               lambda args, timer, *shape: row(*shape, args.dtype, timer, args.budget))


if __name__ == "__main__":
    main()
