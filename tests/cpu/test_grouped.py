"""The grouped GEMM off the GPU: the benchmark's routing (counts of a top-k routing sum to tokens x k and differ), its
command line, and the walk's prefix."""

from __future__ import annotations

import pytest

from tcgemm import grouped_bench


@pytest.mark.parametrize("experts,top_k,tokens", [(8, 2, 1), (8, 2, 512), (32, 8, 32)])
def test_routed_counts(experts, top_k, tokens):
    counts = grouped_bench.routed_counts(experts, top_k, tokens, seed=0)
    assert len(counts) == experts and sum(counts) == max(1, experts * tokens // top_k) * top_k
    assert counts == grouped_bench.routed_counts(experts, top_k, tokens, seed=0)
    if tokens >= 32:
        assert len(set(counts)) > 1  # skewed: not all equal


def test_help(capsys):
    with pytest.raises(SystemExit):
        grouped_bench.main(["--help"])
    assert "torch._grouped_mm" in capsys.readouterr().out


def test_group_prefix_reference():
    """The grouped walk's prefix (torch ops off the GPU, as kernels/util/group_prefix.cu computes it): cluster rows
    with tokens per expert, counts clamped to [0, rows]."""
    import torch

    from tcgemm.grouped import group_prefix

    counts = torch.tensor([0, 1, 17, 40, 99, -3, 64, 65], dtype=torch.int32)
    got = group_prefix(counts, 80, 64).tolist()
    assert got[:9] == [0, 0, 1, 2, 3, 5, 5, 6, 8]
    assert got[9:] == [0, 0, 1, 2, 3, 5, 5, 6, 8, 0]  # clusters of one: the same cluster rows, the walk by entry
    got = group_prefix(counts, 80, 32, cluster_m=2).tolist()  # row tiles of 32, cluster rows of 64
    assert got[:9] == [0, 0, 1, 2, 4, 7, 7, 9, 12] and got[9:18] == [0, 0, 1, 2, 3, 5, 5, 6, 8]
    assert got[18] == 1  # 8 cluster rows of two tiles for 12 row tiles: some past the tokens, so in pairs


def test_prefix_kernel_compiles():
    jit = pytest.importorskip("tcgemm.jit")
    from tcgemm import grouped, sass

    try:
        cubin = jit.cubin("util/group_prefix.cu", grouped.PREFIX_DEFINES, "sm_90a")
    except jit.JitUnavailable as exc:
        pytest.skip(str(exc))
    assert not sass.has_local_memory(sass.disassemble(cubin))


def test_contiguous_prefix_reference():
    """The contiguous layout's prefix: counts from the segment ends (clamped to [0, rows]; an end before its start is
    an empty segment), then the segment bounds 0, end[0], ..., end[E - 1]."""
    import torch

    from tcgemm.grouped import group_prefix

    ends = torch.tensor([0, 1, 1, 65, 300, 290, 700, 700], dtype=torch.int32)
    got = group_prefix(ends, 600, 128, contiguous=True).tolist()
    assert got[:9] == [0, 0, 1, 1, 2, 4, 4, 7, 7]  # row tiles of 0, 1, 0, 64, 235, 0, 310, 0 rows
    assert got[9:18] == [0, 0, 1, 1, 65, 300, 300, 600, 600]
    assert got[18:] == [0, 0, 1, 1, 2, 4, 4, 7, 7, 0]


def test_contiguous_arguments_are_checked():
    import torch

    import tcgemm

    a = torch.zeros(10, 64, dtype=torch.bfloat16)
    b = torch.zeros(4, 64, 32, dtype=torch.bfloat16)
    offs = torch.tensor([2, 5, 5, 10], dtype=torch.int32)
    with pytest.raises(ValueError, match="not both"):
        tcgemm.grouped_gemm(a, b, offs, offsets=offs)
    with pytest.raises(ValueError, match="2-D"):
        tcgemm.grouped_gemm(a[None], b, offsets=offs)
    with pytest.raises(ValueError, match="is on cpu; tcgemm runs on CUDA tensors only"):
        tcgemm.grouped_gemm(a, b, offsets=offs)
    with pytest.raises(ValueError, match="int32 tensor of each expert's end row"):
        tcgemm.grouped_gemm(a, b, offsets=offs.long())
    with pytest.raises(TypeError, match="float8_e4m3fn a and b of one dtype"):
        tcgemm.grouped_gemm(a.float(), b.float(), offsets=offs)
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    with pytest.raises(ValueError, match=r"scale_a of shape \(10, 1\)"):
        tcgemm.grouped_gemm(a8, b8, offsets=offs)
    with pytest.raises(ValueError, match=r"scale_b of shape \(4, 1, 1\)"):
        tcgemm.grouped_gemm(a8, b8, offsets=offs, scale_a=torch.ones(10, 1), scale_b=torch.ones(1, 1))
    with pytest.raises(ValueError, match="bf16 and fp16 take none"):
        tcgemm.grouped_gemm(a, b, offsets=offs, scale_a=torch.ones(10, 1), scale_b=torch.ones(4, 1, 1))
    with pytest.raises(ValueError, match="K = 64 and b K = 32"):
        tcgemm.grouped_gemm(a, b.transpose(1, 2), offsets=offs)


def test_grouped_experts_takes_one_layout():
    import torch

    from tcgemm.moe import GroupedExperts

    experts = GroupedExperts(2, 64, 32, device="cpu")
    x = torch.zeros(5, 64, dtype=torch.bfloat16)
    offs = torch.tensor([2, 5], dtype=torch.int32)
    with torch.no_grad():
        with pytest.raises(ValueError, match="one of the two"):
            experts(x)
        with pytest.raises(ValueError, match="one of the two"):
            experts(x, offs, offsets=offs)
        with pytest.raises(ValueError, match=r"\(tokens, hidden=64\)"):
            experts(x[None], offsets=offs)


def test_out_overlapping_an_operand_is_seen():
    """The overlap test the contiguous check and the plan reuse make (an out over a's memory is refused)."""
    import torch

    from tcgemm.grouped import _overlapping

    a = torch.zeros(10, 64, dtype=torch.bfloat16)
    b = torch.zeros(2, 64, 64, dtype=torch.bfloat16)
    assert _overlapping(a[2:], a, b) and _overlapping(b[0], a, b)
    assert not _overlapping(torch.zeros(10, 64), a, b) and not _overlapping(None, a, b)


def test_route_dispatch_combine():
    """Rows sorted by expert, stable (each expert's rows in token order), counts and ends per expert; combining the
    dispatched rows unchanged gives each token back times its weights' sum (1 when renormalised)."""
    import torch

    from tcgemm.moe import combine, dispatch, route

    torch.manual_seed(3)
    logits = torch.randn(11, 5)
    routing = route(logits, 2)
    experts = logits.softmax(-1).topk(2, dim=-1).indices.flatten()[routing.choice]
    assert (experts.diff() >= 0).all()
    for z in range(5):
        rows = routing.token[experts == z]
        assert (rows.diff() > 0).all()
    assert routing.counts.tolist() == torch.bincount(experts, minlength=5).tolist()
    assert routing.offsets.tolist() == routing.counts.cumsum(0).tolist()
    x = torch.randn(11, 8)
    torch.testing.assert_close(combine(dispatch(x, routing), routing), x)
    raw = route(logits, 3, renormalize=False)
    torch.testing.assert_close(combine(dispatch(x, raw), raw), x * raw.weight.sum(-1, keepdim=True))
    with pytest.raises(ValueError, match="top_k"):
        route(logits, 6)


def test_grouped_builds_compile_without_spills():
    """One build per grouped config, layout (masked, contiguous) and input kind (16-bit; block-scaled fp8) compiles
    for sm_90a without local memory, with the walk's tensor-core and bulk-copy instructions (the full set compiles
    in the GPU suite's all-builds test)."""
    jit = pytest.importorskip("tcgemm.jit")
    from tcgemm import launch, sass

    seen: dict[tuple, tuple] = {}
    for spec, defines in launch.all_builds():
        d = dict(defines)
        if d.get("GROUP_ROWS") in ("1", "2"):
            key = (spec.name, d["BLOCK_M"], d["BLOCK_N"], d["GROUP_ROWS"], d.get("BLOCK_SCALES", "0"))
            seen.setdefault(key, (spec, defines))
    assert {k[3:] for k in seen} == {("1", "0"), ("2", "0"), ("1", "1"), ("2", "1")}
    for (name, *_, block), (spec, defines) in seen.items():
        try:
            cubin = jit.cubin(spec.source, defines, "sm_90a")
        except jit.JitUnavailable as exc:
            pytest.skip(str(exc))
        code = sass.disassemble(cubin)
        assert not sass.has_local_memory(code), (name, dict(defines))
        mix = sass.instruction_mix(code)
        assert mix["QGMMA" if block == "1" else "HGMMA"] > 0 and (block == "0" or mix["UBLKCP"] > 0), name


@pytest.mark.parametrize("experts,n,k", [(8, 28672, 4096), (8, 4096, 14336), (32, 4096, 7168), (32, 7168, 2048)])
@pytest.mark.parametrize("per_expert", [8, 128, 512])
def test_contiguous_pick(experts, n, k, per_expert):
    """auto's tile for the contiguous layout: the estimate's per-expert pick at few tokens, 128 x 128 (clusters of
    two) at 64-191 tokens per expert, where it was measured ahead, and the whole-problem estimate beyond."""
    import torch

    from tcgemm.grouped import contiguous_pick
    from tcgemm.problem import describe

    a = torch.empty(experts * per_expert, k, dtype=torch.bfloat16, device="meta")
    b = torch.empty(experts, n, k, dtype=torch.bfloat16, device="meta").transpose(1, 2)
    problem, _ = describe(a, b, None, alpha=1.0, beta=0.0, out=None, out_dtype=None, precision=None, grouped=2)
    kernel, config = contiguous_pick(problem, 90, 132)
    assert kernel == "wgmma_tma_store"
    if per_expert == 128:
        assert config == "128x128x64"
    elif per_expert == 512:
        assert config == "128x256x64s4b2"
    else:
        assert config.startswith("64x")


def test_grouped_experts_quantize_fp8_off_the_gpu():
    """quantize_fp8 swaps the experts' weights for e4m3 ones with per-expert 128 x 128 block scales (the torch
    reference off the GPU), refuses K not a multiple of 16, and says so in its repr."""
    import torch

    from tcgemm.moe import GroupedExperts
    from tcgemm.quantize import quantize_blocks_reference

    torch.manual_seed(0)
    experts = GroupedExperts(3, 256, 192, device="cpu")
    gate_up = experts.gate_up.detach().clone()
    assert experts.quantize_fp8() is experts and experts.quantize_fp8() is experts
    assert experts.gate_up.dtype == torch.float8_e4m3fn and experts.down.dtype == torch.float8_e4m3fn
    assert tuple(experts.gate_up_scale.shape) == (3, 3, 2) and tuple(experts.down_scale.shape) == (3, 2, 2)
    w8, s = quantize_blocks_reference(gate_up[1])
    assert torch.equal(experts.gate_up[1].view(torch.uint8), w8.view(torch.uint8))
    assert torch.equal(experts.gate_up_scale[1], s)
    assert not list(experts.parameters()) and "fp8" in repr(experts)
    with pytest.raises(ValueError, match="multiple of 16"):
        GroupedExperts(2, 72, 64, device="cpu").quantize_fp8()
