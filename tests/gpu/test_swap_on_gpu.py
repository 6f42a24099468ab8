"""tcgemm.nn.replace_linear on a transformers Llama on the GPU: logits against torch's, and a decode step
captured in a CUDA graph replaying what eager decoding computes (skipped without transformers)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

import tcgemm.nn
from tcgemm import launch

pytestmark = pytest.mark.gpu


def _rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    x64, ref64 = x.double(), ref.double()
    return (torch.linalg.vector_norm(x64 - ref64) / torch.linalg.vector_norm(ref64)).item()


def _tiny_llama(dtype: torch.dtype = torch.bfloat16):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=1000, max_position_embeddings=256,
                                   attn_implementation="sdpa")
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = transformers.LlamaForCausalLM(cfg)
    return model.to(dtype).eval()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_swapped_llama_logits_match_torch(dtype):
    model = _tiny_llama(dtype)
    ids = torch.randint(0, 1000, (3, 77), device="cuda", generator=torch.Generator("cuda").manual_seed(1))
    with torch.no_grad():
        ref = model(ids).logits
        assert tcgemm.nn.replace_linear(model) == 15
        with launch.trace() as seen:
            logits = model(ids).logits
    assert len(seen) == 15  # every projection and lm_head ran a tcgemm kernel
    assert _rel(logits, ref) <= 2e-2
    assert tcgemm.nn.restore_linear(model) == 15
    with torch.no_grad():
        assert torch.equal(model(ids).logits, ref)


def _example():
    """examples/llama_transformers.py as a module (its Decoder drives the decode tests too)."""
    path = Path(__file__).parents[2] / "examples" / "llama_transformers.py"
    spec = importlib.util.spec_from_file_location("llama_transformers", path)
    example = importlib.util.module_from_spec(spec)
    sys.modules["llama_transformers"] = example
    try:
        spec.loader.exec_module(example)
    finally:
        del sys.modules["llama_transformers"]
    return example


@pytest.mark.parametrize("batch", [1, 4])
def test_cuda_graph_decode_step_replays_equal_to_eager(batch):
    model = _tiny_llama()
    tcgemm.nn.replace_linear(model)
    steps = 6
    dec = _example().Decoder(model, batch, context=20, new_tokens=steps, device="cuda", seed=2)
    dec.rewind()
    with launch.trace() as eager_kernels:
        eager = [(dec.step().clone(), dec.token.clone()) for _ in range(steps)]
    torch.cuda.synchronize()

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        dec.rewind()
        for _ in range(3):
            dec.step()
    torch.cuda.current_stream().wait_stream(side)
    dec.rewind()
    graph = torch.cuda.CUDAGraph()
    with launch.trace() as captured, torch.cuda.graph(graph):
        logits = dec.step()
    assert captured == eager_kernels[: len(captured)] and len(captured) == 15  # the kernels eager decoding ran
    dec.rewind()
    for i, (ref_logits, ref_token) in enumerate(eager):
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(dec.token, ref_token), f"step {i}"
        torch.testing.assert_close(logits, ref_logits, rtol=0, atol=0, msg=f"step {i}")


def test_llama_example_runs_with_cuda_graphs():
    """examples/llama_transformers.py on a tiny Llama, CUDA-graph prefill and decode included: every row, logits
    checked."""
    pytest.importorskip("transformers")
    example = _example()
    args = example.parser().parse_args(
        ["--layers", "2", "--hidden", "256", "--intermediate", "688", "--heads", "4", "--kv-heads", "2",
         "--vocab", "1000", "--prefill", "1x64,4x32", "--decode-batches", "1,4", "--new-tokens", "8",
         "--context", "16", "--repeats", "3"])
    record = example.measure(args, "cuda", graphs=True, progress=lambda _line: None)
    assert record["correctness"]["passed"], record["correctness"]
    modes = [(r["phase"], r["mode"], r["batch"]) for r in record["rows"]]
    assert modes == [("prefill", "eager", 1), ("prefill", "graph", 1), ("prefill", "eager", 4), ("prefill", "graph", 4),
                     ("decode", "eager", 1), ("decode", "graph", 1), ("decode", "eager", 4), ("decode", "graph", 4)]
    assert all(r["torch_tokens_per_s"] > 0 and r["tcgemm_tokens_per_s"] > 0 for r in record["rows"])
    assert all(k["kernels"] for k in record["kernels"])
