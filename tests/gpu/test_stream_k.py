"""The swap-AB stream-K kernel (kernels/hopper/05_swap_ab_stream_k.cu) at decode shapes.

Every config against float64 with a poisoned output at the shapes of real decoders (runs that start and
end inside tiles, many contributors per tile, K not a multiple of the k-tile, batches), bitwise
determinism (a repeat, another stream, other work running beside it), auto's choice for few rows, and
a CUDA graph replaying it.
"""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import launch, registry
from tcgemm.check import check

pytestmark = pytest.mark.gpu

SPEC = registry.get("swap_ab_stream_k")  # fp16 and bf16: the weight K-major ("rc") or MN-major ("rr")
SPECS = (SPEC, registry.get("swap_ab_stream_k_kmajor"))  # (tf32: K-major only)
CASES = [pytest.param(s.name, c.name, p, layouts, id=f"{c.name}-{p}-{layouts}")
         for s in SPECS for c in s.configs for p in s.precisions if c.serves(p) for layouts in s.layouts]
# (M, N, K): Llama-3-70B TP8 qkv (10 tiles x 128 k-tiles: ~13 contributors a tile), Llama-3-8B o-proj and
# down, GPT-2's 768 (fewer k-tiles than CTAs: one k-tile a CTA), ragged N and K, M past the token tile.
SHAPES = [(1, 1280, 8192), (16, 4096, 4096), (5, 4096, 14336), (48, 768, 768), (3, 1000, 1000),
          (64, 2312, 520), (37, 136, 4104), (100, 264, 1024), (29, 3000, 4608)]


def _hopper() -> None:
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")


def _dtype(precision: str) -> torch.dtype:
    return {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32}[precision]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kernel,config,precision,layouts", CASES)
def test_decode_shapes(kernel, config, precision, layouts, shape):
    _hopper()
    m, n, k = shape
    result = check(m, n, k, kernel=kernel, config=config, precision=precision, layouts=layouts)
    assert result.unwritten == 0 and result.passed, result


@pytest.mark.parametrize("kernel,config,precision,layouts", CASES)
def test_alpha_beta_batch_fp32_out(kernel, config, precision, layouts):
    _hopper()
    kw = dict(kernel=kernel, config=config, precision=precision, layouts=layouts)
    for result in (check(9, 520, 2056, alpha=0.5, beta=-1.5, **kw), check(7, 264, 1032, batch=3, **kw),
                   check(12, 392, 3000, out_dtype=torch.float32 if precision != "tf32" else None, **kw)):
        assert result.unwritten == 0 and result.passed, result


@pytest.mark.parametrize("precision", ["bf16", "tf32"])
def test_deterministic_across_calls_and_streams(precision):
    """The fixup adds partial tiles in CTA order, never arrival order: the same bits on a repeat, on
    another stream, and while another kernel competes for the SMs."""
    _hopper()
    dtype = _dtype(precision)
    x = torch.randn(3, 8192, device="cuda").to(dtype)
    w = torch.randn(1280, 8192, device="cuda").to(dtype)
    kw = dict(kernel=SPECS[precision == "tf32"].name, precision=precision if precision == "tf32" else None)
    first = tcgemm.gemm(x, w.t(), **kw)
    assert torch.equal(tcgemm.gemm(x, w.t(), **kw), first)
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    with torch.cuda.stream(side):
        for _ in range(3):
            torch.mm(big, big)
        other = tcgemm.gemm(x, w.t(), **kw)
    torch.cuda.synchronize()
    assert torch.equal(other, first)


def test_auto_takes_it_for_few_rows_and_not_for_many():
    _hopper()
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    for m, expect in ((1, "8x64x64q8s3g1"), (8, "8x64x64q8s3g1"), (9, "16x64x64q8s2g1"), (16, "16x64x64q8s2g1")):
        choice = tcgemm.explain(torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16), w.t())
        assert choice.label == f"{SPEC.name}:{expect}", (m, choice)
    # 17-32 rows: the 32-token tile where N <= 8192 and K >= 3584 (batched decode); from 33 rows the general kernel
    for m in (17, 32):
        choice = tcgemm.explain(torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16), w.t())
        assert choice.label == f"{SPEC.name}:32x64x64q4s4g1", (m, choice)
    assert tcgemm.explain(torch.randn(33, 4096, device="cuda", dtype=torch.bfloat16), w.t()).kernel != SPEC.name
    qkv = torch.randn(1280, 8192, device="cuda", dtype=torch.bfloat16)  # narrow N, long K: up to 128 rows
    for m, expect in ((48, "48x64x64q4s3g1"), (64, "64x64x64q4s3g1"), (128, "64x64x64q4s3g1")):
        choice = tcgemm.explain(torch.randn(m, 8192, device="cuda", dtype=torch.bfloat16), qkv.t())
        assert choice.label == f"{SPEC.name}:{expect}", (m, choice)
    # Short K: the ring of 4-box stages from K = 1024; below, the general kernel's 64 x 64 tiles.
    o_70b = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16)
    choice = tcgemm.explain(torch.randn(16, 1024, device="cuda", dtype=torch.bfloat16), o_70b.t())
    assert choice.label == f"{SPEC.name}:16x64x64q4s5g1", choice
    small = torch.randn(2304, 768, device="cuda", dtype=torch.bfloat16)
    choice = tcgemm.explain(torch.randn(1, 768, device="cuda", dtype=torch.bfloat16), small.t())
    assert choice.label == "wgmma_tma_store:64x64x64", choice
    # A K x N weight (X @ W, B row-major) is read in place, MN-major, by the same configs.
    choice = tcgemm.explain(torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16), w)
    assert choice.label == f"{SPEC.name}:8x64x64q8s3g1", choice


def test_cuda_graph_replays_the_same_bits():
    _hopper()
    x = torch.randn(4, 8192, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(1280, 8192, device="cuda", dtype=torch.bfloat16)
    eager = tcgemm.gemm(x, w.t())
    out = torch.empty_like(eager)
    with launch.trace() as seen:
        tcgemm.gemm(x, w.t(), out=out)
    # (a weight of 10.5 Mi elements: the 8-token ring yields it to the 16-token one, registry's auto_yield_nk)
    assert seen == [f"{SPEC.name}:16x64x64q8s2g1"]
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.gemm(x, w.t(), out=out)
    for _ in range(3):
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)


@pytest.mark.parametrize("layouts", ["rc", "rr"])
@pytest.mark.parametrize("m,n,k", [(1, 1280, 8192), (16, 4096, 14336), (3, 8192, 1024)])
def test_error_no_worse_than_cublas(m, n, k, layouts):
    """The fixup adds fp32 partial sums; against a float64 reference its error (fp32 out, so rounding to
    bf16 does not hide it) stays within cuBLAS's on the same inputs (mean relative error, 1.5x margin),
    for the weight read K-major (W as Linear stores it) and MN-major (a K x N weight)."""
    _hopper()
    gen = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    w = torch.randn(n, k, device="cuda", generator=gen).to(torch.bfloat16)
    b = w.t() if layouts == "rc" else w.t().contiguous()
    ref = x.double() @ w.double().t()
    ours = tcgemm.gemm(x, b, out_dtype=torch.float32)
    theirs = torch.mm(x, b, out_dtype=torch.float32)
    assert tcgemm.explain(x, b, out_dtype=torch.float32).kernel == SPEC.name
    scale = ref.abs().mean()
    err_ours = ((ours.double() - ref).abs().mean() / scale).item()
    err_theirs = ((theirs.double() - ref).abs().mean() / scale).item()
    assert err_ours <= 1.5 * err_theirs + 1e-9, (err_ours, err_theirs)


def test_repeat_calls_keep_their_scratch_when_a_larger_call_grows_it():
    """A prepared launch reuses the scratch its stream had on its first call (fastpath.Prepared._scratch); a
    larger problem on the same stream then grows the stream's buffers, retiring the old ones but never
    freeing them: the first call's repeats stay correct, before and inside a CUDA graph."""
    _hopper()
    small_w = torch.randn(1280, 8192, device="cuda", dtype=torch.bfloat16)
    big_w = torch.randn(1280 * 8, 8192, device="cuda", dtype=torch.bfloat16)  # (aligned splits: more CTAs)
    x = torch.randn(3, 8192, device="cuda", dtype=torch.bfloat16)
    first = tcgemm.gemm(x, small_w.t())
    for _ in range(2):
        torch.testing.assert_close(tcgemm.gemm(x, big_w.t()), (x.float() @ big_w.float().t()).to(torch.bfloat16),
                                   rtol=2e-2, atol=2e-1)
        assert torch.equal(tcgemm.gemm(x, small_w.t()), first)
