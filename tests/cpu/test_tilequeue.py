"""The reduce-scatter's sum under its last GEMM (tcgemm.distributed.tilequeue; kernels/include/peer_rows.cuh,
PEER_ROWS = 3, and sum_queue in kernels/util/sum_blocks.cu) without a GPU: which configs it takes, and that its builds
compile with the instructions its protocol needs. Its GPU test is tests/gpu/test_distributed_nccl.py."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from tcgemm import jit, launch, sass
from tcgemm.distributed import fused, tilequeue
from tcgemm.problem import GemmProblem, describe

_META = {"device": "meta", "dtype": torch.bfloat16}


def _problem(rows: int, k: int, n: int) -> GemmProblem:
    """The own block's GEMM: rows x k times k x n, the weight stored as torch.nn.Linear stores it (n x k)."""
    problem, _ = describe(torch.empty(rows, k, **_META), torch.empty(n, k, **_META).t(), None, alpha=1.0, beta=0.0,
                          out=None, out_dtype=None, precision=None)
    return dataclasses.replace(problem, peer_rows=3)


@pytest.mark.parametrize("rows", [1024, 2048, 4096, 8192])
def test_configs_leave_the_last_round_to_the_sum(rows: int) -> None:
    """No tail split (it would fill the SMs the sum takes), no ping-pong (an entry is one cooperative consumer's
    rows), whole clusters inside the block's rows."""
    spec, cfg = tilequeue.choose(_problem(rows, 14336, 8192), 132)
    assert tilequeue._why_not(cfg, spec, rows) is None
    assert not cfg.get("TAIL_SPLIT", 0) and not cfg.get("PINGPONG", 0)
    assert rows % (cfg["BLOCK_M"] * spec.cluster_shape(cfg)[0]) == 0


def test_rows_that_split_a_cluster_have_no_config() -> None:
    assert tilequeue.choose(_problem(1000, 1024, 1024), 132) is None


def test_gemm_build_appends_with_a_release_store() -> None:
    """The consumers append each stored tile: an atomic add for the position, a GPU-scope release store of the
    entry, after the TMA stores' completion; the GEMM lets its dependent launch start; no local memory."""
    problem = _problem(4096, 14336, 8192)
    spec, cfg = tilequeue.choose(problem, 132)
    text = sass.disassemble(jit.cubin(spec.source, launch.plan(problem, spec, cfg, 132).defines, "sm_90a"))
    assert "ATOMG.E.ADD" in text and "STG.E.STRONG.GPU" in text and "UTMASTG" in text
    # griddepcontrol.wait (ACQBULK), then at once griddepcontrol.launch_dependents (PREEXIT)
    after_wait = text[text.index("ACQBULK"):].splitlines()[1:8]
    assert any("PREEXIT" in line for line in after_wait)
    assert not sass.has_local_memory(text)


@pytest.mark.parametrize("elem", ["__nv_bfloat16", "__half"])
def test_sum_queue_compiles(elem: str) -> None:
    text = sass.disassemble(jit.cubin("util/sum_blocks.cu", jit.as_defines([("ELEM", elem)]), "sm_90a"))
    assert "sum_queue" in text and "LDG.E.STRONG.GPU" in text and not sass.has_local_memory(text)


def test_fused_queue_build_counts_and_queues() -> None:
    """PEER_ROWS = 4, the fused reduce-scatter with the own block queued: the row counts' system-scope reductions
    and the queue's release stores in one build, a config without the tail split, no local memory."""
    problem = dataclasses.replace(_problem(2 * 4096, 14336, 8192), peer_rows=4)
    spec, cfg = fused._config(problem, 4096, 132)
    assert fused.queue_refuses(cfg) is None
    text = sass.disassemble(jit.cubin(spec.source, launch.plan(problem, spec, cfg, 132).defines, "sm_90a"))
    assert "REDG.E.ADD.STRONG.SYS" in text and "STG.E.STRONG.GPU" in text and "PREEXIT" in text
    assert not sass.has_local_memory(text)
