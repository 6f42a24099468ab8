#!/usr/bin/env python3
"""A Hugging Face transformers Llama with every Linear swapped for tcgemm's: prefill and decode tokens/s.

The model is transformers' LlamaForCausalLM built from a LlamaConfig with random weights (nothing is
downloaded): Llama-3-8B's dimensions (hidden 4096, MLP 14336, 32 heads, 8 KV heads, vocab 128256,
rope theta 500000) but --layers 4 by default, in bf16, SDPA attention, on the GPU. One model object is
measured both ways: tcgemm.nn.replace_linear swaps its 7 projections per layer and lm_head for
tcgemm.nn.Linear (sharing the parameters) and tcgemm.nn.restore_linear swaps them back, so the only
difference is the Linear class; torch and tcgemm runs alternate (interleaved rounds, the order flipping
each round) and each figure is the median of --repeats rounds, between CUDA events, after warm-up; the
rows also give the paired ratio, the median over rounds of torch's time over tcgemm's in the same round.

Measured:
  prefill  the forward of whole prompts (batch x tokens, --prefill, default 1x2048 and 8x512) without a
           cache, logits of the last position only (logits_to_keep=1, as generation does): tokens/s =
           batch x tokens / median time. "eager": one Python forward; "graph": that forward captured once
           per implementation in a torch.cuda.CUDAGraph after warm-up, replayed (the GPU's time alone).
  decode   after a --context-token prompt in transformers' StaticCache, --new-tokens greedy steps of one
           token per sequence (--decode-batches, default 1 and 16): tokens/s = batch x new tokens / median
           time of the whole run. "eager": one Python forward per step. "graph": one decode step (forward,
           argmax, feeding the token back) captured once per implementation in a torch.cuda.CUDAGraph
           after warm-up, replayed per token; the StaticCache's position counter lives on the GPU, so
           replays advance it (it is rewound between runs). No torch.compile.
  train    with --train BxT: a training step's forward and backward (next-token loss, no optimizer step),
           tcgemm's backward GEMMs included; with --fuse-mlp the MLPs' gating runs unfused there (autograd).
  correct  the relative error (Frobenius, float64) of the full prefill logits (every position, first
           --prefill shape) and of one decode step's logits, tcgemm against torch; it must be within
           --tolerance (default 2e-2, bf16) or the exit status is 1.
  kernels  the kernel:config tcgemm launches for each distinct Linear shape (M, N, K) at each prefill
           and decode M, from tcgemm.launch.trace() around one untimed forward.

--json FILE writes tcgemm.bench.environment() (GPU, driver, CUDA, torch, commit, date), the config and
the rows. The default run takes a few minutes at most on an H100 (kernel compilation included).

Run from a checkout:  PYTHONPATH=src python examples/llama_transformers.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

import tcgemm.nn
from tcgemm import launch

IMPLS = ("torch", "tcgemm")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


# --- the model -----------------------------------------------------------------------------------

def build_model(args: argparse.Namespace, device: str) -> torch.nn.Module:
    """LlamaForCausalLM with random weights, in args.dtype on ``device``, eval mode."""
    try:
        from transformers import LlamaConfig, LlamaForCausalLM
    except ImportError as exc:
        raise RuntimeError("this example needs transformers (pip install transformers)") from exc
    longest = max([t for _b, t in args.prefill] + [args.context + args.new_tokens + 1])
    cfg = LlamaConfig(hidden_size=args.hidden, intermediate_size=args.intermediate, num_hidden_layers=args.layers,
                      num_attention_heads=args.heads, num_key_value_heads=args.kv_heads, vocab_size=args.vocab,
                      rope_theta=args.rope_theta, max_position_embeddings=max(8192, longest),
                      attn_implementation="sdpa")
    torch.manual_seed(args.seed)
    with torch.device(device):
        model = LlamaForCausalLM(cfg)
    return model.to(DTYPES[args.dtype]).eval()


# --fuse-mlp: each decoder layer's MLP as a tcgemm.mlp.GatedMLP (gate and up in one GEMM, SwiGLU in its epilogue),
# built once per MLP (its stacked gate_up weight is a copy) and swapped in and out with the Linear layers.
FUSE_MLP = {"on": False}
_fused: dict[int, torch.nn.Module] = {}
# Each implementation's modules by qualified name, kept from its first switch: later switches put the same
# objects back. (Converting again each round gave every timed tcgemm round new tcgemm.nn.Linear objects, whose
# first call builds the launch a user's model builds once: the rounds timed that first call, 17 times a step.)
_kept: dict[tuple[int, str], dict[str, torch.nn.Module]] = {}


def _swappable(module: torch.nn.Module) -> bool:
    return isinstance(module, torch.nn.Linear) or type(module).__name__ in ("LlamaMLP", "GatedMLP")


def switch(model: torch.nn.Module, impl: str) -> None:
    """Give the model ``impl``'s Linear layers: tcgemm (replace_linear; with --fuse-mlp also the fused MLPs) or
    torch (restore_linear). From the second switch to ``impl`` on, the modules of its first are put back."""
    kept = _kept.get((id(model), impl))
    if kept is not None:
        for name, module in kept.items():  # (parents before children: named_modules' order)
            parent, _, child = name.rpartition(".")
            model.get_submodule(parent)._modules[child] = module
        return
    if impl == "tcgemm":
        tcgemm.nn.replace_linear(model)
        if FUSE_MLP["on"]:
            for layer in model.model.layers:
                if not isinstance(layer.mlp, tcgemm.mlp.GatedMLP):
                    key = id(layer.mlp)
                    if key not in _fused:
                        _fused[key] = tcgemm.mlp.GatedMLP.from_hf(layer.mlp, keep_original=True)
                    layer.mlp = _fused[key]
    else:
        tcgemm.mlp.unfuse_mlp(model)
        tcgemm.nn.restore_linear(model)
    _kept[(id(model), impl)] = {name: m for name, m in model.named_modules() if name and _swappable(m)}


# --- timing --------------------------------------------------------------------------------------

class Timer:
    """Milliseconds between two points of the device's stream: CUDA events, or the host clock on the CPU."""

    def __init__(self, device: str) -> None:
        self.cuda = device.startswith("cuda")
        self.pairs: list[tuple[object, object]] = []

    def __call__(self, fn: Callable[[], None]) -> None:
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
        else:
            start = time.perf_counter()
            fn()
            end = time.perf_counter()
        self.pairs.append((start, end))

    def ms(self) -> list[float]:
        if self.cuda:
            torch.cuda.synchronize()
            return [s.elapsed_time(e) for s, e in self.pairs]
        return [(e - s) * 1e3 for s, e in self.pairs]


def interleaved(model: torch.nn.Module, run: dict[str, Callable[[], None]], repeats: int, warmup: int,
                device: str, swap: bool = True) -> dict[str, list[float]]:
    """Milliseconds of ``run[impl]()`` for each impl, in ``repeats`` rounds that alternate the impls
    (the order flips every round) after ``warmup`` untimed calls of each. ``swap``: switch the model's
    Linear layers to the impl first (not needed for CUDA graphs: a graph keeps the kernels it captured)."""
    timers = {impl: Timer(device) for impl in run}
    for impl in run:
        if swap:
            switch(model, impl)
        for _ in range(warmup):
            run[impl]()
    for r in range(repeats):
        for impl in (IMPLS if r % 2 == 0 else IMPLS[::-1]):
            if swap:
                switch(model, impl)
            timers[impl](run[impl])
    return {impl: t.ms() for impl, t in timers.items()}


@dataclass
class Row:
    phase: str  # "prefill" or "decode"
    mode: str  # "eager" or "graph"
    batch: int
    tokens: int  # prompt tokens (prefill) or new tokens per sequence (decode)
    context: int  # tokens already in the cache (decode), 0 for prefill
    torch_ms: float  # medians over the rounds
    tcgemm_ms: float
    torch_tokens_per_s: float
    tcgemm_tokens_per_s: float
    ratio: float  # tcgemm tokens/s over torch's (of the medians)
    rounds: int
    torch_ms_all: list[float] = field(default_factory=list)
    tcgemm_ms_all: list[float] = field(default_factory=list)
    # The median over rounds of torch's time / tcgemm's in the same round (adjacent in time): what drift of the
    # host's or the GPU's speed over the run (single eager decode rounds ranged 222-414 ms) leaves out of `ratio`.
    paired_ratio: float = 0.0

    def line(self) -> str:
        what = f"{self.phase} {self.mode:5s} {self.batch:3d} x {self.tokens:5d}"
        return (f"{what}  torch {self.torch_tokens_per_s:12,.0f} tok/s  tcgemm {self.tcgemm_tokens_per_s:12,.0f} "
                f"tok/s  ratio {self.ratio:.3f}x  paired {self.paired_ratio:.3f}x  ({self.rounds} rounds)")


def make_row(phase: str, mode: str, batch: int, tokens: int, context: int, ms: dict[str, list[float]]) -> Row:
    med = {impl: statistics.median(ms[impl]) for impl in IMPLS}
    rate = {impl: batch * tokens / (med[impl] / 1e3) for impl in IMPLS}
    paired = statistics.median(t / c for t, c in zip(ms["torch"], ms["tcgemm"], strict=True))
    return Row(phase, mode, batch, tokens, context, med["torch"], med["tcgemm"], rate["torch"], rate["tcgemm"],
               rate["tcgemm"] / rate["torch"], len(ms["torch"]), ms["torch"], ms["tcgemm"], paired)


# --- prefill -------------------------------------------------------------------------------------

def random_ids(batch: int, tokens: int, vocab: int, device: str, seed: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, tokens), generator=gen).to(device)


def capture(fn: Callable[[], object], warmup: int = 2,
            between: Callable[[], object] | None = None) -> torch.cuda.CUDAGraph:
    """``fn`` captured in a CUDA graph, after ``warmup`` calls on a side stream (as torch's docs do it);
    ``between``: called after the warm-up, before the capture."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    if between is not None:
        between()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph


@torch.no_grad()
def bench_prefill(model: torch.nn.Module, batch: int, tokens: int, args: argparse.Namespace, device: str,
                  graphs: bool = False, progress: Callable[[str], None] = print) -> list[Row]:
    """Eager, then (``graphs``) each implementation's forward captured once in a CUDA graph and replayed: the GPU's
    time alone, as a serving stack that graphs its prefill buckets sees it."""
    ids = random_ids(batch, tokens, model.config.vocab_size, device, args.seed + 1)

    def forward() -> None:
        model(ids, use_cache=False, logits_to_keep=1)

    ms = interleaved(model, {impl: forward for impl in IMPLS}, args.repeats, args.warmup, device)
    rows = [make_row("prefill", "eager", batch, tokens, 0, ms)]
    if graphs:
        captured = {}
        try:
            for impl in IMPLS:
                switch(model, impl)
                captured[impl] = capture(forward)
        except RuntimeError as exc:  # (reported, not fatal: the eager row stands)
            progress(f"prefill {batch} x {tokens}: CUDA-graph capture failed ({exc}); no graph row")
            return rows
        run = {impl: g.replay for impl, g in captured.items()}
        ms = interleaved(model, run, args.repeats, 1, device, swap=False)
        rows.append(make_row("prefill", "graph", batch, tokens, 0, ms))
        del captured, run  # (the graphs' memory pools, before the next shape)
    return rows


def bench_train(model: torch.nn.Module, batch: int, tokens: int, args: argparse.Namespace, device: str) -> Row:
    """One training step's forward and backward (next-token loss over every position; no optimizer step): the
    backward's GEMMs are tcgemm's too (tcgemm.nn.Linear's autograd; a GatedMLP runs its gating unfused there)."""
    ids = random_ids(batch, tokens, model.config.vocab_size, device, args.seed + 5)
    step = train_step(model, ids)
    ms = interleaved(model, {impl: step for impl in IMPLS}, args.train_repeats, 1, device)
    for p in model.parameters():
        p.grad = None
    return make_row("train", "eager", batch, tokens, 0, ms)


def train_step(model: torch.nn.Module, ids: torch.Tensor) -> Callable[[], None]:
    """One forward + backward of the next-token loss on ``ids`` (gradients dropped first, no optimizer step)."""

    def step() -> None:
        # The model's parameters now: --fuse-mlp swaps in GatedMLPs with parameters of their own. (A list taken
        # once, before the swap, left their .grad in place, so every tcgemm step added each gate_up gradient to
        # the last one: 0.87 ms a step of bf16 adds, 2026-11-26-h100-train-kernels-e58b6b0.json.)
        for p in model.parameters():
            p.grad = None
        with torch.enable_grad():
            model(ids, labels=ids, use_cache=False).loss.backward()

    return step


# --- decode --------------------------------------------------------------------------------------

class Decoder:
    """Greedy one-token steps of ``batch`` sequences through a StaticCache holding a ``context``-token
    prompt; ``rewind()`` puts the cache back at the prompt's end (the KV beyond it is overwritten)."""

    def __init__(self, model: torch.nn.Module, batch: int, context: int, new_tokens: int, device: str,
                 seed: int) -> None:
        from transformers import StaticCache

        self.model, self.context = model, context
        self.cache = StaticCache(config=model.config, max_cache_len=context + new_tokens + 1)
        prompt = random_ids(batch, context, model.config.vocab_size, device, seed)
        with torch.no_grad():
            logits = model(prompt, past_key_values=self.cache, use_cache=True, logits_to_keep=1).logits
        self.first = logits[:, -1].argmax(-1, keepdim=True)  # the first generated token, fixed for every run
        self.token = self.first.clone()  # the step's input, updated in place (a CUDA graph's static input)
        self.layers = getattr(self.cache, "layers", None)
        if not self.layers or not all(hasattr(layer, "cumulative_length") for layer in self.layers):
            raise RuntimeError("this example needs transformers 5.x's StaticCache (layers with a cumulative_length "
                               "tensor); install transformers>=5")

    def rewind(self) -> None:
        for layer in self.layers:
            layer.cumulative_length.fill_(self.context)
        self.token.copy_(self.first)

    @torch.no_grad()
    def step(self) -> torch.Tensor:
        logits = self.model(self.token, past_key_values=self.cache, use_cache=True).logits[:, -1]
        self.token.copy_(logits.argmax(-1, keepdim=True))
        return logits

    def run(self, steps: int, step: Callable[[], object]) -> None:
        self.rewind()
        for _ in range(steps):
            step()

    def capture(self, warmup: int = 3) -> torch.cuda.CUDAGraph:
        """One decode step captured in a CUDA graph (after ``warmup`` steps on a side stream)."""
        self.rewind()
        graph = capture(self.step, warmup, between=self.rewind)
        self.rewind()
        return graph


def bench_decode(model: torch.nn.Module, batch: int, args: argparse.Namespace, device: str,
                 graphs: bool) -> list[Row]:
    dec = Decoder(model, batch, args.context, args.new_tokens, device, args.seed + 2)
    n = args.new_tokens
    # (eager decode is host-bound: single rounds on the device machines ranged 250-535 ms for the same work, so it
    # takes more rounds than the GPU-bound modes for a steady median)
    ms = interleaved(model, {impl: lambda: dec.run(n, dec.step) for impl in IMPLS}, args.eager_decode_repeats, 1,
                     device)
    rows = [make_row("decode", "eager", batch, n, args.context, ms)]
    if graphs:
        captured = {}
        for impl in IMPLS:
            switch(model, impl)
            captured[impl] = dec.capture()
        run = {impl: (lambda g=g: dec.run(n, g.replay)) for impl, g in captured.items()}
        ms = interleaved(model, run, args.repeats, 1, device, swap=False)
        rows.append(make_row("decode", "graph", batch, n, args.context, ms))
    return rows


# --- correctness and kernels ---------------------------------------------------------------------

def relative_error(x: torch.Tensor, ref: torch.Tensor) -> float:
    x64, ref64 = x.double(), ref.double()
    denom = torch.linalg.vector_norm(ref64).item()
    diff = torch.linalg.vector_norm(x64 - ref64).item()
    return diff / denom if denom > 0 else diff


@torch.no_grad()
def check(model: torch.nn.Module, args: argparse.Namespace, device: str) -> dict[str, float]:
    """tcgemm's logits against torch's: a full prefill (every position) and one decode step."""
    batch, tokens = args.prefill[0]
    ids = random_ids(batch, tokens, model.config.vocab_size, device, args.seed + 3)
    dec = Decoder(model, args.decode_batches[0], args.context, 1, device, args.seed + 4)
    logits: dict[str, tuple[torch.Tensor, torch.Tensor]] = {}
    for impl in IMPLS:
        switch(model, impl)
        full = model(ids, use_cache=False).logits
        dec.rewind()
        logits[impl] = (full, dec.step())
    return {"prefill_rel_error": relative_error(logits["tcgemm"][0], logits["torch"][0]),
            "decode_rel_error": relative_error(logits["tcgemm"][1], logits["torch"][1]),
            "prefill_shape": [batch, tokens], "decode_batch": args.decode_batches[0]}


def trace_kernels(model: torch.nn.Module, phase: str, forward: Callable[[], object]) -> list[dict[str, object]]:
    """The kernel:config tcgemm launches per distinct Linear shape (M, N, K) in one untimed ``forward``."""
    shapes: dict[tuple[int, int, int], dict[str, set[str]]] = {}
    starts: list[int] = []
    handles = []
    switch(model, "tcgemm")
    with launch.trace() as seen:
        def pre(_module: torch.nn.Module, _inputs: tuple) -> None:
            starts.append(len(seen))

        def post(module: torch.nn.Module, inputs: tuple, _output: object, name: str) -> None:
            m = inputs[0].numel() // module.in_features
            entry = shapes.setdefault((m, module.out_features, module.in_features), {"layers": set(), "kernels": set()})
            entry["layers"].add(name.rsplit(".", 1)[-1])
            entry["kernels"].update(seen[starts.pop():])

        for name, layer in model.named_modules():
            if isinstance(layer, tcgemm.nn.Linear):
                handles.append(layer.register_forward_pre_hook(pre))
                handles.append(layer.register_forward_hook(lambda mod, i, o, name=name: post(mod, i, o, name)))
        try:
            with torch.no_grad():
                forward()
        finally:
            for h in handles:
                h.remove()
    return [{"phase": phase, "m": m, "n": n, "k": k, "layers": sorted(v["layers"]), "kernels": sorted(v["kernels"])}
            for (m, n, k), v in sorted(shapes.items())]


def all_kernels(model: torch.nn.Module, args: argparse.Namespace, device: str) -> list[dict[str, object]]:
    rows = []
    for batch, tokens in args.prefill:
        ids = random_ids(batch, tokens, model.config.vocab_size, device, args.seed + 5)
        rows += trace_kernels(model, f"prefill {batch}x{tokens}",
                              lambda ids=ids: model(ids, use_cache=False, logits_to_keep=1))
    for batch in args.decode_batches:
        dec = Decoder(model, batch, args.context, 1, device, args.seed + 6)
        rows += trace_kernels(model, f"decode batch {batch}", lambda dec=dec: (dec.rewind(), dec.step()))
    return rows


# --- the run -------------------------------------------------------------------------------------

def measure(args: argparse.Namespace, device: str = "cuda", graphs: bool = True,
            progress: Callable[[str], None] = print) -> dict[str, object]:
    """Build the model, check, trace and time it; the results record (without the environment)."""
    started = time.perf_counter()
    model = build_model(args, device)
    n_params = sum(p.numel() for p in model.parameters())
    progress(f"Llama, {args.layers} layers, hidden {args.hidden}, MLP {args.intermediate}, {args.heads} heads "
             f"({args.kv_heads} KV), vocab {args.vocab}, {args.dtype}: {n_params / 1e9:.2f} B parameters "
             f"({time.perf_counter() - started:.0f} s to build)")
    swapped = tcgemm.nn.replace_linear(model)
    tcgemm.nn.restore_linear(model)
    progress(f"replace_linear swaps {swapped} layers")
    correct = check(model, args, device)
    correct["tolerance"] = args.tolerance
    correct["passed"] = max(correct["prefill_rel_error"], correct["decode_rel_error"]) <= args.tolerance
    progress(f"logits, tcgemm vs torch: prefill rel. error {correct['prefill_rel_error']:.2e}, decode step "
             f"{correct['decode_rel_error']:.2e} (tolerance {args.tolerance:g}): "
             f"{'ok' if correct['passed'] else 'FAILED'}")
    kernels = all_kernels(model, args, device)
    for k in kernels:
        progress(f"  {k['phase']:>18s}  M={k['m']:<5d} N={k['n']:<6d} K={k['k']:<5d} {','.join(k['layers']):24s} "
                 f"{' '.join(k['kernels'])}")
    rows: list[Row] = []
    for batch, tokens in args.prefill:
        for row in bench_prefill(model, batch, tokens, args, device, graphs, progress):
            rows.append(row)
            progress(row.line())
    for batch in args.decode_batches:
        for row in bench_decode(model, batch, args, device, graphs):
            rows.append(row)
            progress(row.line())
    for batch, tokens in args.train:
        rows.append(bench_train(model, batch, tokens, args, device))
        progress(rows[-1].line())
    progress(f"done in {time.perf_counter() - started:.0f} s")
    return {"config": config_record(args, swapped, n_params), "correctness": correct, "kernels": kernels,
            "rows": [asdict(r) for r in rows]}


def config_record(args: argparse.Namespace, swapped: int, n_params: int) -> dict[str, object]:
    config = {k: v for k, v in vars(args).items() if k != "json"}
    config.update(model="transformers LlamaForCausalLM (random weights)", attention="sdpa", parameters=n_params,
                  layers_swapped=swapped, timing="CUDA events, median of interleaved rounds",
                  decode_graph="torch.cuda.CUDAGraph of one decode step, replayed per token (no torch.compile)",
                  prefill_graph="torch.cuda.CUDAGraph of one prefill forward per shape, replayed")
    return config


def _shapes(text: str) -> list[tuple[int, int]]:
    try:
        pairs = [tuple(int(v) for v in item.lower().split("x")) for item in text.split(",") if item.strip()]
    except ValueError:
        pairs = [()]
    if not pairs or any(len(p) != 2 or min(p) < 1 for p in pairs):
        raise argparse.ArgumentTypeError(f"--prefill takes BATCHxTOKENS pairs, comma separated (e.g. 1x2048,8x512); "
                                         f"got {text!r}")
    return pairs


def _ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, comma separated (e.g. 1,16); got {text!r}")
    return values


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--layers", type=int, default=4, help="decoder layers (Llama-3-8B has 32; default 4)")
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--intermediate", type=int, default=14336)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=8)
    p.add_argument("--vocab", type=int, default=128256)
    p.add_argument("--rope-theta", type=float, default=500000.0)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--prefill", type=_shapes, default=_shapes("1x2048,8x512"), help="BATCHxTOKENS list")
    p.add_argument("--decode-batches", type=_ints, default=_ints("1,16"), help="batch sizes of the decode runs")
    p.add_argument("--new-tokens", type=int, default=64, help="tokens generated per sequence in a decode run")
    p.add_argument("--context", type=int, default=128, help="prompt tokens in the cache before decoding")
    p.add_argument("--repeats", type=int, default=7, help="timed rounds per measurement (median reported)")
    p.add_argument("--eager-decode-repeats", type=int, default=21,
                   help="timed rounds of the eager decode runs, which the host's speed bounds (default 21)")
    p.add_argument("--train-repeats", type=int, default=15,
                   help="timed rounds of the training step (its times drift with the GPU's clock: default 15)")
    p.add_argument("--warmup", type=int, default=2, help="untimed prefill forwards per implementation")
    p.add_argument("--no-graphs", action="store_true", help="skip the CUDA-graph prefill and decode runs")
    p.add_argument("--tolerance", type=float, default=2e-2, help="largest relative error of the logits")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--train", type=_shapes, default=[], metavar="BxT[,BxT]",
                   help="also time a training step's forward + backward at these batch x tokens (e.g. 1x2048)")
    p.add_argument("--fuse-mlp", action="store_true",
                   help="tcgemm side: each MLP as tcgemm.mlp.GatedMLP (gate_up in one GEMM with SwiGLU in its "
                        "epilogue, then down) besides the swapped Linear layers")
    p.add_argument("--json", help="write the results record (environment, config, rows) to this file")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    FUSE_MLP["on"] = args.fuse_mlp
    if not torch.cuda.is_available():
        print("error: this example needs a CUDA GPU and none is visible (tcgemm runs on CUDA tensors only)",
              file=sys.stderr)
        return 2
    from tcgemm import bench

    record = {"environment": bench.environment(), **measure(args, "cuda", graphs=not args.no_graphs)}
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1, default=str))
        print(f"results written to {path}")
    return 0 if record["correctness"]["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
