"""DeepGEMM's block-scaled fp8 GEMM against tcgemm's in one process, on the same inputs.

DeepGEMM (the bundle in .dg/: benchmarks/probes/deepgemm_bundle.md) and ``tcgemm.gemm(a, b.t(), scale_a=, scale_b=)``
take the same tensors (DeepGEMM's layouts: scale_a M-major with rows padded to 4, scale_b (N/128, K/128)), in
alternating order (DeepGEMM first, then tcgemm first; the median of both): CUDA graphs (per-call time of one graph
of >= 20 calls replayed, copies rotating past 2x L2), back-to-back eager GPU time (a spin kernel queued first) and
host time per call; each side's error against the float64 product of the dequantized operands.

    PYTHONPATH=src python3 benchmarks/probes/deepgemm_vs_tcgemm.py [MxNxK,...] out.json [CONFIG,...]
    (shapes default: DeepSeek-V3's dense table; CONFIG: tcgemm tile configs timed as sides of their own)
"""

import json
import math
import statistics
import sys
from typing import Any

import deepgemm_runner as R
import torch

import tcgemm
from tcgemm.bench import environment
from tcgemm.fp8_bench import DEEPGEMM_PUBLISHED

METHOD = ("same process, same inputs; graph: per-call time of one CUDA graph of >= 20 calls replayed, copies rotating "
          "past 2x L2; eager: back-to-back calls with a spin kernel queued first (GPU time), host_us: host time per "
          "call; order alternated (DeepGEMM first, then tcgemm first), median of both")


def compare(dg: Any, m: int, n: int, k: int, configs: tuple[str, ...] = ()) -> dict[str, Any]:
    row: dict[str, Any] = {"m": m, "n": n, "k": k, "published_tflops_h800": DEEPGEMM_PUBLISHED.get((m, n, k))}
    bytes_per_set = m * k + n * k + 4 * m * n + 4 * (m * (k // 128) + (-(-n // 128)) * (k // 128))
    ncopies = max(2, min(64, math.ceil(2 * R.L2_BYTES / bytes_per_set) + 1))
    copies, ref = R.make_problem(dg, m, n, k, ncopies)
    outs = [torch.empty((m, n), device="cuda", dtype=torch.bfloat16) for _ in range(ncopies)]

    def deepgemm(i: int) -> None:
        lhs, rhs, out = copies[i]
        dg.gemm_fp8_fp8_bf16_nt(lhs, rhs, out)

    def ours(i: int) -> None:
        (a, sa), (b, sb), _ = copies[i]
        tcgemm.gemm(a, b.t(), scale_a=sa, scale_b=sb, out=outs[i])

    deepgemm(0)
    ours(0)
    torch.cuda.synchronize()
    row["rel_error_deepgemm"], row["rel_error_tcgemm"] = R.rel_error(copies[0][2], ref), R.rel_error(outs[0], ref)
    with tcgemm.launch.trace() as seen:
        ours(0)
    row["tcgemm_kernel"] = seen[-1] if seen else None
    sides = {"deepgemm": deepgemm, "tcgemm": ours}
    for name in configs:  # (tcgemm with a named config: a side of its own)
        def named(i: int, name: str = name) -> None:
            (a, sa), (b, sb), _ = copies[i]
            tcgemm.gemm(a, b.t(), scale_a=sa, scale_b=sb, out=outs[i], config=name)

        named(0)
        torch.cuda.synchronize()
        row[f"rel_error_{name}"] = R.rel_error(outs[0], ref)
        sides[name] = named
    times: dict[str, dict[str, list[float]]] = {who: {"graph": [], "eager": [], "host": []} for who in sides}
    for order in (tuple(sides), tuple(reversed(sides))):
        for who in order:
            times[who]["graph"].append(statistics.median(R.time_graph(sides[who], ncopies, max(ncopies, 20), 10)))
            eager, host = R.time_eager(sides[who], ncopies, 100, 10)
            times[who]["eager"].append(statistics.median(eager))
            times[who]["host"].append(host)
    for who, t in times.items():
        for kind, values in t.items():
            row[f"{who}_{kind}_us"] = statistics.median(values)
        row[f"{who}_graph_tflops"] = 2.0 * m * n * k / row[f"{who}_graph_us"] / 1e6
    for who in sides:
        if who != "deepgemm":
            suffix = "" if who == "tcgemm" else f"_{who}"
            row[f"ratio_graph{suffix}"] = row["deepgemm_graph_us"] / row[f"{who}_graph_us"]
            row[f"ratio_eager{suffix}"] = row["deepgemm_eager_us"] / row[f"{who}_eager_us"]
    return row


def main() -> None:
    dg = R.setup(None)
    shapes = ([tuple(int(v) for v in s.split("x")) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 and sys.argv[1]
              else list(DEEPGEMM_PUBLISHED))
    out_path = sys.argv[2] if len(sys.argv) > 2 else "deepgemm-vs-tcgemm.json"
    configs = tuple(c for c in sys.argv[3].split(",") if c) if len(sys.argv) > 3 else ()
    R.precompile(shapes, dg.get_num_sms(), 16)
    meta = {"deepgemm_commit": R.DEEPGEMM_COMMIT, "cutlass_commit": R.CUTLASS_COMMIT, "nvcc": R.nvcc_version(),
            "method": METHOD}
    rows = []
    for m, n, k in shapes:
        try:
            row = compare(dg, m, n, k, configs)
            print(f"{m:5d} x {n:5d} x {k:5d}  graph DeepGEMM {row['deepgemm_graph_us']:8.1f} us "
                  f"({row['deepgemm_graph_tflops']:6.0f} TF) tcgemm {row['tcgemm_graph_us']:8.1f} us "
                  f"({row['tcgemm_graph_tflops']:6.0f} TF) ratio {row['ratio_graph']:.3f}  eager ratio "
                  f"{row['ratio_eager']:.3f}  err {row['rel_error_deepgemm']:.2e}/{row['rel_error_tcgemm']:.2e}  "
                  f"{row['tcgemm_kernel']}  " + "  ".join(f"{c} {row[f'ratio_graph_{c}']:.3f}" for c in configs),
                  flush=True)
        except Exception as exc:  # noqa: BLE001 (reported in the row; the other shapes go on)
            row = {"m": m, "n": n, "k": k, "error": repr(exc)[:500]}
            print(f"{m}x{n}x{k}: {exc!r}", flush=True)
        rows.append(row)
        torch.cuda.empty_cache()
        with open(out_path, "w") as f:
            json.dump({"environment": environment(), "meta": meta, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
