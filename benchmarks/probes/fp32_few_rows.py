"""fp32 on CUDA cores at 32-128 rows: which tile and how many K parts?

auto runs fp32 at 64 x 4096 x 4096 as 8 K parts of simt_warp_tiling's 128 x 128 tiles (the estimate's pick for the
batched parts problem) and measured 0.55-0.62x cuBLAS (2026-11-27-h100-sweep-skinny-fp32-*-7242db5.json): half of
every tile's rows lie below the matrix. This probe times, per M x 4096 x 4096 and B layout, cuBLAS, auto, and K
cut into 2-16 parts (tcgemm.api._k_parts, as auto's route does) on each simt_warp_tiling config, the parts summed
as the route sums them, in CUDA graphs (20 calls a graph, median of 15 replays; B is 64 MB, past the L2).

    PYTHONPATH=src python3 benchmarks/probes/fp32_few_rows.py [--json OUT]
"""

from __future__ import annotations

import argparse
import json

import torch
from fp32_k_split import graph_us  # (the sibling probe's timer: run this from benchmarks/probes or the repo root)

import tcgemm
from tcgemm import api, registry
from tcgemm.bench import environment

ROWS = (32, 48, 64, 96, 128)
SPLITS = (1, 2, 4, 8, 16)


def _parts_call(a: torch.Tensor, b: torch.Tensor, splits: int, config: str):
    pa, pb = api._k_parts(a, b, splits)
    return lambda: tcgemm.gemm(pa, pb, kernel="simt_warp_tiling", config=config).sum(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    args = parser.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    configs = [c.name for c in registry.get("simt_warp_tiling").configs]
    rows = []
    n = k = 4096
    for layout in ("rr", "rc"):
        b = torch.randn(k, n, device="cuda")
        if layout == "rc":
            b = b.t().contiguous().t()
        for m in ROWS:
            a = torch.randn(m, k, device="cuda")
            ref = a.double() @ b.double()
            row: dict[str, object] = {"m": m, "n": n, "k": k, "layouts": layout,
                                      "auto_splits": api.fp32_k_splits(m, n, k, sms, b_row_major=layout == "rr"),
                                      "auto": tcgemm.explain(a, b).label,
                                      "cublas_us": graph_us(lambda a=a, b=b: torch.matmul(a, b)),
                                      "auto_us": graph_us(lambda a=a, b=b: tcgemm.gemm(a, b))}
            for cfg in configs:
                for s in SPLITS:
                    fn = _parts_call(a, b, s, cfg)
                    err = ((fn().double() - ref).norm() / ref.norm()).item()
                    row[f"{cfg}/{s}_us"] = graph_us(fn)
                    row[f"{cfg}/{s}_err"] = err
            rows.append(row)
            best = min((v, key) for key, v in row.items() if key.endswith("_us") and "/" in key)
            print(f"{layout} {m}x{n}x{k}: cuBLAS {row['cublas_us']:.1f} auto {row['auto_us']:.1f} "
                  f"({row['auto']}, {row['auto_splits']} parts); best {best[1]} {best[0]:.1f} us "
                  f"({row['cublas_us'] / best[0]:.2f}x)", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
