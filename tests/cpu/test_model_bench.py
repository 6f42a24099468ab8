"""The model-shape benchmark without a GPU: the model tables, rotation counts, CLI parsing and help, and
bench_model end to end on the emulated GPU (tests/cpu/conftest.py) with a stand-in timer."""

from __future__ import annotations

import argparse
import json

import pytest
import torch

from tcgemm import cli, launch, model_bench, models
from tcgemm.models import LinearShape, ModelShapes

# ---------------------------------------------------------------------------------------------- the tables


def _shapes(name: str) -> dict[str, tuple[int, int, bool]]:
    return {lay.name: (lay.in_features, lay.out_features, lay.bias) for lay in models.get(name).layers}


def test_model_tables_hold_the_real_configs():
    assert _shapes("gpt2") == {"qkv": (768, 2304, True), "o": (768, 768, True), "fc1": (768, 3072, True),
                               "fc2": (3072, 768, True)}
    assert _shapes("llama3-8b") == {"qkv": (4096, 4096 + 2 * 8 * 128, False), "o": (4096, 4096, False),
                                    "gate_up": (4096, 2 * 14336, False), "down": (14336, 4096, False)}
    assert _shapes("llama3-70b-tp8") == {"qkv": (8192, 1280, False), "o": (1024, 8192, False),
                                         "gate_up": (8192, 7168, False), "down": (3584, 8192, False)}
    assert _shapes("qwen2.5-7b") == {"qkv": (3584, 4608, True), "o": (3584, 3584, False),
                                     "gate_up": (3584, 37888, False), "down": (18944, 3584, False)}
    assert models.DEFAULT_TOKENS == (1, 16, 64, 128, 512, 2048, 8192)
    llama = models.get("llama3-8b")
    assert llama.dtype == "bf16" and llama.source["num_key_value_heads"] == 8 and llama.activation == "swiglu"
    assert llama.gemms(16)[0] == (16, 6144, 4096)  # (M, N, K)
    assert models.get("gpt2").mlp == ("fc1", "fc2") and models.get("gpt2").activation == "gelu_tanh"


def test_model_names_and_errors():
    assert models.parse_names("all") == models.names()
    assert models.parse_names("qwen2.5-7b, gpt2,gpt2") == ["qwen2.5-7b", "gpt2"]
    with pytest.raises(ValueError, match=r"--model 'gpt3' is not known; use one of gpt2, .* or all"):
        models.parse_names("gpt3")
    with pytest.raises(ValueError, match="names no model"):
        models.parse_names(",")
    with pytest.raises(ValueError, match="tp=3"):
        models.llama_layers(4096, 14336, 32, 8, 128, tp=3)
    with pytest.raises(KeyError, match="has no layer 'fc1'"):
        models.get("llama3-8b").layer("fc1")


# ---------------------------------------------------------------------------------------------- rotation


def test_rotation_count_exceeds_three_l2_within_the_memory_cap():
    l2 = 50 * 2**20
    assert model_bench.rotation_count(2**20, 2**20, l2) == 151  # 1 MiB a call: 150 calls touch just 3 x L2
    assert model_bench.rotation_count(3 * l2, 3 * l2, l2) == 2  # always at least two
    weight = 4096 * 28672 * 2  # a llama3-8b gate_up weight, 235 MB
    count = model_bench.rotation_count(weight, weight, l2)
    assert count == 2 and count * weight > 3 * l2
    assert model_bench.rotation_count(10 * 2**30, 10 * 2**30, l2) == 1  # two would pass the 12 GiB cap
    assert model_bench.rotation_count(2**20, 2**20, l2, free_bytes=40 * 2**20) == 20  # half the free memory
    assert model_bench.rotation_count(1000, 1000, l2) == model_bench.MAX_SETS
    with pytest.raises(ValueError, match="positive"):
        model_bench.rotation_count(0, 1, l2)


def test_calls_per_block_cover_whole_passes():
    assert model_bench._calls_per_block(0.025, 10.0, 43) == 2537  # 2500 calls, rounded up to passes of 43
    assert model_bench._calls_per_block(0.025, 1e5, 2) == 2  # at least one pass
    assert model_bench._calls_per_block(10.0, 1e-3, 7) % 7 == 0


# ---------------------------------------------------------------------------------------------- the CLI


def test_bench_model_parsing():
    parse = cli.build_parser().parse_args
    args = parse(["bench", "--model", "all", "--tokens", "1,16,512", "--budget", "0.05", "--no-train",
                  "--json", "x.json", "--plot", "x.png", "--precision", "fp16"])
    assert args.model == models.names() and args.tokens.counts == (1, 16, 512) and args.budget == 0.05
    assert args.no_train and args.json == "x.json" and args.plot == "x.png" and args.precision == "fp16"
    args = parse(["bench", "--model", "llama3-8b,gpt2"])
    assert args.model == ["llama3-8b", "gpt2"] and args.tokens is None and args.budget is None
    assert args.train_tokens == [512, 4096] and not args.no_train and args.precision is None
    args = parse(["bench", "--model", "gpt2", "--tokens", "2x128", "--attention", "sdpa"])  # the old form
    assert args.tokens == cli.TokenList((256,), (2, 128)) and args.attention == "sdpa"
    with pytest.raises(SystemExit):
        parse(["bench", "--model", "gpt3"])
    with pytest.raises(SystemExit):
        parse(["bench", "--model", "gpt2", "--train-tokens", "0"])


def test_parse_tokens_maps_the_old_batch_by_seq_form():
    assert cli.parse_tokens("1,16,8x1024") == cli.TokenList((1, 16, 8192), (8, 1024))
    assert cli.parse_tokens("1,8192") == cli.TokenList((1, 8192), (8, 1024))  # sequences of 1024
    assert cli.parse_tokens("4x16,100") == cli.TokenList((64, 100), (1, 100))  # the largest sets the block
    assert cli.parse_tokens("16,16,1") == cli.TokenList((16, 1), (1, 16))
    assert cli.parse_batch_seq("8x1024") == (8, 1024)
    for bad in ("0", "a", "0x4", "axb", ","):
        with pytest.raises(argparse.ArgumentTypeError, match="--tokens"):
            cli.parse_tokens(bad)


def test_bench_help_teaches(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("tcgemm.nn.Linear", "holding the same weights", "3x the L2", "12 GiB", "copy i mod count",
                  "Eager time", "host work included", "CUDA graph", "A/B/B/A", "Ratio = torch time / tcgemm time",
                  "above 1 tcgemm is faster", "copy bandwidth", "training", "--no-train", "llama3-70b-tp8",
                  "--model all", "BATCHxSEQ", "tcgemm tune --model"):
        assert words in text, words


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_bench_model_without_gpu_says_so(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench", "--model", "llama3-8b"])
    assert exc.value.code == 2 and "No CUDA GPU" in capsys.readouterr().out
    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        model_bench.bench_model("gpt2")


def test_bench_model_bad_values_are_named(capsys):
    assert cli.main(["bench", "--model", "gpt2", "--precision", "int8"]) == 2
    assert "--precision 'int8' is not benchmarked for models" in capsys.readouterr().out
    assert cli.main(["bench", "--model", "gpt2", "--budget", "0"]) == 2
    assert "--budget 0" in capsys.readouterr().out


def test_tune_model_dry_run_lists_the_layers_shapes(capsys):
    assert cli.main(["tune", "--model", "llama3-8b", "--tokens", "16,2048", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for shape, layer in (("16x6144x4096", "qkv"), ("16x4096x4096", "o"), ("2048x28672x4096", "gate_up"),
                         ("2048x4096x14336", "down")):
        assert shape in out and f"llama3-8b {layer}" in out, shape
    assert "bf16:rc:16x6144x4096:b1:a16" in out  # A row-major, B = weight.T column-major; N, K exact
    assert " rr " not in out


def test_tune_model_shapes_and_one_entry_per_class(monkeypatch):
    seen = {}

    def fake_plan(shapes, precision, layouts, cc=90, sms=132):
        seen["shapes"], seen["layouts"] = list(shapes), layouts
        raise SystemExit(0)

    from tcgemm import tune

    monkeypatch.setattr(tune, "plan", fake_plan)
    with pytest.raises(SystemExit):
        cli.main(["tune", "--model", "gpt2,llama3-70b-tp8", "--tokens", "1,64", "--dry-run"])
    expected = [lay.gemm(m) for name in ("gpt2", "llama3-70b-tp8") for m in (1, 64)
                for lay in models.get(name).layers]
    assert seen == {"shapes": expected, "layouts": ["rc"]}
    planned = [argparse.Namespace(shape=s, key=k, layouts="rc") for s, k in (((1, 2, 3), "a"), ((4, 5, 6), "a"),
                                                                              ((7, 8, 9), "b"))]
    kept, shared = cli._one_per_class(planned)
    assert [p.shape for p in kept] == [(1, 2, 3), (7, 8, 9)] and shared == [((4, 5, 6), "a")]


def test_tune_model_flags_are_checked(capsys):
    with pytest.raises(SystemExit):
        cli.main(["tune", "--model", "gpt2", "--shapes", "512"])  # one or the other
    assert cli.main(["tune", "--tokens", "16", "--dry-run"]) == 2
    assert "--tokens goes with --model" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------- the pipeline


class FakeTimer:
    """CudaTimer's interface on the CPU: each side runs once per copy (the emulated kernels compute),
    and the times are fixed: torch 20 µs eager, 8 µs graph; tcgemm 10 µs eager, 4 µs graph."""

    def __init__(self) -> None:
        self.eager_sets: list[int] = []

    def l2_bytes(self) -> int:
        return 4096

    def free_bytes(self) -> int:
        return 2**30

    def empty_cache(self) -> None:
        pass

    def eager(self, sides, sets, budget_s, rounds=6):
        outs = [[fn(i) for i in range(sets)] for fn in sides]
        if sets > 1:  # the same copies on both sides: the same products
            for a, b in zip(*outs, strict=True):
                torch.testing.assert_close(a.float(), b.float(), rtol=2e-2, atol=2e-2)
        self.eager_sets.append(sets)
        return 20.0, 10.0, 2 * sets, 3 * sets

    def graphs(self, sides, sets, budget_s, estimate_us, rounds=6):
        assert estimate_us == 10.0
        return 8.0, 4.0

    def copy_bandwidth(self) -> float:
        return 2e12


@pytest.fixture
def traced_gpu(fake_gpu, monkeypatch):
    """The emulated GPU, its launches noted as launch.run notes them (launch.trace sees them)."""

    def run(plan, problem, *args, **kwargs):
        launch.note_launch(plan.spec, plan.config)
        fake_gpu(plan, problem, *args, **kwargs)

    monkeypatch.setattr(launch, "run", run)
    return fake_gpu


TINY = ModelShapes("tiny", "a tiny llama", {"hidden_size": 32}, (
    LinearShape("qkv", 32, 48, True), LinearShape("o", 32, 32, False), LinearShape("gate_up", 32, 128, False),
    LinearShape("down", 64, 32, False)), ("gate_up", "down"), "swiglu")


def test_bench_model_rows_sums_training_and_record(traced_gpu, monkeypatch):
    from tcgemm import bench, registry

    monkeypatch.setitem(models.MODELS, "tiny", TINY)
    monkeypatch.setattr(bench, "environment", lambda: {"gpu": "emulated"})
    timer, steps = FakeTimer(), []
    result = model_bench.bench_model("tiny", "bf16", (1, 8), 0.01, (16,), timer=timer, copy_bps=2e12,
                                     device="cpu", on_step=steps.append)
    assert steps == [f"tiny {lay} M={m}" for m in (1, 8) for lay in ("qkv", "o", "gate_up", "down")] + [
        "tiny training step 16 tokens"]
    assert steps and len(steps) == model_bench.steps(["tiny"], (1, 8), (16,), True)
    assert [(r.layer, r.m, r.k, r.n) for r in result.rows[:4]] == [
        ("qkv", 1, 32, 48), ("o", 1, 32, 32), ("gate_up", 1, 32, 128), ("down", 1, 64, 32)]
    for r in result.rows:
        assert r.passed and r.rel_error < r.tolerance == 1e-2
        assert r.eager_ratio == 2.0 and r.graph_ratio == 2.0 and r.tbps_basis == "graph"
        assert r.bytes_per_call == 2 * (r.k * r.n + (r.n if r.bias else 0) + r.m * r.k + r.m * r.n)
        assert r.tbps_tcgemm == pytest.approx(r.bytes_per_call / 4e-6 / 1e12)
        assert r.copy_fraction_tcgemm == pytest.approx(r.tbps_tcgemm / 2)
        assert r.sets >= 2 and r.rotation_bytes > 3 * 4096 and r.calls_per_block_torch == 2 * r.sets
        registry.get(r.kernel.split(":")[0])  # a tcgemm kernel ran
        assert r.explain == r.kernel and r.explain_how == "estimate"
    assert timer.eager_sets == [r.sets for r in result.rows] + [1]
    assert [(s.m, s.eager_us_torch, s.eager_us_tcgemm, s.eager_ratio, s.graph_ratio) for s in result.sums] == [
        (1, 80.0, 40.0, 2.0, 2.0), (8, 80.0, 40.0, 2.0, 2.0)]
    (train,) = result.train
    assert train.tokens == 16 and train.layers == ["gate_up", "down"] and train.ms_torch == 0.02
    assert train.passed and train.ratio == 2.0 and train.rel_error_dx < 1e-2 and train.rel_error_dw < 1e-2
    assert len(train.kernels) >= 1 and all(registry.get(k.split(":")[0]) for k in train.kernels)
    assert result.end_to_end == []  # gpt2 only

    record = json.loads(json.dumps(model_bench.model_record([result], {"precision": "bf16"}, 2e12)))
    assert record["environment"] == {"gpu": "emulated"} and record["copy_bandwidth_tbps"] == 2.0
    assert record["config"]["precision"] == "bf16" and "A/B/B/A" in record["config"]["timing"]
    (entry,) = record["models"]
    assert entry["model"]["name"] == "tiny" and entry["model"]["layers"][0]["out_features"] == 48
    assert len(entry["rows"]) == 8 and len(entry["sums"]) == 2 and entry["train"][0]["tokens"] == 16
    assert record["rows"] == entry["rows"]
    row = record["rows"][0]
    for key in ("model", "layer", "m", "k", "n", "eager_us_torch", "eager_us_tcgemm", "graph_us_torch",
                "graph_us_tcgemm", "eager_ratio", "graph_ratio", "tbps_torch", "tbps_tcgemm",
                "copy_fraction_tcgemm", "kernel", "rel_error", "passed"):
        assert key in row, key

    from tcgemm.plot import model_ratio_data

    assert model_ratio_data([record]) == {"tiny": {"eager": [(1, 2.0), (8, 2.0)], "graph": [(1, 2.0), (8, 2.0)]}}
    with pytest.raises(ValueError, match="not a `tcgemm bench --model` record"):
        model_ratio_data([{"rows": []}])


def test_gemm_plots_skip_model_rows(tmp_path):
    from tcgemm.plot import load_rows

    path = tmp_path / "m.json"
    path.write_text(json.dumps({"rows": [{"model": "tiny", "kernel": "x:y", "m": 1, "n": 2, "k": 3,
                                          "precision": "bf16"}], "models": []}))
    assert load_rows([path]) == []


def test_a_layer_that_runs_no_tcgemm_kernel_is_an_error(fake_gpu, monkeypatch):
    """The emulated launches are not traced here: the row must refuse to report times as tcgemm's."""
    monkeypatch.setitem(models.MODELS, "tiny", TINY)
    with pytest.raises(RuntimeError, match="tiny qkv at M=1: no tcgemm kernel launched"):
        model_bench.bench_model("tiny", tokens=(1,), train_tokens=(), timer=FakeTimer(), device="cpu")


def test_gpt2_gets_its_end_to_end_block_row(traced_gpu, monkeypatch):
    from tcgemm import bench

    def time_runs(fn, sets, budget_s, **kw):
        fn(0)
        return [2.0] * 25

    monkeypatch.setattr(bench, "time_runs", time_runs)
    block = model_bench.GPT2Config(d_model=32, n_head=4, d_ff=128, batch=2, seq=8)
    result = model_bench.bench_model("gpt2", tokens=(2,), train_tokens=(), end_to_end=block, timer=FakeTimer(),
                                     device="cpu")
    assert [r.layer for r in result.rows] == ["qkv", "o", "fc1", "fc2"] and all(r.passed for r in result.rows)
    assert [e.impl for e in result.end_to_end] == ["torch.nn.Linear", "tcgemm.nn.Linear", "tcgemm fused GELU"]
    assert result.end_to_end[2].passed
    assert result.end_to_end[1].passed and result.end_to_end[1].precision == "bf16"


def test_bench_model_checks_its_arguments():
    with pytest.raises(ValueError, match="--precision 'int8'"):
        model_bench.bench_model("gpt2", "int8", device="cpu")
    with pytest.raises(ValueError, match="--tokens"):
        model_bench.bench_model("gpt2", tokens=(0,), device="cpu")
    with pytest.raises(ValueError, match="--budget"):
        model_bench.bench_model("gpt2", budget_s=0, device="cpu")
    with pytest.raises(ValueError, match="--model 'gpt3'"):
        model_bench.bench_model("gpt3", device="cpu")


def test_cli_model_bench_on_the_emulated_gpu(traced_gpu, monkeypatch, tmp_path, capsys):
    """`tcgemm bench --model tiny --json --plot` with the GPU parts replaced: tables, JSON, picture."""
    from tcgemm import bench

    monkeypatch.setitem(models.MODELS, "tiny", TINY)
    monkeypatch.setattr(cli, "_need_gpu", lambda: None)
    monkeypatch.setattr(bench, "environment", lambda: {"gpu": "emulated"})
    monkeypatch.setattr(model_bench, "CudaTimer", FakeTimer)
    real = model_bench.bench_model
    monkeypatch.setattr(model_bench, "bench_model", lambda *a, **kw: real(*a, **kw, device="cpu"))
    out = tmp_path / "r.json"
    argv = ["bench", "--model", "tiny", "--tokens", "1,4", "--train-tokens", "8", "--json", str(out)]
    plot = pytest.importorskip("matplotlib", reason="the picture needs matplotlib") and tmp_path / "r.png"
    argv += ["--plot", str(plot)]
    monkeypatch.setattr(cli.console, "width", 250)
    assert cli.main(argv) == 0
    text = capsys.readouterr().out
    assert "layer sum" in text and "gate_up" in text and "2.00x" in text and "training step" in text
    record = json.loads(out.read_text())
    assert record["config"]["tokens"] == [1, 4] and record["config"]["train_tokens"] == [8]
    assert record["config"]["models"] == ["tiny"] and len(record["rows"]) == 8
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_tune_model_defaults_to_the_token_counts_where_tuning_paid(monkeypatch):
    seen = {}

    def fake_plan(shapes, precision, layouts, cc=90, sms=132):
        seen["shapes"] = list(shapes)
        raise SystemExit(0)

    from tcgemm import tune

    monkeypatch.setattr(tune, "plan", fake_plan)
    with pytest.raises(SystemExit):
        cli.main(["tune", "--model", "gpt2", "--dry-run"])
    assert {m for m, _n, _k in seen["shapes"]} == set(tune.MODEL_TOKENS) and max(tune.MODEL_TOKENS) == 512
