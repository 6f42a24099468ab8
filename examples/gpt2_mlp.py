#!/usr/bin/env python3
"""GPT-2-small block forward with torch.nn.Linear and with tcgemm.nn.Linear, fp16 and bf16.

The block's linear layers are GPT-2 small's: attention qkv 768 -> 2304 and out-proj 768 -> 768, MLP
768 -> 3072 -> 768 with GELU (tanh) between, on batch x seq tokens (default 8 x 1024), random weights.
Attention itself is skipped by default (out-proj reads the v third of qkv's output; LayerNorm,
GELU and the residual adds run as usual) or, with --attention sdpa, done by torch's
scaled_dot_product_attention — the same in both models, so only the Linear class differs. The
tcgemm model loads the torch model's state dict.

Both are checked against each other (relative Frobenius error of the block's update within the
precision's tolerance) and timed with CUDA events (warm-up, median of many runs); it prints tokens/s
for both and their ratio. --json FILE writes the rows and the environment (GPU, driver, CUDA, torch,
tcgemm, git commit, date). The same benchmark: ``tcgemm bench --model gpt2``.

Run from a checkout:  PYTHONPATH=src python examples/gpt2_mlp.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tcgemm.model_bench import ATTENTION, PRECISIONS, GPT2Config, bench_gpt2, record, require_gpu, summary_lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--precisions", default="fp16,bf16", help=f"comma list of {', '.join(PRECISIONS)}")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--attention", choices=ATTENTION, default="none", help="skip attention or run torch SDPA")
    parser.add_argument("--budget", type=float, default=2.0, help="seconds of timed runs per model and precision")
    parser.add_argument("--json", help="write the results record to this file")
    args = parser.parse_args(argv)
    try:
        require_gpu()
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cfg = GPT2Config(batch=args.batch, seq=args.seq)
    print(f"GPT-2-small block, {cfg.batch}x{cfg.seq} tokens, attention: {args.attention}")
    rows = bench_gpt2([p.strip() for p in args.precisions.split(",") if p.strip()], cfg, args.attention,
                      args.budget, on_row=lambda r: print(summary_lines([r])[0], flush=True))
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record(rows, cfg, args.attention), indent=1, default=str))
        print(f"results written to {path}")
    return 1 if any(r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
