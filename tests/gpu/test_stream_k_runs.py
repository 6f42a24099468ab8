"""The production Hopper kernel's stream-K policy (STREAM_K_RUNS, kernels/include/hopper_sched.cuh) and its D^T
tiles split along k (SPLIT_K with D_TRANSPOSED, split_k.cuh).

Every such config against float64 with a poisoned output where the runs cut tiles (two
contributors a tile, many, runs inside one tile), ragged edges, alpha/beta with a full C and a bias row,
a batch; bitwise determinism (a repeat, another stream beside other work); a CUDA graph replaying it.
D^T configs (D_TRANSPOSED) are called with the layouts they serve through the transposed problem.
"""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import launch, registry
from tcgemm.check import check

pytestmark = pytest.mark.gpu

SPEC = registry.get("wgmma_tma_store")
_FLIP = {"r": "c", "c": "r"}


def _served(cfg) -> tuple[str, ...]:
    """The call's layouts: a D^T config's transposed problem reads B^T and A^T (layouts flipped, swapped)."""
    layouts = cfg.layouts or SPEC.layouts
    if cfg.get("D_TRANSPOSED"):
        return tuple(_FLIP[lay[1]] + _FLIP[lay[0]] for lay in layouts)
    return tuple(layouts)


def _split(cfg) -> bool:
    """Stream-K runs, or a D^T tile split along k (split_k.cuh; 16-bit: tf32's are test_correctness's)."""
    return bool(cfg.get("STREAM_K_RUNS")) or bool(cfg.get("D_TRANSPOSED") and cfg.get("SPLIT_K", 1) > 1
                                                  and not cfg.get("A_REGS"))


CASES = [pytest.param(c.name, p, lay, id=f"{c.name}-{p}-{lay}")
         for c in SPEC.configs if _split(c) for p in ("bf16", "fp16") if c.serves(p)
         for lay in _served(c)[:2]]
# (M, N, K): Llama-3-8B's qkv and the 70B shard's at 300 / 512 tokens (runs of 19-47 k-tiles: 2-7 contributors
# a tile), a short K (runs of a few k-tiles, many tiles each), ragged M, N and K (K multiple of 8: TMA rows).
SHAPES = [(300, 6144, 4096), (512, 1280, 8192), (136, 1000, 1000), (520, 776, 2056), (301, 1416, 3000),
          (37, 2568, 520)]


def _hopper() -> None:
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config,precision,layouts", CASES)
def test_shapes(config, precision, layouts, shape):
    _hopper()
    m, n, k = shape
    result = check(m, n, k, kernel=SPEC.name, config=config, precision=precision, layouts=layouts)
    assert result.unwritten == 0 and result.passed, result


@pytest.mark.parametrize("config,precision,layouts", CASES)
def test_alpha_beta_bias_batch(config, precision, layouts):
    _hopper()
    kw = dict(kernel=SPEC.name, config=config, precision=precision, layouts=layouts)
    for result in (check(300, 1288, 2056, alpha=0.5, beta=-1.5, **kw),
                   check(264, 2056, 1032, beta=1.0, c_shape="bias", **kw),
                   check(152, 520, 1032, batch=3, **kw)):
        assert result.unwritten == 0 and result.passed, result


def _inputs(config: str) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randn(300, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(6144, 4096, device="cuda", dtype=torch.bfloat16)
    return x, w.t()  # (x @ w^T, "rc": the layouts every config here serves)


@pytest.mark.parametrize("config", sorted({c.values[0] for c in CASES}))
def test_deterministic_across_calls_and_streams(config):
    """Partial tiles are added in CTA order, never arrival order: the same bits on a repeat, and on another
    stream while other work competes for the SMs."""
    _hopper()
    x, w = _inputs(config)
    kw = dict(kernel=SPEC.name, config=config)
    first = tcgemm.gemm(x, w, **kw)
    assert torch.equal(tcgemm.gemm(x, w, **kw), first)
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            torch.mm(big, big)
        other = tcgemm.gemm(x, w, **kw)
    torch.cuda.synchronize()
    assert torch.equal(other, first)


@pytest.mark.parametrize("config", sorted({c.values[0] for c in CASES}))
def test_cuda_graph_replays_the_same_bits(config):
    _hopper()
    x, w = _inputs(config)
    kw = dict(kernel=SPEC.name, config=config)
    eager = tcgemm.gemm(x, w, **kw)
    out = torch.empty_like(eager)
    with launch.trace() as seen:
        tcgemm.gemm(x, w, out=out, **kw)
    assert seen == [f"{SPEC.name}:{config}"]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.gemm(x, w, out=out, **kw)
    for _ in range(3):
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)


def test_error_no_worse_than_cublas():
    """The fixup adds fp32 partial sums in CTA order; against a float64 reference the error stays within cuBLAS's on
    the same inputs (mean relative, 1.5x margin; fp32 out where the config writes it, so that rounding to bf16
    does not hide the sums' error, else bf16)."""
    _hopper()
    gen = torch.Generator(device="cuda").manual_seed(11)
    x = torch.randn(512, 8192, device="cuda", generator=gen).to(torch.bfloat16)
    w = torch.randn(1280, 8192, device="cuda", generator=gen).to(torch.bfloat16)
    ref = x.double() @ w.double().t()
    scale = ref.abs().mean()
    for cfg in SPEC.configs:
        if not _split(cfg):
            continue
        out_dtype = torch.float32 if cfg.writes(4) else torch.bfloat16
        theirs = torch.mm(x, w.t(), out_dtype=out_dtype)
        ours = tcgemm.gemm(x, w.t(), kernel=SPEC.name, config=cfg.name, out_dtype=out_dtype)
        err_theirs = ((theirs.double() - ref).abs().mean() / scale).item()
        err_ours = ((ours.double() - ref).abs().mean() / scale).item()
        assert err_ours <= 1.5 * err_theirs + 1e-9, (cfg.name, err_ours, err_theirs)
