"""tcgemm.grouped_gemm (masked: per-expert row counts on the GPU) on the H100: every grouped config against a float64
reference of each expert's valid rows, poisoned outputs (valid rows must all be written), counts of 0, 1, partial
tiles, all rows and more than M, both weight layouts, bf16 and fp16, fp32 out; a CUDA graph captured once and replayed
bitwise equal for new counts and new tokens; bitwise repeats."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm import registry

pytestmark = pytest.mark.gpu

KERNEL = "wgmma_tma_store"
CONFIGS = [c.name for c in registry.get(KERNEL).configs if c.grouped]


@pytest.fixture(autouse=True, params=["entries", "pairs"])
def walk(request, monkeypatch):
    """Every test under both walks of the grouped tiles (kernels/include/group_rows.cuh): by expert, and in pairs of
    row tiles (clusters straddling two experts)."""
    from tcgemm import grouped

    monkeypatch.setattr(grouped, "WALK", request.param)
    return request.param


def _available() -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)


def _case(e: int, m: int, n: int, k: int, dtype=torch.bfloat16, seed: int = 0, weights_kn: bool = False):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(e, m, k, device="cuda", generator=gen).to(dtype)
    if weights_kn:
        b = torch.randn(e, k, n, device="cuda", generator=gen).to(dtype)
    else:
        b = torch.randn(e, n, k, device="cuda", generator=gen).to(dtype).transpose(1, 2)
    return a, b


def _check(d: torch.Tensor, a: torch.Tensor, b: torch.Tensor, counts: torch.Tensor) -> None:
    ref = a.double() @ b.double()
    eps = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-22}[d.dtype]
    bound_all = (a.double().abs() @ b.double().abs()) * 2.0**-20 + 1e-30
    for z, rows in enumerate(counts.tolist()):
        rows = max(0, min(rows, a.shape[1]))
        got = d[z, :rows].double()
        assert not torch.isnan(got).any(), f"expert {z}: poisoned rows left"
        assert ((got - ref[z, :rows]).abs() <= eps * ref[z, :rows].abs() + bound_all[z, :rows] * 2**12).all(), z


COUNTS = [0, 1, 63, 64, 65, 200, 256, 300]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_every_config(config, dtype):
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    e, m, n, k = len(COUNTS), 256, 384, 520
    a, b = _case(e, m, n, k, dtype, seed=1)
    counts = torch.tensor(COUNTS, dtype=torch.int32, device="cuda")
    for out_dtype in (dtype, torch.float32):
        out = torch.full((e, m, n), float("nan"), dtype=out_dtype, device="cuda")
        d = tcgemm.grouped_gemm(a, b, counts, out=out, kernel=KERNEL, config=config)
        assert d.data_ptr() == out.data_ptr()
        _check(d, a, b, counts)


@pytest.mark.parametrize("weights_kn", [False, True])
@pytest.mark.parametrize("shape", [(8, 128, 4096, 1024), (16, 8, 256, 7168), (3, 1, 200, 96)])
def test_auto_shapes_and_weight_layouts(weights_kn, shape):
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    e, m, n, k = shape
    a, b = _case(e, m, n, k, seed=2, weights_kn=weights_kn)
    gen = torch.Generator().manual_seed(e + m)
    counts = torch.randint(0, m + 1, (e,), generator=gen, dtype=torch.int32)
    counts[0] = 0
    counts = counts.cuda()
    d = tcgemm.grouped_gemm(a, b, counts)
    _check(d, a, b, counts)


def test_graph_replays_new_counts_bitwise():
    """Captured once; replayed with other counts and other tokens written into the captured tensors: each replay
    equals an eager call on the same inputs bit for bit (the valid rows)."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    e, m, n, k = 8, 64, 1024, 2048
    a, b = _case(e, m, n, k, seed=3)
    counts = torch.tensor([3, 0, 64, 17, 1, 40, 64, 9], dtype=torch.int32, device="cuda")
    out = torch.empty(e, m, n, dtype=torch.bfloat16, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tcgemm.grouped_gemm(a, b, counts, out=out)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.grouped_gemm(a, b, counts, out=out)
    for trial in range(3):
        counts.copy_(torch.randint(0, m + 1, (e,), dtype=torch.int32))
        a.copy_(torch.randn_like(a, dtype=torch.float32).to(a.dtype))
        graph.replay()
        want = tcgemm.grouped_gemm(a, b, counts)
        for z, rows in enumerate(counts.tolist()):
            assert torch.equal(out[z, :rows], want[z, :rows]), (trial, z)
        _check(out, a, b, counts)


def test_bitwise_repeats():
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    a, b = _case(4, 512, 768, 1024, seed=4)
    counts = torch.tensor([512, 300, 0, 129], dtype=torch.int32, device="cuda")
    first = tcgemm.grouped_gemm(a, b, counts)
    for _ in range(3):
        again = tcgemm.grouped_gemm(a, b, counts)
        for z, rows in enumerate(counts.tolist()):
            assert torch.equal(again[z, :rows], first[z, :rows])


@pytest.mark.parametrize("walk_rule", ["auto", "entries", "pairs"])
@pytest.mark.parametrize("contiguous", [False, True])
@pytest.mark.parametrize("tile_rows,cluster_m", [(64, 1), (128, 2), (256, 1)])
@pytest.mark.parametrize("groups", [1, 8, 1023, 1024, 3000])
def test_prefix_kernel_matches_reference(groups, tile_rows, cluster_m, contiguous, walk_rule, monkeypatch):
    """The prefix kernel's row tiles, segment bounds, cluster rows and walk equal the torch reference's."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    from tcgemm import grouped
    from tcgemm.grouped import group_prefix

    monkeypatch.setattr(grouped, "WALK", walk_rule)
    gen = torch.Generator().manual_seed(groups)
    counts = torch.randint(-5, 700, (groups,), generator=gen, dtype=torch.int32)
    rows = 600
    if contiguous:  # (segment ends, mostly rising, some falling back: empty segments)
        counts = counts.cumsum(0).to(torch.int32) - 300
        rows = int(counts.max()) // 2 + 1
    got = group_prefix(counts.cuda(), rows, tile_rows, cluster_m, contiguous)
    assert torch.equal(got.cpu(), group_prefix(counts, rows, tile_rows, cluster_m, contiguous))


FP8_CONFIGS = [c.name for c in registry.get("wgmma_tma_store_kmajor").configs if c.grouped and c.serves("fp8e4m3")]


@pytest.mark.parametrize("config", [*FP8_CONFIGS, "auto"])
def test_block_scaled_fp8(config):
    """fp8 e4m3 experts with DeepSeek-V3's block-wise scales per expert (scale_a in quantize_fp8's layout for the
    first call, row-major for the second: copied): each expert's valid rows against the float64 formula of the
    quantized operands and scales, poisoned outputs, bf16 and fp32 out."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    e, m, n, k = 5, 200, 320, 400
    gen = torch.Generator(device="cuda").manual_seed(7)
    a = torch.randn(e, m, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    w = torch.randn(e, n, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    kb, nb = -(-k // 128), -(-n // 128)
    sa = torch.rand(e, kb, 200, device="cuda", generator=gen).add(0.5).transpose(1, 2)  # (E, M, KB), M-major
    sb = torch.rand(e, nb, kb, device="cuda", generator=gen).add(0.5)
    counts = torch.tensor([200, 0, 1, 129, 64], dtype=torch.int32, device="cuda")
    kw = {} if config == "auto" else {"kernel": "wgmma_tma_store_kmajor", "config": config}
    for scale_a, out_dtype in ((sa, torch.bfloat16), (sa.contiguous(), torch.float32)):
        out = torch.full((e, m, n), float("nan"), dtype=out_dtype, device="cuda")
        tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, scale_a=scale_a, scale_b=sb, out=out, **kw)
        cols = torch.arange(n, device="cuda") // 128
        for z, rows in enumerate(counts.tolist()):
            want = torch.zeros(rows, n, dtype=torch.float64, device="cuda")
            mag = torch.zeros_like(want)
            for j in range(kb):
                ks = slice(128 * j, 128 * (j + 1))
                s = sa[z, :rows, j:j + 1].double() * sb[z, cols, j].double()
                want += s * (a[z, :rows, ks].double() @ w[z, :, ks].double().t())
                mag += s * (a[z, :rows, ks].double().abs() @ w[z, :, ks].double().abs().t())
            got = out[z, :rows].double()
            assert not torch.isnan(got).any(), (z, "poisoned rows left")
            eps = 2.0**-8 if out_dtype == torch.bfloat16 else 2.0**-22
            assert ((got - want).abs() <= eps * want.abs() + 2.0**-11 * mag).all(), z


def test_grouped_experts_module_and_graph():
    """tcgemm.moe.GroupedExperts (SwiGLU experts) against torch per expert on the valid rows, and captured in a CUDA
    graph once, replayed for new counts."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    from tcgemm.moe import GroupedExperts

    torch.manual_seed(17)
    e, hidden, inter, m = 8, 512, 1024, 64
    experts = GroupedExperts(e, hidden, inter, device="cuda")
    x = torch.randn(e, m, hidden, device="cuda").to(torch.bfloat16)
    counts = torch.tensor([64, 0, 1, 17, 33, 64, 2, 50], dtype=torch.int32, device="cuda")

    def reference() -> list[torch.Tensor]:
        outs = []
        for z, rows in enumerate(counts.tolist()):
            xs = x[z, :rows].double()
            g, u = experts.gate_up[z, :inter].double(), experts.gate_up[z, inter:].double()
            outs.append((torch.nn.functional.silu(xs @ g.t()) * (xs @ u.t())) @ experts.down[z].double().t())
        return outs

    with torch.inference_mode():
        y = experts(x, counts)
        for z, want in enumerate(reference()):
            rows = want.shape[0]
            assert not torch.isnan(y[z, :rows]).any()
            torch.testing.assert_close(y[z, :rows].double(), want, rtol=5e-2, atol=5e-2)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = experts(x, counts)
        counts.copy_(torch.tensor([1, 64, 0, 9, 40, 3, 64, 22], dtype=torch.int32))
        graph.replay()
        eager = experts(x, counts)
        for z, rows in enumerate(counts.tolist()):
            assert torch.equal(captured[z, :rows], eager[z, :rows]), z


# The contiguous layout: a (T, K) with each expert's rows one segment (offsets: the segments' ends), d (T, N).
SEGMENTS = [0, 1, 63, 64, 65, 200, 0, 256, 300, 7]


def _contiguous_case(segments: list[int], n: int, k: int, dtype=torch.bfloat16, seed: int = 0, extra: int = 5,
                     weights_kn: bool = False):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    tokens = sum(segments) + extra  # (rows past the last end: never written)
    a = torch.randn(tokens, k, device="cuda", generator=gen).to(dtype)
    e = len(segments)
    if weights_kn:
        b = torch.randn(e, k, n, device="cuda", generator=gen).to(dtype)
    else:
        b = torch.randn(e, n, k, device="cuda", generator=gen).to(dtype).transpose(1, 2)
    ends = torch.tensor(segments, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    return a, b, ends


def _check_contiguous(d: torch.Tensor, a: torch.Tensor, b: torch.Tensor, ends: torch.Tensor) -> None:
    """Each segment against float64; the poisoned rows past the last end stay poisoned."""
    eps = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-22}[d.dtype]
    start = 0
    for z, end in enumerate(ends.tolist()):
        end = min(max(end, start), a.shape[0])
        ref = a[start:end].double() @ b[z].double()
        bound = (a[start:end].double().abs() @ b[z].double().abs()) * 2.0**-20 + 1e-30
        got = d[start:end].double()
        assert not torch.isnan(got).any(), f"expert {z}: rows {start}..{end} not all written"
        assert ((got - ref).abs() <= eps * ref.abs() + bound * 2**12).all(), z
        start = end
    assert torch.isnan(d[start:].double()).all(), "rows past the last segment were written"


@pytest.mark.parametrize("segments", [SEGMENTS, SEGMENTS[:-1]], ids=["even", "odd"])
@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_contiguous_every_config(config, dtype, segments):
    """Segments of 0, 1, 63 ... 300 rows starting at any row: each written exactly (TMA inside, registers at the
    end of a segment), the next expert's rows untouched; fp32 out too. Clusters of two take row tiles of two
    experts (each CTA loads its own B), and with an odd count of 128-row tiles the last cluster repeats a tile."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    a, b, ends = _contiguous_case(segments, 384, 520, dtype, seed=5)
    for out_dtype in (dtype, torch.float32):
        out = torch.full((a.shape[0], 384), float("nan"), dtype=out_dtype, device="cuda")
        d = tcgemm.grouped_gemm(a, b, offsets=ends, out=out, kernel=KERNEL, config=config)
        assert d.data_ptr() == out.data_ptr()
        _check_contiguous(d, a, b, ends)


@pytest.mark.parametrize("weights_kn", [False, True])
@pytest.mark.parametrize("shape", [(8, 4096, 1024, 128), (32, 256, 7168, 8), (3, 200, 96, 1)])
def test_contiguous_auto_shapes(weights_kn, shape):
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    e, n, k, per = shape
    gen = torch.Generator().manual_seed(e + n)
    segments = torch.randint(0, 2 * per + 1, (e,), generator=gen).tolist()
    segments[0] = 0
    a, b, ends = _contiguous_case(segments, n, k, seed=6, weights_kn=weights_kn)
    out = torch.full((a.shape[0], n), float("nan"), dtype=torch.bfloat16, device="cuda")
    _check_contiguous(tcgemm.grouped_gemm(a, b, offsets=ends, out=out), a, b, ends)
    ends_past = ends.clone()
    ends_past[-1] = a.shape[0] + 50  # an end past T counts as T
    out = torch.full((a.shape[0], n), float("nan"), dtype=torch.bfloat16, device="cuda")
    d = tcgemm.grouped_gemm(a, b, offsets=ends_past, out=out)
    start = ends[-2].item() if e > 1 else 0
    ref = a[start:].double() @ b[-1].double()
    assert not torch.isnan(d[start:].double()).any() and torch.allclose(d[start:].double(), ref, rtol=2e-2, atol=2e-1)


def test_contiguous_graph_replays_new_offsets_bitwise():
    """Captured once; replayed with other segment ends and other tokens in the captured tensors: each replay equals
    an eager call bit for bit and the float64 reference."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    segments = [3, 0, 64, 17, 1, 40, 64, 9]
    a, b, ends = _contiguous_case(segments, 1024, 2048, seed=7, extra=100)
    out = torch.full((a.shape[0], 1024), float("nan"), dtype=torch.bfloat16, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tcgemm.grouped_gemm(a, b, offsets=ends, out=out)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.grouped_gemm(a, b, offsets=ends, out=out)
    for trial in range(3):
        new = torch.randint(0, 40, (len(segments),)).cumsum(0).to(torch.int32)
        ends.copy_(new)
        a.copy_(torch.randn_like(a, dtype=torch.float32).to(a.dtype))
        out.fill_(float("nan"))
        graph.replay()
        want = tcgemm.grouped_gemm(a, b, offsets=ends)
        last = int(new[-1])
        assert torch.equal(out[:last], want[:last]), trial
        _check_contiguous(out, a, b, ends)


def test_grouped_experts_contiguous():
    """GroupedExperts over the contiguous layout (offsets) against torch per expert segment, and the masked call
    on the same tokens."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    from tcgemm.moe import GroupedExperts

    torch.manual_seed(19)
    e, hidden, inter = 6, 512, 768
    experts = GroupedExperts(e, hidden, inter, device="cuda")
    segments = [40, 0, 1, 129, 17, 64]
    xs = torch.randn(sum(segments), hidden, device="cuda").to(torch.bfloat16)
    offs = torch.tensor(segments).cumsum(0).to(torch.int32).cuda()
    with torch.inference_mode():
        y = experts(xs, offsets=offs)
        start = 0
        for z, rows in enumerate(segments):
            seg = xs[start:start + rows].double()
            g, u = experts.gate_up[z, :inter].double(), experts.gate_up[z, inter:].double()
            want = (torch.nn.functional.silu(seg @ g.t()) * (seg @ u.t())) @ experts.down[z].double().t()
            torch.testing.assert_close(y[start:start + rows].double(), want, rtol=5e-2, atol=5e-2)
            start += rows


def test_moe_block_and_graph():
    """tcgemm.moe.MoE (router, top-2, SwiGLU experts over the contiguous layout) against plain torch in float64, and
    captured in one CUDA graph (routing included: no host synchronisation), replayed for new tokens bitwise equal to
    eager calls."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    from tcgemm.moe import MoE

    torch.manual_seed(23)
    e, hidden, inter, k = 8, 512, 1024, 2
    moe = MoE(hidden, inter, e, k, device="cuda")
    x = torch.randn(4, 37, hidden, device="cuda").to(torch.bfloat16)

    def reference(x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, hidden)
        weight, expert = (flat @ moe.router.weight.t()).float().softmax(-1).topk(k, dim=-1)
        weight = weight / weight.sum(-1, keepdim=True)
        out = torch.zeros(flat.shape[0], hidden, dtype=torch.float64, device="cuda")
        for z in range(e):
            for j in range(k):
                rows = (expert[:, j] == z).nonzero().flatten()
                xs = flat[rows].double()
                g, u = moe.experts.gate_up[z, :inter].double(), moe.experts.gate_up[z, inter:].double()
                h = torch.nn.functional.silu(xs @ g.t()) * (xs @ u.t())
                out[rows] += weight[rows, j, None].double() * (h @ moe.experts.down[z].double().t())
        return out.reshape(x.shape)

    with torch.inference_mode():
        torch.testing.assert_close(moe(x).double(), reference(x), rtol=5e-2, atol=5e-2)
        _replays_bitwise(moe, x, lambda out: torch.testing.assert_close(out.double(), reference(x), rtol=5e-2,
                                                                         atol=5e-2))


def _replays_bitwise(block, x: torch.Tensor, check=None) -> None:
    """block(x) captured in one CUDA graph (after a warm-up call on a side stream) and replayed twice for new tokens
    written into x: each replay bitwise equal to an eager call on the same tokens; check(out) on each replay too."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        block(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = block(x)
    for _ in range(2):
        x.copy_(torch.randn_like(x, dtype=torch.float32).to(x.dtype))
        graph.replay()
        assert torch.equal(captured, block(x))
        if check is not None:
            check(captured)


def _block_scaled_contiguous_case(segments: list[int], n: int, k: int, seed: int, extra: int = 5):
    """fp8 e4m3 tokens (T, K) expert by expert, weights (E, N, K), scale_a (T, KB) M-major (quantize_fp8's layout:
    strides (1, T rounded up to 4)), scale_b (E, NB, KB), the segments' ends."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    tokens, e = sum(segments) + extra, len(segments)
    kb, nb = -(-k // 128), -(-n // 128)
    a = torch.randn(tokens, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    w = torch.randn(e, n, k, device="cuda", generator=gen).to(torch.float8_e4m3fn)
    t4 = -(-tokens // 4) * 4
    sa = torch.rand(kb, t4, device="cuda", generator=gen).add(0.5)[:, :tokens].t()
    sb = torch.rand(e, nb, kb, device="cuda", generator=gen).add(0.5)
    ends = torch.tensor(segments, dtype=torch.int64).cumsum(0).to(torch.int32).cuda()
    return a, w, sa, sb, ends


def _check_block_scaled_contiguous(d, a, w, sa, sb, ends) -> None:
    """Each segment against the float64 formula of the quantized operands and their scales; the rows past the last
    end stay poisoned."""
    k, n = a.shape[1], w.shape[1]
    cols = torch.arange(n, device="cuda") // 128
    eps = 2.0**-8 if d.dtype == torch.bfloat16 else 2.0**-11 if d.dtype == torch.float16 else 2.0**-22
    start = 0
    for z, end in enumerate(ends.tolist()):
        end = min(max(end, start), a.shape[0])
        want = torch.zeros(end - start, n, dtype=torch.float64, device="cuda")
        mag = torch.zeros_like(want)
        for j in range(-(-k // 128)):
            ks = slice(128 * j, 128 * (j + 1))
            s = sa[start:end, j:j + 1].double() * sb[z, cols, j].double()
            want += s * (a[start:end, ks].double() @ w[z, :, ks].double().t())
            mag += s * (a[start:end, ks].double().abs() @ w[z, :, ks].double().abs().t())
        got = d[start:end].double()
        assert not torch.isnan(got).any(), f"expert {z}: rows {start}..{end} not all written"
        assert ((got - want).abs() <= eps * want.abs() + 2.0**-11 * mag).all(), z
        start = end
    assert torch.isnan(d[start:].double()).all(), "rows past the last segment were written"


@pytest.mark.parametrize("segments", [SEGMENTS, SEGMENTS[:-1]], ids=["even", "odd"])
@pytest.mark.parametrize("config", [*FP8_CONFIGS, "auto"])
def test_block_scaled_fp8_contiguous(config, segments):
    """fp8 e4m3 experts with block-wise scales in the contiguous layout: segments of 0, 1, 63 ... 300 rows starting at
    any row (scale_a rows from any row too), K not a multiple of 128, N not a multiple of the tile; bf16, fp16 and
    fp32 out; scale_a in quantize_fp8's layout and row-major (copied)."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    a, w, sa, sb, ends = _block_scaled_contiguous_case(segments, 320, 400, seed=11)
    kw = {} if config == "auto" else {"kernel": "wgmma_tma_store_kmajor", "config": config}
    for scale_a, out_dtype in ((sa, torch.bfloat16), (sa.contiguous(), torch.float32), (sa, torch.float16)):
        out = torch.full((a.shape[0], 320), float("nan"), dtype=out_dtype, device="cuda")
        d = tcgemm.grouped_gemm(a, w.transpose(1, 2), offsets=ends, scale_a=scale_a, scale_b=sb, out=out, **kw)
        assert d.data_ptr() == out.data_ptr()
        _check_block_scaled_contiguous(d, a, w, sa, sb, ends)


def test_block_scaled_fp8_contiguous_graph_and_repeats():
    """Captured once; replayed with new segment ends, tokens and scales in the captured tensors: each replay equals an
    eager call bit for bit (and a second eager call on another stream) and the float64 reference."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    segments = [3, 0, 130, 17, 1, 40, 256, 9]
    a, w, sa, sb, ends = _block_scaled_contiguous_case(segments, 512, 1024, seed=13, extra=100)
    b = w.transpose(1, 2)
    out = torch.full((a.shape[0], 512), float("nan"), dtype=torch.bfloat16, device="cuda")
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tcgemm.grouped_gemm(a, b, offsets=ends, scale_a=sa, scale_b=sb, out=out)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.grouped_gemm(a, b, offsets=ends, scale_a=sa, scale_b=sb, out=out)
    for trial in range(3):
        ends.copy_(torch.randint(0, 80, (len(segments),)).cumsum(0).to(torch.int32))
        a.copy_(torch.randn(a.shape, device="cuda").to(a.dtype))
        sa.copy_(torch.rand(sa.shape, device="cuda").add(0.5))
        out.fill_(float("nan"))
        graph.replay()
        want = tcgemm.grouped_gemm(a, b, offsets=ends, scale_a=sa, scale_b=sb)
        with torch.cuda.stream(stream):
            again = tcgemm.grouped_gemm(a, b, offsets=ends, scale_a=sa, scale_b=sb)
        torch.cuda.synchronize()
        last = int(ends[-1])
        assert torch.equal(out[:last], want[:last]) and torch.equal(again[:last], want[:last]), trial
        _check_block_scaled_contiguous(out, a, w, sa, sb, ends)


def test_grouped_experts_fp8():
    """GroupedExperts.quantize_fp8 (DeepSeek-V3's recipe: weights per 128 x 128 block, tokens and the gated
    intermediate per token and 128-deep group) in both layouts against the same experts in bf16 (fp8's error, a few
    percent), and the MoE block in fp8 captured in one CUDA graph, replayed bitwise equal to eager calls."""
    if not _available():
        pytest.skip("grouped_gemm needs the Hopper kernel")
    from tcgemm.moe import GroupedExperts, MoE

    torch.manual_seed(29)
    e, hidden, inter = 6, 512, 768
    experts = GroupedExperts(e, hidden, inter, device="cuda")
    segments = [40, 0, 1, 129, 17, 300]
    xs = torch.randn(sum(segments), hidden, device="cuda").to(torch.bfloat16)
    offs = torch.tensor(segments).cumsum(0).to(torch.int32).cuda()
    x3 = torch.zeros(e, 320, hidden, device="cuda", dtype=torch.bfloat16)
    counts = torch.tensor(segments, dtype=torch.int32, device="cuda")
    for z, (s, n) in enumerate(zip([0, *offs.tolist()[:-1]], segments, strict=True)):
        x3[z, :n] = xs[s:s + n]
    with torch.inference_mode():
        want, want3 = experts(xs, offsets=offs).float(), experts(x3, counts).float()
        experts.quantize_fp8()
        got, got3 = experts(xs, offsets=offs).float(), experts(x3, counts).float()

    def rel(a: torch.Tensor, b: torch.Tensor) -> float:
        return float((a - b).norm() / b.norm())

    assert not torch.isnan(got).any() and rel(got, want) < 0.08, rel(got, want)
    for z, n in enumerate(segments):
        if n:
            assert rel(got3[z, :n], want3[z, :n]) < 0.08, z
    moe = MoE(hidden, inter, e, 2, device="cuda").quantize_fp8()
    x = torch.randn(3, 29, hidden, device="cuda").to(torch.bfloat16)
    with torch.inference_mode():
        _replays_bitwise(moe, x)
