"""tcgemm.nn.replace_linear / restore_linear on module trees, and the swapped models' forward on the
emulated GPU (the fake_gpu fixture: CPU tensors, the kernel contract emulated in float64)."""

from __future__ import annotations

import pytest
import torch

import tcgemm.nn
from tcgemm.nn import replace_linear, restore_linear


class _Block(torch.nn.Module):
    def __init__(self, d: int = 8, bias: bool = True) -> None:
        super().__init__()
        self.up = torch.nn.Linear(d, 2 * d, bias=bias)
        self.down = torch.nn.Linear(2 * d, d, bias=False)
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.relu(self.up(self.norm(x))))


class _Net(torch.nn.Module):
    def __init__(self, d: int = 8) -> None:
        super().__init__()
        self.embed = torch.nn.Linear(5, d)
        self.blocks = torch.nn.ModuleList([_Block(d), _Block(d, bias=False)])
        self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(d, 3), "b": torch.nn.Sequential(torch.nn.Linear(d, 4))})
        self.shared = self.blocks[0].up  # the same layer under a second name

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return torch.cat([self.heads["a"](h), self.heads["b"](h), self.shared(h)], dim=-1)


def _linears(module: torch.nn.Module) -> dict[str, type]:
    return {name: type(m) for name, m in module.named_modules(remove_duplicate=False)
            if isinstance(m, torch.nn.Linear)}


def test_replace_and_restore_every_linear_sharing_parameters():
    torch.manual_seed(0)
    net = _Net()
    params = dict(net.named_parameters(remove_duplicate=False))
    keys = list(net.state_dict())
    assert replace_linear(net, precision="tf32") == 7  # the shared layer counts once
    assert set(_linears(net).values()) == {tcgemm.nn.Linear}
    assert net.shared is net.blocks[0].up and net.shared.precision == "tf32"
    assert list(net.state_dict()) == keys
    for name, p in net.named_parameters(remove_duplicate=False):
        assert p is params[name], name  # the same Parameter objects: nothing copied
    assert net.blocks[1].up.bias is None and net.blocks[0].up.bias is params["blocks.0.up.bias"]
    assert isinstance(net.blocks[0].norm, torch.nn.LayerNorm)
    assert replace_linear(net) == 0  # already tcgemm's

    assert restore_linear(net) == 7
    assert set(_linears(net).values()) == {torch.nn.Linear}
    assert net.shared is net.blocks[0].up
    assert list(net.state_dict()) == keys
    for name, p in net.named_parameters(remove_duplicate=False):
        assert p is params[name], name
    assert restore_linear(net) == 0


def test_include_chooses_layers_by_qualified_name():
    net = _Net()
    asked = []

    def include(name: str, layer: torch.nn.Module) -> bool:
        asked.append(name)
        return name.startswith("blocks.")

    assert replace_linear(net, include=include) == 4
    # asked once per layer, by its first (state dict) name: the shared layer as blocks.0.up only
    assert sorted(asked) == sorted(["embed", "blocks.0.up", "blocks.0.down", "blocks.1.up", "blocks.1.down",
                                    "heads.a", "heads.b.0"])
    types = _linears(net)
    assert types["blocks.0.up"] is types["shared"] is types["blocks.1.down"] is tcgemm.nn.Linear
    assert types["embed"] is types["heads.a"] is types["heads.b.0"] is torch.nn.Linear
    assert restore_linear(net, include=lambda name, _layer: name == "blocks.1.up") == 1
    assert _linears(net)["blocks.1.up"] is torch.nn.Linear and _linears(net)["blocks.0.up"] is tcgemm.nn.Linear


def test_training_mode_and_hooks_carry_over():
    net = _Net().eval()
    net.blocks[0].down.train()
    seen = []
    handle = net.heads["a"].register_forward_hook(lambda m, i, o: seen.append(type(m)))
    replace_linear(net)
    assert net.blocks[0].down.training and not net.blocks[0].up.training
    assert net.heads["a"]._forward_hooks and len(net.heads["a"]._forward_hooks) == 1
    handle.remove()  # the handle still removes it from the new layer
    assert not net.heads["a"]._forward_hooks


def test_what_is_not_replaced():
    class MyLinear(torch.nn.Linear):
        pass

    net = torch.nn.Module()
    net.sub = MyLinear(4, 4)
    net.mha = torch.nn.MultiheadAttention(8, 2)  # out_proj: NonDynamicallyQuantizableLinear
    net.f64 = torch.nn.Linear(4, 4, dtype=torch.float64)
    net.patched = torch.nn.Linear(4, 4)
    net.patched.forward = lambda x: x  # e.g. accelerate's hooks
    net.meta = torch.nn.Linear(4, 4, device="meta")
    assert replace_linear(net) == 1
    assert type(net.sub) is MyLinear and type(net.mha.out_proj) is not tcgemm.nn.Linear
    assert type(net.f64) is torch.nn.Linear and type(net.patched) is torch.nn.Linear
    assert type(net.meta) is tcgemm.nn.Linear and net.meta.weight.is_meta


def test_errors_name_the_fix():
    with pytest.raises(TypeError, match=r"Linear\.from_torch"):
        replace_linear(torch.nn.Linear(3, 3))
    with pytest.raises(TypeError, match=r"torch\.nn\.Module"):
        replace_linear([torch.nn.Linear(3, 3)])


def test_cpu_layers_raise_tcgemms_error_when_called():
    net = torch.nn.Sequential(torch.nn.Linear(4, 4))
    replace_linear(net)
    with pytest.raises(ValueError, match="CUDA tensors only"):
        net(torch.randn(2, 4))


@pytest.mark.parametrize("bias", [True, False])
def test_swapped_model_forward_and_backward_match_torch(gpu, bias):
    torch.manual_seed(1)
    net = _Net()
    net.blocks[0].up = torch.nn.Linear(8, 16, bias=bias)
    net.shared = net.blocks[0].up
    x = torch.randn(2, 3, 5)
    y_ref = net(x)
    y_ref.square().sum().backward()
    grads_ref = {n: p.grad.clone() for n, p in net.named_parameters()}
    net.zero_grad()
    replace_linear(net)
    gpu.calls.clear()
    y = net(x)
    assert len(gpu.calls) == 8  # every Linear call ran on the (emulated) kernels
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)
    y.square().sum().backward()
    for n, p in net.named_parameters():
        torch.testing.assert_close(p.grad, grads_ref[n], rtol=1e-5, atol=1e-5, msg=n)
    restore_linear(net)
    gpu.calls.clear()
    torch.testing.assert_close(net(x), y_ref)
    assert not gpu.calls


# --- transformers models (skipped where transformers is not installed) -----------------------------

def test_hf_conv1d_is_left_alone_without_transformers_imported():
    """replace_linear never imports transformers: it looks for Conv1D only in modules already imported."""
    import subprocess
    import sys

    code = ("import sys, torch, tcgemm.nn as n; m = torch.nn.Sequential(torch.nn.Linear(2, 2)); "
            "assert n.replace_linear(m) == 1 and n.restore_linear(m) == 1; assert 'transformers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def _tiny_llama():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=96, max_position_embeddings=64,
                                   attn_implementation="sdpa")
    torch.manual_seed(2)
    return transformers.LlamaForCausalLM(cfg).eval()


def _tiny_gpt2():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(n_embd=64, n_layer=2, n_head=4, vocab_size=96, n_positions=64, bos_token_id=0,
                                  eos_token_id=0, attn_implementation="sdpa")
    torch.manual_seed(3)
    return transformers.GPT2LMHeadModel(cfg).eval()


def test_tiny_llama_every_projection_swapped_and_logits_match(gpu):
    model = _tiny_llama()
    keys = list(model.state_dict())
    params = dict(model.named_parameters())
    ids = torch.randint(0, 96, (2, 7), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        ref = model(ids).logits
    assert replace_linear(model) == 2 * 7 + 1  # q, k, v, o, gate, up, down per layer, and lm_head
    assert all(type(m) is tcgemm.nn.Linear for m in model.modules() if isinstance(m, torch.nn.Linear))
    assert list(model.state_dict()) == keys
    assert all(p is params[n] for n, p in model.named_parameters())
    gpu.calls.clear()
    with torch.no_grad():
        logits = model(ids).logits
    assert len(gpu.calls) == 15
    torch.testing.assert_close(logits, ref, rtol=1e-4, atol=1e-4)
    assert restore_linear(model) == 15
    assert all(type(m) is torch.nn.Linear for m in model.modules() if isinstance(m, torch.nn.Linear))


def test_tiny_llama_decode_with_static_cache(gpu):
    """Prefill then one-token decode steps through transformers' StaticCache: the path the example times."""
    model = _tiny_llama()
    from transformers import StaticCache

    ids = torch.randint(0, 96, (2, 6), generator=torch.Generator().manual_seed(5))

    def run() -> list[torch.Tensor]:
        cache = StaticCache(config=model.config, max_cache_len=16)
        with torch.no_grad():
            out = [model(ids, past_key_values=cache, use_cache=True).logits[:, -1]]
            token = out[-1].argmax(-1, keepdim=True)
            for _ in range(3):
                out.append(model(token, past_key_values=cache, use_cache=True).logits[:, -1])
                token = out[-1].argmax(-1, keepdim=True)
        return out

    ref = run()
    replace_linear(model)
    gpu.calls.clear()
    got = run()
    assert len(gpu.calls) == 4 * 15
    assert [problem.m for _plan, problem in gpu.calls[15::15]] == [2, 2, 2]  # decode: M = batch on lm_head too
    for g, r in zip(got, ref, strict=True):
        torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4)


def test_tiny_gpt2_conv1d_swapped_and_logits_match(gpu):
    model = _tiny_gpt2()
    from transformers.pytorch_utils import Conv1D as HFConv1D

    keys = list(model.state_dict())
    params = dict(model.named_parameters(remove_duplicate=False))
    ids = torch.randint(0, 96, (2, 9), generator=torch.Generator().manual_seed(6))
    with torch.no_grad():
        ref = model(ids).logits
    assert replace_linear(model, precision="tf32") == 2 * 4 + 1  # c_attn, c_proj, c_fc, mlp.c_proj; lm_head
    assert not any(isinstance(m, HFConv1D) for m in model.modules())
    convs = [m for m in model.modules() if isinstance(m, tcgemm.nn.Conv1D)]
    assert len(convs) == 8 and all(c.precision == "tf32" for c in convs)
    assert model.lm_head.weight is model.transformer.wte.weight  # the tied embedding stays tied
    assert list(model.state_dict()) == keys
    assert all(p is params[n] for n, p in model.named_parameters(remove_duplicate=False))
    assert "nf=192, nx=64" in repr(model.transformer.h[0].attn.c_attn)
    for conv in convs:
        conv.precision = None  # the emulator computes exactly; precision is only passed through
    with torch.no_grad():
        torch.testing.assert_close(model(ids).logits, ref, rtol=1e-4, atol=1e-4)
    assert restore_linear(model) == 9
    assert sum(type(m) is HFConv1D for m in model.modules()) == 8
    assert model.transformer.h[0].attn.c_attn.weight is params["transformer.h.0.attn.c_attn.weight"]
    with torch.no_grad():
        torch.testing.assert_close(model(ids).logits, ref)


def test_conv1d_gradients_match_transformers(gpu):
    pytest.importorskip("transformers")
    from transformers.pytorch_utils import Conv1D as HFConv1D

    torch.manual_seed(7)
    ref = HFConv1D(6, 4)
    ours = tcgemm.nn.Conv1D.from_hf(ref)
    assert ours.weight is ref.weight and ours.bias is ref.bias and ours.hf_class is HFConv1D
    x = torch.randn(3, 5, 4, requires_grad=True)
    ours(x).sum().backward()
    grads = [x.grad.clone(), ref.weight.grad.clone(), ref.bias.grad.clone()]
    x.grad = None
    ref.zero_grad()
    ref(x).sum().backward()
    for g, r in zip(grads, [x.grad, ref.weight.grad, ref.bias.grad], strict=True):
        torch.testing.assert_close(g, r, rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="transformers Conv1D"):
        tcgemm.nn.Conv1D.from_hf(torch.nn.ReLU())


def test_llama_example_pipeline_on_the_emulated_gpu(gpu, monkeypatch):
    """examples/llama_transformers.py end to end on a tiny Llama (CPU clock, no CUDA graphs): the
    correctness check, the kernels traced per shape, the rows and the record."""
    pytest.importorskip("transformers")
    import importlib.util
    import json
    import sys
    from pathlib import Path

    from tcgemm import launch

    def emulate_and_note(plan, *args, **kw):
        launch.note_launch(plan.spec, plan.config)
        gpu(plan, *args, **kw)

    monkeypatch.setattr(launch, "run", emulate_and_note)
    path = Path(__file__).parents[2] / "examples" / "llama_transformers.py"
    spec = importlib.util.spec_from_file_location("llama_transformers", path)
    example = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "llama_transformers", example)  # dataclasses look their module up
    spec.loader.exec_module(example)
    args = example.parser().parse_args(
        ["--layers", "2", "--hidden", "64", "--intermediate", "128", "--heads", "4", "--kv-heads", "2", "--vocab",
         "96", "--prefill", "1x8,2x4", "--decode-batches", "1,3", "--new-tokens", "3", "--context", "5",
         "--repeats", "2", "--eager-decode-repeats", "2", "--warmup", "1"])
    lines: list[str] = []
    record = example.measure(args, "cpu", graphs=False, progress=lines.append)
    record = json.loads(json.dumps(record))
    assert record["config"]["layers_swapped"] == 15
    correct = record["correctness"]
    assert correct["passed"] and correct["prefill_rel_error"] < 1e-5 and correct["decode_rel_error"] < 1e-5
    rows = [(r["phase"], r["mode"], r["batch"], r["tokens"]) for r in record["rows"]]
    assert rows == [("prefill", "eager", 1, 8), ("prefill", "eager", 2, 4), ("decode", "eager", 1, 3),
                    ("decode", "eager", 3, 3)]
    assert all(r["rounds"] == 2 and r["torch_tokens_per_s"] > 0 and r["tcgemm_tokens_per_s"] > 0
               for r in record["rows"])
    kernels = record["kernels"]
    phases = {k["phase"] for k in kernels}
    assert phases == {"prefill 1x8", "prefill 2x4", "decode batch 1", "decode batch 3"}
    by_phase = {p: {(k["m"], k["n"], k["k"]): k for k in kernels if k["phase"] == p} for p in phases}
    # q and o share a shape, k and v another; gate and up; down; lm_head at M = batch (logits_to_keep=1)
    assert set(by_phase["prefill 1x8"]) == {(8, 64, 64), (8, 32, 64), (8, 128, 64), (8, 64, 128), (1, 96, 64)}
    assert by_phase["prefill 1x8"][(8, 64, 64)]["layers"] == ["o_proj", "q_proj"]
    assert set(by_phase["decode batch 3"]) == {(3, 64, 64), (3, 32, 64), (3, 128, 64), (3, 64, 128), (3, 96, 64)}
    assert all(k["kernels"] and all(":" in label for label in k["kernels"]) for k in kernels)
    assert any("ratio" in line for line in lines) and "replace_linear swaps 15 layers" in lines


def test_llama_example_switch_puts_back_the_same_modules(monkeypatch):
    """The example's interleaved rounds swap the Linear layers (and, with --fuse-mlp, the MLPs) back and forth:
    every switch after the first to an implementation puts back that first switch's objects (a new
    tcgemm.nn.Linear each round would time its first call, the launch a user's model builds once)."""
    pytest.importorskip("transformers")
    import importlib.util
    import sys
    from pathlib import Path

    import tcgemm.mlp
    import tcgemm.nn

    path = Path(__file__).parents[2] / "examples" / "llama_transformers.py"
    spec = importlib.util.spec_from_file_location("llama_transformers", path)
    example = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "llama_transformers", example)
    spec.loader.exec_module(example)
    args = example.parser().parse_args(["--layers", "2", "--hidden", "64", "--intermediate", "128", "--heads", "4",
                                        "--kv-heads", "2", "--vocab", "96", "--fuse-mlp"])
    example.FUSE_MLP["on"] = True
    model = example.build_model(args, "cpu")

    def modules() -> dict[str, int]:
        return {name: id(m) for name, m in model.named_modules() if name}

    seen = {}
    for round_ in range(3):
        for impl in example.IMPLS:
            example.switch(model, impl)
            now = modules()
            assert seen.setdefault(impl, now) == now, (round_, impl)
            kinds = {type(m) for m in model.modules()}
            if impl == "tcgemm":
                assert tcgemm.mlp.GatedMLP in kinds and type(model.lm_head) is tcgemm.nn.Linear
            else:
                assert tcgemm.mlp.GatedMLP not in kinds and tcgemm.nn.Linear not in kinds
