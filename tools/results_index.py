"""Write benchmarks/results/README.md: which result files are the current figures, and the rest as history.

    python3 tools/results_index.py            # rewrite the index
    python3 tools/results_index.py --check    # exit 1 if the committed index is not what this writes

The current files are named below (CURRENT); every other file is listed under its kind (the word after
`<date>-h100-` in its name: release, explore, ab, power, ncu, ...) with the dates the kind spans. A CPU test
(tests/cpu/test_results_index.py) fails when a file is added without rewriting the index.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
INDEX = RESULTS / "README.md"

# (what, [files]): the newest release runs per precision and the model-level runs that the README and
# docs/ladder.md / docs/models.md quote. Older files that the ladder tables still read for shapes the
# newest runs did not time are listed under the tables in docs/ladder.md.
CURRENT: list[tuple[str, list[str]]] = [
    ("bf16 and fp16 `auto` vs cuBLAS (commit 7b0afa1: three processes each); the README's headline",
     ["2026-11-28-h100-release-bf16-1-7b0afa1.json", "2026-11-28-h100-release-bf16-2-7b0afa1.json",
      "2026-11-28-h100-release-bf16-3-7b0afa1.json", "2026-11-28-h100-release-fp16-1-7b0afa1.json",
      "2026-11-28-h100-release-fp16-2-7b0afa1.json", "2026-11-28-h100-release-fp16-3-7b0afa1.json"]),
    ("bf16 and fp16 ladders at 4096³ (commit 4810406)",
     ["2026-11-24-h100-release-bf16-1-4810406.json", "2026-11-24-h100-release-bf16-2-4810406.json",
      "2026-11-24-h100-release-bf16-3-4810406.json", "2026-11-24-h100-release-fp16-1-4810406.json",
      "2026-11-24-h100-release-fp16-2-4810406.json", "2026-11-24-h100-release-fp16-3-4810406.json"]),
    ("tf32 ladder and `auto` (commit 64a7a42)",
     ["2026-11-24-h100-release-tf32-1-64a7a42.json", "2026-11-24-h100-release-tf32-2-64a7a42.json",
      "2026-11-24-h100-release-tf32-3-64a7a42.json"]),
    ("int8 ladder and `auto`, B row- and column-major (commit 4810406)",
     ["2026-11-24-h100-release-int8-rr-4810406.json", "2026-11-24-h100-release-int8-rc-4810406.json"]),
    ("fp8 e4m3 `auto` (commit 38afd91) and ladder (d5d69b4); fp8 e5m2 (d5d69b4)",
     ["2026-11-24-h100-release-fp8e4m3-1-38afd91.json", "2026-11-24-h100-release-fp8e4m3-2-38afd91.json",
      "2026-11-23-h100-fp8-ladder-d5d69b4.json", "2026-11-23-h100-fp8e5m2-ladder-d5d69b4.json"]),
    ("fp32 SIMT ladder", ["2026-11-22-h100-fp32-ladder.json"]),
    ("the ladder and auto pictures (tools/make_plots.py)", ["h100-ladder.png", "h100-auto-vs-cublas.png"]),
    ("real models: decoder-layer Linears (commit a7883c2), a decode step in one CUDA graph against a "
     "streaming kernel (a7883c2, three processes), host time per call (0a77b2f), the transformers example "
     "(d844113); docs/models.md",
     ["2026-11-25-h100-models-a7883c2.json", "2026-11-25-h100-models-a7883c2.png",
      "2026-11-25-h100-decode-step-a7883c2.json",
      "2026-11-25-h100-host-time-0a77b2f.json", "2026-11-25-h100-llama-transformers-d844113.json"]),
    ("real models at f196fac: decoder-layer Linears at M = 1…8192 and at M = 3, 48, 300, 3000 (empty tune "
     "cache), three processes each; the README's table; the default bf16 sweep (rc) of the same run",
     ["2026-11-26-h100-models-f196fac-p1.json", "2026-11-26-h100-models-f196fac-p2.json",
      "2026-11-26-h100-models-f196fac-p3.json", "2026-11-26-h100-models-odd-m-f196fac-p1.json",
      "2026-11-26-h100-models-odd-m-f196fac-p2.json", "2026-11-26-h100-models-odd-m-f196fac-p3.json",
      "2026-11-26-h100-bench-bf16-rc-default-f196fac.json"]),
    ("GPU tests at 709e52c (every kernel and config, the split-K and 128 x 176 configs of this day included) and "
     "at 42030cd (the configs of their own layouts, 16-bit D)",
     ["2026-11-26-h100-gpu-tests-709e52c.log", "2026-11-26-h100-gpu-tests-42030cd.log"]),
    ("GPU tests at 56431c8 (every kernel, config and CUDA-graph capture; one test's operand layout fixed "
     "after it) and their property test; the stream-K tests at a7883c2; compute-sanitizer on the decode "
     "kernel (74bc2ba)",
     ["2026-11-25-h100-gpu-tests-56431c8.log", "2026-11-25-h100-hostile-56431c8.json",
      "2026-11-25-h100-gpu-tests-stream-k-a7883c2.log", "2026-11-25-h100-sanitize-swap-ab-74bc2ba.json"]),
    ("tensor parallel on two H100s (commit e54d3ac; the same schedules at 3edf2c4, b99a1d8 and 20fcae5 for the "
     "spread): "
     "all-gather + GEMM and GEMM + reduce-scatter against the GEMM alone, NCCL then cuBLAS and PyTorch async-TP, "
     "eager and CUDA graphs (README, docs/tensor-parallel.md); the GPU tests on that machine (a7637ba: all; "
     "e54d3ac: the 2-GPU test three times)",
     ["2026-11-26-h100-tp2-graphs-e54d3ac.json", "2026-11-26-h100-tp2-graphs-3edf2c4.json",
      "2026-11-26-h100-tp2-graphs-b99a1d8.json", "2026-11-26-h100-tp2-graphs-20fcae5.json",
      "2026-11-26-h100-tp2-gpu-tests-a7637ba.log",
      "2026-11-26-h100-tp2-gpu-tests-e54d3ac.log"]),
    ("GPU tests at b99a1d8 (every kernel: the whole-matrix C epilogue of that day) and the C-epilogue A/B",
     ["2026-11-26-h100-gpu-tests-b99a1d8.log", "2026-11-26-h100-explore-c-epilogue-b99a1d8.json"]),
    ("gated layers in training through tcgemm.gating's kernels (one GEMM each way): the transformers Llama with "
     "`--fuse-mlp --train 1x2048`, three processes each at ea2c674 and 371b85a (whose step left GatedMLP's "
     "gradients to accumulate) and at 166345e (fixed; eager decode in 21 rounds); the training step's kernels "
     "(371b85a; by whole name at e58b6b0, which found the adds, and 166345e); the GPU tests at 371b85a (tests/gpu: "
     "7064 passed) and the first gating tests' failure at ea2c674 (no device context); the fused bench at 371b85a "
     "(no cuBLASLt: nvmath-python 0.5 needs cuda.core.experimental) and at e58b6b0 (nvmath-python 1.0.0)",
     ["2026-11-26-h100-llama-transformers-fuse-mlp-train-ea2c674-p1.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-ea2c674-p2.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-ea2c674-p3.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-371b85a-p1.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-371b85a-p2.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-371b85a-p3.json",
      "2026-11-26-h100-train-kernels-371b85a.txt", "2026-11-26-h100-gpu-tests-371b85a.log",
      "2026-11-26-h100-gpu-tests-gating-ea2c674-no-device-context.log", "2026-11-26-h100-fused-371b85a.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-166345e-p1.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-166345e-p2.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-166345e-p3.json",
      "2026-11-26-h100-train-kernels-e58b6b0.txt", "2026-11-26-h100-train-kernels-166345e.txt",
      "2026-11-26-h100-fused-e58b6b0.json", "2026-11-26-h100-gpu-tests-gating-67a57f1.log"]),
    ("decode at M <= 8: the 16-token ring against the 8-token one at small weights (67a57f1), and the model bench "
     "of qwen2.5-7b and llama3-70b-tp8 at M = 1, 3, 8 after auto yields 8-14 Mi-element weights to it (175c397)",
     ["2026-11-26-h100-explore-decode-o-67a57f1.json", "2026-11-26-h100-explore-decode-m1-67a57f1.json",
      "2026-11-26-h100-models-decode-qwen-70b-175c397.json"]),
    ("fused epilogues (issue 28): `python -m tcgemm.fused_bench` (SwiGLU gate_up and bias + GELU against torch, "
     "torch.compile and cuBLASLt's GELU_BIAS; f6d16a0, and 5d6488b with max-autotune), the transformers Llama "
     "with and without `--fuse-mlp` (1107f4c; three processes with a training step at b27a9f4), the GPT-2 "
     "block with CUDA-graph ratios (three processes: d35d62a, and "
     "278f16b with strided 3-D inputs on the repeat path), the epilogue GPU tests (1107f4c, 278f16b with the nn "
     "and model-bench tests) and the whole GPU suite (d35d62a: the two block-row tests updated after it)",
     ["2026-11-26-h100-fused-f6d16a0.json", "2026-11-26-h100-fused-5d6488b.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-1107f4c.json", "2026-11-26-h100-llama-transformers-1107f4c.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-b27a9f4-p1.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-b27a9f4-p2.json",
      "2026-11-26-h100-llama-transformers-fuse-mlp-train-b27a9f4-p3.json",
      "2026-11-26-h100-gpt2-block-fused-d35d62a-p1.json", "2026-11-26-h100-gpt2-block-fused-d35d62a-p2.json",
      "2026-11-26-h100-gpt2-block-fused-d35d62a-p3.json", "2026-11-26-h100-gpt2-block-fused-278f16b-p1.json",
      "2026-11-26-h100-gpt2-block-fused-278f16b-p2.json", "2026-11-26-h100-gpt2-block-fused-278f16b-p3.json",
      "2026-11-26-h100-gpu-tests-epilogue-1107f4c.log", "2026-11-26-h100-gpu-tests-epilogue-nn-278f16b.log",
      "2026-11-26-h100-gpu-tests-epilogue-b27a9f4.log",
      "2026-11-26-h100-train-kernels-03eb044.txt", "2026-11-26-h100-train-kernels-b27a9f4.txt",
      "2026-11-26-h100-gpu-tests-d35d62a.log"]),
    ("the model bench against torch.nn.Linear modules (gpt2 and llama3-70b-tp8, 1ec6516) and the host cost of one "
     "call per side with cProfile's view of tcgemm's (1ec6516)",
     ["2026-11-27-h100-models-gpt2-70b-module-baseline-1ec6516.json",
      "2026-11-27-h100-module-call-overhead-1ec6516.json", "2026-11-27-h100-module-call-overhead-profile-1ec6516.txt"]),
    ("fp32 with few rows and a column-major weight: A's rows staged in shared memory (simt_skinny; cc311b0 "
     "beside the old build, afee8d7 as auto), and tf32 rc at 16-256 rows on the swap-AB configs (afee8d7 named, "
     "b2aad37 as auto); their GPU tests",
     ["2026-11-27-h100-skinny-staged-cc311b0.json", "2026-11-27-h100-gpu-tests-skinny-cc311b0.txt",
      "2026-11-27-h100-fp32-rc-skinny-afee8d7.json", "2026-11-27-h100-tf32-swap-afee8d7.json",
      "2026-11-27-h100-gpu-tests-tf32-swap-afee8d7.txt", "2026-11-27-h100-tf32-rc-auto-b2aad37.json"]),
    ("a whole-matrix C staged in shared memory ahead of the epilogue (afee8d7: its GPU tests, cut short by the "
     "run's timeout after the staged-C cases passed; its cost against C read from L2, b2aad37): no faster then, "
     "removed (back at 79af308)",
     ["2026-11-27-h100-explore-c-staged-afee8d7.json", "2026-11-27-h100-explore-c-staged-b2aad37.json",
      "2026-11-27-h100-gpu-tests-staged-c-afee8d7-partial.txt"]),
    ("what a whole-matrix C costs tcgemm's 128 x 256 kernel and cuBLAS at 4096 x 8192 x 14336 (Nsight Compute: "
     "the throughput sections at 99268fc, warp stalls by SASS line with and without C at 9dba660)",
     ["2026-11-27-h100-ncu-c-cost-99268fc.txt", "2026-11-27-h100-ncu-stalls-c-9dba660.txt",
      "2026-11-27-h100-ncu-stalls-no-c-9dba660.txt"]),
    ("128 x 224 tiles with the overlapped epilogue against the plain ones (39f79fc, two rounds; no faster, "
     "reverted) and their GPU tests",
     ["2026-11-27-h100-explore-224-overlap-39f79fc-r1.json", "2026-11-27-h100-explore-224-overlap-39f79fc-r2.json",
      "2026-11-27-h100-gpu-tests-224-overlap-39f79fc.txt"]),
    ("two GPUs (issue 29): all-gather + GEMM and GEMM + reduce-scatter with and without two SMs left free beside "
     "the GEMMs (0a05dae: modes tcgemm and tcgemm_r0, CUDA graphs and eager)",
     ["2026-11-27-h100-tp2-graphs-0a05dae.json", "2026-11-27-h100-tp2-graphs-0a05dae.log"]),
    ("the GPU suite at a2d9c7e (one stale expectation, fixed at 0aec0d2 and rerun), and the model bench against "
     "torch.nn.Linear modules in three processes (0aec0d2)",
     ["2026-11-27-h100-gpu-tests-a2d9c7e.log", "2026-11-27-h100-gpu-tests-stream-k-0aec0d2.txt",
      "2026-11-27-h100-models-0aec0d2-p1.json", "2026-11-27-h100-models-0aec0d2-p2.json",
      "2026-11-27-h100-models-0aec0d2-p3.json"]),
    ("issue 28 at b62df04 / c8431d6: the transformers Llama with `--fuse-mlp` and a training step in three "
     "processes (each implementation's modules kept across the interleaved rounds; p2 and p3 with the paired "
     "ratio), where the training step's GPU waits for the host (train_step_kernels' idle by kernel), the fused "
     "bench (no cuBLASLt: nvmath did not install) and bias + GELU against cuBLASLt in two processes; the epilogue "
     "GPU tests after the NVRTC 13.0 fix and the failed run before it (a2e8fe1); tune at 300 tokens (issue 27: "
     "the estimate's pick was the fastest config at all 15 shape classes); after the fix, the graph, nn-repeat, "
     "model-bench, stream-K and torch-operator GPU tests (26db71a); 192 x 80 D^T tiles in pairs along the tokens "
     "(9ffa73a, removed: no faster)",
     ["2026-11-27-h100-llama-transformers-fuse-mlp-train-b62df04-p1.json",
      "2026-11-27-h100-llama-transformers-fuse-mlp-train-c8431d6-p2.json",
      "2026-11-27-h100-llama-transformers-fuse-mlp-train-c8431d6-p3.json",
      "2026-11-27-h100-train-kernels-gaps-b62df04.json", "2026-11-27-h100-train-kernels-gaps-b62df04.txt",
      "2026-11-27-h100-train-kernels-gaps-c8431d6.json", "2026-11-27-h100-train-kernels-gaps-c8431d6.txt",
      "2026-11-27-h100-fused-b62df04.json", "2026-11-27-h100-fused-gelu-c8431d6-p1.json",
      "2026-11-27-h100-fused-gelu-c8431d6-p2.json", "2026-11-27-h100-gpu-tests-epilogue-b62df04.log",
      "2026-11-27-h100-gpu-tests-epilogue-nvrtc130-a2e8fe1.txt", "2026-11-27-h100-tune-models-300-c8431d6.json",
      "2026-11-27-h100-tune-models-300-c8431d6.txt", "2026-11-27-h100-gpu-tests-graphs-nn-26db71a.log",
      "2026-11-27-h100-explore-192x80tn-9ffa73a.json"]),
    ("four H100s (issue 30) and two ranks on the same host (issue 29) at 473d2bc: the `copy` transport with the "
     "one-pass sum, the `fused` transport, NCCL then cuBLAS and async-TP, CUDA graphs and eager; the GPU tests at "
     "four ranks; the fused kernels alone on one GPU; the run before the sum pass (e0692db: `tcgemm` was `fused`, "
     "`tcgemm_copy` the copy transport); the hung run of 236f859",
     ["2026-11-27-h100-tp4-graphs-473d2bc.json", "2026-11-27-h100-tp2-graphs-473d2bc.json",
      "2026-11-27-h100-tp4-graphs-473d2bc.log", "2026-11-27-h100-tp4-gpu-tests-473d2bc.txt",
      "2026-11-27-h100-probe-fused-afb3f6f.json", "2026-11-27-h100-probe-fused-w2-afb3f6f.json",
      "2026-11-27-h100-tp4-graphs-e0692db.json", "2026-11-27-h100-tp2-graphs-e0692db.json",
      "2026-11-27-h100-tp4-hang-236f859.log"]),
    ("two GPUs at a26d2f7: the NCCL/symmetric-memory GPU test and the bench with no SMs reserved by default",
     ["2026-11-27-h100-tp2-graphs-a26d2f7.json", "2026-11-27-h100-tp2-graphs-a26d2f7.log",
      "2026-11-27-h100-tp2-gpu-tests-a26d2f7.txt"]),
    ("the reduce-scatter's sum under its last GEMM (tcgemm.distributed.tilequeue; issues 29, 30): two and four "
     "H200s (the machines lent), CUDA graphs and eager, the queue against the pass in the same run (c757636: the "
     "queue launched through the generic path; fc34b3c: prepared launches; 533323f: also the fused launch with "
     "the own block queued; 74fc4fb: the queue the default at two ranks, with modes queue / pass beside it; 1041921: "
     "the modes in a shuffled order each round), its GPU "
     "tests, the run whose first prepared launch was refused (489517d: no dynamic shared memory limit raised), and the "
     "graph and nn-repeat GPU tests after fastpath.Prepared took a workspace argument (d4f6e90, one H100)",
     ["2026-11-27-h200-tp2-graphs-shuffled-1041921.json",
      "2026-11-27-h200-tp2-graphs-queue-74fc4fb.json", "2026-11-27-h200-tp2-graphs-queue-533323f.json",
      "2026-11-27-h200-tp-gpu-tests-queue-74fc4fb.txt", "2026-11-27-h200-tp-gpu-tests-queue-533323f.txt",
      "2026-11-27-h200-tp2-graphs-queue-fc34b3c.json", "2026-11-27-h200-tp4-graphs-queue-fc34b3c.json",
      "2026-11-27-h200-tp2-graphs-queue-c757636.json", "2026-11-27-h200-tp-gpu-tests-queue-fc34b3c.txt",
      "2026-11-27-h200-tp-gpu-tests-queue-c757636.txt", "2026-11-27-h200-tp-gpu-tests-queue-fail-489517d.txt",
      "2026-11-27-h100-gpu-tests-graphs-nn-d4f6e90.log"]),
    ("C's rows hinted into L2 a few per k-tile (105a93e): Nsight's source view that found the burst (3b7ed3b), the "
     "cost at fixed clocks, C against addmm in two rounds, and the GPU tests of correctness, graphs, hostile "
     "inputs and torch integration",
     ["2026-11-27-h100-ncu-source-c-3b7ed3b.csv.gz", "2026-11-27-h100-ncu-stalls-c-3b7ed3b.txt",
      "2026-11-27-h100-ncu-stalls-no-c-3b7ed3b.txt", "2026-11-27-h100-ncu-c-cost-105a93e.txt",
      "2026-11-27-h100-explore-c-prefetch-105a93e.json", "2026-11-27-h100-explore-c-prefetch-105a93e-r1.json",
      "2026-11-27-h100-explore-c-prefetch-105a93e-r2.json",
      "2026-11-27-h100-gpu-tests-correctness-graphs-105a93e.txt"]),
    ("the staged C back (79af308): its cost against C from L2 in two rounds, and its GPU tests",
     ["2026-11-27-h100-explore-c-staged-79af308-r1.json", "2026-11-27-h100-explore-c-staged-79af308-r2.json",
      "2026-11-27-h100-gpu-tests-staged-c-79af308.txt"]),
    ("the GPU suite at 03b8384; the model bench at 03b8384 and, after the whole-C code went into C_MATRIX builds "
     "only, at 1a5bc19 (three processes each; the README table); GPT-2 from three trees in alternation",
     ["2026-11-27-h100-gpu-tests-03b8384.txt", "2026-11-27-h100-models-03b8384-p1.json",
      "2026-11-27-h100-models-03b8384-p2.json", "2026-11-27-h100-models-03b8384-p3.json",
      "2026-11-27-h100-ab-c-matrix-03b8384.json", "2026-11-27-h100-ab-c-matrix-cbab65f.json",
      "2026-11-27-h100-ab-c-matrix-summary.txt", "2026-11-27-h100-c-epilogue-cbab65f.json",
      "2026-11-27-h100-gpu-tests-staged-c-1a5bc19.txt", "2026-11-27-h100-models-1a5bc19-p1.json",
      "2026-11-27-h100-models-1a5bc19-p2.json", "2026-11-27-h100-models-1a5bc19-p3.json"]),
    ("0a989bb's compact C hints: C's cost (one process), the C tests cut short; tune timed call by call (414a998) "
     "and from CUDA graphs (3ec725b) at the weak model shapes; the model bench with that tune cache, whose "
     "power-of-two classes made layers share configs (three processes)",
     ["2026-11-27-h100-c-epilogue-414a998.json", "2026-11-27-h100-gpu-tests-c-partial-414a998.txt",
      "2026-11-27-h100-tune-weak-shapes-events-414a998.json", "2026-11-27-h100-tune-models-graphs-3ec725b.json",
      "2026-11-27-h100-models-tuned-classes-3ec725b-p1.json", "2026-11-27-h100-models-tuned-classes-3ec725b-p2.json",
      "2026-11-27-h100-models-tuned-classes-3ec725b-p3.json"]),
    ("tune --model for four models at every token count, graph-timed, N and K exact (3d2b970), and the model bench "
     "with that cache (three processes)",
     ["2026-11-27-h100-tune-models-exact-3d2b970.json", "2026-11-27-h100-tune-models-exact-3d2b970.txt",
      "2026-11-27-h100-models-tuned-3d2b970-p1.json", "2026-11-27-h100-models-tuned-3d2b970-p2.json",
      "2026-11-27-h100-models-tuned-3d2b970-p3.json"]),
    ("the GPU suite at f9aec51 (every build compiled; 0a989bb's C hints' first full run): 7147 passed, one tune test "
     "that still expected the fastest config stored (fixed after), the staged-C tests 80 passed",
     ["2026-11-27-h100-gpu-tests-f9aec51.txt"]),
    ("the model bench at 34ba827 (64 x 80 pairs at 128 rows), empty tune cache, three processes (the README table), "
     "odd M, and one process with the margin-applied tune cache of four models",
     ["2026-11-27-h100-models-34ba827-p1.json", "2026-11-27-h100-models-34ba827-p2.json",
      "2026-11-27-h100-models-34ba827-p3.json", "2026-11-27-h100-models-odd-m-34ba827-p1.json",
      "2026-11-27-h100-models-odd-m-34ba827-p2.json", "2026-11-27-h100-models-odd-m-34ba827-p3.json",
      "2026-11-27-h100-models-tuned-margin-34ba827-p1.json", "2026-11-27-h100-models-34ba827-log.txt"]),
    ("a timeline of each CTA of the production kernel (cta_trace.cuh; H200 at 3ec7954, H100 A/B runs): split-K's "
     "ranges owning rows (62b8387 two ranges, 7e89147 every split config) and the producer's first unit early "
     "(94238f4), each against the old path in alternating processes; bias + GELU per config against cuBLASLt's "
     "GELU_BIAS (H200 3ec7954, H100 7e89147: ping-pong under an SFU activation); the fused bench without cuBLASLt "
     "(62b8387); the 70B shard's layers (62b8387, 94238f4); the large shapes on an H200 (three processes); the GPU "
     "tests (split configs at 62b8387 and 7e89147; at 94238f4 two runs cut by their time limits before the summary)",
     ["2026-11-27-h200-cta-timeline-3ec7954.json", "2026-11-27-h200-cta-timeline-3ec7954.txt",
      "2026-11-27-h100-cta-timeline-ab-pairs-62b8387.json", "2026-11-27-h100-cta-timeline-ab-pairs-62b8387.txt",
      "2026-11-27-h100-cta-timeline-ab-owners-7e89147.json", "2026-11-27-h100-cta-timeline-ab-owners-7e89147.txt",
      "2026-11-27-h100-cta-timeline-ab-early-94238f4.json", "2026-11-27-h100-cta-timeline-ab-early-94238f4.txt",
      "2026-11-27-h200-explore-gelu-pp-3ec7954.json", "2026-11-27-h200-explore-gelu-pp-3ec7954.txt",
      "2026-11-27-h100-explore-gelu-pp-7e89147.json", "2026-11-27-h100-explore-gelu-pp-7e89147.txt",
      "2026-11-27-h100-fused-62b8387.json", "2026-11-27-h100-fused-62b8387.txt",
      "2026-11-27-h100-models-70b-62b8387.json", "2026-11-27-h100-models-70b-94238f4.json",
      "2026-11-27-h200-bench-large-3ec7954-p1.json", "2026-11-27-h200-bench-large-3ec7954-p2.json",
      "2026-11-27-h200-bench-large-3ec7954-p3.json",
      "2026-11-27-h100-gpu-tests-split-pairs-gelu-62b8387.log", "2026-11-27-h100-gpu-tests-split-owners-7e89147.log",
      "2026-11-27-h100-gpu-tests-early-producer-94238f4-cut.txt",
      "2026-11-27-h100-gpu-tests-graphs-hostile-epilogue-94238f4-cut.txt"]),
    ("the H100 at 884966f (kernels as f284d26: split-K owners, the early producer): the model bench, empty tune "
     "cache, three processes at the default token counts (the README table) and at 3 / 48 / 300 / 3000; bias + GELU "
     "against cuBLASLt's GELU_BIAS head to head, eager and CUDA graphs (three processes at 8c47774; per config with "
     "eager at 884966f); every config of the two Hopper kernels at the 70B shard's qkv (128 and 512 rows) and GPT-2's "
     "fc2 at 300 rows; the stage-4 GPU tests (every config under CUDA graphs, interrupted after 240 of 313; the "
     "correctness subsets complete or interrupted as each log says)",
     ["2026-11-28-h100-models-884966f-p1.json", "2026-11-28-h100-models-884966f-p2.json",
      "2026-11-28-h100-models-884966f-p3.json", "2026-11-28-h100-models-odd-m-884966f-p1.json",
      "2026-11-28-h100-models-odd-m-884966f-p2.json", "2026-11-28-h100-models-odd-m-884966f-p3.json",
      "2026-11-28-h100-fused-gelu-vs-cublaslt-8c47774-p1.json",
      "2026-11-28-h100-fused-gelu-vs-cublaslt-8c47774-p2.json",
      "2026-11-28-h100-fused-gelu-vs-cublaslt-8c47774-p3.json", "2026-11-28-h100-fused-gelu-vs-cublaslt-8c47774.txt",
      "2026-11-28-h100-explore-gelu-eager-884966f-p1.json", "2026-11-28-h100-explore-gelu-eager-884966f-p2.json",
      "2026-11-28-h100-explore-gelu-eager-884966f.txt", "2026-11-28-h100-explore-qkv70-fc2-configs-8c47774.json",
      "2026-11-28-h100-gpu-tests-graphs-stage4-7e5a7a1.log", "2026-11-28-h100-gpu-tests-stage4-shapes-884966f.log"]),
    ("the H100 from f5d7391 to bcf9a59 (issue 27): 64 x 64 in two k ranges and 128 x 176 ping-pong against auto's "
     "picks (two processes) and k2 at the shapes auto moved; their GPU tests and 128 x 80 k2's without the early "
     "producer; the model bench, three processes each, of GPT-2 (c073526, default and odd M), the 70B shard "
     "(2e0f324, both) and Llama-3-8B with Qwen2.5 (bcf9a59; the README table); the 8B layer at 512 with ping-pong "
     "pinned against the heuristic; the 8B MLP training step (c073526); the decode step (7b0afa1); builds "
     "alternating in processes: HEAD against e31b9c5 and without the early producer (build_ab.sh)",
     ["2026-11-28-h100-explore-k2-176pp-f5d7391-p1.json", "2026-11-28-h100-explore-k2-176pp-f5d7391-p2.json",
      "2026-11-28-h100-explore-k2-picks-c073526.json", "2026-11-28-h100-gpu-tests-k2-176pp-f5d7391.log",
      "2026-11-28-h100-gpu-tests-k2-c073526.log", "2026-11-28-h100-gpu-tests-128x80k2-2e0f324.log",
      "2026-11-28-h100-models-gpt2-c073526-p1.json", "2026-11-28-h100-models-gpt2-c073526-p2.json",
      "2026-11-28-h100-models-gpt2-c073526-p3.json", "2026-11-28-h100-models-odd-m-gpt2-c073526-p1.json",
      "2026-11-28-h100-models-odd-m-gpt2-c073526-p2.json", "2026-11-28-h100-models-odd-m-gpt2-c073526-p3.json",
      "2026-11-28-h100-models-70b-2e0f324-p1.json", "2026-11-28-h100-models-70b-2e0f324-p2.json",
      "2026-11-28-h100-models-70b-2e0f324-p3.json", "2026-11-28-h100-models-odd-m-70b-2e0f324-p1.json",
      "2026-11-28-h100-models-odd-m-70b-2e0f324-p2.json", "2026-11-28-h100-models-odd-m-70b-2e0f324-p3.json",
      "2026-11-28-h100-models-8b-qwen-bcf9a59-p1.json", "2026-11-28-h100-models-8b-qwen-bcf9a59-p2.json",
      "2026-11-28-h100-models-8b-qwen-bcf9a59-p3.json", "2026-11-28-h100-models-8b-512-pinned-pp-e6d232d.json",
      "2026-11-28-h100-train-8b-c073526-p1.json", "2026-11-28-h100-train-8b-c073526-p2.json",
      "2026-11-28-h100-train-8b-c073526-p3.json", "2026-11-28-h100-decode-step-7b0afa1.json",
      "2026-11-28-h100-build-ab-e31b9c5-a090ee3.json", "2026-11-28-h100-build-ab-e31b9c5-a090ee3.txt",
      "2026-11-28-h100-build-ab-early-producer-13c23ad.json",
      "2026-11-28-h100-build-ab-early-producer-13c23ad.txt"]),
    ("the H100 and H200 from bc4fac6 to bfdb26b (issues 27, 29): every plausible config at the mid-size shapes still "
     "below cuBLAS (8B gate_up at 128 rows, Qwen down at 512, the 70B gate_up at 2048 and 3000), cuBLAS's kernels "
     "there in three processes, the early producer off at 64 x 48 k4 (processes alternating); tensor parallel on "
     "two ranks at bc4fac6 (two H200s), the fused reduce-scatter counting each block once against every tile "
     "(8a82594, two H100s, processes alternating), and the own block summed inside the fused launch (PEER_ROWS = "
     "5, three builds, removed at bfdb26b), with their GPU tests; four ranks at 5502e64 and, the fused "
     "reduce-scatter prepared, 0aa539a (four H200s)",
     ["2026-11-28-h100-explore-128x28672x4096-bc4fac6-p1.json",
      "2026-11-28-h100-explore-128x28672x4096-bc4fac6-p2.json",
      "2026-11-28-h100-explore-512x3584x18944-bc4fac6-p1.json",
      "2026-11-28-h100-explore-512x3584x18944-bc4fac6-p2.json",
      "2026-11-28-h100-explore-gate-up-70b-mid-bc4fac6.json", "2026-11-28-h100-cublas-kernels-bc4fac6.txt",
      "2026-11-28-h100-build-ab-early-producer-64x48k4-bc4fac6.json",
      "2026-11-28-h200-tp2-graphs-bc4fac6.json", "2026-11-28-h200-tp2-gpu-tests-bc4fac6.txt",
      "2026-11-28-h100-tp2-count-batch-ab-8a82594.json", "2026-11-28-h100-tp2-gpu-tests-8a82594.txt",
      "2026-11-28-h100-tp2-fused-sum-db5aab1.json", "2026-11-28-h100-tp2-fused-sum-4582721.json",
      "2026-11-28-h100-tp2-fused-sum-27713f6.json", "2026-11-28-h100-tp2-gpu-tests-fused-sum-db5aab1.txt",
      "2026-11-28-h100-tp2-gpu-tests-fused-sum-4582721.txt", "2026-11-28-h100-tp2-gpu-tests-fused-sum-27713f6.txt",
      "2026-11-28-h200-tp4-graphs-5502e64.json", "2026-11-28-h200-tp4-graphs-5502e64.log",
      "2026-11-28-h200-tp4-gpu-tests-fused-5502e64.txt", "2026-11-28-h200-tp4-graphs-0aa539a.json",
      "2026-11-28-h200-tp4-graphs-0aa539a.log", "2026-11-28-h200-tp4-gpu-tests-fused-0aa539a.txt"]),
    ("the tail split in up to four parts per idle cluster (128x256x64s4b2ot4, 5d171a2; issues 29, 30, 27): its GPU"
     " tests and single GEMMs beside cuBLAS (an H200, then an H100 at ea88dbe), the two-rank reduce-scatter at "
     "8192 tokens in processes alternating with f1bcbb5 (two H200s), the model bench at 8192 tokens (Llama-3-8B, "
     "Qwen2.5-7B) in processes alternating with f1bcbb5 (H100); the two-rank bench at 894d92b and, with NCCL "
     "alone, at 6150ba1, three processes each (two H200s); four ranks at 96a94b2 (GPU tests with auto's fused "
     "reduce-scatter, the bench twice) and the own block's sum under the last round against the default at 2640e93"
     " (four H200s); the two-rank bench again at a398295, three processes (two H200s)",
     ["2026-11-28-h200-tp2-tail-parts-ab-5d171a2.json", "2026-11-28-h200-explore-ot4-5d171a2.json",
      "2026-11-28-h200-gpu-tests-ot4-5d171a2.txt",
      "2026-11-28-h200-tp2-graphs-894d92b-p1.json", "2026-11-28-h200-tp2-graphs-894d92b-p2.json",
      "2026-11-28-h200-tp2-graphs-894d92b-p3.json", "2026-11-28-h200-tp2-gpu-tests-894d92b.txt",
      "2026-11-28-h200-tp4-graphs-96a94b2-p1.json", "2026-11-28-h200-tp4-graphs-96a94b2-p2.json",
      "2026-11-28-h200-tp4-gpu-tests-96a94b2.txt",
      "2026-11-28-h100-explore-ot4-ea88dbe.json", "2026-11-28-h100-gpu-tests-ot4-ea88dbe.txt",
      "2026-11-28-h100-models-8192-tail-parts-new-p1-ea88dbe.json",
      "2026-11-28-h100-models-8192-tail-parts-base-p1-ea88dbe.json",
      "2026-11-28-h100-models-8192-tail-parts-new-p2-ea88dbe.json",
      "2026-11-28-h100-models-8192-tail-parts-base-p2-ea88dbe.json",
      "2026-11-28-h200-tp2-graphs-6150ba1-p1.json", "2026-11-28-h200-tp2-graphs-6150ba1-p2.json",
      "2026-11-28-h200-tp2-graphs-6150ba1-p3.json", "2026-11-28-h200-tp2-graphs-6150ba1-p1.log",
      "2026-11-28-h200-tp2-graphs-6150ba1-p2.log", "2026-11-28-h200-tp2-graphs-6150ba1-p3.log",
      "2026-11-28-h200-tp4-queues-2640e93-p1.json", "2026-11-28-h200-tp4-queues-2640e93-p2.json",
      "2026-11-28-h200-tp2-graphs-a398295-p1.json", "2026-11-28-h200-tp2-graphs-a398295-p2.json",
      "2026-11-28-h200-tp2-graphs-a398295-p3.json"]),
    ("the transformers Llama example (examples/llama_transformers.py --fuse-mlp --train 1x2048) with prefill "
     "captured in CUDA graphs too, two processes on one H100 at 7634854, and its GPU test; docs/models.md",
     ["2026-11-28-h100-llama-transformers-fuse-mlp-train-7634854-p1.json",
      "2026-11-28-h100-llama-transformers-fuse-mlp-train-7634854-p2.json",
      "2026-11-28-h100-gpu-tests-llama-example-7634854.txt"]),
    ("2026-11-28, third session: the two-rank bench at 61e351e, three processes, with the repaired tail-split test "
     "and the two-rank GPU tests (two H200s); fp8 128 x 192 against 128 x 128 at issue 31's shapes (4d5ed44) and, "
     "after its speed 1.04, auto there (a4e5303) and both configs where the pick moved (H100); ping-pong pinned "
     "at the mid-size gate_up shapes inside the model bench, processes alternating with the heuristic (H100, "
     "0963da4); the grouped 128x256x64s4b2s against auto (H100, H200)",
     ["2026-11-28-h200-tp2-graphs-61e351e-p1.json", "2026-11-28-h200-tp2-graphs-61e351e-p2.json",
      "2026-11-28-h200-tp2-graphs-61e351e-p3.json", "2026-11-28-h200-gpu-tests-tail-split-tp2-61e351e.txt",
      "2026-11-28-h100-fp8-configs-4d5ed44.json", "2026-11-28-h100-fp8-a4e5303.json",
      "2026-11-28-h100-fp8-configs-flipped-a4e5303.json",
      "2026-11-28-h100-models-gate-up-pp-plain-0963da4-p1.json",
      "2026-11-28-h100-models-gate-up-pp-pinned-0963da4-p1.json",
      "2026-11-28-h100-models-gate-up-pp-plain-0963da4-p2.json",
      "2026-11-28-h100-models-gate-up-pp-pinned-0963da4-p2.json",
      "2026-11-28-h100-grouped-snake-ab-mixtral-0963da4.json", "2026-11-28-h100-grouped-snake-ab-4d5ed44.json",
      "2026-11-28-h200-grouped-snake-ab-deepseek-4d5ed44.json",
      "2026-11-28-h200-grouped-snake-ab-mixtral-4096-4d5ed44.json",
      "2026-11-28-h100-gpu-tests-grouped-s4b2s-0963da4.txt"]),
    ("2026-11-28, third session: where the TP calls' eager time goes (one GEMM from an idle GPU, H100; host time to "
     "a TP call's first GEMM, two H200s) and the copy transport's trimmed host path (b4ad9d1, bf6b31f: GPU tests, "
     "host times, one bench process each)",
     ["2026-11-28-h100-eager-from-idle-af983db.json", "2026-11-28-h200-tp2-host-first-launch-a1232ed.json",
      "2026-11-28-h200-tp2-host-first-launch-b4ad9d1.json", "2026-11-28-h200-tp2-graphs-b4ad9d1.json",
      "2026-11-28-h200-tp2-gpu-tests-b4ad9d1.txt", "2026-11-28-h200-tp2-host-first-launch-bf6b31f.json",
      "2026-11-28-h200-tp2-graphs-bf6b31f.json", "2026-11-28-h200-tp2-gpu-tests-bf6b31f.txt"]),
    ("2026-11-28, fourth session (only H200s lent): where tcgemm stands on the H200 at ccb8d4b (model bench, decode "
     "step with each decode config, bias + GELU against cuBLASLt, the shapes under cuBLAS beside every candidate); "
     "two k ranges at 48-128 rows of long-K weights (8afa40f, 02ab629: GPU tests, the model bench in three "
     "processes); the cost of tile rows outside the matrix at 72-124 rows (7a3aad9, 888680b, 3a0559f)",
     ["2026-11-28-h200-models-ccb8d4b.json", "2026-11-28-h200-decode-step-ccb8d4b.json",
      "2026-11-28-h200-decode-step-configs-ccb8d4b.json", "2026-11-28-h200-fused-gelu-vs-cublaslt-ccb8d4b-p1.json",
      "2026-11-28-h200-fused-gelu-vs-cublaslt-ccb8d4b-p2.json", "2026-11-28-h200-explore-mid-ccb8d4b.json",
      "2026-11-28-h200-explore-k2-8afa40f.json", "2026-11-28-h200-gpu-tests-k2-8afa40f.txt",
      "2026-11-28-h200-models-8afa40f-p1.json", "2026-11-28-h200-models-8afa40f-p2.json",
      "2026-11-28-h200-models-02ab629-p1.json", "2026-11-28-h200-models-02ab629-p2.json",
      "2026-11-28-h200-models-02ab629-p3.json", "2026-11-28-h200-decode-step-02ab629.json",
      "2026-11-28-h200-fused-gelu-vs-cublaslt-02ab629.json", "2026-11-28-h200-models-odd-02ab629.json",
      "2026-11-28-h200-models-odd-7a3aad9-p1.json", "2026-11-28-h200-models-odd-7a3aad9-p2.json",
      "2026-11-28-h200-explore-oob-7a3aad9.json", "2026-11-28-h200-gpu-tests-torch-nn-7a3aad9.txt",
      "2026-11-28-h200-explore-70b-gate-up-888680b.json", "2026-11-28-h200-models-odd-888680b-p1.json",
      "2026-11-28-h200-models-odd-888680b-p2.json", "2026-11-28-h200-explore-oob-int8-888680b.json",
      "2026-11-28-h200-explore-oob-tf32-888680b.json", "2026-11-28-h200-explore-few-empty-rows-3a0559f.json"]),
    ("2026-11-28, fifth session (only H200s lent): swap-AB tiles of 80-128 tokens tried and dropped (8a12177); every "
     "config at the done-when shapes under 0.95x and cuBLAS's kernels there (8f50b3b); A in one box per consumer at "
     "65-127 rows (f81b977: GPU tests, configs; 3465e3c: the model bench at 72-120 tokens, the 70B o projection); six "
     "k ranges at the 70B shard's qkv (d1d50b9, d7c1ca3: the 70B shard in the model bench); 64 x 144 in clusters of "
     "two at 65-128 rows of K = 8192 (d7c1ca3); the model bench at the done-when token counts after them (db36e8f, "
     "bc7eb5b)",
     ["2026-11-28-h200-explore-swap-wide-8a12177.json", "2026-11-28-h200-gpu-tests-swap-wide-8a12177.txt",
      "2026-11-28-h200-explore-all-configs-8f50b3b.json", "2026-11-28-h200-cublas-kernels-8f50b3b.txt",
      "2026-11-28-h200-explore-a-halves-f81b977.json", "2026-11-28-h200-gpu-tests-a-halves-f81b977.txt",
      "2026-11-28-h200-models-odd-3465e3c-p1.json", "2026-11-28-h200-models-odd-3465e3c-p2.json",
      "2026-11-28-h200-explore-o70-3465e3c.json", "2026-11-28-h200-explore-qkv70-small-d1d50b9.json",
      "2026-11-28-h200-explore-qkv70-mid-d1d50b9.json", "2026-11-28-h200-explore-96-all-d1d50b9.json",
      "2026-11-28-h200-models-70b-d7c1ca3-p1.json", "2026-11-28-h200-models-70b-d7c1ca3-p2.json",
      "2026-11-28-h200-explore-64x144c2-d7c1ca3.json", "2026-11-28-h200-gpu-tests-new-picks-e668682.txt",
      "2026-11-28-h200-explore-qkv300-gateup40-e668682.json", "2026-11-28-h200-models-70b-mid-db36e8f.json",
      "2026-11-28-h200-models-all-db36e8f-p1.json", "2026-11-28-h200-models-all-bc7eb5b-p2.json"]),
    ("2026-11-28, sixth session (only H200s lent): grouped GEMMs on the overlapped-epilogue 128 x 256 (07edb16, no "
     "gain, reverted); yield marks in fp8's promotion runs (ad565e1, no gain, reverted); one round of tiles in k "
     "ranges (0a0feaf, dropped) and 128 x 224 without a cluster at the 8B gate_up (0a0feaf, 46bb2ea: kept)",
     ["2026-11-28-h200-grouped-overlap-ab-plain-07edb16.json", "2026-11-28-h200-grouped-overlap-ab-snake-07edb16.json",
      "2026-11-28-h200-grouped-contiguous-overlap-07edb16.json", "2026-11-28-h200-grouped-masked-overlap-07edb16.json",
      "2026-11-28-h200-gpu-tests-grouped-overlap-07edb16.txt", "2026-11-28-h200-explore-fp8-yield-ad565e1.json",
      "2026-11-28-h200-explore-fp8-yield-block-ad565e1.json", "2026-11-28-h200-gpu-tests-fp8-yield-ad565e1.txt",
      "2026-11-28-h200-explore-one-round-0a0feaf.json", "2026-11-28-h200-gpu-tests-one-round-0a0feaf.txt",
      "2026-11-28-h200-explore-gate-up-8b-46bb2ea.json", "2026-11-28-h200-models-8b-46bb2ea-p1.json",
      "2026-11-28-h200-models-8b-46bb2ea-p2.json"]),
    ("2026-11-28, sixth session, then: 128 x 224 c1 with A in one box per consumer (823d378) and the model bench of "
     "four models with it at 823d378; 128 x 48 h tried and dropped (6639d62); 64 x 96 pairs at the 8B qkv "
     "(45edb27); the 8B layer after both (a8d1996)",
     ["2026-11-28-h200-explore-gate-up-8b-h-823d378.json", "2026-11-28-h200-gpu-tests-224h-823d378.txt",
      "2026-11-28-h200-models-all-823d378-p1.json", "2026-11-28-h200-models-all-823d378-p2.json",
      "2026-11-28-h200-explore-qkv-48h-6639d62.json", "2026-11-28-h200-gpu-tests-48h-6639d62.txt",
      "2026-11-28-h200-models-8b-6639d62-p1.json", "2026-11-28-h200-models-8b-6639d62-p2.json",
      "2026-11-28-h200-explore-qkv-96c2-45edb27.json", "2026-11-28-h200-gpu-tests-96c2-45edb27.txt",
      "2026-11-28-h200-models-8b-a8d1996-p1.json", "2026-11-28-h200-models-8b-a8d1996-p2.json"]),
    ("2026-11-28, seventh session (only H200s lent): 64 x 112 pairs at the 70B gate_up and 128 x 144 c1h at Qwen's "
     "gate_up (c1c776c, 5ca9c9a), decode rings by weight (5ca9c9a), 64 x 128 pairs at the 70B down (44f080b), "
     "48-token decode tiles at the 70B gate_up (38c6f7c, ce22f95); the model bench in three processes (44f080b, "
     "7bd6b59, 44178bc) and GPU tests",
     ["2026-11-28-h200-explore-decode-configs-c1c776c.json", "2026-11-28-h200-explore-decode-stream-k-c1c776c.json",
      "2026-11-28-h200-explore-down70-44f080b.json", "2026-11-28-h200-explore-down70-48-token-ce22f95.json",
      "2026-11-28-h200-explore-fc2-44f080b.json", "2026-11-28-h200-explore-gu70-48-38c6f7c.json",
      "2026-11-28-h200-explore-gu70-decode-stream-k-7bd6b59.json",
      "2026-11-28-h200-explore-gu70-decode-whole-7bd6b59.json", "2026-11-28-h200-explore-gu70-large-7bd6b59.json",
      "2026-11-28-h200-explore-gu70-mid-c1c776c.json", "2026-11-28-h200-explore-gu70-small-c1c776c.json",
      "2026-11-28-h200-explore-qwen-gu-c1c776c.json", "2026-11-28-h200-explore-qwen-o-44f080b.json",
      "2026-11-28-h200-gpu-tests-112c2-144c1h-5ca9c9a.txt", "2026-11-28-h200-gpu-tests-128c2-7bd6b59.txt",
      "2026-11-28-h200-gpu-tests-48-token-ce22f95.txt", "2026-11-28-h200-gpu-tests-decode-picks-44f080b.txt",
      "2026-11-28-h200-gpu-tests-files-44178bc.txt", "2026-11-28-h200-gpu-tests-files2-38c6f7c.txt",
      "2026-11-28-h200-models-70b-33-64-ce22f95.json", "2026-11-28-h200-models-all-44178bc-p3.json",
      "2026-11-28-h200-models-all-44f080b-p1.json", "2026-11-28-h200-models-all-7bd6b59-p2.json",
      "2026-11-28-h200-models-decode-pins-5ca9c9a-P.json", "2026-11-28-h200-models-decode-pins-5ca9c9a-U.json",
      "2026-11-28-h200-models-decode-pins-5ca9c9a-decode-step-P.json",
      "2026-11-28-h200-models-decode-pins-5ca9c9a-decode-step-U.json", "2026-11-28-h200-models-mid-5ca9c9a.json"]),
]

# kind (the word after <date>-h100-) -> (heading, what the files are)
KINDS: dict[str, tuple[str, str]] = {
    "release": ("release", "`tools/gpu_suite.sh OUT release` and other runs of the release benchmarks"),
    "explore": ("explore", "exploratory configs and kernels timed beside cuBLAS, most since removed"),
    "ab": ("ab", "two builds or configs timed in alternation (`tools/ab_bench.py`)"),
    "power": ("power", "energy, clock and power under sustained load (`benchmarks/probes/power_probe.py`)"),
    "ncu": ("ncu", "Nsight Compute profiles (`benchmarks/probes/ncu_compare.sh`, `ncu_stalls.sh`)"),
    "sanitize": ("sanitize", "compute-sanitizer memcheck / racecheck / synccheck (`tools/sanitize.sh`)"),
    "gpu": ("gpu-tests", "logs of the GPU test suite"),
    "hostile": ("hostile", "the hypothesis property test's counts (`tests/gpu/test_hostile.py`)"),
    "check": ("check", "`tcgemm check` and spot checks of one precision"),
    "models": ("models", "`tcgemm bench --model`, host time per call, the GPT-2 and transformers examples"),
    "tp2": ("tp2", "tensor parallel on two H100s (`tcgemm.distributed.bench`, `benchmarks/probes/tp_timeline.py`)"),
    "tp4": ("tp4", "tensor parallel on four H100s of one host (`tcgemm.distributed.bench`; issue 30)"),
    "fused": ("fused", "fused epilogues against torch, torch.compile and cuBLASLt (`python -m tcgemm.fused_bench`)"),
}
_ALIASES = {"host": "models", "llama": "models", "train": "models", "gpt2": "models", "launch": "models",
            "group16": "explore", "group": "explore", "overlap": "explore", "probe": "probes", "sm": "probes",
            "cluster": "probes", "staging": "probes", "decode": "models"}
_OTHER = ("other", "first ladders, stage runs and one-off comparisons")
_PROBES = ("probes", "output of the scripts in `benchmarks/probes/`")
_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-h100-([a-z0-9]+)")


def kind(name: str) -> str:
    m = _NAME.match(name)
    if not m:
        return "other"
    word = m.group(2)
    word = _ALIASES.get(word, word)
    return word if word in KINDS or word == "probes" else "other"


def render(files: list[str]) -> str:
    current = [f for _, fs in CURRENT for f in fs]
    missing = sorted(set(current) - set(files))
    if missing:
        raise FileNotFoundError(f"CURRENT names files that are not in {RESULTS}: {', '.join(missing)}")
    out = ["# Benchmark results", "",
           "Every figure in the README and docs/ comes from a file here, written by a GPU run (GPU, driver, CUDA,",
           "torch, commit and date inside each JSON). This index is written by `tools/results_index.py`; rerun it",
           "after adding files (a CPU test checks that it lists them all).", "",
           "## Current figures", "",
           "The newest release runs per precision and the model-level runs of 2026-11-25. The tables of",
           "[docs/ladder.md](../../docs/ladder.md) read these first and fill shapes they did not time from the",
           "older release files listed under the tables.", ""]
    for what, fs in CURRENT:
        out.append(f"- {what}: " + ", ".join(f"[`{f}`]({f})" for f in fs))
    out += ["", "## History", "",
            "Everything else, by kind, oldest first. The findings that quote these files:",
            "[docs/findings.md](../../docs/findings.md), [docs/testing.md](../../docs/testing.md),",
            "[docs/models.md](../../docs/models.md).", ""]
    groups: dict[str, list[str]] = {}
    for f in files:
        if f not in current and f != INDEX.name:
            groups.setdefault(kind(f), []).append(f)
    order = [*KINDS, "probes", "other"]
    for k in order:
        fs = groups.get(k)
        if not fs:
            continue
        heading, what = KINDS.get(k) or (_PROBES if k == "probes" else _OTHER)
        dates = sorted(m.group(1) for f in fs if (m := _NAME.match(f)))
        span = (dates[0] if dates[0] == dates[-1] else f"{dates[0]} … {dates[-1]}") if dates else "undated"
        out += [f"### {heading} ({len(fs)} files, {span})", "", f"{what[0].upper()}{what[1:]}.", ""]
        out += [f"- [`{f}`]({f})" for f in sorted(fs)]
        out.append("")
    return "\n".join(out)


def files_here() -> list[str]:
    return sorted(p.name for p in RESULTS.iterdir() if p.is_file() and p.name != INDEX.name)


def main(argv: list[str]) -> int:
    text = render(files_here())
    if "--check" in argv:
        if not INDEX.is_file() or INDEX.read_text() != text:
            print(f"{INDEX} is stale: run python3 tools/results_index.py", file=sys.stderr)
            return 1
        return 0
    INDEX.write_text(text)
    print(f"wrote {INDEX.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
