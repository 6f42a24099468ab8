"""Where a CTA of the production Hopper kernel spends its time, beside cuBLAS's time for the same call.

    PYTHONPATH=src python benchmarks/probes/cta_timeline.py --json out.json \\
        [--cases 300x768x3072:64x48x64,300x6144x4096:128x152x64T,512x1280x8192:128x80x64k2]

Issue 27's narrow, short shapes run 10-20% longer on tcgemm's tiles than on cuBLAS's of the same geometry, with the
same DRAM and L2 bytes; Nsight Compute counted ~3k more cycles per SM with no warp resident at all. This probe
builds every tcgemm kernel of the process with TRACE_PTR set (kernels/include/cta_trace.cuh: one thread of each CTA
writes %globaltimer at entry and exit and clock64 at the points between), runs each case's config on bf16
operands (A row-major, B = W^T of a row-major weight, as nn.Linear), rotated past L2, and reads back the last
launch's timeline:

* isolated: one launch after the GPU went idle (no PDL overlap), timed by CUDA events (launch latency included);
* graph: back-to-back calls replayed from one CUDA graph (PDL on where the config has it), time per call; the
  timeline is the last call's, whose CTAs may have started during the call before.

cuBLAS (``torch.mm`` into the same output) is timed the same two ways on the same inputs, interleaved. Per case the
medians over CTAs of each phase (µs, from the CTA's own cycle count at the clock its globaltimer saw) and the
spread of entries and exits across CTAs. A measurement build only: TRACE_PTR changes nothing unless set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from typing import Any

import torch

TRACE_WORDS = 16  # kernels/include/cta_trace.cuh
POINTS = ["smid", "gt_entry", "entry", "init_done", "dep_done", "first_load", "last_load", "tail_done",
          "first_data", "loop_end", "epi_end", "gt_exit", "exit", "units", "ktiles"]
MAX_CTAS = 4096
DEFAULT_CASES = ("300x768x3072:64x48x64,300x6144x4096:128x152x64T,300x6144x4096:192x80x64Trn,"
                 "512x1280x8192:128x80x64k2,512x1280x8192:64x96x64Tc8,2048x768x64:128x96x64n,4096x4096x4096:auto")


def parse_case(text: str) -> tuple[int, int, int, str]:
    shape, _, config = text.partition(":")
    m, n, k = (int(v) for v in shape.lower().split("x"))
    return m, n, k, config or "auto"


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(words: torch.Tensor) -> dict[str, Any]:
    """The last launch's per-CTA words -> medians of the phases (µs) and the spread of entry and exit (µs)."""
    rows = [dict(zip(POINTS, (int(v) for v in r), strict=False)) for r in words.tolist()]
    rows = [r for r in rows if r["gt_entry"] and r["gt_exit"] and r["exit"] > r["entry"]]
    if not rows:
        return {"ctas": 0}
    # cycles per ns from each CTA's own span (globaltimer's ticks may be coarse: the median over CTAs)
    ghz = _median([(r["exit"] - r["entry"]) / (r["gt_exit"] - r["gt_entry"]) for r in rows
                   if r["gt_exit"] > r["gt_entry"]]) or 1.7
    t0 = min(r["gt_entry"] for r in rows)

    def cyc(a: str, b: str) -> list[float]:
        return [(r[b] - r[a]) / ghz / 1e3 for r in rows if r[a] and r[b] and r[b] >= r[a]]

    per_ktile = [(r["loop_end"] - r["first_data"]) / ghz / max(r["ktiles"] - 1, 1)
                 for r in rows if r["first_data"] and r["loop_end"] and r["ktiles"] > 1]
    entries = sorted((r["gt_entry"] - t0) / 1e3 for r in rows)
    exits = sorted((r["gt_exit"] - t0) / 1e3 for r in rows)
    return {
        "ctas": len(rows), "sms": len({r["smid"] for r in rows}), "ghz": ghz,
        "units_per_cta": _median([r["units"] for r in rows]), "ktiles_per_cta": _median([r["ktiles"] for r in rows]),
        "entry_us": {"min": entries[0], "median": statistics.median(entries), "max": entries[-1]},
        "exit_us": {"min": exits[0], "median": statistics.median(exits), "max": exits[-1]},
        "span_us": exits[-1],
        "phases_us": {  # medians over CTAs
            "init (barriers, cluster start)": _median(cyc("entry", "init_done")),
            "wait for the grid before (PDL)": _median(cyc("init_done", "dep_done")),
            "first loads issued": _median(cyc("dep_done", "first_load")),
            "first k-tile arrives": _median(cyc("first_load", "first_data")),
            "main loop (first data to last wgmma)": _median(cyc("first_data", "loop_end")),
            "epilogue of the last unit": _median(cyc("loop_end", "epi_end")),
            "producer: last load to tail released": _median(cyc("last_load", "tail_done")),
            "entry to exit": _median(cyc("entry", "exit")),
        },
        "ns_per_ktile": _median(per_ktile),
    }


def run_case(m: int, n: int, k: int, config: str, trace: torch.Tensor, calls: int, repeats: int) -> dict[str, Any]:
    import tcgemm

    gen = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    per_set = 2 * (m * k + n * k + m * n)
    sets = max(2, min(64, 3 * 50 * 2**20 // per_set + 1))
    xs = [torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(sets)]
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen) / k**0.5 for _ in range(sets)]
    outs = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16) for _ in range(sets)]
    kw: dict[str, Any] = {} if config == "auto" else {"kernel": "wgmma_tma_store", "config": config}

    def ours(i: int) -> None:
        tcgemm.gemm(xs[i], ws[i].t(), out=outs[i], **kw)

    def theirs(i: int) -> None:
        torch.mm(xs[i], ws[i].t(), out=outs[i])

    ours(0)
    err = float((outs[0].double() - xs[0].double() @ ws[0].double().t()).norm() /
                (xs[0].double() @ ws[0].double().t()).norm())
    explain = tcgemm.explain(xs[0], ws[0].t(), **kw) if hasattr(tcgemm, "explain") else None
    kernel = f"{explain.kernel}:{explain.config}" if explain is not None else config

    def isolated(fn: Any) -> float:
        times = []
        for r in range(repeats):
            torch.cuda.synchronize()
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn(r % sets)
            b.record()
            b.synchronize()
            times.append(1e3 * a.elapsed_time(b))
        return statistics.median(times)

    def graphed(fn: Any) -> tuple[torch.cuda.CUDAGraph, float]:
        for i in range(sets):
            fn(i)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(calls):
                fn(i % sets)
        g.replay()
        torch.cuda.synchronize()
        times = []
        for _ in range(repeats // 5 + 3):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            g.replay()
            b.record()
            b.synchronize()
            times.append(1e3 * a.elapsed_time(b) / calls)
        return g, statistics.median(times)

    out: dict[str, Any] = {"m": m, "n": n, "k": k, "config": config, "kernel": kernel, "rel_error": err, "sets": sets}
    for label in ("first", "second"):  # interleaved: ours, theirs, ours, theirs
        iso_ours = isolated(ours)
        trace.zero_()
        ours(0)
        torch.cuda.synchronize()
        tl_iso = summarize(trace.view(MAX_CTAS, TRACE_WORDS).cpu())
        iso_theirs = isolated(theirs)
        g_ours, graph_ours = graphed(ours)
        trace.zero_()
        g_ours.replay()
        torch.cuda.synchronize()
        tl_graph = summarize(trace.view(MAX_CTAS, TRACE_WORDS).cpu())
        del g_ours
        g_theirs, graph_theirs = graphed(theirs)
        del g_theirs
        out[label] = {"isolated_us": {"tcgemm": iso_ours, "cublas": iso_theirs},
                      "graph_us": {"tcgemm": graph_ours, "cublas": graph_theirs},
                      "timeline_isolated": tl_iso, "timeline_graph": tl_graph}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=DEFAULT_CASES, help="comma list of MxNxK:config (config of "
                        "wgmma_tma_store, or auto)")
    parser.add_argument("--calls", type=int, default=20, help="calls per CUDA graph")
    parser.add_argument("--repeats", type=int, default=60, help="isolated launches timed per side")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("cta_timeline: needs a GPU", file=sys.stderr)
        return 2
    trace = torch.zeros(MAX_CTAS * TRACE_WORDS, dtype=torch.int64, device="cuda")
    # Every tcgemm build of this process writes its timeline there (a define of their builds: nothing else reads it).
    # (TCGEMM_DEFINES given to the process, e.g. SPLIT_K_PAIRS=0 for the old path of an A/B, stays beside it.)
    given = os.environ.get("TCGEMM_DEFINES", "").strip()
    os.environ["TCGEMM_DEFINES"] = ",".join(filter(None, [given, f"TRACE_PTR={trace.data_ptr():#x}ull"]))
    from tcgemm.bench import environment

    results = []
    for text in args.cases.split(","):
        m, n, k, config = parse_case(text)
        with torch.inference_mode():
            row = run_case(m, n, k, config, trace, args.calls, args.repeats)
        results.append(row)
        for label in ("first", "second"):
            r = row[label]
            tl = r["timeline_graph"]
            print(f"{m}x{n}x{k} {row['kernel']:34s} {label}: graph {r['graph_us']['tcgemm']:7.2f} vs cuBLAS "
                  f"{r['graph_us']['cublas']:7.2f} us, isolated {r['isolated_us']['tcgemm']:7.2f} vs "
                  f"{r['isolated_us']['cublas']:7.2f}; span {tl.get('span_us', 0):.2f} us, ctas {tl.get('ctas')}")
        for mode in ("timeline_isolated", "timeline_graph"):
            tl = row["second"][mode]
            if not tl.get("ctas"):
                continue
            print(f"   {mode}: {tl['ctas']} CTAs at {tl['ghz']:.2f} GHz, entry +{tl['entry_us']['median']:.2f} "
                  f"(max +{tl['entry_us']['max']:.2f}) exit {tl['exit_us']['min']:.2f}..{tl['exit_us']['max']:.2f} us, "
                  f"{tl['ns_per_ktile'] or 0:.0f} ns/k-tile over {tl['ktiles_per_cta']} k-tiles")
            print("      " + "; ".join(f"{name} {v:.2f}" for name, v in tl["phases_us"].items() if v is not None))
        with open(args.json, "w") as f:
            json.dump({"environment": environment(), "defines": given, "rows": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
