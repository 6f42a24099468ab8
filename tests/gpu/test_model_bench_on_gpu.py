"""The model-shape benchmark on the GPU, tiny: what it measures and records, never how fast."""

from __future__ import annotations

import json

import pytest

from tcgemm import cli, model_bench, registry

pytestmark = pytest.mark.gpu


def test_one_model_two_token_counts(tmp_path):
    timer = model_bench.CudaTimer()
    copy_bps = timer.copy_bandwidth(nbytes=2**28, repeats=3)
    assert copy_bps > 1e11  # bytes/s: any GPU copies faster than 100 GB/s
    result = model_bench.bench_model("llama3-70b-tp8", "bf16", (1, 128), budget_s=0.01, train_tokens=(512,),
                                     timer=timer, copy_bps=copy_bps)
    assert [(r.layer, r.m) for r in result.rows] == [(lay, m) for m in (1, 128)
                                                     for lay in ("qkv", "o", "gate_up", "down")]
    for r in result.rows:
        assert r.passed, r
        for label in r.kernel.split("+"):
            registry.get(label.split(":")[0])  # a tcgemm kernel ran
        assert r.eager_us_torch > 0 and r.eager_us_tcgemm > 0 and r.sets >= 2
        assert r.graph_us_tcgemm is not None and r.graph_us_torch is not None  # both sides capture
        assert r.rotation_bytes > 3 * timer.l2_bytes() or r.sets == 1
        assert 0 < r.copy_fraction_tcgemm and 0 < r.tbps_tcgemm
    assert [s.m for s in result.sums] == [1, 128]
    (train,) = result.train
    assert train.passed and train.ms_tcgemm > 0 and train.kernels, train

    record = model_bench.model_record([result], {"precision": "bf16"}, copy_bps)
    path = tmp_path / "models.json"
    path.write_text(json.dumps(record, default=str))
    back = json.loads(path.read_text())
    assert back["rows"] == json.loads(json.dumps(record["rows"])) and back["environment"]["gpu"]
    assert back["models"][0]["model"]["name"] == "llama3-70b-tp8"


def test_cli_gpt2_with_its_end_to_end_row(tmp_path):
    out = tmp_path / "gpt2.json"
    assert cli.main(["bench", "--model", "gpt2", "--tokens", "1,2x64", "--budget", "0.01", "--no-train",
                     "--json", str(out)]) == 0
    record = json.loads(out.read_text())
    (entry,) = record["models"]
    assert {r["m"] for r in entry["rows"]} == {1, 128} and all(r["passed"] for r in entry["rows"])
    assert [e["impl"] for e in entry["end_to_end"]] == ["torch.nn.Linear", "tcgemm.nn.Linear", "tcgemm fused GELU"]
    assert entry["end_to_end"][1]["passed"] and record["config"]["block"] == [2, 64]
