"""The whole Python path of tcgemm.gemm — validation, layout detection, the
column-major-output swap, batch/broadcast strides, selection, launch arguments —
checked on the CPU by replacing the one function that touches the GPU with an
emulator of the kernel contract (gemm.cuh) that reads memory exactly as a
kernel would: through the pointers, leading dimensions and batch strides the
launcher passes. A wrong stride or a wrong swap gives a wrong D here."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgemm
from tcgemm import api, epilogue, launch
from tcgemm.dispatch import KernelUnavailable
from tcgemm.problem import GemmProblem


def _view(t: torch.Tensor, rows: int, cols: int, layout: str, ld: int, batch: int, batch_stride: int):
    strides = (batch_stride, ld, 1) if layout == "row" else (batch_stride, 1, ld)
    return torch.as_strided(t, (batch, rows, cols), strides, t.storage_offset())


def emulate(plan, problem: GemmProblem, a, b, c, d, arch, scales=(None, None), group_rows=None) -> None:
    p = problem
    assert bool(p.grouped) == (group_rows is not None)
    assert not p.grouped or dict(plan.defines).get("GROUP_ROWS") == str(p.grouped)
    # The build with a whole C's code (which costs launches without one ~0.2 us) exactly where a whole C is added.
    assert (dict(plan.defines).get("C_MATRIX") == "1") == (plan.spec.c_matrix and launch.adds_c_matrix(p))
    if p.grouped == 2:  # contiguous experts: A (T, K) and D (T, N) one each, expert z's rows bounds[z] .. bounds[z + 1]
        assert p.a.batch_stride == 0 and p.d_batch_stride == 0
        A = _view(a, p.m, p.k, p.a.layout, p.a.ld, 1, 0)[0].double()
        B = _view(b, p.k, p.n, p.b.layout, p.b.ld, p.batch, p.b.batch_stride).double()
        out = torch.as_strided(d, (p.m, p.n), (p.d_ld, 1), d.storage_offset())
        bounds = group_rows[p.batch + 1:].tolist()
        for z in range(p.batch):
            out[bounds[z]:bounds[z + 1]] = (p.alpha * (A[bounds[z]:bounds[z + 1]] @ B[z])).to(d.dtype)
        emulate.calls.append((plan, problem))
        emulate.operands.append((a, b))
        emulate.scales.append(scales)
        return
    A = _view(a, p.m, p.k, p.a.layout, p.a.ld, p.batch, p.a.batch_stride).double()
    B = _view(b, p.k, p.n, p.b.layout, p.b.ld, p.batch, p.b.batch_stride).double()
    if any(s is not None for s in scales):  # the kernel reads the scale tensors (fp8)
        assert plan.spec.scale_args
    if p.row_scales:  # one scale per row of the kernel's A and per column of its B (None: ones)
        assert plan.spec.row_scales and dict(plan.defines).get("SCALE_ROWWISE") == "1"
        sa = scales[0].double().reshape(p.m, 1) if scales[0] is not None else torch.ones(p.m, 1, dtype=torch.float64)
        sb = scales[1].double().reshape(1, p.n) if scales[1] is not None else torch.ones(1, p.n, dtype=torch.float64)
        D = p.alpha * (sa * (A @ B) * sb)
    elif p.block_scales:  # per 128-deep k-block: scale_a M-major (M, KB), scale_b row-major (NB, KB)
        assert plan.spec.block_scales and dict(plan.defines).get("BLOCK_SCALES") == "1"
        sa, sb = scales
        kb4, m4 = -(-sa.shape[-1] // 4) * 4, -(-p.m // 4) * 4
        assert (sa.stride(-2) == 1 or p.m == 1) and (sa.stride(-1) == m4 or sa.shape[-1] == 1), "scale_a M-major, M4"
        assert sb.stride(-1) == 1 and (sb.stride(-2) == kb4 or sb.shape[-2] == 1), "scale_b row-major, rows of KB4"
        sa, sb = sa.reshape(-1, *sa.shape[-2:]).double(), sb.reshape(-1, *sb.shape[-2:]).double()  # (entries first)
        D = torch.zeros(p.batch, p.m, p.n, dtype=torch.float64)
        cols = torch.arange(p.n) // 128
        for kb in range(sa.shape[-1]):
            ks = slice(128 * kb, 128 * (kb + 1))
            D += sa[:, :, kb:kb + 1] * (A[:, :, ks] @ B[:, ks, :]) * sb[:, cols, kb][:, None, :]
        D = p.alpha * D
    else:
        scale = 1.0
        for s in scales:
            scale *= s.item() if s is not None else 1.0
        D = p.alpha * scale * (A @ B)
    if p.c_strides is not None:
        row, col, bat = p.c_strides
        D = D + p.beta * torch.as_strided(c, (p.batch, p.m, p.n), (bat, row, col), c.storage_offset()).double()
    if p.activation or p.gated:  # the fused epilogue (tcgemm.epilogue): act(D), or act(gate) * up of D's halves
        D = epilogue.apply(D, epilogue.Epilogue(epilogue.NAMES[p.activation], p.gated))
    if p.d_transposed:  # the kernel's tile of D^T goes out transposed: D^T[i, j] is D[j, i]
        out = torch.as_strided(d, (p.batch, p.n, p.m), (p.d_batch_stride, p.d_ld, 1), d.storage_offset())
        out.copy_(D.transpose(1, 2).to(d.dtype))
    else:
        out = torch.as_strided(d, (p.batch, p.m, p.n_out), (p.d_batch_stride, p.d_ld, 1), d.storage_offset())
        out.copy_(D.to(d.dtype))
    if group_rows is not None:  # the walk's prefix (row tiles with tokens first); rows past them: maybe not written
        for z, tiles in enumerate(group_rows[:p.batch + 1].diff().tolist()):
            out[z, tiles * plan.config["BLOCK_M"]:] = float("nan")
    emulate.calls.append((plan, problem))
    emulate.operands.append((a, b))
    emulate.scales.append(scales)


def _operand(rows, cols, layout, batch, pad, gen):
    lead = () if batch is None else (batch,)
    if layout == "row":
        return torch.randn(*lead, rows, cols + pad, generator=gen)[..., :cols]
    return torch.randn(*lead, cols, rows + pad, generator=gen)[..., :rows].transpose(-1, -2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    m=st.integers(1, 9), n=st.integers(1, 9), k=st.integers(0, 9),
    la=st.sampled_from(["row", "col"]), lb=st.sampled_from(["row", "col"]),
    batch_a=st.sampled_from([None, 1, 3]), batch_b=st.sampled_from([None, 1, 3]),
    pad=st.integers(0, 3), out_col=st.booleans(),
    c_shape=st.sampled_from([None, "full", "row", "col"]),
    alpha=st.sampled_from([1.0, -0.5, 2.0]), beta=st.sampled_from([0.0, 1.0, -2.0]),
    seed=st.integers(0, 2**16),
)
def test_gemm_matches_torch_for_any_layout(m, n, k, la, lb, batch_a, batch_b, pad, out_col, c_shape, alpha, beta,
                                          seed, fake_gpu):
    gen = torch.Generator().manual_seed(seed)
    a = _operand(m, k, la, batch_a, pad, gen)
    b = _operand(k, n, lb, batch_b, pad, gen)
    batched = batch_a is not None or batch_b is not None
    batch = max(batch_a or 1, batch_b or 1)
    c = {None: None, "full": torch.randn(m, n, generator=gen), "row": torch.randn(n, generator=gen),
         "col": torch.randn(m, 1, generator=gen)}[c_shape]
    if c is None:
        beta = 0.0
    shape = (batch, m, n) if batched else (m, n)
    out = None
    if out_col:
        out = torch.full((*shape[:-2], n, m), float("nan")).transpose(-1, -2)
    d = tcgemm.gemm(a, b, c, alpha=alpha, beta=beta, out=out)
    ref = alpha * (a.double() @ b.double())
    if c is not None and beta != 0:
        ref = ref + beta * c.double()
    assert d.shape == shape
    torch.testing.assert_close(d.double(), ref.expand(shape), rtol=1e-5, atol=1e-5)


def test_forced_kernel_and_config_reach_the_launch(fake_gpu):
    a, b = torch.randn(300, 200), torch.randn(200, 100)
    tcgemm.gemm(a, b, kernel="simt_warp_tiling", config="64x64x8")
    plan, _problem = fake_gpu.calls[-1]
    assert plan.spec.name == "simt_warp_tiling" and plan.config.name == "64x64x8"
    assert plan.grid == (2, 5, 1) and plan.block == 128


def test_auto_picks_the_top_simt_stage_for_fp32(fake_gpu):
    tcgemm.gemm(torch.randn(4096, 64), torch.randn(64, 4096))
    plan, _ = fake_gpu.calls[-1]
    assert plan.spec.family == "simt" and plan.spec.name == "simt_warp_tiling"


def test_vector_loads_only_when_aligned(fake_gpu):
    tcgemm.gemm(torch.randn(64, 64), torch.randn(64, 64), kernel="simt_vectorized")
    assert dict(fake_gpu.calls[-1][0].defines)["VEC"] == "4"
    tcgemm.gemm(torch.randn(64, 63), torch.randn(63, 64), kernel="simt_vectorized")  # lda = 63
    assert dict(fake_gpu.calls[-1][0].defines)["VEC"] == "1"


def test_unknown_kernel_and_config_are_named(fake_gpu):
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    with pytest.raises(ValueError, match=r"unknown kernel .fastest.*simt_naive"):
        tcgemm.gemm(a, b, kernel="fastest")
    with pytest.raises(ValueError, match="no tile config 'huge'"):
        tcgemm.gemm(a, b, kernel="simt_warp_tiling", config="huge")


def test_k_zero_gives_beta_c(fake_gpu):
    a, b, c = torch.randn(4, 0), torch.randn(0, 3), torch.randn(4, 3)
    torch.testing.assert_close(tcgemm.gemm(a, b, c, beta=2.0), 2 * c)
    assert torch.equal(tcgemm.gemm(a, b), torch.zeros(4, 3))
    assert not fake_gpu.calls  # nothing launched


@pytest.mark.parametrize("transpose", [False, True])
def test_unaligned_16bit_operands_are_staged_for_hopper(fake_gpu, transpose):
    a = torch.randn(1023, 1021).half()  # K = 1021: rows are not 16-byte aligned
    b = torch.randn(1021, 1025).half()
    if transpose:
        a = a.t().contiguous().t()
    d = tcgemm.gemm(a, b)
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.family == "hopper" and problem.a.aligned16 and problem.b.aligned16
    assert problem.layouts == ("cr" if transpose else "rr")
    torch.testing.assert_close(d.float(), (a.double() @ b.double()).float(), rtol=2e-3, atol=2e-2)


def test_small_unaligned_problems_are_not_staged(fake_gpu):
    tcgemm.gemm(torch.randn(64, 63).half(), torch.randn(63, 64).half())
    plan, _ = fake_gpu.calls[-1]
    assert plan.spec.family != "hopper"


def _int8(rows, cols, layout, gen, batch=None):
    lead = () if batch is None else (batch,)
    shape = (*lead, rows, cols) if layout == "row" else (*lead, cols, rows)
    t = torch.randint(-128, 128, shape, dtype=torch.int8, generator=gen)
    return t if layout == "row" else t.transpose(-1, -2)


@pytest.mark.parametrize("layouts", ["rr", "cr", "cc", "rc"])
@pytest.mark.parametrize("out_col", [False, True])
def test_int8_operands_are_staged_k_major_for_hopper(fake_gpu, layouts, out_col):
    """wgmma reads int8 K-major only: auto copies an MN-major operand (A column-major, B row-major)
    into a K-major buffer, leaves a K-major aligned one in place, and the result stays exact."""
    gen = torch.Generator().manual_seed(1)
    a = _int8(640, 512, "row" if layouts[0] == "r" else "col", gen)
    b = _int8(512, 528, "row" if layouts[1] == "r" else "col", gen)
    out = torch.empty(528, 640, dtype=torch.int32).t() if out_col else None
    d = tcgemm.gemm(a, b, out=out)
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.name == "wgmma_tma_store_kmajor" and problem.layouts == "rc"
    assert problem.a.aligned16 and problem.b.aligned16
    ka, kb = fake_gpu.operands[-1]
    if out_col:  # D^T = B^T A^T: the kernel's A is b, its B is a
        ka, kb = kb, ka
    assert (ka.data_ptr() == a.data_ptr()) == (layouts[0] == "r")  # K-major A: read in place
    assert (kb.data_ptr() == b.data_ptr()) == (layouts[1] == "c")
    assert torch.equal(d, (a.double() @ b.double()).int())


@pytest.mark.parametrize("layouts", ["rr", "cc"])
def test_tf32_unaligned_operands_are_padded_and_transposed(fake_gpu, layouts):
    gen = torch.Generator().manual_seed(2)
    a = _operand(700, 517, "row" if layouts[0] == "r" else "col", None, 0, gen)  # K = 517: rows unaligned
    b = _operand(517, 601, "row" if layouts[1] == "r" else "col", None, 0, gen)
    d = tcgemm.gemm(a, b, precision="tf32")
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.name == "wgmma_tma_store_kmajor" and problem.layouts == "rc"
    assert problem.a.ld % 4 == 0 and problem.b.ld % 4 == 0 and problem.a.ld >= 517
    torch.testing.assert_close(d.double(), a.double() @ b.double(), rtol=1e-5, atol=1e-4)


def test_batched_and_broadcast_int8_operands_are_staged(fake_gpu):
    gen = torch.Generator().manual_seed(3)
    a = _int8(300, 1024, "col", gen, batch=3)
    b = _int8(1024, 200, "row", gen)  # broadcast over the batch
    d = tcgemm.gemm(a, b)
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.name == "wgmma_tma_store_kmajor" and problem.layouts == "rc" and problem.batch == 3
    assert torch.equal(d, (a.double() @ b.double()).int())


def test_small_or_pre_hopper_int8_problems_are_not_staged(fake_gpu, monkeypatch):
    gen = torch.Generator().manual_seed(4)
    a, b = _int8(64, 64, "row", gen), _int8(64, 64, "row", gen)
    tcgemm.gemm(a, b)
    assert fake_gpu.calls[-1][0].spec.family != "hopper"
    assert fake_gpu.operands[-1][1].data_ptr() == b.data_ptr()
    monkeypatch.setattr(api, "device_info", lambda index: (80, 108, "sm_80"))
    a, b = _int8(1024, 1024, "row", gen), _int8(1024, 1024, "row", gen)
    tcgemm.gemm(a, b)
    assert fake_gpu.calls[-1][0].spec.family != "hopper"
    assert fake_gpu.operands[-1][1].data_ptr() == b.data_ptr()


def test_fp32_is_never_staged(fake_gpu):
    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    tcgemm.gemm(a, b)
    assert fake_gpu.calls[-1][0].spec.family == "simt"
    assert fake_gpu.operands[-1][1].data_ptr() == b.data_ptr()


def test_k_major_kernel_refuses_other_layouts_when_forced(fake_gpu):
    gen = torch.Generator().manual_seed(5)
    a, b = _int8(256, 256, "row", gen), _int8(256, 256, "row", gen)
    with pytest.raises(KernelUnavailable, match="serves layouts rc"):
        tcgemm.gemm(a, b, kernel="wgmma_ws_kmajor")
    tcgemm.gemm(a, b.t().contiguous().t(), kernel="wgmma_ws_kmajor")
    assert fake_gpu.calls[-1][1].layouts == "rc"


FP8 = [torch.float8_e4m3fn, torch.float8_e5m2]


def _fp8(rows, cols, layout, dtype, gen):
    t = torch.randn(rows, cols, generator=gen) if layout == "row" else torch.randn(cols, rows, generator=gen).t()
    return t.to(dtype)


@pytest.mark.parametrize("dtype", FP8)
@pytest.mark.parametrize("layouts", ["rr", "rc", "cc"])
def test_fp8_is_staged_k_major_even_when_small(fake_gpu, dtype, layouts):
    """No other kernel computes fp8: auto stages any layout into K-major copies, however small."""
    gen = torch.Generator().manual_seed(6)
    a = _fp8(40, 48, "row" if layouts[0] == "r" else "col", dtype, gen)
    b = _fp8(48, 24, "row" if layouts[1] == "r" else "col", dtype, gen)
    d = tcgemm.gemm(a, b)
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.name == "wgmma_tma_store_kmajor" and problem.layouts == "rc"
    assert d.dtype == torch.bfloat16 and problem.precision == ("fp8e4m3" if dtype == FP8[0] else "fp8e5m2")
    assert dict(plan.defines)["TCGEMM_NEEDS_FP8"] == "1"
    torch.testing.assert_close(d, (a.double() @ b.double()).to(torch.bfloat16))


def test_fp8_number_scales_fold_into_alpha(fake_gpu):
    gen = torch.Generator().manual_seed(7)
    a, b = _fp8(32, 64, "row", FP8[0], gen), _fp8(64, 16, "col", FP8[0], gen)
    d = tcgemm.gemm(a, b, alpha=2.0, scale_a=0.5, scale_b=3.0, out_dtype=torch.float32)
    _plan, problem = fake_gpu.calls[-1]
    assert problem.alpha == 3.0 and fake_gpu.scales[-1] == (None, None)
    torch.testing.assert_close(d, (3.0 * (a.double() @ b.double())).float())


def test_fp8_tensor_scales_reach_the_kernel(fake_gpu):
    gen = torch.Generator().manual_seed(8)
    a, b = _fp8(32, 64, "row", FP8[1], gen), _fp8(64, 16, "col", FP8[1], gen)
    sa, sb = torch.tensor([0.25]), torch.tensor(4.5)
    out = torch.empty(16, 32, dtype=torch.float16).t()  # column-major out: D^T = B^T A^T, scales exchanged
    d = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, out=out)
    _plan, problem = fake_gpu.calls[-1]
    assert problem.alpha == 1.0 and fake_gpu.scales[-1] == (sb, sa) and problem.swapped
    torch.testing.assert_close(d, (1.125 * (a.double() @ b.double())).half())


def test_fp8_scale_and_output_validation(fake_gpu, monkeypatch):
    gen = torch.Generator().manual_seed(9)
    a, b = _fp8(32, 64, "row", FP8[0], gen), _fp8(64, 16, "col", FP8[0], gen)
    with pytest.raises(ValueError, match="fp8 inputs"):
        tcgemm.gemm(torch.randn(4, 4), torch.randn(4, 4), scale_a=2.0)
    with pytest.raises(ValueError, match=r"shape \(2,\).*one per row of a, shape \(32, 1\)"):
        tcgemm.gemm(a, b, scale_a=torch.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="must be float32"):
        tcgemm.gemm(a, b, scale_b=torch.tensor([1.0], dtype=torch.float64))
    with pytest.raises(TypeError, match="out_dtype"):
        tcgemm.gemm(a, b, out_dtype=torch.int32)
    with pytest.raises(TypeError, match="same dtype"):
        tcgemm.gemm(a, b.to(torch.float8_e5m2))
    monkeypatch.setattr(api, "device_info", lambda index: (80, 108, "sm_80"))
    with pytest.raises(KernelUnavailable, match="fp8e4m3"):
        tcgemm.gemm(a, b)


@pytest.mark.parametrize("shape_a,shape_b", [((32, 1), (1, 16)), ((32,), (16,))])
def test_fp8_row_scales(fake_gpu, shape_a, shape_b):
    """Row-wise scales (torch._scaled_mm's (M, 1) and (1, N), or 1-D): D = scale_a[m] scale_b[n] (A B)[m, n] on the
    kernel that takes them; with a column-major out the kernel's A is b, so the scales go in exchanged."""
    gen = torch.Generator().manual_seed(10)
    a, b = _fp8(32, 64, "row", FP8[0], gen), _fp8(64, 16, "col", FP8[0], gen)
    sa = torch.rand(32, generator=gen).add(0.5).reshape(shape_a)
    sb = torch.rand(16, generator=gen).add(0.5).reshape(shape_b)
    want = sa.double().reshape(32, 1) * (a.double() @ b.double()) * sb.double().reshape(1, 16)
    d = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.float32)
    plan, problem = fake_gpu.calls[-1]
    assert problem.row_scales and plan.spec.name == "wgmma_tma_store_kmajor" and fake_gpu.scales[-1] == (sa, sb)
    torch.testing.assert_close(d, want.float())
    out = torch.empty(16, 32, dtype=torch.float32).t()
    tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, out=out)
    _plan, problem = fake_gpu.calls[-1]
    assert problem.swapped and fake_gpu.scales[-1] == (sb, sa)
    torch.testing.assert_close(out, want.float())
    # a number for the other scale: folded into alpha, the kernel's vector null (ones)
    d = tcgemm.gemm(a, b, scale_a=sa, scale_b=2.0, out_dtype=torch.float32)
    assert fake_gpu.scales[-1] == (sa, None) and fake_gpu.calls[-1][1].alpha == 2.0
    torch.testing.assert_close(d, (2.0 * sa.double().reshape(32, 1) * (a.double() @ b.double())).float())
    assert tcgemm.explain(a, b, scale_a=sa, scale_b=sb).kernel == "wgmma_tma_store_kmajor"


@pytest.mark.parametrize("m,k,scales", [(1, 4096, "tensor"), (16, 4096, "row"), (5, 1024, "number"),
                                         (16, 512, "tensor"), (17, 4096, "tensor"), (32, 8192, "row")])
def test_fp8_few_rows_take_the_decode_kernel(fake_gpu, m, k, scales):
    """fp8 at up to 16 rows with K >= 1024 (32 rows at K >= 8192, N <= 2048) runs the decode kernel
    (swap_ab_stream_k_fp8: the weight as wgmma's A), per-tensor and row-wise scales passed as the general kernel
    gets them; shorter K and more rows stay on wgmma_tma_store_kmajor; block-wise scales never go to the decode
    kernel."""
    gen = torch.Generator().manual_seed(12)
    n = 192
    a, b = _fp8(m, k, "row", FP8[0], gen), _fp8(k, n, "col", FP8[0], gen)
    sa = {"tensor": torch.tensor(0.5), "row": torch.rand(m, 1, generator=gen).add(0.5), "number": 0.5}[scales]
    sb = {"tensor": torch.tensor(1.5), "row": torch.rand(1, n, generator=gen).add(0.5), "number": 2.0}[scales]
    want = (torch.as_tensor(sa).double().reshape(-1, 1) * (a.double() @ b.double())
            * torch.as_tensor(sb).double().reshape(1, -1))
    d = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.float32)
    plan, problem = fake_gpu.calls[-1]
    decode = (m <= 16 and k >= 1024) or (m <= 32 and k >= 8192)
    assert plan.spec.name == ("swap_ab_stream_k_fp8" if decode else "wgmma_tma_store_kmajor")
    assert problem.row_scales == (scales == "row")
    if decode:
        assert dict(plan.defines)["BLOCK_K"] == "128" and dict(plan.defines)["STREAM_K"] == "1"
    torch.testing.assert_close(d, want.float())
    x8 = _fp8(m, k, "row", FP8[0], gen)
    w8 = _fp8(n, k, "row", FP8[0], gen)
    sx, sw = torch.rand(m, k // 128, generator=gen).add(0.5), torch.rand(2, k // 128, generator=gen).add(0.5)
    tcgemm.gemm(x8, w8.t(), scale_a=sx, scale_b=sw, out_dtype=torch.float32)
    assert fake_gpu.calls[-1][1].block_scales and fake_gpu.calls[-1][0].spec.name == "wgmma_tma_store_kmajor"


@pytest.mark.parametrize("m,n,k", [(32, 16, 64), (40, 300, 300), (1, 130, 129), (129, 256, 512)])
def test_fp8_block_scales(fake_gpu, m, n, k):
    """Block-wise scales (scale_a (M, ceil(K/128)), scale_b (ceil(N/128), ceil(K/128))): each 128-deep k-block's
    product times its row's and column block's scales; scale_a reaches the kernel M-major, copied if given
    row-major, and quantize_fp8's layout (strides (1, M)) as it is."""
    gen = torch.Generator().manual_seed(12)
    a, b = _fp8(m, k, "row", FP8[0], gen), _fp8(k, n, "col", FP8[0], gen)
    kb, nb = -(-k // 128), -(-n // 128)
    sa = torch.rand(m, kb, generator=gen).add(0.5)
    sb = torch.rand(nb, kb, generator=gen).add(0.5)
    want = torch.zeros(m, n, dtype=torch.float64)
    for j in range(kb):
        ks = slice(128 * j, 128 * (j + 1))
        want += sa[:, j:j + 1].double() * (a[:, ks].double() @ b[ks, :].double()) * sb[torch.arange(n) // 128, j]
    m4 = -(-m // 4) * 4
    padded = torch.empty(kb, m4)[:, :m].t().copy_(sa)  # quantize_fp8's layout: taken as it is
    for scale_a in (sa, padded):
        d = tcgemm.gemm(a, b, scale_a=scale_a, scale_b=sb, out_dtype=torch.float32, alpha=0.5)
        plan, problem = fake_gpu.calls[-1]
        assert problem.block_scales and not problem.row_scales and plan.spec.name == "wgmma_tma_store_kmajor"
        assert (fake_gpu.scales[-1][1] is sb) == (kb % 4 == 0)
        assert (fake_gpu.scales[-1][0] is scale_a) == (scale_a is padded or (kb == 1 and m % 4 == 0))
        torch.testing.assert_close(d, (0.5 * want).float())
    assert tcgemm.explain(a, b, scale_a=sa, scale_b=sb).kernel == "wgmma_tma_store_kmajor"


def test_fp8_block_scale_validation(fake_gpu):
    gen = torch.Generator().manual_seed(13)
    a, b = _fp8(32, 320, "row", FP8[0], gen), _fp8(320, 16, "col", FP8[0], gen)
    sa, sb = torch.ones(32, 3), torch.ones(1, 3)
    with pytest.raises(ValueError, match=r"scale_a has the block-wise shape \(32, 3\); then scale_b .*got \(2, 3\)"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=torch.ones(2, 3))
    with pytest.raises(ValueError, match=r"then scale_a must be block-wise too.*got 2.0"):
        tcgemm.gemm(a, b, scale_a=2.0, scale_b=sb)
    with pytest.raises(ValueError, match="must be float32"):
        tcgemm.gemm(a, b, scale_a=sa.double(), scale_b=sb)
    with pytest.raises(ValueError, match="row-major out"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, out=torch.empty(16, 32).t())
    with pytest.raises(KernelUnavailable, match="block-wise scales"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, kernel="wgmma_ws_kmajor")
    with pytest.raises(ValueError, match="cannot apply block-wise fp8 scales"):  # (a tile straddling two blocks)
        tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, kernel="wgmma_tma_store_kmajor", config="128x192x128")


@pytest.mark.parametrize("out_dtype", [None, torch.float32])
def test_grouped_gemm_masked(fake_gpu, out_dtype):
    """grouped_gemm with device counts: a batched launch of the grouped build with the counts as its group_rows; each
    expert's first counts[e] rows are a[e] @ b[e] (0 rows, 1 row, all rows, more than M); with no counts, a batched
    GEMM."""
    gen = torch.Generator().manual_seed(14)
    e, m, k, n = 5, 40, 64, 48
    a = torch.randn(e, m, k, generator=gen).to(torch.bfloat16)
    w = torch.randn(e, n, k, generator=gen).to(torch.bfloat16)  # as expert weights are stored
    counts = torch.tensor([0, 1, 17, 40, 99], dtype=torch.int32)
    d = tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, out_dtype=out_dtype)
    plan, problem = fake_gpu.calls[-1]
    assert problem.grouped and problem.batch == e and plan.spec.name == "wgmma_tma_store" and plan.config.grouped
    want = a.double() @ w.double().transpose(1, 2)
    for z, rows in enumerate(counts.tolist()):
        rows = min(rows, m)
        torch.testing.assert_close(d[z, :rows].double(), want[z, :rows], rtol=1e-2, atol=1e-2)
    plain = tcgemm.grouped_gemm(a, w.transpose(1, 2))
    assert not fake_gpu.calls[-1][1].grouped
    torch.testing.assert_close(plain.double(), want, rtol=1e-2, atol=1e-2)


def test_grouped_gemm_block_scaled_fp8(fake_gpu):
    """fp8 grouped GEMMs with block-wise scales per expert: the grouped block-scaled build, the scales in the
    kernel's layouts (each expert's after the last's), each expert's valid rows as the float64 formula."""
    gen = torch.Generator().manual_seed(15)
    e, m, k, n = 3, 20, 300, 200
    a = torch.randn(e, m, k, generator=gen).to(torch.float8_e4m3fn)
    w = torch.randn(e, n, k, generator=gen).to(torch.float8_e4m3fn)
    kb, nb = 3, 2
    sa = torch.rand(e, m, kb, generator=gen) + 0.5
    sb = torch.rand(e, nb, kb, generator=gen) + 0.5
    counts = torch.tensor([20, 0, 7], dtype=torch.int32)
    d = tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, scale_a=sa, scale_b=sb)
    plan, problem = fake_gpu.calls[-1]
    assert problem.grouped and problem.block_scales and plan.spec.name == "wgmma_tma_store_kmajor" and d.dtype == \
        torch.bfloat16
    for z, rows in enumerate(counts.tolist()):
        want = torch.zeros(rows, n, dtype=torch.float64)
        for j in range(kb):
            ks = slice(128 * j, 128 * (j + 1))
            want += (sa[z, :rows, j:j + 1].double() * (a[z, :rows, ks].double() @ w[z, :, ks].double().t())
                     * sb[z, torch.arange(n) // 128, j].double())
        torch.testing.assert_close(d[z, :rows].double(), want, rtol=1e-2, atol=1e-1)
    with pytest.raises(ValueError, match=r"scale_b of shape \(3, 2, 3\)"):
        tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, scale_a=sa, scale_b=sb[:, :1])
    with pytest.raises(ValueError, match="takes counts"):
        tcgemm.grouped_gemm(a, w.transpose(1, 2), scale_a=sa, scale_b=sb)


def test_grouped_experts_module(fake_gpu):
    """tcgemm.moe.GroupedExperts: SwiGLU experts over the masked layout, from per-expert Linear layers; each
    expert's valid rows as torch computes them; inference only."""
    from tcgemm.moe import GroupedExperts

    torch.manual_seed(16)
    e, hidden, inter, m = 3, 64, 96, 20
    gates = [torch.nn.Linear(hidden, inter, bias=False).to(torch.bfloat16) for _ in range(e)]
    ups = [torch.nn.Linear(hidden, inter, bias=False).to(torch.bfloat16) for _ in range(e)]
    downs = [torch.nn.Linear(inter, hidden, bias=False).to(torch.bfloat16) for _ in range(e)]
    experts = GroupedExperts.from_linears(gates, ups, downs)
    x = torch.randn(e, m, hidden).to(torch.bfloat16)
    counts = torch.tensor([20, 0, 5], dtype=torch.int32)
    with torch.no_grad():
        y = experts(x, counts)
        for z, rows in enumerate(counts.tolist()):
            xs = x[z, :rows].double()
            h = torch.nn.functional.silu(xs @ gates[z].weight.double().t()) * (xs @ ups[z].weight.double().t())
            torch.testing.assert_close(y[z, :rows].double(), h @ downs[z].weight.double().t(), rtol=3e-2, atol=3e-2)
    assert fake_gpu.calls[-1][1].grouped and "experts=3" in repr(experts)
    with pytest.raises(NotImplementedError, match="inference only"):
        experts(x, counts)
    with pytest.raises(ValueError, match=r"x must be \(experts=3, rows, hidden=64\)"), torch.no_grad():
        experts(x[:, :, :32], counts)


def test_grouped_gemm_validation(fake_gpu):
    a, w = torch.randn(4, 8, 16).to(torch.bfloat16), torch.randn(4, 24, 16).to(torch.bfloat16)
    counts = torch.ones(4, dtype=torch.int32)
    with pytest.raises(ValueError, match="3-D tensor"):
        tcgemm.grouped_gemm(a[0], w.transpose(1, 2), counts)
    with pytest.raises(ValueError, match="a has 4 experts and b 3"):
        tcgemm.grouped_gemm(a, w[:3].transpose(1, 2), counts)
    with pytest.raises(TypeError, match="bf16, fp16 or"):
        tcgemm.grouped_gemm(a.float(), w.float().transpose(1, 2), counts)
    with pytest.raises(ValueError, match=r"int32 tensor of one row count per expert, shape \(4,\)"):
        tcgemm.grouped_gemm(a, w.transpose(1, 2), counts.long())
    column_major = torch.empty(4, 24, 8, dtype=torch.bfloat16).transpose(1, 2)
    with pytest.raises(ValueError, match="row-major out"):
        tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, out=column_major)
    with pytest.raises(ValueError, match="not built for masked grouped"):
        tcgemm.grouped_gemm(a, w.transpose(1, 2), counts, kernel="wgmma_tma_store", config="128x256x64s4b2o")


def test_fp8_row_scale_validation(fake_gpu):
    gen = torch.Generator().manual_seed(11)
    a, b = _fp8(32, 64, "row", FP8[0], gen), _fp8(64, 16, "col", FP8[0], gen)
    sa, sb = torch.ones(32, 1), torch.ones(1, 16)
    with pytest.raises(ValueError, match=r"scale_b has shape \(1, 17\).*one per column of b, shape \(1, 16\)"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=torch.ones(1, 17))
    with pytest.raises(ValueError, match="unit stride"):
        tcgemm.gemm(a, b, scale_a=torch.ones(32, 2)[:, :1], scale_b=sb)
    with pytest.raises(ValueError, match="scale_b has one element while the other scale is row-wise"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=torch.tensor(2.0))
    with pytest.raises(ValueError, match="2-D a and b"):
        tcgemm.gemm(a.expand(2, 32, 64), b, scale_a=sa, scale_b=sb)
    with pytest.raises(KernelUnavailable, match="per-tensor fp8 scales only"):
        tcgemm.gemm(a, b, scale_a=sa, scale_b=sb, kernel="wgmma_ws_kmajor")
    one_row = _fp8(1, 64, "row", FP8[0], gen)  # M = 1: a one-element scale_a is row-wise too
    d = tcgemm.gemm(one_row, b, scale_a=torch.tensor([[3.0]]), scale_b=torch.full((1, 16), 0.5),
                    out_dtype=torch.float32)
    assert fake_gpu.calls[-1][1].row_scales
    torch.testing.assert_close(d, (1.5 * (one_row.double() @ b.double())).float())


@pytest.mark.parametrize("dtype,precision", [(torch.float8_e4m3fn, None), (torch.int8, None),
                                             (torch.float32, "tf32"), (torch.bfloat16, None)])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (1, 5, 1), (3, 1, 7), (1, 1, 9), (2, 1, 1), (1, 17, 33)])
@pytest.mark.parametrize("layouts", ["rr", "rc", "cr", "cc"])
def test_vectors_on_hopper(fake_gpu, dtype, precision, m, n, k, layouts):
    """One-row / one-column operands read as either layout; the staged K-major copies of them must
    still be recognised as K-major and 16-byte aligned (found by the GPU property test: fp8 1x1x1)."""
    a = torch.randn(m, k) if layouts[0] == "r" else torch.randn(k, m).t()
    b = torch.randn(k, n) if layouts[1] == "r" else torch.randn(n, k).t()
    a, b = (3 * a).to(dtype), (3 * b).to(dtype)
    d = tcgemm.gemm(a, b, precision=precision)
    assert torch.allclose(d.double(), a.double() @ b.double(), rtol=2e-2, atol=1e-2)


@pytest.mark.parametrize("batch", [1, 2])
def test_unaligned_16bit_output_goes_through_a_padded_buffer(fake_gpu, batch):
    """N = 601 bf16: D rows are not 16-byte aligned, so the TMA-store kernel writes a row-padded buffer
    (ld 608) and the result is copied into a contiguous output; the caller sees an ordinary tensor."""
    gen = torch.Generator().manual_seed(7)
    shape_a = (batch, 520, 520) if batch > 1 else (520, 520)
    a = torch.randn(*shape_a, generator=gen).to(torch.bfloat16)
    b = torch.randn(520, 601, generator=gen).to(torch.bfloat16)
    d = tcgemm.gemm(a, b)
    plan, problem = fake_gpu.calls[-1]
    assert plan.spec.tma_store and problem.d_ld == 608 and problem.d_batch_stride == 520 * 608
    assert d.is_contiguous() and d.shape == (*shape_a[:-1], 601)
    torch.testing.assert_close(d.double(), a.double() @ b.double(), rtol=2e-2, atol=5e-2)
    small = tcgemm.gemm(a[..., :8, :8], b[:8, :9])  # below the size where padding pays: written in place
    assert fake_gpu.calls[-1][1].d_ld == 9 and small.is_contiguous()


def test_unaligned_16bit_out_argument_goes_through_a_padded_buffer(fake_gpu):
    """A contiguous ``out`` with unaligned rows is padded like an allocated D (and updated in place when it
    is also c); a non-contiguous one is written where it is (element-wise stores)."""
    gen = torch.Generator().manual_seed(8)
    a = torch.randn(520, 520, generator=gen).to(torch.bfloat16)
    b = torch.randn(520, 601, generator=gen).to(torch.bfloat16)
    expect = a.double() @ b.double()
    out = torch.full((520, 601), float("nan"), dtype=torch.bfloat16)
    d = tcgemm.gemm(a, b, out=out)
    assert d is out and fake_gpu.calls[-1][1].d_ld == 608
    torch.testing.assert_close(out.double(), expect, rtol=2e-2, atol=5e-2)
    c = torch.randn(520, 601, generator=gen).to(torch.bfloat16)
    acc = c.clone()
    tcgemm.gemm(a, b, acc, beta=1.0, out=acc)
    torch.testing.assert_close(acc.double(), expect + c.double(), rtol=2e-2, atol=1e-1)
    wide = torch.full((520, 603), float("nan"), dtype=torch.bfloat16)
    tcgemm.gemm(a, b, out=wide[:, :601])
    assert fake_gpu.calls[-1][1].d_ld == 603
    torch.testing.assert_close(wide[:, :601].double(), expect, rtol=2e-2, atol=5e-2)


@pytest.mark.parametrize("layouts", ["rc", "rr"])
def test_transposed_store_config_swaps_operands_and_writes_d(layouts, fake_gpu):
    """A D_TRANSPOSED config (the tokens as the wgmma's N) runs D^T = B^T A^T: the launch gets the operands
    exchanged, m and n exchanged, C's strides exchanged, and D as the caller's row-major tensor; a bias, alpha
    and beta with a full C, and a batch come out as torch's."""
    from tcgemm.registry import get

    cfg = next(c for c in get("wgmma_tma_store").configs if c.get("D_TRANSPOSED"))
    gen = torch.Generator().manual_seed(3)
    a = torch.randn(300, 264, generator=gen).to(torch.bfloat16)
    w = torch.randn(520, 264, generator=gen).to(torch.bfloat16)
    b = w.t() if layouts == "rc" else w.t().contiguous()
    bias = torch.randn(520, generator=gen).to(torch.bfloat16)
    full = torch.randn(300, 520, generator=gen).to(torch.bfloat16)
    kw = dict(kernel="wgmma_tma_store", config=cfg.name)
    ref = a.double() @ b.double()
    for c, alpha, beta, want in ((None, 1.0, 0.0, ref), (bias, 1.0, 1.0, ref + bias.double()),
                                 (full, 0.5, -1.5, 0.5 * ref - 1.5 * full.double())):
        d = tcgemm.gemm(a, b, c, alpha=alpha, beta=beta, **kw)
        plan, problem = fake_gpu.calls[-1]
        assert plan.config is cfg and problem.d_transposed and (problem.m, problem.n) == (520, 300)
        assert fake_gpu.operands[-1][0].data_ptr() == b.data_ptr()  # the kernel's A: the weight
        assert d.shape == (300, 520) and d.is_contiguous()
        torch.testing.assert_close(d.double(), want, rtol=2e-2, atol=2e-1)
    a3 = torch.randn(2, 300, 264, generator=gen).to(torch.bfloat16)
    d3 = tcgemm.gemm(a3, b, **kw)
    torch.testing.assert_close(d3.double(), a3.double() @ b.double(), rtol=2e-2, atol=2e-1)
    assert tcgemm.explain(a, b, **kw).config == cfg.name


def test_contiguous_grouped_gemm_emulated(fake_gpu):
    """grouped_gemm(a (T, K), b, offsets=): each segment's rows, the rows past the last end untouched; the second
    call with the same signature reuses the first's plan (the same plan object)."""
    torch.manual_seed(21)
    a = torch.randn(30, 40).to(torch.bfloat16)
    w = torch.randn(4, 24, 40).to(torch.bfloat16)
    offs = torch.tensor([5, 5, 17, 26], dtype=torch.int32)
    out = torch.full((30, 24), float("nan"), dtype=torch.bfloat16)
    d = tcgemm.grouped_gemm(a, w.transpose(1, 2), offsets=offs, out=out)
    start = 0
    for z, end in enumerate(offs.tolist()):
        want = a[start:end].double() @ w[z].double().t()
        torch.testing.assert_close(d[start:end].double(), want, rtol=2e-2, atol=2e-2)
        start = end
    assert torch.isnan(d[26:].float()).all()
    tcgemm.grouped_gemm(a, w.transpose(1, 2), offsets=offs, out=out)
    assert fake_gpu.calls[-1][0] is fake_gpu.calls[-2][0]


def test_moe_block_emulated(fake_gpu):
    """tcgemm.moe.MoE from a router and per-expert Linear layers against the same block in plain torch (softmax,
    top-2, renormalised weights, SwiGLU experts), float64."""
    from tcgemm.moe import MoE

    torch.manual_seed(22)
    e, hidden, inter, k = 4, 64, 96, 2
    router = torch.nn.Linear(hidden, e, bias=False).to(torch.bfloat16)
    gates, ups, downs = ([torch.nn.Linear(i, o, bias=False).to(torch.bfloat16) for _ in range(e)]
                         for i, o in ((hidden, inter), (hidden, inter), (inter, hidden)))
    moe = MoE.from_linears(router, gates, ups, downs, top_k=k)
    x = torch.randn(3, 5, hidden).to(torch.bfloat16)
    with torch.no_grad():
        y = moe(x)
        flat = x.reshape(-1, hidden)
        probs = (flat @ router.weight.t()).float().softmax(-1)
        weight, expert = probs.topk(k, dim=-1)
        weight = weight / weight.sum(-1, keepdim=True)
        want = torch.zeros(flat.shape[0], hidden, dtype=torch.float64)
        for t in range(flat.shape[0]):
            for j in range(k):
                z, xs = expert[t, j].item(), flat[t:t + 1].double()
                h = torch.nn.functional.silu(xs @ gates[z].weight.double().t()) * (xs @ ups[z].weight.double().t())
                want[t] += weight[t, j].double() * (h @ downs[z].weight.double().t())[0]
    assert y.shape == x.shape
    torch.testing.assert_close(y.reshape(-1, hidden).double(), want, rtol=5e-2, atol=5e-2)
    assert "top_k=2" in repr(moe)


def test_c_matrix_build_only_where_a_whole_c_is_added(fake_gpu):
    """The code for a whole C (L2 hints, staging) is in the build only when the call adds a whole row-major C (a
    residual): no C or a bias row run the build without it (its mere presence cost GPT-2's small GEMMs ~0.2 us)."""
    a, b = torch.randn(512, 256).bfloat16(), torch.randn(256, 384).bfloat16()
    bias, residual = torch.randn(384).bfloat16(), torch.randn(512, 384).bfloat16()
    cases = [(None, 0.0, False), (bias, 1.0, False), (residual, 1.0, True), (residual.t().contiguous().t(), 1.0, False)]
    for c, beta, whole in cases:
        d = tcgemm.gemm(a, b, c=c, beta=beta, kernel="wgmma_tma_store")
        plan = fake_gpu.calls[-1][0]
        assert (dict(plan.defines).get("C_MATRIX") == "1") == whole, (c is None, beta)
        want = a.double() @ b.double() + (beta * c.double() if c is not None else 0)
        torch.testing.assert_close(d.double(), want, rtol=2e-2, atol=5e-2)
    d = tcgemm.gemm(a, b, c=residual.float(), beta=1.0, out_dtype=torch.float32, kernel="wgmma_tma_store")
    assert dict(fake_gpu.calls[-1][0].defines).get("C_MATRIX") == "1"
