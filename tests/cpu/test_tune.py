"""The autotuner without a GPU: shape classes, the per-GPU cache file, the lookup that kernel="auto" makes,
and tcgemm tune's command line. Timing is faked; launches go to the kernel-contract emulator (fake_gpu)."""

from __future__ import annotations

import json
from functools import cache

import pytest
import torch

import tcgemm
from tcgemm import cli, dispatch, launch, tune, tuned
from tcgemm.problem import describe

CLASS = "bf16:rr:512x512x512:b1:a16"


@cache
def _auto512() -> tuple[str, str, list[str]]:
    """(kernel, heuristic config, its other configs) of auto for bf16 512^3 on the fake H100: read from the
    registry, so that the tests follow config changes."""
    (p,) = tune.plan([(512, 512, 512)], "bf16", cc=90, sms=132)
    return p.spec.name, p.heuristic.name, [c.name for c in p.configs if c is not p.heuristic]


def _key(**changes):
    key = {"gpu": "Fake H100", "sms": 132, "capability": "9.0", "driver": "13000", "cuda": "13.0",
           "tcgemm": tcgemm.__version__, "kernels": tune.kernel_digest(), "classes": tuned.CLASS_SCHEME}
    return {**key, **changes}


@pytest.fixture(autouse=True)
def tune_cache(cache_dir, monkeypatch):
    """A private cache root, the fake H100's key, and no tables remembered from other tests."""
    monkeypatch.setattr(tune, "current_key", lambda index=None: _key())
    monkeypatch.setattr(tuned, "current_key", lambda index=None: _key())  # (lookups read the cache through tuned)
    monkeypatch.delenv("TCGEMM_TUNE", raising=False)
    tune.reload()
    yield tune.cache_path(_key())
    tune.reload()


def _problem(m, n, k, precision="bf16", layouts="rr", batch=1):
    a, b = tune._operands(m, n, k, precision, layouts, "meta")
    if batch > 1:
        a, b = a.expand(batch, *a.shape), b.expand(batch, *b.shape)
        a, b = a.contiguous(), b.contiguous()
    return describe(a, b, precision="tf32" if precision == "tf32" else None)[0]


def _entry(best=None, spec=None, sms=132, arch=90, shape=(512, 512, 512)):
    """A cache entry for CLASS; default: the last of auto's other configs won, at half the heuristic's time."""
    kernel, heuristic, others = _auto512()
    best = others[-1] if best is None else best
    return {"spec": spec or kernel, "best": best, "heuristic": heuristic, "arch": arch, "sms": sms,
            "shape": list(shape), "layouts": "rr", "times_ms": {best: 0.01, heuristic: 0.02}, "skipped": {}}


def _launched() -> str:
    from test_api_emulated import emulate

    return emulate.calls[-1][0].config.name


def _write(path, entries, key=None):
    tune.write_cache(path, key or _key(), entries)
    tune.reload()


def _bf16(m, n, k, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(m, k, generator=gen).to(torch.bfloat16), torch.randn(k, n, generator=gen).to(torch.bfloat16))


def test_bucket_rounds_up_to_powers_of_two():
    assert [tune.bucket(x) for x in (1, 2, 3, 16, 3000, 4096, 4097, 14336)] == [1, 2, 4, 16, 4096, 4096, 8192, 16384]


def test_shape_key_names_the_class():
    # M rounded up to a power of two (token counts vary), N and K exact (a weight's shape does not)
    assert tune.shape_key(_problem(3000, 14336, 4096)) == "bf16:rr:4096x14336x4096:b1:a16"
    assert tune.shape_key(_problem(4096, 4096, 4096)) == tune.shape_key(_problem(2049, 4096, 4096))
    assert tune.shape_key(_problem(4096, 4096, 4096)) != tune.shape_key(_problem(4096, 4000, 4096))
    assert tune.shape_key(_problem(512, 6144, 4096)) != tune.shape_key(_problem(512, 8192, 3584))
    assert tune.shape_key(_problem(64, 64, 64, batch=3)).endswith(":bN:a16")
    assert tune.shape_key(_problem(64, 64, 63)).endswith(":b1:u")  # lda = 63 bf16: rows not 16-byte aligned
    assert tune.shape_key(_problem(64, 64, 64, "tf32", "cr")).startswith("tf32:cr:64x64x64")


def test_plan_on_meta_tensors_matches_dispatch():
    (p,) = tune.plan([(512, 512, 512)], "bf16", "rr", cc=90, sms=132)
    assert p.spec.family == "hopper" and p.key == CLASS
    assert p.heuristic is dispatch.pick_config(p.spec, _problem(512, 512, 512), 132)
    assert [c.name for c in p.configs] == [c.name for c in p.spec.configs_for("bf16") if c.serves_layouts("rr")]
    narrow = {c.name for c in p.spec.configs_for("bf16") if not c.serves_layouts("rr")}
    assert narrow and not narrow & {c.name for c in p.configs}  # (tiles that need a K-major B: rc, cc only)
    (t,) = tune.plan([(1024, 1024, 1024)], "tf32", "cr")  # auto stages K-major copies: the key has their layouts
    assert t.spec.family == "hopper" and t.key.startswith("tf32:rc:") and t.layouts == "cr"
    # tf32 with B row-major runs transposed (D^T = B^T A^T, A through registers): its configs only
    (t,) = tune.plan([(1024, 1024, 1024)], "tf32", "rr")
    assert t.key.startswith("tf32:cc:") and t.layouts == "rr" and t.configs
    assert all(c.get("D_TRANSPOSED") and c.get("A_REGS") for c in t.configs) and t.heuristic in t.configs
    with pytest.raises(ValueError, match="--layouts"):
        tune.plan([(8, 8, 8)], "bf16", "rx")


def test_cache_round_trip_and_merge(tune_cache):
    _write(tune_cache, {CLASS: _entry("cfg-a")})
    data = tune.read_cache(tune_cache)
    assert data["key"] == _key() and data["entries"][CLASS]["best"] == "cfg-a"
    assert tune_cache.name == "fake-h100-132sm.json" and tune_cache.parent == tune.cache_root()
    assert not list(tune_cache.parent.glob(".tmp-*"))  # the temporary file was renamed into place

    (planned,) = tune.plan([(4096, 4096, 4096)], "bf16")
    result = tune.ShapeResult(planned, {"cfg-x": 1.0, "cfg-y": 0.9}, {"cfg-z": "RuntimeError: no"})
    tune.save([result], 90, 132)
    entries = tune.read_cache(tune_cache)["entries"]
    assert set(entries) == {CLASS, "bf16:rr:4096x4096x4096:b1:a16"}
    big = entries["bf16:rr:4096x4096x4096:b1:a16"]
    assert big["best"] == "cfg-y" and big["heuristic"] == planned.heuristic.name and big["skipped"]
    assert big["times_ms"] == {"cfg-x": 1.0, "cfg-y": 0.9} and big["shape"] == [4096, 4096, 4096]
    assert tune.ShapeResult(planned, {planned.heuristic.name: 1.0, "cfg-y": 0.8}).gain == pytest.approx(0.25)


def test_missing_cache_means_untuned(fake_gpu, tune_cache):
    assert not tune_cache.exists()
    tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[1]  # the heuristic's pick


@pytest.mark.parametrize("text", ["{not json", json.dumps([1, 2]), json.dumps({"format": 99, "entries": {}})])
def test_corrupt_cache_is_ignored_with_a_warning(fake_gpu, tune_cache, text):
    tune_cache.parent.mkdir(parents=True)
    tune_cache.write_text(text)
    with pytest.warns(RuntimeWarning, match="ignores its tune cache"):
        tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[1]
    (planned,) = tune.plan([(512, 512, 512)], "bf16")
    with pytest.warns(RuntimeWarning):
        tune.save([tune.ShapeResult(planned, {_auto512()[2][0]: 1.0})], 90, 132)  # tuning again replaces it
    assert tune.read_cache(tune_cache)["entries"]


def test_tuned_config_reaches_the_launch(fake_gpu, tune_cache):
    kernel, heuristic, others = _auto512()
    _write(tune_cache, {CLASS: _entry()})
    for m, n, k in ((512, 512, 512), (300, 512, 512)):  # one shape class (M rounded up to 512)
        a, b = _bf16(m, n, k)
        d = tcgemm.gemm(a, b)
        assert _launched() == others[-1]
        torch.testing.assert_close(d.double(), a.double() @ b.double(), rtol=1e-2, atol=1e-2)
    tcgemm.gemm(*_bf16(512, 512, 512), config=others[0])  # an explicit config wins
    assert _launched() == others[0]
    tcgemm.gemm(*_bf16(512, 512, 512), kernel=kernel)  # a named kernel keeps the heuristic
    assert _launched() == heuristic
    tcgemm.gemm(*_bf16(1024, 512, 512))  # another class: the heuristic
    assert _launched() == tune.plan([(1024, 512, 512)], "bf16")[0].heuristic.name


def test_tcgemm_tune_0_disables(fake_gpu, tune_cache, monkeypatch):
    _write(tune_cache, {CLASS: _entry()})
    monkeypatch.setenv("TCGEMM_TUNE", "0")
    tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[1]
    monkeypatch.setenv("TCGEMM_TUNE", "1")
    tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[2][-1]


@pytest.mark.parametrize("entry", [
    lambda: _entry("128x999x64"),  # a config the registry no longer has
    lambda: _entry(spec="some_other_kernel"),  # tuned for another kernel
    lambda: _entry(sms=114),  # another GPU's SM count
    lambda: {"best": 3},  # half an entry
])
def test_entries_that_do_not_fit_are_ignored(fake_gpu, tune_cache, entry):
    _write(tune_cache, {CLASS: entry()})
    tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[1]


def test_stale_file_is_ignored_and_replaced(fake_gpu, tune_cache):
    _write(tune_cache, {CLASS: _entry()}, key=_key(kernels="0ld"))
    tcgemm.gemm(*_bf16(512, 512, 512))
    assert _launched() == _auto512()[1]
    (planned,) = tune.plan([(4096, 4096, 4096)], "bf16")
    tune.save([tune.ShapeResult(planned, {"cfg-x": 1.0})], 90, 132)
    data = tune.read_cache(tune_cache)
    assert data["key"] == _key() and list(data["entries"]) == ["bf16:rr:4096x4096x4096:b1:a16"]


def test_key_changes_with_the_kernels():
    digest = tune.kernel_digest()
    assert len(digest) == 16 and digest == tune.kernel_digest()


def _fake_timing(monkeypatch, ms_per_config):
    """CPU input sets and a timer that answers ``ms_per_config[config]`` for whatever run() launched."""
    monkeypatch.setattr(tune, "_inputs", lambda m, n, k, precision, layouts: [_bf16(m, n, k), _bf16(m, n, k, seed=1)])
    timed = []

    def measure(fn, sets, budget_s):
        fn(0)
        timed.append(_launched())
        return [ms_per_config[timed[-1]]] * 3

    monkeypatch.setattr(tune, "_measure", measure)
    return timed


def test_tune_times_every_config_and_skips_failures(fake_gpu, tune_cache, monkeypatch):
    _kernel, heuristic, others = _auto512()
    if len(others) < 3:
        pytest.skip("needs four configs: one that fails, one that is wrong, the winner and the heuristic's")
    failing, wrong, winner = others[:3]
    ms = {name: 1.0 for name in others} | {heuristic: 0.3, winner: 0.25}
    timed = _fake_timing(monkeypatch, ms)
    emulate = launch.run

    def flaky(plan, problem, a, b, c, d, arch, **kw):
        if plan.config.name == failing:
            raise RuntimeError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES\nmore")
        emulate(plan, problem, a, b, c, d, arch, **kw)
        if plan.config.name == wrong:
            d.zero_()  # computes the wrong thing

    monkeypatch.setattr(launch, "run", flaky)
    steps = []
    (r,) = tune.tune([(512, 512, 512)], "bf16", budget_s=0.01, on_step=lambda desc, adv: steps.append(adv))
    assert r.skipped[failing] == "RuntimeError: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
    assert r.skipped[wrong].startswith("wrong result")
    assert set(r.times_ms) == set(ms) - {failing, wrong}
    assert r.best == winner and r.planned.heuristic.name == heuristic and r.heuristic_ms == 0.3
    assert r.gain == pytest.approx(0.3 / 0.25 - 1)
    n = len(ms) - 2
    assert len(timed) == 3 * n and timed[:n] == timed[n:2 * n][::-1]  # three rounds, alternating order
    assert sum(steps) == pytest.approx(len(ms))  # one unit of progress per config
    entry = tune.read_cache(tune_cache)["entries"][CLASS]
    assert entry["best"] == winner and entry["spec"] == r.planned.spec.name and entry["sms"] == 132

    monkeypatch.setattr(launch, "run", emulate)
    tcgemm.gemm(*_bf16(512, 512, 512))  # auto now runs the winner
    assert _launched() == winner


# ---------------------------------------------------------------------------------------------- the CLI


def test_cli_help_teaches(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["tune", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in ("tile config", "float64 reference", "CUDA events", "power of two", "TCGEMM_TUNE=0",
                  "TCGEMM_CACHE_DIR", "default heuristic", "stale", "--dry-run", "--show", "--clear", "Examples"):
        assert words in text, words
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "tune" in capsys.readouterr().out


def test_cli_dry_run_lists_the_timings(capsys):
    assert cli.main(["tune", "--precision", "bf16", "--shapes", "512,4096x14336x4096", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "(shape, config) timings" in out and "bf16:rr:4096x14336x4096:b1:a16" in out
    if not torch.cuda.is_available():  # planned for an H100
        assert "H100" in out and _auto512()[0] in out and f"{_auto512()[1]}*" in out
    assert not tune.cache_root().exists()  # nothing written


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_cli_tune_without_gpu_says_so(capsys):
    assert cli.main(["tune", "--shapes", "512"]) == 2
    assert "No CUDA GPU" in capsys.readouterr().out


@pytest.mark.parametrize("argv, flag", [(["--layouts", "rx", "--dry-run"], "--layouts"),
                                        (["--budget", "0", "--dry-run"], "--budget")])
def test_cli_bad_flags_are_named(capsys, argv, flag):
    assert cli.main(["tune", *argv]) == 2
    assert flag in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["tune", "--shapes", "4x4"])
    assert "--shapes" in capsys.readouterr().err


def test_cli_show_and_clear(capsys, tune_cache):
    assert cli.main(["tune", "--show"]) == 0
    assert "No tuned configs" in capsys.readouterr().out
    _write(tune_cache, {CLASS: _entry()})
    (tune_cache.parent / "other-gpu-114sm.json").write_text("{broken")
    assert cli.main(["tune", "--show"]) == 0
    out = capsys.readouterr().out
    assert CLASS in out and _auto512()[2][-1] in out and "+100.0%" in out
    assert "unreadable" in out and "Fake H100" in out
    assert cli.main(["tune", "--clear"]) == 0
    assert "removed 2" in capsys.readouterr().out
    assert not list(tune.cache_root().iterdir())


def test_cli_tunes_on_the_fake_gpu(fake_gpu, tune_cache, monkeypatch, capsys):
    _kernel, heuristic, others = _auto512()
    ms = {name: 1.0 for name in [heuristic, *others]} | {others[0]: 0.5}
    _fake_timing(monkeypatch, ms)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Fake H100")
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    assert cli.main(["tune", "--precision", "bf16", "--shapes", "512,500x512x512", "--budget", "0.01"]) == 0
    out = capsys.readouterr().out
    assert out.count(CLASS) == 2 and "500x512x512 rr" in out  # a row per shape
    assert others[0] in out and "+100.0%" in out and f"written to {tune_cache}" in out
    assert tune.read_cache(tune_cache)["entries"][CLASS]["best"] == others[0]


def test_tune_times_captured_graphs_when_every_config_captures(fake_gpu, tune_cache, monkeypatch):
    _kernel, heuristic, others = _auto512()
    winner = others[0]
    ms = {name: 1.0 for name in others} | {heuristic: 0.3, winner: 0.25}
    _fake_timing(monkeypatch, {})  # events must not be used
    monkeypatch.setattr(tune, "_measure", lambda fn, sets, budget_s: pytest.fail("timed call by call"))
    captured = []

    def capture(fn, sets):
        fn(0)
        captured.append(_launched())
        return captured[-1]  # stands for the graph of that config

    monkeypatch.setattr(tune, "_capture", capture)
    monkeypatch.setattr(tune, "_measure_graph", lambda graph, sets, budget_s: [ms[graph]] * 3)
    (r,) = tune.tune([(512, 512, 512)], "bf16", budget_s=0.01)
    assert r.timed_as == "graph" and sorted(captured) == sorted(ms)
    assert r.best == winner and r.heuristic_ms == 0.3
    assert tune.read_cache(tune_cache)["entries"][CLASS]["timed_as"] == "graph"


def test_tune_falls_back_to_events_if_a_config_does_not_capture(fake_gpu, tune_cache, monkeypatch):
    _kernel, heuristic, others = _auto512()
    ms = {name: 1.0 for name in others} | {heuristic: 0.3}
    _fake_timing(monkeypatch, ms)
    monkeypatch.setattr(tune, "_capture", lambda fn, sets: None if fn(0) is None and _launched() == heuristic else 1)
    monkeypatch.setattr(tune, "_measure_graph", lambda graph, sets, budget_s: pytest.fail("mixed timings"))
    (r,) = tune.tune([(512, 512, 512)], "bf16", budget_s=0.01)
    assert r.timed_as == "events" and r.best == heuristic


def test_a_config_within_min_gain_of_the_heuristic_is_not_stored(fake_gpu, tune_cache, monkeypatch):
    _kernel, heuristic, others = _auto512()
    close = 0.3 / (1 + tune.MIN_GAIN / 2)  # faster, but inside the margin
    _fake_timing(monkeypatch, {name: 1.0 for name in others} | {heuristic: 0.3, others[0]: close})
    (r,) = tune.tune([(512, 512, 512)], "bf16", budget_s=0.01)
    assert r.fastest == others[0] and r.best == heuristic and r.gain == 0.0
    assert tune.read_cache(tune_cache)["entries"][CLASS]["best"] == heuristic
