"""The kernels compile with the GPU machine's NVRTC too, not only with the one pip gives this machine and CI.

The GPU machine compiles with NVRTC 13.0; pip installs the newest (13.5 when this was written). A header one
accepts and the other rejects passes every CPU test and fails every launch on the GPU: dafbc7a's
``__builtin_offsetof`` in a ``static_assert`` (kernels/include/peer_rows.cuh, included by every build of the
production kernel) did exactly that, and 216 of 316 GPU tests failed to compile
(benchmarks/results/2026-11-27-h100-gpu-tests-epilogue-nvrtc130-a2e8fe1.txt).

TCGEMM_DEVICE_NVRTC names a directory that holds the GPU machine's ``libnvrtc.so.13`` and
``libnvrtc-builtins.so.13.0`` (``.ci/run`` extracts the ``nvidia-cuda-nvrtc==13.0.88`` wheel and sets it; by hand:
``pip download nvidia-cuda-nvrtc==13.0.88 --no-deps`` and unzip). A subprocess loads that library before
cuda.core does, then compiles one build of every kernel source (sm_90a for Hopper kernels, sm_80 otherwise), a
PEER_ROWS build of each mode, and every utility kernel, into an empty cache. Skipped when the variable is unset.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

DEVICE_NVRTC = "13.0"  # the GPU machine's (tcgemm info there: nvrtc 13.0)

_SCRIPT = r"""
import ctypes, dataclasses, sys
lib = sys.argv[1]
ctypes.CDLL(lib + "/libnvrtc-builtins.so.13.0", mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL(lib + "/libnvrtc.so.13", mode=ctypes.RTLD_GLOBAL)
import torch
from tcgemm import dispatch, epilogue, jit, launch
from tcgemm.problem import describe
assert jit.nvrtc_version() == sys.argv[2], f"loaded NVRTC {jit.nvrtc_version()}, wanted {sys.argv[2]}"
jobs = {}
for spec, defines in launch.all_builds():  # one build per kernel source
    jobs.setdefault(spec.source, (spec.source, defines, "sm_90a" if spec.min_arch >= 90 else "sm_80"))
meta = dict(device="meta", dtype=torch.bfloat16)
for mode in (1, 2, 3, 4):  # PEER_ROWS: fused all-gather, reduce-scatter, the queue (alone, and fused)
    a, w = torch.empty(1024, 1024, **meta), torch.empty(1024, 1024, **meta).t()
    problem = dataclasses.replace(describe(a, w, None, alpha=1.0, beta=0.0, out=None, out_dtype=None,
                                           precision=None)[0], peer_rows=mode)
    spec, cfg = dispatch.select(problem, 90, 132)
    jobs[f"peer_rows={mode}"] = (spec.source, launch.plan(problem, spec, cfg, 132).defines, "sm_90a")
for elem in ("__nv_bfloat16", "__half", "float"):
    jobs[f"gated_act {elem}"] = ("util/gated_act.cu", jit.as_defines([("ELEM", elem),
                                 ("ACT", epilogue.ACTIVATIONS["silu"])]), "sm_90a")
    jobs[f"sum_blocks {elem}"] = ("util/sum_blocks.cu", jit.as_defines([("ELEM", elem)]), "sm_90a")
jobs["quantize_fp8"] = ("util/quantize_fp8.cu", jit.as_defines([("ELEM", "__nv_bfloat16")]), "sm_90a")
jobs["group_prefix"] = ("util/group_prefix.cu", (("TCGEMM_GROUP_PREFIX", "1"),), "sm_90a")
jobs["stage_copy"] = ("util/stage_copy.cu", jit.as_defines([("ELEM", "unsigned short")]), "sm_90a")
jobs["sm_probe"] = ("util/sm_probe.cu", jit.as_defines([("TCGEMM_SM_PROBE", 1)]), "sm_90a")
jobs["stream_read"] = ("util/stream_read.cu", jit.as_defines([("TCGEMM_STREAM_READ", 1)]), "sm_90a")
failed = []
for name, (source, defines, arch) in jobs.items():
    try:
        jit.cubin(source, defines, arch)
    except Exception as exc:  # (every failure listed, not only the first)
        failed.append((name, f"{source}, {arch}: {str(exc)[-1500:]}"))
for name, detail in failed:
    print("FAILED", name, detail)
print(f"{len(jobs) - len(failed)} of {len(jobs)} builds compiled with NVRTC {jit.nvrtc_version()}; failed: "
      + (", ".join(name for name, _ in failed) or "none"))
sys.exit(1 if failed else 0)
"""


def test_every_kernel_source_compiles_with_the_gpu_machines_nvrtc() -> None:
    lib = os.environ.get("TCGEMM_DEVICE_NVRTC")
    if not lib:
        pytest.skip("TCGEMM_DEVICE_NVRTC is unset (.ci/run sets it: the directory of the GPU machine's NVRTC "
                    f"{DEVICE_NVRTC} libraries)")
    if not (Path(lib) / "libnvrtc.so.13").is_file():
        pytest.fail(f"TCGEMM_DEVICE_NVRTC={lib} holds no libnvrtc.so.13: point it at the lib directory of the "
                    "extracted nvidia-cuda-nvrtc wheel (nvidia/cu13/lib)")
    src = Path(__file__).resolve().parents[2] / "src"
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "TCGEMM_CACHE_DIR": cache,
               "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
        run = subprocess.run([sys.executable, "-c", _SCRIPT, lib, DEVICE_NVRTC], env=env, capture_output=True,
                             text=True, timeout=1200)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-4000:]
