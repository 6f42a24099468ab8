"""The prepared launches of repeat calls (tcgemm.fastpath), without a GPU: their parameter blocks
must match, argument for argument, what launch.run passes the same kernel (a missing argument
would have the driver read past the block)."""

from __future__ import annotations

import pytest
import torch

from tcgemm import fastpath, launch, registry
from tcgemm.check import random_operand
from tcgemm.problem import describe


class _FakeKernel:
    handle = 0


def _precision_dtype(precision: str) -> torch.dtype:
    return {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
            "int8": torch.int8, "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}[precision]


@pytest.mark.parametrize("spec", registry.all_specs(), ids=lambda s: s.name)
def test_parameter_block_matches_launch_run(spec, monkeypatch):
    precision = spec.precisions[0]
    dtype = _precision_dtype(precision)
    layouts = "rc" if "rc" in spec.layouts else spec.layouts[0]
    a = random_operand(136, 64, "row" if layouts[0] == "r" else "col", None, dtype, "cpu")
    b = random_operand(64, 72, "row" if layouts[1] == "r" else "col", None, dtype, "cpu")
    problem, t = describe(a, b, precision="tf32" if precision == "tf32" else None)
    cfg = next(c for c in spec.configs_for(precision)  # (D has no tensor map below)
               if not c.tma_d_only and c.serves_layouts(layouts))
    plan = launch.plan(problem, spec, cfg)
    seen = {}
    monkeypatch.setattr(launch, "kernel_for", lambda *args: _FakeKernel())
    monkeypatch.setattr(launch.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(launch, "_launch", lambda kernel, grid, block, smem, args, device: seen.update(n=len(args)))
    monkeypatch.setattr(launch, "_launch_tma", lambda kernel, grid, block, smem, maps, args, device, **kw:
                        seen.update(n=len(maps) + len(args)))
    from tcgemm import tma

    monkeypatch.setattr(tma, "maps", lambda *args: ("A", "B"))
    monkeypatch.setattr(tma, "d_map", lambda *args: None)
    # (stream-K configs always take scratch: no device here to allocate it on)
    monkeypatch.setattr(launch, "split_k_buffers", lambda *args, **kw: (0, 0, False))
    d = torch.empty(136, 72, dtype=problem.out_dtype)
    launch.run(plan, problem, t["a"], t["b"], None, d, "sm_90a")
    prepared = fastpath.Prepared(plan, problem, _FakeKernel(), 0, (136, 72), a, b, None, None)
    assert len(prepared._params) == seen["n"], spec.name


def test_cpu_tensors_never_take_the_prepared_path():
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    assert fastpath.key(a, b, None, None, 1.0, 0.0, None, None, "auto", None) is None
    assert fastpath.lookup(None) is None


@pytest.mark.parametrize("config,map_type", [("128x256x32es4", "TFLOAT32"), ("128x256x32es4t", "TFLOAT32")])
def test_repeat_calls_encode_the_first_calls_map_types(config, map_type, monkeypatch):
    """A repeat call's tensor maps have the element type of the first call's (tcgemm.tma.operand_map_type):
    tf32 rounded by the TMA copy. A repeat call that encoded FLOAT32 where the first encoded TFLOAT32
    gave other bits for the same inputs (tests/gpu/test_hostile.py)."""
    from tcgemm import tma

    spec = registry.get("wgmma_tma_store_kmajor")
    a = random_operand(256, 128, "row", None, torch.float32, "cpu")
    b = random_operand(128, 256, "col", None, torch.float32, "cpu")
    problem, _ = describe(a, b, precision="tf32")
    cfg = spec.config(config)
    plan = launch.plan(problem, spec, cfg)
    monkeypatch.setattr(launch.torch.cuda, "current_device", lambda: 0)
    prepared = fastpath.Prepared(plan, problem, _FakeKernel(), 0, (256, 256), a, b, None, None)
    assert prepared._geo_a[0] == prepared._geo_b[0] == map_type == tma.operand_map_type(problem)


def test_ctypes_launch_structs_match_cuda_h():
    """launch.RawLaunch hands the driver a CUlaunchConfig and a CUlaunchAttribute it lays out itself:
    sizes and offsets as cuda.h declares them (checked against CUDA 13's header with offsetof)."""
    import ctypes

    assert ctypes.sizeof(launch._LaunchAttribute) == 72 and launch._LaunchAttribute.value.offset == 8
    assert ctypes.sizeof(launch._LaunchConfig) == 56
    assert (launch._LaunchConfig.hStream.offset, launch._LaunchConfig.attrs.offset,
            launch._LaunchConfig.numAttrs.offset) == (32, 40, 48)
    assert launch._ATTR_PROGRAMMATIC_STREAM_SERIALIZATION == 6
