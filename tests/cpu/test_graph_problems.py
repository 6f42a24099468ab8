"""The problems tests/gpu/test_graphs.py runs (tests/graph_problems.py): every registered config gets one it
serves, in a layout its kernel reads, with M and N off its tile, and split-K, tail-split and GPC_ORDER
configs get problems where that path is active, on 132-SM (H100/H200 SXM) and 114-SM (H100 PCIe) GPUs."""

from __future__ import annotations

import pytest
import torch

import graph_problems as gp
from tcgemm import dispatch, fastpath, launch, registry
from tcgemm.problem import describe, transposed_store

CASES = gp.cases()


def test_cases_cover_the_registry():
    want = {(s.name, c.name, p) for s in registry.all_specs() for c in s.configs for p in s.precisions
            if c.serves(p)}
    assert {(c.kernel, c.config, c.precision) for c in CASES} == want
    assert len({c.id for c in CASES}) == len(CASES)
    fp8 = [(c.kernel, c.config, c.precision) for c in CASES if c.precision in gp.FP8 and not c.scaled]
    assert sorted(fp8) == sorted((c.kernel, c.config, c.precision) for c in CASES if c.scaled)
    assert {gp.special_path(c.cfg) for c in CASES} >= {"split_k", "tail_split", "gpc_order", None}


def _problem(case: gp.Case, shape: gp.Shape):
    t = gp.tensors(case, shape, "cpu", seed=0, fill=False)
    kw = case.gemm_kwargs()
    out = torch.empty(shape.m, shape.n, dtype=gp.OUT_DTYPES[case.precision])
    problem, _ = describe(t["a"], t["b"], t["c"], alpha=kw["alpha"], beta=kw["beta"], out=out,
                          precision=kw["precision"])
    return problem


@pytest.mark.parametrize("sms", [132, 114])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_config_gets_a_problem_it_serves(case, sms):
    spec, cfg = case.spec, case.cfg
    shape = gp.shape_for(case, sms)
    assert shape.layouts in spec.layouts or shape.layouts in dispatch.transposed_layouts(spec, case.precision)
    assert max(shape.m, shape.n) <= 8192 and shape.k <= 4096, shape  # modest
    problem = _problem(case, shape)
    assert (problem.m, problem.n, problem.k, problem.layouts) == (shape.m, shape.n, shape.k, shape.layouts)
    assert problem.precision == case.precision
    assert problem.a.aligned16 and problem.b.aligned16
    assert dispatch.why_not(spec, problem, max(spec.min_arch, 90)) is None
    # What gemm(kernel=, config=) selects is this config.
    chosen = dispatch.select(problem, max(spec.min_arch, 90), sms, case.kernel, case.config)
    assert chosen == (spec, cfg)
    if cfg.get("D_TRANSPOSED"):  # the problem the config runs (gemm transposes it after selecting)
        problem = transposed_store(problem, {"a": None, "b": None})[0]
    assert problem.m % cfg["BLOCK_M"] and problem.n % cfg["BLOCK_N"], shape  # ragged edges
    assert dispatch.config_refuses(cfg, problem) is None
    p = launch.plan(problem, spec, cfg, sms)
    path = gp.special_path(cfg)
    ktiles = -(-shape.k // cfg["BLOCK_K"]) if "BLOCK_K" in cfg.params else 0
    if path == "split_k":
        assert ktiles >= 2 * cfg["SPLIT_K"], (ktiles, shape)
    elif path == "tail_split":
        grid_clusters = p.grid[0] // spec.cluster_of(cfg)
        assert gp.units(spec, cfg, shape) > grid_clusters == gp.clusters(spec, cfg, sms)
        assert launch._tail_need(problem, spec, cfg, grid_clusters) != (0, 0), shape
    elif path == "gpc_order":
        grid_clusters = p.grid[0] // spec.cluster_of(cfg)
        assert grid_clusters == gp.clusters(spec, cfg, sms)  # a full persistent grid
        units = gp.units(spec, cfg, shape)
        assert units > 2 * grid_clusters and units % grid_clusters, (units, grid_clusters)


@pytest.mark.parametrize("case", [c for c in CASES if c.precision in ("bf16", "int8", "fp8e4m3")][:40],
                         ids=lambda c: c.id)
def test_same_seed_same_signature_same_data(case):
    shape = gp.shape_for(case, 132)
    small = gp.Shape(min(shape.m, 300), min(shape.n, 200), min(shape.k, 100), shape.layouts)
    one, two, other = (gp.tensors(case, small, "cpu", seed=s) for s in (3, 3, 4))
    for name in ("a", "b", "c", "scale_a", "scale_b"):
        if one[name] is None:
            assert two[name] is None and other[name] is None
            continue
        assert fastpath._meta(one[name]) == fastpath._meta(two[name]) == fastpath._meta(other[name])
        assert one[name].data_ptr() != two[name].data_ptr()
        assert torch.equal(one[name], two[name])
    assert not torch.equal(one["a"], other["a"])


def test_llama_down_projection_at_2048_tokens_takes_the_long_k_config(fake_gpu):
    """tests/gpu/test_graphs.py captures auto at Llama-3-8B shapes; at M = 2048 its down projection
    (K = 14336) is the GPC_ORDER case (long_k) on an H100."""
    import tcgemm

    x = torch.empty(2048, 14336, dtype=torch.bfloat16)
    w = torch.empty(4096, 14336, dtype=torch.bfloat16)
    choice = tcgemm.explain(x, w.t())
    cfg = registry.get(choice.kernel).config(choice.config)
    if choice.how == "estimate":
        assert cfg.get("GPC_ORDER") and cfg.long_k <= 14336, choice
