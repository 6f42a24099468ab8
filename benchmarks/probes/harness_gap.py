"""Why does one GEMM time slower in the model benchmark than in `tcgemm bench`?

Llama-3-8B's qkv at 300 tokens (300 x 6144 x 4096, D^T tiles of 128 x 152) took 33.1-33.8 µs in the model
benchmark's CUDA graphs and 29.2-30.1 µs in `tcgemm bench`'s, while cuBLAS took about the same in both. The two
harnesses differ in what a call writes and how: `tcgemm bench` writes every call into one output tensor
(`out=`), the model benchmark calls modules that allocate a new output per call. This probe times, per
shape, in CUDA graphs of one call per rotating copy (weights and inputs, > 3x L2), each tcgemm form against
the torch form that matches it (medians of alternating blocks, tcgemm.bench.time_graphs):

  out=    tcgemm.gemm(x, W.t(), out=y)      against torch.mm(x, W.t(), out=y)
  new     tcgemm.gemm(x, W.t())             against torch.mm(x, W.t())
  module  tcgemm.nn.Linear(x)               against torch.nn.Linear(x) (the same weights)

    PYTHONPATH=src python3 benchmarks/probes/harness_gap.py [--shapes 300x6144x4096,...] [--json FILE]

Run it twice, the second time with TCGEMM_PDL=0, to see what programmatic dependent launch does to each form.
"""

from __future__ import annotations

import argparse
import json
import os

import torch

import tcgemm
from tcgemm import launch
from tcgemm.bench import capture, environment, time_graphs
from tcgemm.model_bench import rotation_count


def _shape(text: str) -> tuple[int, int, int]:
    m, n, k = (int(v) for v in text.split("x"))
    return m, n, k


def _time_shape(m: int, n: int, k: int, l2: int) -> list[dict[str, object]]:
    dev = torch.device("cuda")
    touched = (n * k + m * k + m * n) * 2
    sets = rotation_count(touched, touched + m * n * 2, l2)
    gen = torch.Generator(device=dev).manual_seed(0)
    ws = [torch.randn(n, k, generator=gen, device=dev, dtype=torch.bfloat16) * k ** -0.5 for _ in range(sets)]
    xs = [torch.randn(m, k, generator=gen, device=dev, dtype=torch.bfloat16) for _ in range(sets)]
    y = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
    mods, twins = [], []
    with torch.no_grad():
        for w in ws:
            mod = tcgemm.nn.Linear(k, n, bias=False, device=dev, dtype=torch.bfloat16).requires_grad_(False)
            mod.weight.copy_(w)
            twin = torch.nn.Linear(k, n, bias=False, device="meta", dtype=torch.bfloat16)
            twin.weight = mod.weight
            mods.append(mod)
            twins.append(twin.requires_grad_(False))
    forms = {
        "out=": (lambda i: tcgemm.gemm(xs[i], ws[i].t(), out=y), lambda i: torch.mm(xs[i], ws[i].t(), out=y)),
        "new": (lambda i: tcgemm.gemm(xs[i], ws[i].t()), lambda i: torch.mm(xs[i], ws[i].t())),
        "module": (lambda i: mods[i](xs[i]), lambda i: twins[i](xs[i])),
    }
    rows: list[dict[str, object]] = []
    with torch.inference_mode():
        for form, (ours, theirs) in forms.items():
            with launch.trace() as seen:
                ours(0)
            g_ours, g_theirs = capture(ours, sets), capture(theirs, sets)
            us, us_torch = time_graphs(g_ours, g_theirs, sets, rounds=10, replays=20)
            row = dict(m=m, n=n, k=k, form=form, sets=sets, us_tcgemm=us, us_torch=us_torch, ratio=us_torch / us,
                       kernels=list(dict.fromkeys(seen)), pdl=os.environ.get("TCGEMM_PDL", "1"))
            rows.append(row)
            print(f"{m}x{n}x{k} {form:6s} sets={sets} tcgemm {us:7.2f} us  torch {us_torch:7.2f} us  "
                  f"ratio {us_torch / us:.3f}  {'+'.join(row['kernels'])}  PDL={row['pdl']}", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="300x6144x4096,300x4608x3584,512x1280x8192",
                        help="comma list of MxNxK (x: M x K tokens, W: N x K, as a Linear holds it)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    l2 = torch.cuda.get_device_properties(torch.device("cuda")).L2_cache_size
    rows = [row for s in args.shapes.split(",") for row in _time_shape(*_shape(s), l2)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
