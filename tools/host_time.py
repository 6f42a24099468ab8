"""Host time per call: tcgemm.nn.Linear against torch.nn.Linear, and scaled fp8 against torch._scaled_mm.

Issue 25's criteria, measured in one process, the two sides in alternating blocks:

- **Host time** (CPU wall time of back-to-back calls, no synchronisation inside the block, divided by the
  calls) of a module call (``torch.nn.Linear`` vs ``tcgemm.nn.Linear`` sharing its parameters) and of the
  functional call (``torch.nn.functional.linear`` vs ``tcgemm.nn.linear``), in inference (``inference_mode``,
  ``no_grad``) and under autograd (parameters requiring grad: the forward that records the graph, and a
  whole forward + backward step), on shapes whose GPU time is below the host time (so the host is what
  is measured).
- **fp8 back to back**: ``tcgemm.gemm(a8, b8, scale_a=, scale_b=)`` (scale tensors, as inference passes them,
  and Python floats) against ``torch._scaled_mm`` at 4096³ and 128×4096×4096: CUDA events around blocks
  of back-to-back calls (host and GPU together, as a user sees them) and the host time alone.

    python3 tools/host_time.py [--json FILE] [--blocks 15] [--calls 200]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

import tcgemm
import tcgemm.nn
from tcgemm.bench import environment


def _host_block(fn: Callable[[], object], calls: int) -> float:
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    elapsed = time.perf_counter() - t
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def _event_block(fn: Callable[[], object], calls: int) -> float:
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(calls):
        fn()
    e.record()
    e.synchronize()
    return s.elapsed_time(e) / calls * 1e3


def interleaved(ours: Callable[[], object], theirs: Callable[[], object], blocks: int, calls: int,
                timer: Callable[[Callable[[], object], int], float]) -> tuple[float, float]:
    """Median µs per call of ``ours`` and ``theirs`` over alternating blocks (ABBA)."""
    for fn in (ours, theirs):  # warm-up: compile, prepare, caches
        for _ in range(20):
            fn()
    torch.cuda.synchronize()
    times: dict[int, list[float]] = {0: [], 1: []}
    for r in range(blocks):
        order = ((0, ours), (1, theirs)) if r % 2 == 0 else ((1, theirs), (0, ours))
        for side, fn in order:
            times[side].append(timer(fn, calls))
    return statistics.median(times[0]), statistics.median(times[1])


def linear_rows(blocks: int, calls: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for m, k, n in ((16, 768, 768), (16, 4096, 4096), (128, 4096, 1280)):
        rows += _linear_shape(m, k, n, blocks, calls)
    return rows


def _linear_shape(m: int, k: int, n: int, blocks: int, calls: int) -> list[dict[str, object]]:
    rows = []
    ref = torch.nn.Linear(k, n, bias=True, device="cuda", dtype=torch.bfloat16)
    ours = tcgemm.nn.Linear.from_torch(ref)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    xg = x.clone().requires_grad_()
    for mode in ("inference_mode", "no_grad", "autograd forward", "autograd forward+backward"):
        if mode == "inference_mode":
            ctx, pairs = torch.inference_mode, [
                ("module", lambda: ours(x), lambda: ref(x)),
                ("functional", lambda: tcgemm.nn.linear(x, ref.weight, ref.bias),
                 lambda: F.linear(x, ref.weight, ref.bias))]
        elif mode == "no_grad":
            ctx, pairs = torch.no_grad, [("module", lambda: ours(x), lambda: ref(x))]
        elif mode == "autograd forward":
            ctx, pairs = torch.enable_grad, [("module", lambda: ours(xg), lambda: ref(xg))]
        else:
            ctx, pairs = torch.enable_grad, [("module", lambda: ours(xg).sum().backward(),
                                              lambda: ref(xg).sum().backward())]
        for what, fn_ours, fn_ref in pairs:
            with ctx():
                t_ours, t_ref = interleaved(fn_ours, fn_ref, blocks, calls, _host_block)
                check = (fn_ours, fn_ref)
                if mode.startswith("autograd forward+"):
                    check = (lambda: ours(x), lambda: ref(x))
                with torch.no_grad():
                    y_ours, y_ref = check[0](), check[1]()
                    err = ((y_ours.double() - y_ref.double()).norm() / y_ref.double().norm()).item()
            rows.append({"kind": "linear", "what": what, "mode": mode, "m": m, "k": k, "n": n, "dtype": "bf16",
                         "host_us_tcgemm": t_ours, "host_us_torch": t_ref, "ratio": t_ref / t_ours,
                         "rel_error": err, "kernel": tcgemm.explain(x, ref.weight.t(), ref.bias, beta=1.0).label})
            print(f"{what:10} {mode:26} {m}x{k}->{n}: tcgemm {t_ours:6.1f} us  torch {t_ref:6.1f} us  "
                  f"torch/tcgemm {t_ref / t_ours:.2f}  err {err:.1e}", flush=True)
    return rows


def fp8_rows(blocks: int, calls: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for m, n, k in ((4096, 4096, 4096), (128, 4096, 4096)):
        rows += _fp8_shape(m, n, k, blocks, calls)
    return rows


def _fp8_shape(m: int, n: int, k: int, blocks: int, calls: int) -> list[dict[str, object]]:
    rows = []
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
    sa = torch.tensor(0.5, device="cuda")
    sb = torch.tensor(2.0, device="cuda")

    def theirs() -> torch.Tensor:
        return torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)

    variants = {"tensor scales": lambda: tcgemm.gemm(a, b, scale_a=sa, scale_b=sb),
                "float scales": lambda: tcgemm.gemm(a, b, scale_a=0.5, scale_b=2.0)}
    for what, ours in variants.items():
        t_ours, t_ref = interleaved(ours, theirs, blocks, max(10, calls // 4), _event_block)
        h_ours, h_ref = interleaved(ours, theirs, max(5, blocks // 3), 20, _host_block)
        y_ours, y_ref = ours(), theirs()
        err = ((y_ours.double() - y_ref.double()).norm() / y_ref.double().norm()).item()
        with tcgemm.launch.trace() as ran:
            ours()
        rows.append({"kind": "fp8", "what": what, "m": m, "n": n, "k": k, "back_to_back_us_tcgemm": t_ours,
                     "back_to_back_us_torch": t_ref, "ratio": t_ref / t_ours, "host_us_tcgemm": h_ours,
                     "host_us_torch": h_ref, "rel_error_vs_scaled_mm": err, "kernel": ran[-1]})
        print(f"fp8 {what:14} {m}x{n}x{k}: back to back tcgemm {t_ours:7.1f} us  _scaled_mm {t_ref:7.1f} us  "
              f"ratio {t_ref / t_ours:.2f}  host {h_ours:5.1f} vs {h_ref:5.1f} us  err {err:.1e}  {ran[-1]}",
              flush=True)
    return rows


def profile(top: int = 22) -> str:
    """Where tcgemm's host time goes (cProfile, own time) in an autograd step and an inference call."""
    ref = torch.nn.Linear(768, 768, device="cuda", dtype=torch.bfloat16)
    ours = tcgemm.nn.Linear.from_torch(ref)
    xg = torch.randn(16, 768, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    x = xg.detach()
    text = io.StringIO()
    for name, fn in (("autograd forward+backward", lambda: ours(xg).sum().backward()),
                     ("inference functional", lambda: tcgemm.nn.linear(x, ref.weight, ref.bias))):
        ctx = torch.inference_mode() if name.startswith("inference") else torch.enable_grad()
        with ctx:
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(300):
                fn()
            prof.disable()
            torch.cuda.synchronize()
        text.write(f"--- {name}: 300 calls\n")
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write the rows and the environment here")
    parser.add_argument("--blocks", type=int, default=15, help="alternating blocks per side (median taken)")
    parser.add_argument("--calls", type=int, default=200, help="back-to-back calls per block")
    parser.add_argument("--profile", action="store_true", help="print where tcgemm's host time goes, then exit")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("host_time.py needs a CUDA GPU", file=sys.stderr)
        return 2
    if args.profile:
        print(profile())
        return 0
    rows = linear_rows(args.blocks, args.calls)
    if torch.cuda.get_device_capability() >= (9, 0):
        rows += fp8_rows(args.blocks, args.calls)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "benchmark": "host time per call (tools/host_time.py)",
                       "method": __doc__, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
