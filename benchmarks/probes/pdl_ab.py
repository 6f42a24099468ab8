"""Which launches does programmatic dependent launch slow down?

In harness_gap.py's two processes, Qwen2.5's qkv at 300 tokens (300 x 4608 x 3584, 108 D^T tiles of 128 x 104)
ran 0.84x cuBLAS with PDL and 0.99x without, while Llama-3-8B's (96 tiles of 128 x 152) did not change and the
70B shard's (512 x 1280 x 8192, 128 tiles split in two along k) lost without it. Different processes, different
clocks: this probe measures both in one process. Per shape (bf16, x @ W^T as a Linear calls it): CUDA graphs of
one call per rotating copy (> 3x L2) with PDL (TCGEMM_PDL=1), without it (0), and cuBLAS, replayed in
alternating blocks (tcgemm.bench.time_graphs): µs per call and the ratios.

    PYTHONPATH=src python3 benchmarks/probes/pdl_ab.py [--shapes 300x4608x3584,...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os

import torch

import tcgemm
from tcgemm import fastpath, launch
from tcgemm.bench import capture, environment, time_graphs
from tcgemm.model_bench import rotation_count

SHAPES = ("300x4608x3584,300x6144x4096,300x28672x4096,300x37888x3584,300x7168x8192,300x1280x8192,300x768x3072,"
          "512x1280x8192,512x28672x4096,128x4608x3584,128x28672x4096,3000x6144x4096,16x4096x4096,4096x4096x4096")


def _time_shape(m: int, n: int, k: int, l2: int) -> dict[str, object]:
    dev = torch.device("cuda")
    touched = (n * k + m * k + m * n) * 2
    sets = rotation_count(touched, touched, l2)
    gen = torch.Generator(device=dev).manual_seed(0)
    ws = [torch.randn(n, k, generator=gen, device=dev, dtype=torch.bfloat16) * k ** -0.5 for _ in range(sets)]
    xs = [torch.randn(m, k, generator=gen, device=dev, dtype=torch.bfloat16) for _ in range(sets)]
    y = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    graphs = {}
    kernels: list[str] = []
    for pdl in ("1", "0"):
        os.environ["TCGEMM_PDL"] = pdl
        fastpath.clear()  # (prepared launches keep the PDL choice they were made with)
        with launch.trace() as seen:
            tcgemm.gemm(xs[0], ws[0].t(), out=y)
        kernels = list(dict.fromkeys(seen))
        graphs[pdl] = capture(lambda i: tcgemm.gemm(xs[i], ws[i].t(), out=y), sets)
    os.environ["TCGEMM_PDL"] = "1"
    fastpath.clear()
    cublas = capture(lambda i: torch.mm(xs[i], ws[i].t(), out=y), sets)
    on, off = time_graphs(graphs["1"], graphs["0"], sets, rounds=12, replays=20)
    on_c, cub_on = time_graphs(graphs["1"], cublas, sets, rounds=12, replays=20)
    off_c, cub_off = time_graphs(graphs["0"], cublas, sets, rounds=12, replays=20)
    row = dict(m=m, n=n, k=k, sets=sets, kernels=kernels, us_pdl=on, us_no_pdl=off, pdl_gain=off / on,
               ratio_pdl=cub_on / on_c, ratio_no_pdl=cub_off / off_c, us_cublas=(cub_on + cub_off) / 2)
    print(f"{m}x{n}x{k:<6d} sets={sets:2d}  PDL {on:7.2f}  no PDL {off:7.2f} us (x{off / on:.3f})  cuBLAS/tcgemm "
          f"{cub_on / on_c:.3f} with, {cub_off / off_c:.3f} without  {'+'.join(kernels)}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default=SHAPES, help="comma list of MxNxK (x: M x K, W: N x K)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    l2 = torch.cuda.get_device_properties(torch.device("cuda")).L2_cache_size
    with torch.inference_mode():
        rows = [_time_shape(*(int(v) for v in s.split("x")), l2) for s in args.shapes.split(",")]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
