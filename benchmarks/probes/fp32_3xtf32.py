"""fp32 products as 3xTF32 (tcgemm.emulation) against cuBLAS's fp32 (TF32 off): time and error against a float64
reference, per promoting config and with one accumulator (the plain tf32 config), same process, same inputs,
interleaved. The split copies are timed with the GEMM (what a call costs).

    python3 benchmarks/probes/fp32_3xtf32.py [--shapes 1024,4096,...] [--configs a,b] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics

import torch

import tcgemm
from tcgemm import emulation
from tcgemm.bench import environment


def _shape(text: str) -> tuple[int, int, int]:
    dims = [int(x) for x in text.lower().split("x")]
    return (dims[0],) * 3 if len(dims) == 1 else (dims[0], dims[1], dims[2])


def _rel(d: torch.Tensor, ref: torch.Tensor) -> float:
    return ((d.double() - ref).norm() / ref.norm()).item()


def _time(fns: dict[str, object], sets: int, reps: int) -> dict[str, float]:
    """Median ms per call of each function, the functions interleaved call by call, inputs rotating."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for i in range(reps):
        for name, fn in fns.items():
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn(i % sets)
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end))
    return {name: statistics.median(t) for name, t in times.items()}


def _measure(m: int, n: int, k: int, configs: list[str], reps: int) -> dict[str, object]:
    sets = max(2, min(8, int(3 * 2**27 // (4 * (m * k + k * n) * 4)) + 1))  # past the 50 MB L2
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    inputs = [(torch.randn(m, k, device="cuda", generator=gen), torch.randn(k, n, device="cuda", generator=gen))
              for _ in range(sets)]
    out = torch.empty(m, n, device="cuda")
    ref = inputs[0][0].double() @ inputs[0][1].double()

    def cublas(i: int) -> None:
        torch.matmul(*inputs[i], out=out)

    def auto(i: int) -> None:
        tcgemm.gemm(*inputs[i], out=out)

    fns = {"cublas": cublas, "auto": auto}
    for cfg in configs:
        def run(i: int, cfg: str = cfg) -> None:
            a3, b3 = emulation.split_operands(*inputs[i])
            tcgemm.gemm(a3, b3, out=out, precision="tf32", kernel=emulation.KERNEL, config=cfg)
        fns[cfg] = run
    errors = {}
    for name, fn in fns.items():
        out.fill_(float("nan"))
        fn(0)
        errors[name] = _rel(out, ref)
    for fn in fns.values():  # warm-up
        fn(1 % sets)
    ms = _time(fns, sets, reps)
    row = {"m": m, "n": n, "k": k, "sets": sets, "auto": tcgemm.explain(*inputs[0]).label,
           "ms": ms, "error": errors, "speedup": {name: ms["cublas"] / t for name, t in ms.items()}}
    print(f"{m}x{n}x{k} auto={row['auto']}: " + "  ".join(
        f"{name} {ms[name]:.3f} ms ({row['speedup'][name]:.2f}x) err {errors[name]:.2e}" for name in fns), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="1024,2048,4096,4096x10240x4096,4096x4096x14336,512x4096x4096")
    parser.add_argument("--configs", default=",".join((*emulation.CONFIGS, "128x128x32p1", "128x128x32es6")))
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = [_measure(m, n, k, args.configs.split(","), args.reps) for m, n, k in map(_shape, args.shapes.split(","))]
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
