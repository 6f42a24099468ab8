"""A named grouped config against auto's pick, and both against torch._grouped_mm, in one process (issue 31).

The contiguous layout on the grouped benchmark's routings (tcgemm.grouped_bench.routed_counts), CUDA graphs, each
pair of sides interleaved (tcgemm.model_bench.CudaTimer): auto, the named config (``--config``) and torch's
contiguous call on the same tokens, weights and offsets; each row reports whether the named config gave auto's bits
(WAVE_SNAKE sums some tiles' k-tiles backwards: other bits, as for dense GEMMs) and its error against torch's.

    PYTHONPATH=src python3 benchmarks/probes/grouped_config_ab.py out.json --config 128x256x64s4b2s
        [--against 128x256x64s4b2] [--models mixtral,deepseek] [--tokens 512,2048,4096]

``--against`` puts a second named config in auto's place (the rows still say which kernel auto runs).
"""

from __future__ import annotations

import torch
from grouped_walk_ab import probe_main  # (the probes' directory is the script's: on sys.path)

import tcgemm
from tcgemm.grouped_bench import MODELS, routed_counts
from tcgemm.model_bench import CudaTimer


def _one_call_us(fn) -> float:
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn(0)
    end.record()
    end.synchronize()
    return 1e3 * start.elapsed_time(end)


def row(model: str, layer: str, tpe: int, n: int, k: int, config: str, timer: CudaTimer, budget: float,
        against: str | None = None) -> dict:
    experts, top_k = MODELS[model][:2]
    counts = routed_counts(experts, top_k, tpe, seed=tpe)
    tokens = sum(counts)
    gen = torch.Generator(device="cuda").manual_seed(n + k + tpe)
    x = torch.randn(tokens, k, device="cuda", generator=gen).to(torch.bfloat16)
    w = (torch.randn(experts, n, k, device="cuda", generator=gen) * k**-0.5).to(torch.bfloat16)
    offs = torch.tensor(counts, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    b = w.transpose(1, 2)
    out_auto = torch.empty(tokens, n, dtype=torch.bfloat16, device="cuda")
    out_named = torch.empty_like(out_auto)

    def auto(_i: int) -> torch.Tensor:
        if against:
            return tcgemm.grouped_gemm(x, b, offsets=offs, out=out_auto, kernel="wgmma_tma_store", config=against)
        return tcgemm.grouped_gemm(x, b, offsets=offs, out=out_auto)

    def named(_i: int) -> torch.Tensor:
        return tcgemm.grouped_gemm(x, b, offsets=offs, out=out_named, kernel="wgmma_tma_store", config=config)

    def torch_side(_i: int) -> torch.Tensor:
        return torch._grouped_mm(x, b, offs=offs)

    with tcgemm.launch.trace() as seen:
        tcgemm.grouped_gemm(x, b, offsets=offs, out=out_auto)
    auto_kernel = seen[-1] if seen else None
    auto(0)
    named(0)
    want = torch._grouped_mm(x, b, offs=offs).float()
    err = float((out_named.float() - want).norm() / want.norm())
    same = bool(torch.equal(out_auto, out_named))
    estimate = _one_call_us(auto)  # (sizes the replays to the budget)
    a_us, n_us = timer.graphs((auto, named), 1, budget, estimate)
    t_us, n2_us = timer.graphs((torch_side, named), 1, budget, estimate)
    r = dict(model=model, layer=layer, tokens_per_expert=tpe, counts=counts, n=n, k=k, auto_kernel=auto_kernel,
             against=against or "auto",
             config=config, bitwise_equal_to_auto=same, rel_error_vs_grouped_mm=err, graph_us_auto=a_us,
             graph_us_named=n_us, graph_us_named_2=n2_us, graph_us_grouped_mm=t_us,
             auto_over_named=a_us / n_us, grouped_mm_over_named=t_us / n2_us, grouped_mm_over_auto=t_us / a_us)
    base = against or auto_kernel
    print(f"{model:8s} {layer:7s} {tpe:5d}/expert {base} {a_us:8.1f} | {config} {n_us:8.1f} / {n2_us:8.1f} "
          f"({r['auto_over_named']:.3f}x auto) | grouped_mm {t_us:8.1f} ({r['grouped_mm_over_named']:.3f}x named, "
          f"{r['grouped_mm_over_auto']:.3f}x auto) same bits {same} err {err:.2e}", flush=True)
    return r


def main() -> None:
    def extra(ap) -> None:
        ap.add_argument("--config", required=True, help="a grouped config of wgmma_tma_store")
        ap.add_argument("--against", default=None, help="a grouped config timed in auto's place (default: auto)")

    probe_main(__doc__, "512,2048,4096", 0.4, extra,
               lambda args, timer, *shape: row(*shape, args.config, timer, args.budget, args.against))


if __name__ == "__main__":
    main()
