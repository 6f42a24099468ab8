"""tcgemm tune on the GPU: one small shape tuned into a private cache, then kernel="auto" still correct."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import api, dispatch, tune
from tcgemm.check import TOLERANCE, reference, relative_error
from tcgemm.problem import describe

pytestmark = pytest.mark.gpu


@pytest.fixture
def fresh(cache_dir):
    tune.reload()
    yield cache_dir
    tune.reload()


def test_tune_one_shape_then_auto_uses_it_and_stays_correct(fresh):
    (r,) = tune.tune([(512, 512, 512)], "bf16", "rr", budget_s=0.03, rounds=1)
    assert r.fastest is not None and r.times_ms[r.fastest] == min(r.times_ms.values()) > 0
    # stored: the fastest, or the heuristic's pick where that was timed within tune.MIN_GAIN of it
    assert r.best in (r.fastest, r.planned.heuristic.name)
    if r.best != r.fastest:
        assert r.heuristic_ms < (1 + tune.MIN_GAIN) * r.times_ms[r.fastest]
    assert r.heuristic_ms is not None or r.planned.heuristic.name in r.skipped
    assert r.timed_as == "graph"  # every config captures: the GPU's time alone was compared
    path = tune.cache_path(tune.current_key())
    assert path.is_file() and path.parent == fresh / "tune"
    assert tune.read_cache(path)["entries"][r.planned.key]["best"] == r.best

    gen = torch.Generator(device="cuda").manual_seed(1)
    for m, n, k in ((512, 512, 512), (480, 504, 512)):  # the tuned shape and another of its class
        a = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
        b = torch.randn(k, n, device="cuda", generator=gen).to(torch.bfloat16)
        cc, sms, _arch = api.device_info(torch.cuda.current_device())
        problem, _t = describe(a, b)
        if tune.shape_key(problem) == r.planned.key:
            spec, cfg = dispatch.select(problem, cc, sms)
            assert spec is r.planned.spec and cfg.name == r.best
        d = tcgemm.gemm(a, b)
        assert relative_error(d, reference(a, b, None, 1.0, 0.0)) <= TOLERANCE["bf16"]
