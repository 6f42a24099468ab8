"""The fused tensor-parallel transport (tcgemm.distributed.fused, kernels/include/peer_rows.cuh) without a GPU: the
PeerRows block's layout, which configs may run it, and its kernel builds (NVRTC for sm_90a). Its GPU test is
tests/gpu/test_distributed_nccl.py (fused)."""

from __future__ import annotations

import dataclasses
import struct

import pytest
import torch

from tcgemm import jit, launch, registry, sass
from tcgemm.distributed import fused
from tcgemm.problem import GemmProblem, describe

_META = {"device": "meta", "dtype": torch.bfloat16}


def _problem(m: int, k: int, n: int, mode: int) -> GemmProblem:
    """A tensor-parallel launch of m x k times k x n, the weight stored as torch.nn.Linear stores it (n x k)."""
    problem, _ = describe(torch.empty(m, k, **_META), torch.empty(n, k, **_META).t(), None, alpha=1.0, beta=0.0,
                          out=None, out_dtype=None, precision=None)
    return dataclasses.replace(problem, peer_rows=mode)


def test_peer_block_layout_matches_the_kernels_struct() -> None:
    # (the kernel's side: a static_assert on PeerRows' size and alignment in peer_rows.cuh, compiled below)
    block = fused._peer_block(torch.device("cpu"), None, (4, 1, 2048, 2), 0x1000, 0x2000, 0x3000).numpy().tobytes()
    assert len(block) == 256
    assert struct.unpack_from("4i", block, 128) == (4, 1, 2048, 2)
    assert struct.unpack_from("3Q", block, 144) == (0x1000, 0x2000, 0x3000)


@pytest.mark.parametrize("mode", [1, 2])
@pytest.mark.parametrize("rows", [1024, 2048, 4096])
def test_configs_keep_every_cluster_inside_one_ranks_rows(mode: int, rows: int) -> None:
    spec, cfg = fused._config(_problem(4 * rows, 8192, 7168, mode), rows, 132)
    assert launch.peer_rows_refuses(spec, cfg) is None
    assert rows % (cfg["BLOCK_M"] * spec.cluster_shape(cfg)[0]) == 0


def test_rows_no_config_tiles_are_refused_with_the_reason() -> None:
    with pytest.raises(fused.FusedUnavailable, match="rows per rank"):
        fused._config(_problem(4 * 301, 64, 64, 1), 301, 132)


def test_only_the_production_kernel_without_split_k_runs_it() -> None:
    spec = registry.get(launch.PEER_ROWS_KERNEL)
    split = [c for c in spec.configs if c.get("SPLIT_K", 1) > 1]
    assert all("SPLIT_K" in (launch.peer_rows_refuses(spec, c) or "") for c in split)
    other = next(s for s in registry.all_specs() if s.name != launch.PEER_ROWS_KERNEL)
    assert launch.peer_rows_refuses(other, other.configs[0]) is not None
    with pytest.raises(ValueError, match="tensor-parallel"):
        launch.plan(_problem(8192, 8192, 7168, 1), other, other.configs[0])


@pytest.mark.parametrize(("mode", "expected"), [(1, "LDG.E.STRONG.SYS"), (2, "REDG.E.ADD.STRONG.SYS")])
def test_builds_compile_with_their_flag_instructions(mode: int, expected: str) -> None:
    """The all-gather's producer polls its flags with system-scope acquires, the reduce-scatter's consumers count
    rows with system-scope reductions; no local memory in the 128 x 256 config without the tail split (with it,
    two values go to the stack: 2 LDL / 2 STL)."""
    problem = _problem(4096, 8192, 7168, mode)
    spec, _ = fused._config(problem, 1024, 132)
    cfg = spec.config("128x256x64s4b2o", "bf16")
    text = sass.disassemble(jit.cubin(spec.source, launch.plan(problem, spec, cfg, 132).defines, "sm_90a"))
    assert expected in text and "UTMALDG" in text and "UTMASTG" in text
    assert not sass.has_local_memory(text)


@pytest.mark.parametrize("elem", ["__nv_bfloat16", "__half", "float"])
def test_sum_kernel_compiles(elem: str) -> None:
    text = sass.disassemble(jit.cubin("util/sum_blocks.cu", jit.as_defines([("ELEM", elem)]), "sm_90a"))
    assert "NANOSLEEP" in text and not sass.has_local_memory(text)


@pytest.mark.parametrize(("world", "rows", "expected"), [
    (2, 8192, False),  # two ranks: copy ahead in CUDA graphs and eager (two H100s, 8a82594)
    (4, 1024, False),  # four ranks at M = 4096: copy ahead in CUDA graphs (four H200s, 0aa539a)
    (4, 2048, True),   # M = 8192 and up: fused ahead in CUDA graphs and eager
    (8, 4096, True),
])
def test_reduce_scatter_auto_takes_fused_from_four_ranks(world: int, rows: int, expected: bool) -> None:
    from tcgemm.distributed import decomposed

    assert decomposed.fused_by_default(world, rows) is expected
