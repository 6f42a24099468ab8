"""Power, clock and energy per GEMM, cuBLAS beside tcgemm configs, under sustained load.

A GEMM that keeps every tensor core busy runs an H100 into its power limit: the clock then falls until
the board draws what it may, and the faster of two kernels is the one that spends fewer joules per
GEMM, not only fewer cycles. This runs each side back to back for --seconds per block, sides in
alternating order over --rounds, on rotating random inputs bigger than the L2 (as tcgemm bench does),
and reads from NVML: the board's energy counter, the SM clock (sampled every 10 ms) and the reasons the
clock was held down.

    python3 benchmarks/probes/power_probe.py --precision bf16 --shape 4096,4096,14336 \\
        --kernels wgmma_tma_store:128x256x64s4b2o --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable

import pynvml
import torch

import tcgemm
from tcgemm import bench


def _reasons(handle: object) -> int:
    get = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
        pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
    return int(get(handle))


class Sampler:
    """SM clock samples (MHz) and the union of clock-event reasons, from a thread, while a block runs."""

    def __init__(self, handle: object, every_s: float = 0.01) -> None:
        self.handle, self.every_s = handle, every_s
        self.clocks: list[int] = []
        self.reasons = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.clocks.append(pynvml.nvmlDeviceGetClockInfo(self.handle, pynvml.NVML_CLOCK_SM))
            self.reasons |= _reasons(self.handle)
            time.sleep(self.every_s)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


REASONS = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal", 0x40: "hw_thermal",
           0x80: "hw_power_brake"}


def run_block(fn: Callable[[int], None], sets: int, seconds: float, handle: object) -> dict[str, float | int | str]:
    """Calls of ``fn`` for about ``seconds``: calls, elapsed ms (CUDA events), mJ, mean MHz, reasons."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    calls, deadline = 0, time.perf_counter() + seconds
    with Sampler(handle) as sampler:
        energy0 = pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)
        start.record()
        while time.perf_counter() < deadline:
            for _ in range(16):
                fn(calls % sets)
                calls += 1
            torch.cuda.synchronize()  # keeps the queue short, so the deadline holds
        end.record()
        end.synchronize()
        energy1 = pynvml.nvmlDeviceGetTotalEnergyConsumption(handle)
    reasons = ",".join(name for bit, name in REASONS.items() if sampler.reasons & bit) or "none"
    return {"calls": calls, "ms": start.elapsed_time(end), "mj": energy1 - energy0,
            "mhz": statistics.mean(sampler.clocks) if sampler.clocks else 0.0, "reasons": reasons}


def probe_shape(m: int, n: int, k: int, args: argparse.Namespace, handle: object, l2: int) -> list[dict[str, object]]:
    """Every side of one shape, blocks in alternating order; one row per side."""
    sets = bench.input_sets(m, n, k, args.precision, args.layouts, l2)
    out = torch.empty((m, n), dtype=sets[0][0].dtype, device="cuda")
    baseline = bench.cublas_baseline(args.precision, sets, out)
    assert baseline is not None  # torch.matmul takes every 16-bit and fp32 shape
    prec = "tf32" if args.precision == "tf32" else None

    def cublas(i: int) -> None:
        with bench.cublas_precision(args.precision):
            baseline[1](i)

    def ours(kernel: str, config: str) -> Callable[[int], None]:
        def run(i: int) -> None:
            a, b = sets[i % len(sets)]
            tcgemm.gemm(a, b, out=out, kernel=kernel, config=config or None, precision=prec)
        return run

    sides: dict[str, Callable[[int], None]] = {"cublas": cublas}
    for name in args.kernels.split(","):
        kernel, _, config = name.partition(":")
        sides[name] = ours(kernel, config)
    for fn in sides.values():  # compile, warm
        run_block(fn, len(sets), 0.3, handle)
    blocks: dict[str, list[dict[str, float | int | str]]] = {s: [] for s in sides}
    order = list(sides)
    for r in range(args.rounds):
        for side in (order if r % 2 == 0 else order[::-1]):
            blocks[side].append(run_block(sides[side], len(sets), args.seconds, handle))
    flop = 2.0 * m * n * k
    rows: list[dict[str, object]] = []
    for side, bs in blocks.items():
        calls = sum(int(b["calls"]) for b in bs)
        ms = sum(float(b["ms"]) for b in bs)
        mj = sum(float(b["mj"]) for b in bs)
        reasons = sorted({str(b["reasons"]) for b in bs})
        row = {"shape": [m, n, k], "precision": args.precision, "layouts": args.layouts, "side": side,
               "tflops": flop * calls / (ms * 1e9), "joules_per_gemm": mj / 1e3 / calls,
               "watts": mj / ms, "mhz": statistics.mean(float(b["mhz"]) for b in bs),
               "tflops_per_block": [flop * int(b["calls"]) / (float(b["ms"]) * 1e9) for b in bs],
               "reasons": reasons}
        rows.append(row)
        print(f"{m}x{n}x{k} {args.precision:5} {side:40} {row['tflops']:7.1f} TFLOP/s "
              f"{1e3 * row['joules_per_gemm']:8.2f} mJ/GEMM {row['watts']:6.1f} W {row['mhz']:6.0f} MHz "
              f"{'/'.join(reasons)}", flush=True)
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--precision", default="bf16", help="bf16, fp16 or tf32 (cuBLAS: torch.matmul)")
    parser.add_argument("--layouts", default="rr", help="A and B layouts: rr, rc, cr or cc (default rr)")
    parser.add_argument("--shape", action="append", required=True, help="M,N,K (repeatable)")
    parser.add_argument("--kernels", required=True, help="comma list of kernel[:config] to set beside cuBLAS")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per block (default 1)")
    parser.add_argument("--rounds", type=int, default=4, help="blocks per side, order alternating (default 4)")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    if args.precision not in ("bf16", "fp16", "tf32"):
        parser.error(f"--precision {args.precision!r}: this probe times bf16, fp16 or tf32 against torch.matmul")
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 * 2**20)
    rows: list[dict[str, object]] = []
    for shape in args.shape:
        m, n, k = (int(x) for x in shape.split(","))
        rows += probe_shape(m, n, k, args, handle, l2)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": bench.environment(), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
