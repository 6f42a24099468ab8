"""Benchmark of fused epilogues: a Linear with its activation, tcgemm against what a PyTorch user runs instead.

    python -m tcgemm.fused_bench --json fused.json [--tokens 512,2048,8192] [--no-max-autotune]

Two cases, bf16 on the GPU, each at several token counts M:

* ``swiglu``: Llama-3-8B's MLP entry, ``h = silu(gate) * up`` with ``[gate | up] = x @ W_gate_up^T`` (4096 ->
  2 x 14336). torch: ``F.linear`` of the stacked weight (one cuBLAS GEMM, the faster of the two ways a model
  writes it), ``chunk``, ``F.silu(gate) * up``. tcgemm: ``tcgemm.gemm(x, W.t(), activation="swiglu")``, one
  kernel writing half the columns.
* ``bias_gelu``: ``gelu_tanh(x @ W^T + b)``, GPT-2's fc1 (768 -> 3072) and Llama-sized (4096 -> 14336). torch:
  ``F.gelu(F.linear(x, W, b), approximate="tanh")``. tcgemm: ``tcgemm.gemm(x, W.t(), b, beta=1,
  activation="gelu_tanh")``. cuBLASLt's own fused ``GELU_BIAS`` epilogue through nvmath-python, where it imports
  (plans built and autotuned before timing).

Every side is timed against the torch baseline in the same process, on the same rotating inputs (weights and
activations, enough copies to pass 2 x L2), interleaved (tcgemm.model_bench.CudaTimer): eager (host work
included, medians of blocks in A/B/B/A order) and CUDA-graph replay (one call per copy). ``torch.compile`` of the
torch code in its default and ``max-autotune`` modes is timed the same way (compiled before timing; max-autotune
brings CUDA graphs of its own, so its eager figure is already a graph replay and an outer capture may fail:
reported as null). Ratios are torch time / side time (> 1: the side is faster). Each side's result is checked
against a float64 reference of the same formula before timing. For bias_gelu, one more row times the fused
tcgemm call against cuBLASLt's GELU_BIAS directly (its ``*_torch`` columns then hold cuBLASLt's times).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from . import epilogue
from .model_bench import CudaTimer, dump_rows, rotation_count

Side = Callable[[int], object]
TOLERANCE = 1e-2


@dataclass
class Row:
    case: str
    m: int
    k: int
    n: int  # the GEMM's N (gate and up together for swiglu)
    side: str
    sets: int
    eager_us_torch: float
    eager_us_side: float | None
    eager_ratio: float | None
    graph_us_torch: float | None
    graph_us_side: float | None
    graph_ratio: float | None
    rel_error: float | None
    note: str = ""


def _error(y: torch.Tensor, ref: torch.Tensor) -> float:
    return (torch.linalg.vector_norm(y.double() - ref) / torch.linalg.vector_norm(ref)).item()


def _nvmath_sides(xs: Sequence[torch.Tensor], ws: Sequence[torch.Tensor],
                  bs: Sequence[torch.Tensor]) -> tuple[Side | None, str]:
    """cuBLASLt's GELU_BIAS epilogue through nvmath-python: one planned, autotuned Matmul per input copy."""
    try:
        from nvmath.linalg.advanced import Matmul, MatmulEpilog
    except Exception as exc:  # noqa: BLE001 - optional: reported in the row's note
        return None, f"nvmath-python unavailable ({type(exc).__name__}: {exc})"
    try:
        mms = []
        stream = torch.cuda.current_stream()
        # cuBLASLt's bias runs along the rows of its (column-major) result: D^T = W x^T, bias per row of W.
        for x, w, b in zip(xs, ws, bs, strict=True):
            mm = Matmul(w, x.t(), stream=stream)
            mm.plan(epilog=MatmulEpilog.GELU_BIAS, epilog_inputs={"bias": b}, stream=stream)
            mm.autotune(iterations=5, stream=stream)
            mms.append(mm)
    except Exception as exc:  # noqa: BLE001
        return None, f"nvmath-python failed to plan ({type(exc).__name__}: {exc})"

    def run(i: int) -> torch.Tensor:
        return mms[i].execute(stream=torch.cuda.current_stream()).t()  # (D^T as computed: D is its transpose)

    return run, "cuBLASLt GELU_BIAS (nvmath-python, D^T = W x^T with the bias per row)"


def bench_case(case: str, m: int, k: int, n: int, timer: CudaTimer, budget_s: float, max_autotune: bool,
               log: Callable[[str], None], only: Sequence[str] = ()) -> list[Row]:
    """Rows of one case and shape; ``only``: time just the sides whose names start with one of these (all if
    empty; the torch baseline is always timed beside each)."""
    with torch.inference_mode():  # (torch.compile's guards include the grad mode: compiled and timed under it)
        return _bench_case(case, m, k, n, timer, budget_s, max_autotune, log, tuple(only))


def _bench_case(case: str, m: int, k: int, n: int, timer: CudaTimer, budget_s: float, max_autotune: bool,
                log: Callable[[str], None], only: tuple[str, ...]) -> list[Row]:
    import tcgemm

    dtype = torch.bfloat16
    gen = torch.Generator(device="cuda")
    gen.manual_seed(m + n)
    gated = case == "swiglu"
    n_out = n // 2 if gated else n
    touched = 2 * (k * n + m * k + m * n_out + (0 if gated else n))
    held = 2 * (k * n + m * k + 4 * m * n)
    sets = rotation_count(touched, held, timer.l2_bytes(), free_bytes=timer.free_bytes())
    xs = [torch.randn(m, k, generator=gen, device="cuda").to(dtype) for _ in range(sets)]
    ws = [(torch.randn(n, k, generator=gen, device="cuda") / k**0.5).to(dtype) for _ in range(sets)]
    bs = [torch.randn(n, generator=gen, device="cuda").to(dtype) for _ in range(sets)]

    def torch_code(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        if gated:
            gate, up = F.linear(x, w).chunk(2, dim=-1)
            return F.silu(gate) * up
        return F.gelu(F.linear(x, w, b), approximate="tanh")

    act = "swiglu" if gated else "gelu_tanh"
    sides: dict[str, Side | None] = {}
    notes: dict[str, str] = {}
    sides["tcgemm fused"] = (lambda i: tcgemm.gemm(xs[i], ws[i].t(), activation=act)) if gated else (
        lambda i: tcgemm.gemm(xs[i], ws[i].t(), bs[i], beta=1.0, activation=act))
    sides["tcgemm then torch"] = (
        (lambda i: epilogue.apply(tcgemm.gemm(xs[i], ws[i].t()), epilogue.parse(act))) if gated else
        (lambda i: F.gelu(tcgemm.gemm(xs[i], ws[i].t(), bs[i], beta=1.0), approximate="tanh")))
    def compiled_side(mode: str) -> Side:
        # A fresh dynamo cache for each (shape, mode), compiled (and autotuned) right before its timing: one
        # cache over every shape and mode hit the recompile limit, after which dynamo runs the code eagerly.
        torch._dynamo.reset()
        fn = torch.compile(torch_code, mode=mode, dynamic=False)
        fn(xs[0], ws[0], bs[0])
        return lambda i: fn(xs[i], ws[i], bs[i])

    for mode in ("default", "max-autotune") if max_autotune else ("default",):
        sides[f"torch.compile {mode}"] = lambda mode=mode: compiled_side(mode)  # (made when its turn comes)
    if not gated:
        run, note = _nvmath_sides(xs, ws, bs)
        sides["cuBLASLt GELU_BIAS"] = run
        notes["cuBLASLt GELU_BIAS"] = note

    if only:
        sides = {name: fn for name, fn in sides.items() if name.startswith(only)}

    def baseline(i: int) -> object:
        return torch_code(xs[i], ws[i], bs[i])

    ref = epilogue.apply(xs[0].double() @ ws[0].double().t() + (0 if gated else bs[0].double()),
                         epilogue.parse(act))
    rows = []
    err_torch = _error(baseline(0), ref)
    for name, fn in sides.items():
        if name.startswith("torch.compile"):
            try:
                fn = fn()
            except Exception as exc:  # noqa: BLE001 - reported in the row
                fn, notes[name] = None, f"failed: {type(exc).__name__}: {exc}"[:300]
        if fn is None:
            rows.append(Row(case, m, k, n, name, sets, 0.0, None, None, None, None, None, None, notes.get(name, "")))
            log(f"{case:9s} M={m:5d} {name}: {notes.get(name, '')}")
            continue
        err = _error(fn(0), ref)
        if err > TOLERANCE:  # (timed all the same: a competitor's formula may differ, e.g. its GELU)
            notes[name] = notes.get(name, "") + f"; differs from the float64 reference by {err:.3g}"
        e_torch, e_side, _, _ = timer.eager((baseline, fn), sets, budget_s)
        g_torch, g_side = timer.graphs((baseline, fn), sets, budget_s, min(e_torch, e_side))
        row = Row(case, m, k, n, name, sets, e_torch, e_side, e_torch / e_side, g_torch, g_side,
                  g_torch / g_side if g_torch and g_side else None, err,
                  notes.get(name, "") + f"; torch's own error {err_torch:.2e}")
        rows.append(row)
        graph = f"{row.graph_ratio:.3f}" if row.graph_ratio else "-"
        log(f"{case:9s} M={m:5d} {k:5d}->{n_out:5d}  {name:24s} eager {e_side:8.1f} us vs torch {e_torch:8.1f} "
            f"({row.eager_ratio:.3f}x)  graph {graph}x")
    # The fused tcgemm call against cuBLASLt's fused epilogue directly (the rows above are each side against its
    # own torch timing, so two sides' ratios differ by that timing's noise too).
    lt, fused = sides.get("cuBLASLt GELU_BIAS"), sides.get("tcgemm fused")
    if lt is not None and fused is not None:
        e_lt, e_fused, _, _ = timer.eager((lt, fused), sets, budget_s)
        g_lt, g_fused = timer.graphs((lt, fused), sets, budget_s, min(e_lt, e_fused))
        rows.append(Row(case, m, k, n, "tcgemm fused vs cuBLASLt GELU_BIAS", sets, e_lt, e_fused, e_lt / e_fused,
                        g_lt, g_fused, g_lt / g_fused if g_lt and g_fused else None, _error(fused(0), ref),
                        "baseline: cuBLASLt GELU_BIAS (the *_torch columns hold its times)"))
        log(f"{case:9s} M={m:5d} {k:5d}->{n_out:5d}  tcgemm fused vs cuBLASLt: eager {e_lt / e_fused:.3f}x  graph "
            f"{g_lt / g_fused if g_lt and g_fused else 0:.3f}x")
    del ref
    return rows


CASES = {  # case -> (K, N) per name
    "swiglu": [("llama3-8b gate_up", 4096, 2 * 14336)],
    "bias_gelu": [("gpt2 fc1", 768, 3072), ("llama3-8b-sized", 4096, 14336)],
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tcgemm.fused_bench", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--tokens", default="512,2048,8192", help="token counts M, comma-separated")
    parser.add_argument("--cases", default="swiglu,bias_gelu", help=f"of {', '.join(CASES)}")
    parser.add_argument("--sides", default="",
                        help="time only the sides whose names start with these, comma-separated (e.g. 'tcgemm "
                             "fused,cuBLASLt' for the head-to-head with cuBLASLt alone; default: every side)")
    parser.add_argument("--shapes", default="",
                        help="only these K x N, comma-separated (e.g. 4096x14336; default: every shape of the case)")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of timing per side and mode")
    parser.add_argument("--no-max-autotune", action="store_true", help="skip torch.compile(mode='max-autotune')")
    parser.add_argument("--json", help="write the rows and the environment here")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        parser.error("needs a CUDA GPU")
    from .bench import environment

    tokens = [int(t) for t in args.tokens.split(",") if t]
    timer = CudaTimer()
    env = environment()
    only = tuple(s.strip() for s in args.sides.split(",") if s.strip())
    shapes = {s.strip() for s in args.shapes.split(",") if s.strip()}
    known = {f"{k}x{n}" for case in CASES.values() for _name, k, n in case}
    if shapes - known:
        parser.error(f"--shapes: {', '.join(sorted(shapes - known))} not among {', '.join(sorted(known))}")
    rows: list[Row] = []
    for case in args.cases.split(","):
        if case not in CASES:
            parser.error(f"--cases: {case!r} is not one of {', '.join(CASES)}")
        for _name, k, n in CASES[case]:
            if shapes and f"{k}x{n}" not in shapes:
                continue
            for m in tokens:
                rows += bench_case(case, m, k, n, timer, args.budget, not args.no_max_autotune,
                                   lambda s: print(s, flush=True), only)
                timer.empty_cache()
                dump_rows(args.json, env, rows)
    if args.json:
        print(f"results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
