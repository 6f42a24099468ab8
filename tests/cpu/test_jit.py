"""The JIT's disk cache: keyed, atomic, self-checking, and never fatal."""

from __future__ import annotations

import os
import stat
import warnings
from concurrent.futures import ProcessPoolExecutor

import pytest

from tcgemm import jit

SOURCE = "simt/00_naive.cu"
DEFINES = jit.as_defines({"BLOCK_M": 16, "BLOCK_N": 16, "THREADS": 256}.items())


def _entry(cache_dir):
    return cache_dir / f"{jit.build_key(SOURCE, DEFINES, 'sm_80')}.cubin"


def test_key_depends_on_defines_and_arch():
    k1 = jit.build_key(SOURCE, DEFINES, "sm_80")
    assert k1 == jit.build_key(SOURCE, DEFINES, "sm_80")
    assert k1 != jit.build_key(SOURCE, DEFINES, "sm_90a")
    assert k1 != jit.build_key(SOURCE, jit.as_defines({"BLOCK_M": 32, "BLOCK_N": 8, "THREADS": 256}.items()), "sm_80")


def test_second_lookup_hits_the_disk_cache(cache_dir, monkeypatch):
    first = jit.cubin(SOURCE, DEFINES, "sm_80")
    assert _entry(cache_dir).is_file()
    monkeypatch.setattr(jit, "compile_source", lambda *a: pytest.fail("recompiled despite a cached cubin"))
    assert jit.cubin(SOURCE, DEFINES, "sm_80") == first


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_corrupt_cache_entries_are_recompiled(cache_dir, damage):
    good = jit.cubin(SOURCE, DEFINES, "sm_80")
    path = _entry(cache_dir)
    blob = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip":
        path.write_bytes(blob[:-10] + bytes(b ^ 0xFF for b in blob[-10:]))
    elif damage == "garbage":
        path.write_bytes(b"not a cubin at all")
    else:
        path.write_bytes(b"")
    assert jit.cubin(SOURCE, DEFINES, "sm_80") == good
    assert path.read_bytes() == blob  # rewritten whole


def test_read_only_cache_falls_back_to_memory(cache_dir, monkeypatch):
    cache_dir.mkdir(parents=True)
    os.chmod(cache_dir, stat.S_IRUSR | stat.S_IXUSR)
    monkeypatch.setattr(jit, "_warned_readonly", False)
    try:
        if os.access(cache_dir, os.W_OK):
            pytest.skip("running as a user that can write anywhere (root)")
        with pytest.warns(RuntimeWarning, match="cannot write its kernel cache"):
            assert jit.cubin(SOURCE, DEFINES, "sm_80")
    finally:
        os.chmod(cache_dir, stat.S_IRWXU)


def test_unwritable_cache_path_warns_once(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("TCGEMM_CACHE_DIR", str(blocker / "cache"))  # parent is a file
    monkeypatch.setattr(jit, "_warned_readonly", False)
    with pytest.warns(RuntimeWarning, match="TCGEMM_CACHE_DIR"):
        jit.cubin(SOURCE, DEFINES, "sm_80")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jit.cubin(SOURCE, DEFINES, "sm_80")


def _compile_in_child(cache: str) -> bytes:
    os.environ["TCGEMM_CACHE_DIR"] = cache
    return jit.cubin(SOURCE, DEFINES, "sm_80")


def test_concurrent_processes_share_one_entry(cache_dir):
    with ProcessPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_compile_in_child, [str(cache_dir)] * 8))
    assert len(set(results)) == 1
    assert [p.name for p in cache_dir.iterdir()] == [_entry(cache_dir).name]  # no temp files left


def test_compile_errors_carry_the_log():
    with pytest.raises(jit.CompileError, match=r"simt/00_naive\.cu"):
        jit.compile_source(SOURCE, jit.as_defines({"BLOCK_M": 16, "BLOCK_N": 16, "THREADS": 100}.items()), "sm_80")


def test_target_arch():
    assert jit.target_arch((9, 0)) == "sm_90a"
    assert jit.target_arch((8, 6)) == "sm_86"
    with pytest.raises(RuntimeError, match="sm_80"):
        jit.target_arch((7, 5))


def test_missing_cuda_core_names_the_packages(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda_core(name, *args, **kwargs):
        if name == "cuda.core" or name.startswith("cuda.core."):
            raise ImportError("No module named 'cuda.core'")
        return real_import(name, *args, **kwargs)

    jit._cuda_core.cache_clear()
    monkeypatch.setattr(builtins, "__import__", no_cuda_core)
    try:
        with pytest.raises(jit.JitUnavailable, match="nvidia-cuda-nvrtc"):
            jit._cuda_core()
    finally:
        monkeypatch.undo()
        jit._cuda_core.cache_clear()


def test_missing_nvrtc_library_names_the_package(monkeypatch):
    cc = jit._cuda_core()

    def no_library(*args, **kwargs):
        raise RuntimeError("Failure finding libnvrtc.so.13: not found")

    monkeypatch.setattr(cc, "Program", no_library)
    with pytest.raises(jit.JitUnavailable, match="pip install nvidia-cuda-nvrtc"):
        jit.compile_source("simt/00_naive.cu", (), "sm_80")


def test_tcgemm_defines_lays_over_every_build(monkeypatch):
    import torch

    from tcgemm import launch, registry

    spec = registry.get("wgmma_tma_store")
    cfg = spec.config("128x256x64s4b2o")
    args = (spec, cfg, "rr", 8, torch.bfloat16, torch.bfloat16, "bf16")
    launch._defines.cache_clear()
    base = dict(launch._defines(*args))
    assert base["GROUP_M"] != "4" and base["STAGES"] != "5"
    monkeypatch.setenv("TCGEMM_DEFINES", "GROUP_M=4, STAGES=5")
    launch._defines.cache_clear()
    try:
        defines = dict(launch._defines(*args))
        assert defines["GROUP_M"] == "4" and defines["STAGES"] == "5"
        monkeypatch.setenv("TCGEMM_DEFINES", "GROUP_M")
        launch._defines.cache_clear()
        with pytest.raises(ValueError, match="NAME=VALUE"):
            launch._defines(*args)
    finally:
        monkeypatch.delenv("TCGEMM_DEFINES")
        launch._defines.cache_clear()
    assert dict(launch._defines(*args)) == base  # the registry's defines again
