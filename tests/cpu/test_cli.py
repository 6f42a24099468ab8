"""The command line works without a GPU where it can, and says so where it cannot."""

from __future__ import annotations

import argparse
import json

import pytest
import torch

from tcgemm import cli


def test_help_teaches(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("bench", "check", "compile", "info", "list", "Examples"):
        assert word in text


def test_list_and_info_without_gpu():
    assert cli.main(["list"]) == 0
    assert cli.main(["info"]) == 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_gpu_commands_explain_missing_gpu():
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench", "--shapes", "64"])
    assert exc.value.code == 2


def test_compile_for_a_named_arch(cache_dir, monkeypatch):
    from tcgemm import launch

    few = launch.all_builds()[:3]
    monkeypatch.setattr(launch, "all_builds", lambda only=None: few)
    assert cli.main(["compile", "--arch", "sm_80", "--jobs", "2"]) == 0
    assert len(list(cache_dir.glob("*.cubin"))) == 3


def test_compile_one_kernels_builds(cache_dir):
    from tcgemm import launch

    assert cli.main(["compile", "--arch", "sm_80", "--jobs", "2", "--kernels", "simt_naive"]) == 0
    naive = [b for b in launch.all_builds() if b[0].name == "simt_naive"]
    assert len(list(cache_dir.glob("*.cubin"))) == len(naive)
    with pytest.raises(SystemExit, match="no such kernel"):
        cli.main(["compile", "--arch", "sm_80", "--kernels", "simt_naive,warp9"])


def test_compile_one_configs_builds():
    from tcgemm import launch, registry

    spec = registry.get("wgmma_tma_store")
    one, other = spec.configs[0].name, spec.configs[1].name
    builds = launch.all_builds({f"wgmma_tma_store:{one}"})
    assert builds and all(b[0].name == "wgmma_tma_store" for b in builds)
    assert len(builds) < len(launch.all_builds({"wgmma_tma_store"}))
    assert not set(map(str, builds)) & set(map(str, launch.all_builds({f"wgmma_tma_store:{other}"})))
    with pytest.raises(SystemExit, match="no such kernel or kernel:config"):
        cli.main(["compile", "--arch", "sm_90a", "--kernels", "wgmma_tma_store:9x9x9"])


def test_compile_keeps_one_precision_and_layout(cache_dir):
    """--precision and --layouts keep the builds a workload runs (bf16 x @ W.T: rc), nothing else."""
    from tcgemm import launch

    assert cli.main(["compile", "--arch", "sm_80", "--jobs", "2", "--kernels", "simt_naive", "--precision", "fp32",
                     "--layouts", "rc"]) == 0
    want = [d for spec, d in launch.all_builds({"simt_naive"})
            if "PRECISION_FP32" in dict(d) and dict(d)["A_LAYOUT"] == "0" and dict(d)["B_LAYOUT"] == "1"]
    assert want and len(list(cache_dir.glob("*.cubin"))) == len(want)
    with pytest.raises(SystemExit, match="--layouts 'rx'"):
        cli.main(["compile", "--arch", "sm_80", "--kernels", "simt_naive", "--layouts", "rx"])
    with pytest.raises(SystemExit, match="no build matches"):
        cli.main(["compile", "--arch", "sm_80", "--kernels", "simt_naive", "--precision", "fp8e4m3"])


def test_parse_shapes():
    assert cli.parse_shapes("1024,4096x10240x4096") == [(1024, 1024, 1024), (4096, 10240, 4096)]
    for bad in ("0", "12x3", "axb"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.parse_shape(bad)


def test_unknown_kernel_is_an_error_not_a_traceback(capsys):
    assert cli.main(["list"]) == 0
    assert cli._kernel_names("simt_naive,auto", "fp32") == ["simt_naive", "auto"]
    with pytest.raises(ValueError, match="unknown kernel"):
        cli._kernel_names("warp9", "fp32")
    json.dumps(cli._kernel_names("ladder", "fp32"))
    every = cli._kernel_names("auto,wgmma_tma_store:*", "bf16")  # name:* is every config of that kernel
    assert every[0] == "auto" and "wgmma_tma_store:128x128x64pp" in every and len(every) > 10
    with pytest.raises(ValueError, match="unknown kernel"):
        cli._kernel_names("warp9:*", "fp32")


def test_inspect_without_gpu(capsys):
    assert cli.main(["inspect", "simt_warp_tiling", "--arch", "sm_90a"]) == 0
    out = capsys.readouterr().out
    assert "registers / thread" in out and "fp32 FMA" in out
    assert cli.main(["inspect", "simt_naive", "--arch", "sm_80", "--sass"]) == 0
    assert "FFMA" in capsys.readouterr().out
    assert cli.main(["inspect", "simt_naive", "--arch", "sm_80", "--ptx"]) == 0
    assert ".entry simt_naive" in capsys.readouterr().out
    assert cli.main(["inspect", "simt_naive", "--precision", "fp16"]) == 2  # refused with a message


def test_plot_from_committed_results(tmp_path):
    pytest.importorskip("matplotlib")
    results = sorted(__import__("pathlib").Path("benchmarks/results").glob("*.json"))
    assert results, "no committed results"
    out = tmp_path / "ladder.png"
    assert cli.main(["plot", *map(str, results), "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000


def test_run_reports_file_problems_before_needing_a_gpu(tmp_path, capsys):
    import numpy as np

    missing = tmp_path / "nope.npy"
    assert cli.main(["run", str(missing), str(missing), "-o", str(tmp_path / "d.npy")]) == 2
    assert "no such file" in capsys.readouterr().out
    bad = tmp_path / "a.txt"
    bad.write_text("1 2 3")
    assert cli.main(["run", str(bad), str(bad), "-o", str(tmp_path / "d.npy")]) == 2
    np.save(tmp_path / "v.npy", np.zeros((2, 2, 2, 2)))
    assert cli.main(["run", str(tmp_path / "v.npy"), str(tmp_path / "v.npy"), "-o", str(tmp_path / "d.npy")]) == 2
    assert not (tmp_path / "d.npy").exists()


def test_save_matrix_is_atomic(tmp_path, monkeypatch):
    import numpy as np

    from tcgemm.fileio import load_matrix, save_matrix

    path = tmp_path / "d.npy"
    save_matrix(torch.ones(3, 4), path)
    assert torch.equal(load_matrix(path, "D"), torch.ones(3, 4))

    def explode(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "save", explode)
    with pytest.raises(KeyboardInterrupt):
        save_matrix(torch.zeros(3, 4), path)
    assert torch.equal(load_matrix(path, "D"), torch.ones(3, 4))  # old file intact
    assert [p.name for p in tmp_path.iterdir()] == ["d.npy"]  # no temp file left


def test_bench_model_gpt2_parses():
    args = cli.build_parser().parse_args(["bench", "--model", "gpt2", "--tokens", "2x128", "--attention", "sdpa"])
    assert args.model == ["gpt2"] and args.tokens == cli.TokenList((256,), (2, 128)) and args.attention == "sdpa"
    assert args.precision is None
    args = cli.build_parser().parse_args(["bench"])
    assert args.model is None and args.tokens is None  # --model's default: tcgemm.models.DEFAULT_TOKENS
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["bench", "--model", "gpt3"])
    for bad in ("0", "0x4", "axb"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.parse_tokens(bad)


def test_bench_defaults_headline_and_ladder():
    def resolved(*argv):
        args = cli.build_parser().parse_args(["bench", *argv])
        cli._bench_defaults(args)
        return args.kernels, args.precision, cli.parse_shapes(args.shapes)

    # no arguments: the headline, auto vs cuBLAS in bf16 at the sizes users run
    kernels, precision, shapes = resolved()
    assert (kernels, precision) == ("auto", "bf16")
    assert shapes == [(4096, 4096, 4096), (8192, 8192, 8192), (4096, 14336, 4096), (4096, 4096, 14336),
                      (128, 4096, 4096), (16, 4096, 4096)]
    # the ladders, one flag away: fp32 SIMT unless --precision says
    ladder = [(1024, 1024, 1024), (4096, 4096, 4096), (4096, 10240, 4096)]
    assert resolved("--ladder") == ("ladder", "fp32", ladder)
    assert resolved("--ladder", "--precision", "bf16") == ("ladder", "bf16", ladder)
    assert resolved("--kernels", "ladder") == ("ladder", "fp32", ladder)
    # explicit arguments win (tools/gpu_suite.sh passes all three)
    assert resolved("--precision", "fp16", "--kernels", "ladder,auto", "--shapes", "4096") == \
        ("ladder,auto", "fp16", [(4096, 4096, 4096)])
    assert resolved("--kernels", "auto", "--shapes", "8192")[:2] == ("auto", "bf16")


def test_bench_out_dtype_is_checked_against_the_precision():
    args = cli.build_parser().parse_args(["bench", "--precision", "bf16", "--out-dtype", "fp32"])
    assert args.out_dtype == "fp32"
    assert cli._bench_out_dtype("bf16", "fp32") == torch.float32
    assert cli._bench_out_dtype("fp8e4m3", "fp16") == torch.float16
    assert cli._bench_out_dtype("tf32", None) is None
    with pytest.raises(ValueError, match="--out-dtype fp16 is not available for --precision tf32; use one of: fp32"):
        cli._bench_out_dtype("tf32", "fp16")
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["bench", "--out-dtype", "fp64"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_bench_model_explains_missing_gpu(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench", "--model", "gpt2"])
    assert exc.value.code == 2
    assert "No CUDA GPU" in capsys.readouterr().out


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_gpt2_example_explains_missing_gpu():
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tcgemm import model_bench

    with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
        model_bench.bench_gpt2()
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, str(root / "examples" / "gpt2_mlp.py"), "--batch", "1"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root / "src")})
    assert run.returncode == 2 and "needs a CUDA GPU" in run.stderr, run.stderr
