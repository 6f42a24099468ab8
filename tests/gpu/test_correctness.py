"""Every kernel against a float64 reference on the GPU, with poisoned outputs.

Shapes cover the edges the kernels must handle: sizes of 1, primes, one
less and one more than a tile, tall/skinny, K from 1 to 14336; all four
operand layouts; alpha/beta with a broadcast C; batches; padded leading
dimensions; a column-major output (the D^T = B^T A^T path).
"""

from __future__ import annotations

import warnings

import pytest
import torch

import tcgemm
from tcgemm import registry
from tcgemm.check import check
from tcgemm.dispatch import KernelUnavailable

pytestmark = pytest.mark.gpu

# (kernel:config, precision) for every kernel, config and precision in the registry.
CASES = [
    pytest.param(f"{s.name}:{c.name}", p, id=f"{s.name}:{c.name}-{p}")
    for s in registry.all_specs()
    for c in s.configs
    for p in s.precisions
    if c.serves(p)
]
SHAPES = [(1, 1, 1), (7, 7, 7), (127, 127, 127), (1000, 1000, 1000), (16, 1000, 515), (1000, 16, 515),
          (33, 65, 1), (129, 257, 4097)]
LAYOUTS = ["rr", "rc", "cr", "cc"]


def _run(name: str, precision: str, **kw):
    kernel, _, config = name.partition(":")
    try:
        result = check(kernel=kernel, config=config or None, precision=precision, **kw)
    except KernelUnavailable as exc:
        spec = registry.get(kernel) if kernel != "auto" else None
        if spec is not None and spec.requires_aligned16 and "16-byte aligned" in str(exc):
            pytest.skip(f"{kernel} serves 16-byte aligned operands only (auto falls back); see test_aligned_edges")
        # A one-row/one-column operand reads as either layout; detection may pick one the kernel lacks.
        # Configs of their own layouts (tiles not a multiple of 64 wide: B K-major) are checked below.
        own = spec.config(config, precision).layouts if spec is not None and config else None
        if spec is not None and (len(spec.layouts) < 4 or own) and "serves layouts" in str(exc):
            pytest.skip(f"{name} reads layouts {', '.join(own or spec.layouts)} only (auto stages copies)")
        if own and ("writes D transposed" in str(exc) or "16-bit D only" in str(exc)):
            pytest.skip(f"{name} writes a 16-bit D only (checked in test_configs_of_their_own_layouts)")
        raise
    assert result.unwritten == 0, result
    assert result.passed, result
    return result


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name,precision", CASES)
def test_shapes_and_layouts(name, precision, shape, layouts):
    m, n, k = shape
    _run(name, precision, m=m, n=n, k=k, layouts=layouts)


# Kernels that need 16-byte aligned operands (TMA): shapes whose leading dimensions are multiples
# of 8 elements in the given layouts while the other extents are odd, so every edge still shows
# (rr: K, N; rc: K; cr: M, N; cc: M, K must be multiples of 8). The "rc" shapes with K a multiple
# of 16 are aligned for int8 too (the K-major-only kernel for tf32/int8 serves rc alone); K = 16 and
# 144 leave a partial k-tile of 128 int8 / 32 tf32.
ALIGNED_CASES = [c for c in CASES if registry.get(c.values[0].partition(":")[0]).requires_aligned16]
ALIGNED_SHAPES = [
    ("rc", (1, 1, 8)), ("rc", (7, 7, 8)), ("rc", (127, 127, 128)), ("rc", (129, 257, 4104)),
    ("rc", (16, 1000, 520)), ("rc", (1000, 16, 520)), ("rc", (1000, 1000, 1000)),
    ("rr", (127, 8, 8)), ("rr", (7, 1000, 512)), ("rr", (333, 136, 72)),
    ("cr", (8, 8, 1)), ("cr", (128, 136, 77)), ("cr", (1000, 1000, 4095)), ("cr", (24, 520, 3)),
    ("cc", (8, 7, 8)), ("cc", (136, 1001, 520)), ("cc", (64, 33, 4104)),
    ("rc", (1, 1, 16)), ("rc", (7, 9, 32)), ("rc", (257, 129, 144)), ("rc", (129, 257, 4112)),
    ("rc", (16, 1000, 528)), ("rc", (1000, 16, 528)), ("rc", (1000, 1000, 1008)), ("rc", (333, 136, 80)),
]


@pytest.mark.parametrize("layouts,shape", ALIGNED_SHAPES, ids=lambda v: v if isinstance(v, str) else
                         "x".join(map(str, v)))
@pytest.mark.parametrize("name,precision", ALIGNED_CASES)
def test_aligned_edges(name, precision, layouts, shape):
    m, n, k = shape
    _run(name, precision, m=m, n=n, k=k, layouts=layouts)


@pytest.mark.parametrize("name,precision", ALIGNED_CASES)
def test_aligned_alpha_beta_batch(name, precision):
    alpha, beta = (2, -3) if precision == "int8" else (0.5, -1.5)  # int8 scales exactly: integers
    _run(name, precision, m=136, n=72, k=200, alpha=alpha, beta=beta, layouts="cr")
    _run(name, precision, m=136, n=72, k=208, alpha=alpha, beta=beta, layouts="rc")
    _run(name, precision, m=100, n=40, k=96, batch=3, layouts="rc")
    _run(name, precision, m=96, n=40, k=96, batch=2, pad=8, layouts="cc", out_layout="col")
    _run(name, precision, m=96, n=40, k=96, batch=2, pad=16, layouts="rc", out_layout="col")
    _run(name, precision, m=4095, n=4096, k=4096, layouts="rr")
    _run(name, precision, m=4095, n=4095, k=4096, layouts="rc")


def test_aligned_kernels_refuse_unaligned():
    a = torch.randn(33, 7, device="cuda", dtype=torch.float16)
    for spec in registry.all_specs():
        if spec.requires_aligned16 and "fp16" in spec.precisions:
            # B in a layout the kernel reads (row-major, or W.t() for the rc-only ones), rows of 7 halves
            b = (torch.randn(7, 9, device="cuda", dtype=torch.float16) if "rr" in spec.layouts
                 else torch.randn(9, 7, device="cuda", dtype=torch.float16).t())
            with pytest.raises(KernelUnavailable, match="16-byte aligned"):
                tcgemm.gemm(a, b, kernel=spec.name)


TAIL_CASES = [
    pytest.param(s, c, p, id=f"{s.name}:{c.name}-{p}")
    for s in registry.all_specs()
    for c in s.configs
    if c.get("TAIL_SPLIT")
    for p in s.precisions
    if c.serves(p)
]


@pytest.mark.parametrize("spec,cfg,precision", TAIL_CASES)
def test_tail_split(spec, cfg, precision):
    """Shapes whose last wave the tail split cuts along k (kernels/include/tail_split.cuh; 66 clusters of
    2 on a 132-SM H100): 72 units (6 in the last wave, one part per helper), 104 (38, two parts per
    helper), 80 over a batch of 10 (and with TAIL_PARTS = 4, 116 and 112: four and three parts per helper);
    ragged M and tile edges (N and K a multiple of 16 elements short of whole tiles: these kernels take
    16-byte aligned rows only, and an unaligned first shape skipped the whole test until 2026-11-28), alpha/beta
    with C, and the same bits on a second call (the arrival counters left at zero for it). D_TRANSPOSED configs:
    the shapes are the kernel's (its M the call's N)."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    bm, bn, bk = 2 * cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]  # a cluster unit: two tile rows
    layouts = _served(cfg)[0] if cfg.layouts else spec.layouts[0] if len(spec.layouts) < 4 else "rr"
    name = f"{spec.name}:{cfg.name}"

    def run(rows: int, cols: int, k: int, **kw) -> None:  # the kernel's rows x cols
        m, n = (cols, rows) if cfg.get("D_TRANSPOSED") else (rows, cols)
        _run(name, precision, m=m, n=n, k=k, layouts=layouts, **kw)

    ragged = (9 * bm - 37, 8 * bn - 16, 16 * bk - 16)
    if cfg.get("D_TRANSPOSED"):
        ragged = (9 * bm - 48, 8 * bn - 5, 16 * bk - 16)  # (the kernel's rows are the call's columns)
    run(*ragged)
    run(8 * bm, 13 * bn, 22 * bk)
    run(2 * bm, 4 * bn, 12 * bk + 16, batch=10)
    if cfg.get("TAIL_PARTS", 2) >= 4:  # 116 units (50 in the last wave: 4 parts per helper), 112 (46: 3)
        run(4 * bm - 48, 29 * bn - 16, 40 * bk - 16)
        run(4 * bm, 28 * bn, 40 * bk, beta=1.0)
    if precision not in ("fp8e4m3", "fp8e5m2"):
        run(*ragged, alpha=0.5, beta=-1.5)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
             "fp8e4m3": torch.float8_e4m3fn, "fp8e5m2": torch.float8_e5m2}[precision]
    m, n = (ragged[1], ragged[0]) if cfg.get("D_TRANSPOSED") else ragged[:2]
    a = torch.randn(m, ragged[2], device="cuda").to(dtype)
    b = torch.randn(ragged[2], n, device="cuda").to(dtype)
    if layouts[0] == "c":
        a = a.t().contiguous().t()
    if layouts[1] == "c":
        b = b.t().contiguous().t()
    kw = dict(kernel=spec.name, config=cfg.name, precision=precision if precision == "tf32" else None)
    first = tcgemm.gemm(a, b, **kw)
    assert torch.equal(tcgemm.gemm(a, b, **kw), first)


_FLIP = {"r": "c", "c": "r"}


def _served(cfg) -> tuple[str, ...]:
    """The call's layouts a config of its own layouts serves (D_TRANSPOSED: its transposed problem reads B's
    and A's, flipped)."""
    if cfg.get("D_TRANSPOSED"):
        return tuple(lay for lay in LAYOUTS if cfg.serves_layouts(_FLIP[lay[1]] + _FLIP[lay[0]]))
    return cfg.layouts


NARROW_CASES = [
    pytest.param(f"{s.name}:{c.name}", p, _served(c), id=f"{s.name}:{c.name}-{p}")
    for s in registry.all_specs()
    for c in s.configs
    if c.layouts is not None
    for p in s.precisions
    if c.serves(p)
]


@pytest.mark.parametrize("name,precision,layouts", NARROW_CASES)
def test_configs_of_their_own_layouts(name, precision, layouts):
    """Configs built for some layouts only (tiles 48, 96 or 144 wide, D through boxes of 32-byte rows): every
    layout they serve, ragged edges of several tiles, a bias row, alpha/beta with a full C, a batch, an fp32 D
    (twice the boxes), and a refusal naming the layouts for one they do not serve."""
    # (M, N and K multiples of 8: every row 16-byte aligned in every layout, as these TMA-only configs need, so
    # that nothing here is skipped; M and N off every tile width)
    for lay in layouts:
        _run(name, precision, m=3 * 64 + 40, n=5 * 48 + 8, k=304, layouts=lay)
        _run(name, precision, m=1000, n=776, k=512, layouts=lay)
        _run(name, precision, m=264, n=520, k=200, beta=1.0, layouts=lay, c_shape="bias")
        _run(name, precision, m=136, n=296, k=136, alpha=0.5, beta=-1.5, batch=2, layouts=lay)
        kernel, _, config = name.partition(":")
        if not registry.get(kernel).config(config, precision).writes(4):  # (16-bit D only: refused)
            with pytest.raises(KernelUnavailable, match="16-bit"):
                tcgemm.gemm(torch.randn(64, 64, device="cuda", dtype=torch.bfloat16),
                            torch.randn(64, 64, device="cuda", dtype=torch.bfloat16).t(), kernel=kernel,
                            config=config, out_dtype=torch.float32)
        else:
            _run(name, precision, m=304, n=200, k=64, layouts=lay, out_dtype=torch.float32)
    other = next(lay for lay in LAYOUTS if lay not in layouts)
    kernel, _, config = name.partition(":")
    dtype = torch.float32 if precision in ("fp32", "tf32") else torch.bfloat16
    a = torch.randn(64, 64, device="cuda", dtype=dtype)
    b = torch.randn(64, 64, device="cuda", dtype=dtype)
    b = b if other[1] == "r" else b.t().contiguous().t()
    a = a if other[0] == "r" else a.t().contiguous().t()
    with pytest.raises(KernelUnavailable, match="serves layouts"):
        tcgemm.gemm(a, b, kernel=kernel, config=config, precision="tf32" if precision == "tf32" else None)


@pytest.mark.parametrize("name,precision", CASES)
def test_large_odd(name, precision):
    _run(name, precision, m=4095, n=4095, k=4095, layouts="rr")


@pytest.mark.parametrize("name,precision", CASES)
def test_long_k(name, precision):
    _run(name, precision, m=64, n=96, k=14336, layouts="rc")


@pytest.mark.parametrize("name,precision", CASES)
@pytest.mark.parametrize("alpha,beta", [(2.0, 0.0), (0.5, -1.5), (1.0, 1.0)])
def test_alpha_beta(name, precision, alpha, beta):
    if precision == "int8":  # int8 scales exactly in int32: integer alpha/beta only
        alpha, beta = round(alpha * 2), round(beta * 2)
    _run(name, precision, m=130, n=70, k=200, alpha=alpha, beta=beta, layouts="cr")


@pytest.mark.parametrize("name,precision", CASES)
def test_batch_padded_and_column_major_out(name, precision):
    _run(name, precision, m=100, n=36, k=77, batch=3, pad=5, layouts="rc")
    _run(name, precision, m=100, n=36, k=76, batch=2, pad=4, layouts="rr", out_layout="col")


def test_broadcast_batch_and_bias():
    a = torch.randn(4, 50, 30, device="cuda")
    b = torch.randn(30, 20, device="cuda")
    bias = torch.randn(20, device="cuda")
    d = tcgemm.gemm(a, b, bias, beta=1.0)
    ref = a.double() @ b.double() + bias.double()
    assert torch.allclose(d.double(), ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("c_shape", ["bias", "bias-offset"])
@pytest.mark.parametrize("name,precision", CASES)
def test_bias_row(name, precision, c_shape):
    """C a bias row (N,) broadcast over rows and batches, as tcgemm.nn.Linear passes it: the TMA-store
    epilogue loads it in aligned pairs before the tile's stores (odd N: the last column alone), in the
    EPI_OVERLAP configs beside the next tile's first wgmmas; one element into its storage it is not
    pair-aligned and takes the general path."""
    beta = 2 if precision == "int8" else 1.0
    _run(name, precision, m=257, n=517, k=200, beta=beta, layouts="rc", c_shape=c_shape)
    _run(name, precision, m=130, n=516, k=136, batch=2, beta=beta, layouts="rr", c_shape=c_shape)


def test_zero_sizes():
    a = torch.randn(5, 0, device="cuda")
    b = torch.randn(0, 3, device="cuda")
    c = torch.randn(5, 3, device="cuda")
    assert torch.equal(tcgemm.gemm(a, b), torch.zeros(5, 3, device="cuda"))
    assert torch.allclose(tcgemm.gemm(a, b, c, beta=2.0), 2 * c)
    assert tcgemm.gemm(torch.randn(0, 4, device="cuda"), torch.randn(4, 3, device="cuda")).shape == (0, 3)


def test_no_copy_for_transposed_views():
    """a.t() and slices are read in place: no StrideCopyWarning."""
    base = torch.randn(64, 80, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tcgemm.gemm(base.t(), base[:, :40])


def test_uncommon_strides_are_copied_visibly():
    a = torch.randn(32, 64, device="cuda")[:, ::2]  # stride 2 along the row
    with pytest.warns(tcgemm.StrideCopyWarning):
        d = tcgemm.gemm(a, torch.randn(32, 8, device="cuda"))
    assert d.shape == (32, 8)


def test_second_call_does_not_compile(monkeypatch):
    from tcgemm import jit

    a, b = torch.randn(256, 256, device="cuda"), torch.randn(256, 256, device="cuda")
    tcgemm.gemm(a, b)
    monkeypatch.setattr(jit, "compile_source", lambda *a, **k: pytest.fail("compiled on the second call"))
    monkeypatch.setattr(jit, "cubin", lambda *a, **k: pytest.fail("read the disk cache on the second call"))
    tcgemm.gemm(a, b)


@pytest.mark.parametrize("name,precision", [c for c in CASES if c.values[1] in ("fp16", "bf16")])
def test_16bit_inputs_to_fp32_output(name, precision):
    for layouts in LAYOUTS:  # K and N multiples of 8 keep rr aligned for TMA kernels; others skip there
        _run(name, precision, m=96, n=136, k=304, layouts=layouts, out_dtype=torch.float32, alpha=1.5, beta=0.5)
        _run(name, precision, m=97, n=130, k=300, layouts=layouts, out_dtype=torch.float32, alpha=1.5, beta=0.5)


def test_int8_is_bit_exact_and_alpha_beta_integral():
    if "int8" not in tcgemm.problem.available_precisions():
        pytest.skip("no int8 kernel registered")
    a = torch.randint(-128, 128, (300, 1000), dtype=torch.int8, device="cuda")
    b = torch.randint(-128, 128, (1000, 200), dtype=torch.int8, device="cuda")
    c = torch.randint(-1000, 1000, (300, 200), dtype=torch.int32, device="cuda")
    d = tcgemm.gemm(a, b, c, alpha=3, beta=-2)
    exact = 3 * (a.double() @ b.double()) - 2 * c.double()  # integers < 2**53: exact in float64
    assert torch.equal(d, exact.int())
    with pytest.raises(ValueError, match="integer"):
        tcgemm.gemm(a, b, alpha=0.5)


def test_cli_run_end_to_end(tmp_path):
    import numpy as np

    from tcgemm import cli

    a = np.random.default_rng(0).standard_normal((70, 40)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((40, 30)).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    torch.save(torch.from_numpy(b), tmp_path / "b.pt")
    assert cli.main(["run", str(tmp_path / "a.npy"), str(tmp_path / "b.pt"), "-o", str(tmp_path / "d.npy"),
                     "--alpha", "2"]) == 0
    d = np.load(tmp_path / "d.npy")
    np.testing.assert_allclose(d, 2 * a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_auto_stages_unaligned_16bit_inputs(dtype):
    """4095^3: rows are not 16-byte aligned; auto pads them into aligned buffers (Hopper)."""
    a = torch.randn(4095, 4095, device="cuda").to(dtype)
    b = torch.randn(4095, 4095, device="cuda").to(dtype)
    d = tcgemm.gemm(a, b)
    ref = a.double() @ b.double()
    err = (torch.linalg.vector_norm(d.double() - ref) / torch.linalg.vector_norm(ref)).item()
    assert err < 1e-2


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("precision", ["int8", "tf32", "fp8e4m3", "fp8e5m2"])
def test_auto_stages_k_major_int8_tf32(precision, layouts, monkeypatch):
    """wgmma reads int8/tf32/fp8 K-major only: on Hopper, auto copies MN-major (and unaligned) operands into
    K-major aligned buffers and runs the K-major Hopper kernel; the result must be right whatever the layouts."""
    from tcgemm import launch, staging

    chosen = []
    real_plan = launch.plan

    def spy(problem, spec, cfg, *args):
        chosen.append((spec.name, problem.layouts))
        return real_plan(problem, spec, cfg, *args)

    monkeypatch.setattr(launch, "plan", spy)
    _run("auto", precision, m=1000, n=1030, k=1001, layouts=layouts)  # K odd: rows unaligned as well
    on_hopper = torch.cuda.get_device_capability() == (9, 0)
    want = (staging.hopper_spec(precision, 90).name, "rc")
    if on_hopper:
        assert chosen[-1] == want, chosen
    _run("auto", precision, m=600, n=520, k=784, batch=2, layouts=layouts, out_layout="col")
    if on_hopper:
        assert chosen[-1] == want, chosen


def _fp8_available(precision: str) -> bool:
    return precision in tcgemm.problem.available_precisions() and torch.cuda.get_device_capability() >= (9, 0)


@pytest.mark.parametrize("precision", ["fp8e4m3", "fp8e5m2"])
def test_fp8_scales_and_output_dtypes(precision):
    """D = alpha (A scale_a)(B scale_b) + beta C: number scales folded into alpha, tensor scales read by
    the kernel; bf16 (default), fp16 and fp32 outputs; a partial last k-tile (K = 304)."""
    if not _fp8_available(precision):
        pytest.skip("fp8 needs the Hopper kernel")
    for out_dtype in (torch.bfloat16, torch.float16, torch.float32):
        for tensors in (False, True):
            _run("auto", precision, m=200, n=136, k=304, layouts="rc", out_dtype=out_dtype,
                 scales=(0.5, 3.0), scale_tensors=tensors, alpha=1.5, beta=0.5)
    _run("auto", precision, m=96, n=40, k=1008, batch=3, layouts="cr", out_layout="col",
         scales=(0.25, 2.0), scale_tensors=True)


def test_fp8_matches_torch_scaled_mm():
    if not _fp8_available("fp8e4m3"):
        pytest.skip("fp8 needs the Hopper kernel")
    a = torch.randn(256, 512, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(384, 512, device="cuda").to(torch.float8_e4m3fn).t()  # K x N, column-major
    sa = torch.tensor(0.5, device="cuda")
    sb = torch.tensor(2.5, device="cuda")
    ref = torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    d = tcgemm.gemm(a, b, scale_a=sa, scale_b=sb)
    assert d.dtype == torch.bfloat16 and d.shape == (256, 384)
    err = (torch.linalg.vector_norm(d.double() - ref.double()) / torch.linalg.vector_norm(ref.double())).item()
    assert err < 1e-2, err


def test_tma_only_config_writes_a_misaligned_out():
    """fp8's 128 x 192 config has no register-path epilogue (D_FROM_REGISTERS=0): an out= whose data
    pointer is not 16-byte aligned is written through an aligned buffer, on the first call and on the
    prepared repeat path, with c = out (beta) read before it is overwritten; the elements around it stay."""
    if not _fp8_available("fp8e4m3"):
        pytest.skip("fp8 needs the Hopper kernel")
    m, n, k = 256, 384, 512
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    ref = a.double() @ b.double()
    for call in range(2):
        buf = torch.full((m * n + 2,), 7.0, device="cuda", dtype=torch.bfloat16)
        out = buf[1:1 + m * n].view(m, n)
        assert out.data_ptr() % 16 != 0
        c0 = torch.randn(m, n, device="cuda").to(torch.bfloat16)
        out.copy_(c0)
        d = tcgemm.gemm(a, b, c=out, beta=0.5, out=out, scale_a=one, scale_b=one,
                        kernel="wgmma_tma_store_kmajor", config="128x192x128")
        assert d.data_ptr() == out.data_ptr(), call
        want = ref + 0.5 * c0.double()
        err = (torch.linalg.vector_norm(out.double() - want) / torch.linalg.vector_norm(want)).item()
        assert err < 1e-2, (call, err)
        assert buf[0].item() == 7.0 and buf[-1].item() == 7.0, call


# The repeat-call path (tcgemm.fastpath): the second call of a signature skips validation and
# planning; it must compute the same as the first on new tensors, for every kernel.
@pytest.mark.parametrize("name,precision", [c for c in CASES if c.values[1] not in ("fp8e4m3", "fp8e5m2")])
def test_repeat_calls_take_the_prepared_path(name, precision):
    from tcgemm import fastpath

    fastpath.clear()
    layouts = "rc" if len(registry.get(name.partition(":")[0]).layouts) < 4 else "rr"
    for seed in range(3):  # first call: full path, then two repeat calls on fresh inputs
        _run(name, precision, m=136, n=264, k=520, layouts=layouts, seed=seed)
    assert fastpath._entries, "no prepared launch was stored"


def test_repeat_path_checks_what_depends_on_addresses():
    """Overlap of out with an input is checked on every call; c=out (in place) keeps working."""
    a = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    b = torch.randn(32, 48, device="cuda", dtype=torch.float16)
    buf = torch.empty(64 * 48 + 64 * 32, device="cuda", dtype=torch.float16)
    out = buf[: 64 * 48].view(64, 48)
    tcgemm.gemm(a, b, out=out)
    tcgemm.gemm(a, b, out=out)  # prepared path
    a_in_buf = buf[64 * 40: 64 * 40 + 64 * 32].view(64, 32)  # same signature, overlapping out
    a_in_buf.copy_(a)
    with pytest.raises(ValueError, match="overlaps a"):
        tcgemm.gemm(a_in_buf, b, out=out)
    c = torch.randn(64, 48, device="cuda", dtype=torch.float16)
    expect = (a.double() @ b.double()) * 0.5 + c.double()
    for _ in range(2):
        d = c.clone()
        tcgemm.gemm(a, b, d, alpha=0.5, beta=1.0, out=d)
        assert torch.allclose(d.double(), expect, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("layouts", ["rr", "cr"])
def test_repeat_calls_of_staged_operands(layouts):
    """auto stages unaligned bf16 operands into aligned copies; repeat calls redo the copies on new data."""
    from tcgemm import fastpath

    fastpath.clear()
    for seed in range(3):
        _run("auto", "bf16", m=999, n=1001, k=997, layouts=layouts, seed=seed)


@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("layout", ["r", "c"])
@pytest.mark.parametrize("shape,view", [((1000, 999), None), ((3, 37, 4095), None), ((999, 1001), "t"),
                                        ((2, 65, 33), "t"), ((1, 1), None), ((4, 7, 9), "slice")])
def test_staging_copy_kernel(dtype, layout, shape, view):
    """The tiled copy behind staging (kernels/util/stage_copy.cu): padded and transposing copies of 1-, 2- and
    4-byte operands, batched, from transposed or sliced views, equal the source bit for bit; rows aligned."""
    from tcgemm import staging

    t = torch.randint(-100, 100, shape, device="cuda").to(dtype)
    if view == "t":
        t = t.transpose(-1, -2)
    elif view == "slice":
        t = t[..., 1:, 2:]
    out = staging.aligned_copy(t, layout)
    assert torch.equal(out, t)
    if min(t.shape[-2:]) > 1:  # (a 1 x 1 matrix has no layout of its own)
        assert staging.fits(out, layout)


@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16, torch.float32], ids=str)
@pytest.mark.parametrize("cols", [1, 3, 5, 8, 1001, 4095])
@pytest.mark.parametrize("src_off,dst_off", [(0, 0), (1, 0), (2, 1), (3, 3), (0, 2), (5, 7)])
def test_staging_row_copy_any_alignment(dtype, cols, src_off, dst_off):
    """stage_rows (the non-transposing copy: padded operands, and padded D back into the caller's tensor)
    copies rows that start at any element offset into rows that start at any other, bit for bit, and
    writes nothing outside the destination rows."""
    from tcgemm import staging

    rows, ld_src = 37, cols + 3
    pool = torch.randint(-100, 100, (rows * ld_src + src_off,), device="cuda").to(dtype)
    src = pool[src_off:].view(rows, ld_src)[:, :cols]
    dst_pool = torch.full((rows * cols + dst_off + 9,), 7, device="cuda").to(dtype)
    dst = dst_pool[dst_off:dst_off + rows * cols].view(rows, cols)
    assert staging._device_copy(dst, src, "r")
    assert torch.equal(dst, src)
    assert (dst_pool[:dst_off] == 7).all() and (dst_pool[dst_off + rows * cols:] == 7).all()


@pytest.mark.parametrize("kernel", ["wgmma_tma_store:128x256x64s4b2", "wgmma_tma_store:64x64x64c2s13",
                                    "wgmma_tma_store:128x64x64", "wgmma_tma_store:128x256x64s4b2og"])
def test_back_to_back_launches_see_each_other(kernel):
    """Programmatic dependent launch (kernels/include/pdl.cuh): a GEMM queued right behind another may start
    early, but must read its input only once the one before has written it (read after write: a chain
    where each product feeds the next) and must not overwrite what the one before still reads (write
    after read: the next GEMM's output is the previous one's input). Integers keep every sum exact."""
    name, _, config = kernel.partition(":")
    torch.manual_seed(0)
    m, n = 128, 512
    x = torch.randint(-2, 3, (m, n), device="cuda").to(torch.bfloat16)
    w = [torch.randint(-1, 2, (n, n), device="cuda").to(torch.bfloat16) for _ in range(2)]
    ys = [x]
    for i in range(6):  # queued back to back; alpha keeps the values' size about constant along the chain
        ys.append(tcgemm.gemm(ys[-1], w[i % 2], kernel=name, config=config, alpha=1 / 16))
    for i in range(6):
        ref = (ys[i].double() @ w[i % 2].double()) / 16
        assert torch.allclose(ys[i + 1].double(), ref, rtol=1e-2, atol=1e-2), f"step {i} read a stale input"
    # Write after read: the second GEMM writes into the buffer the first one reads.
    a = torch.randint(-2, 3, (m, n), device="cuda").to(torch.bfloat16)
    a_copy = a.clone()
    d = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        tcgemm.gemm(a, w[0], kernel=name, config=config, out=d)
        tcgemm.gemm(w[1][:m], w[1], kernel=name, config=config, out=a)
        assert torch.allclose(d.double(), a_copy.double() @ w[0].double(), rtol=1e-2, atol=1e-2), \
            "the first GEMM read its input after the next one overwrote it"
        assert torch.allclose(a.double(), w[1][:m].double() @ w[1].double(), rtol=1e-2, atol=1e-2)
        a.copy_(a_copy)


GPC_CASES = [
    pytest.param(s, c, id=f"{s.name}:{c.name}")
    for s in registry.all_specs()
    for c in s.configs
    if c.get("GPC_ORDER")
]


@pytest.mark.parametrize("table", ["measured", "one-short-list", "none"])
@pytest.mark.parametrize("spec,cfg", GPC_CASES)
def test_gpc_order_hands_out_every_position_once(spec, cfg, table, monkeypatch):
    """GPC_ORDER (kernels/include/gpc_order.cuh): clusters count themselves into their GPC's list of wave
    positions; any table must give exact results. The measured one; one where every SM is in GPC 0,
    whose list has 3 positions (the other clusters count on through the other lists); none known. Five
    launches in a row (the counts cleared for each), a shape of several waves with ragged edges and a
    partial last wave, poisoned outputs, the same bits."""
    from tcgemm import launch, placement

    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    if table == "one-short-list":  # every SM in GPC 0, whose list has 3 positions: the rest count on
        measured = placement.table

        def short(gpcs, positions, rows):
            values = measured([], positions, rows)
            values[placement.GPC_OF_SM:placement.GPC_SLOTS] = 0
            values[placement.GPC_SLOTS + 3:placement.GPC_SLOTS + placement.GPC_MAX_SLOTS] = -1
            rest = [p for p in range(positions) if p >= 3]
            values[placement.GPC_SLOTS + placement.GPC_MAX_SLOTS:] = -1
            lists = values[placement.GPC_SLOTS:].reshape(placement.GPC_MAX, placement.GPC_MAX_SLOTS)
            for i, p in enumerate(rest):  # spread over the last lists, backwards
                lists[placement.GPC_MAX - 1 - i // placement.GPC_MAX_SLOTS, i % placement.GPC_MAX_SLOTS] = p
            return values
        monkeypatch.setattr(placement, "table", short)
    elif table == "none":
        monkeypatch.setattr(placement, "gpcs", lambda device: ())
    launch._gpc_scratch.clear()  # a new buffer, its table made the way this case says
    try:
        torch.manual_seed(1)
        m, n, k = 20 * cfg["BLOCK_M"] - 19, 21 * cfg["BLOCK_N"] - 8, 9 * cfg["BLOCK_K"] + 8  # (rows 16-byte aligned)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        ref = a.double() @ b.double()
        first = None
        for _ in range(5):
            d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            tcgemm.gemm(a, b, kernel=spec.name, config=cfg.name, out=d)
            assert torch.isfinite(d).all(), "a tile was never written"
            assert torch.allclose(d.double(), ref, rtol=2e-2, atol=5e-2 * k ** 0.5 / 8)
            if first is None:
                first = d
            assert torch.equal(d, first)
        # Split-K and the tail split on the same stream after it: their arrival counters start at zero
        # (GPC_ORDER's tables once sat in their buffer, and split-K left tiles unwritten).
        _run("wgmma_tma_store:128x128x64k4", "bf16", m=1000, n=1000, k=1000)
        _run("wgmma_tma_store:128x256x64s4b2ot", "bf16", m=9 * 256 - 40, n=8 * 256 - 8, k=16 * 64 - 16)
    finally:
        launch._gpc_scratch.clear()  # the next test gets the measured table


def test_placement_probe_finds_every_sm_once():
    from tcgemm import placement

    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("cluster launches")
    gpcs = placement.gpcs(torch.cuda.current_device())
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert sorted(s for g in gpcs for s in g) == list(range(sms))
    assert all(len(g) <= 18 for g in gpcs), gpcs  # a GPC has at most 9 TPCs on GH100


def _in_layout(t: torch.Tensor, layout: str) -> torch.Tensor:
    return t.t().contiguous().t() if layout == "c" else t


@pytest.mark.parametrize("layouts", LAYOUTS)
@pytest.mark.parametrize("m,n,k", [(1500, 1004, 2044), (1777, 1532, 1024), (2048, 2048, 2048), (2047, 2045, 2046),
                                   (3001, 1027, 2047)])
def test_fp32_as_3xtf32(m, n, k, layouts):
    """fp32 products large enough run as 3xTF32 (tcgemm.emulation): against a float64 reference no worse than
    cuBLAS's fp32 (CUDA cores, TF32 off) on the same inputs, poisoned output written, C and beta applied, inf
    and NaN where fp32 puts them, the same bits on every call and inside a CUDA graph."""
    from tcgemm import emulation

    assert emulation.use_3xtf32(m, n, k, 90)
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = _in_layout(torch.randn(m, k, device="cuda", generator=gen), layouts[0])
    b = _in_layout(torch.randn(k, n, device="cuda", generator=gen), layouts[1])
    assert "3xTF32" in tcgemm.explain(a, b).reason
    _check_fp32_product(a, b, gen, [("a", (3, 5), float("inf")), ("b", (7, 11), float("nan"))])


def _check_fp32_product(a, b, gen, specials, other_stream=False):
    """An fp32 product's checks: against a float64 reference no worse than cuBLAS's fp32 (TF32 off) on the same
    inputs, a poisoned output written, the same bits on repeat calls (and on another stream), alpha, beta, C and a
    bias applied, inf and NaN where fp32 puts them (``specials``: (operand, index, value)), a CUDA graph's replay."""
    m, n = a.shape[0], b.shape[1]
    ref = a.double() @ b.double()
    out = torch.full((m, n), float("nan"), device="cuda")
    d = tcgemm.gemm(a, b, out=out)
    assert d is out
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        cublas = a @ b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    err = ((d.double() - ref).norm() / ref.norm()).item()
    cublas_err = ((cublas.double() - ref).norm() / ref.norm()).item()
    assert err <= 1.5 * cublas_err + 1e-8 and err < 1e-5, (err, cublas_err)
    assert torch.equal(tcgemm.gemm(a, b), d)
    assert torch.equal(tcgemm.gemm(a, b), d)  # (the repeat path)
    if other_stream:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            other = tcgemm.gemm(a, b)
        torch.cuda.current_stream().wait_stream(side)
        assert torch.equal(other, d)
    c = torch.randn(m, n, device="cuda", generator=gen)
    want = 0.5 * ref + 2.0 * c.double()
    got = tcgemm.gemm(a, b, c, alpha=0.5, beta=2.0)
    assert ((got.double() - want).norm() / want.norm()).item() < 1e-5
    bias = torch.randn(n, device="cuda", generator=gen)
    got = tcgemm.gemm(a, b, bias, beta=1.0)
    assert ((got.double() - (ref + bias.double())).norm() / ref.norm()).item() < 1e-5
    a2, b2 = a.clone(), b.clone()
    for name, index, value in specials:
        (a2 if name == "a" else b2)[index] = value
    special = tcgemm.gemm(a2, b2)
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        expected = a2 @ b2
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    assert torch.equal(special.isnan(), expected.isnan()) and torch.equal(special.isinf(), expected.isinf())
    assert torch.equal(torch.sign(special[special.isinf()]), torch.sign(expected[expected.isinf()]))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = tcgemm.gemm(a, b)
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, d)


@pytest.mark.parametrize("layouts", ["rc", "rr"])
@pytest.mark.parametrize("m,n,k", [(1, 4096, 1024), (5, 1000, 2048), (16, 1000, 4100), (17, 1000, 2048),
                                   (32, 4096, 4096), (48, 1004, 1028), (64, 520, 8192), (100, 1000, 2044),
                                   (128, 4096, 4096), (77, 136, 14336)])
def test_fp32_decode_3xtf32(m, n, k, layouts):
    """fp32 at 1-128 rows runs as 3xTF32 on the decode kernel, both operands split on chip (swap_ab_stream_k_3xtf32):
    against a float64 reference no worse than cuBLAS's fp32 (CUDA cores, TF32 off) on the same inputs, poisoned
    output written, alpha, beta, C and a bias applied, inf and NaN where fp32 puts them, the same bits on every call,
    on another stream and inside a CUDA graph."""
    gen = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn(m, k, device="cuda", generator=gen)
    b = _in_layout(torch.randn(k, n, device="cuda", generator=gen), layouts[1])
    choice = tcgemm.explain(a, b)
    assert choice.kernel == "swap_ab_stream_k_3xtf32", choice
    _check_fp32_product(a, b, gen, [("a", (m // 2, 5), float("inf")), ("b", (7, 11), float("nan")),
                                    ("b", (9, n - 2), float("-inf"))], other_stream=True)


@pytest.mark.parametrize("m,n,k", [(1, 4096, 1024), (5, 1000, 2048), (16, 1000, 4100), (17, 1000, 2048),
                                   (48, 1004, 1028), (64, 520, 8192), (100, 1000, 2044), (128, 4096, 4096),
                                   (77, 136, 14336)])
def test_tf32_decode_row_major_weight(m, n, k):
    """tf32 with a row-major B (K x N) at 1-128 rows runs on the decode kernel with the weight's fragments loaded
    into registers (swap_ab_stream_k_tf32_mn): both operands rounded to tf32 (to nearest, as TMA's TFLOAT32 maps
    copy them) and their products summed in fp32, so against a float64 product of the rounded inputs within fp32's
    error (the tensor cores' adds truncate: 5e-5), and against the exact one within tf32's; poisoned output
    written, alpha, beta, C and a bias applied, the same bits on every call, on another stream and inside a CUDA
    graph."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the Hopper decode kernel")
    gen = torch.Generator(device="cuda").manual_seed(5)
    a = torch.randn(m, k, device="cuda", generator=gen)
    b = torch.randn(k, n, device="cuda", generator=gen)
    assert tcgemm.explain(a, b, precision="tf32").kernel == "swap_ab_stream_k_tf32_mn"
    ref = a.double() @ b.double()
    out = torch.full((m, n), float("nan"), device="cuda")
    d = tcgemm.gemm(a, b, out=out, precision="tf32")
    assert d is out

    def tf32(x):  # round to nearest, ties away: add half a tf32 ulp to the magnitude, clear the 13 low bits
        return ((x.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)

    rounded = tf32(a).double() @ tf32(b).double()
    assert ((d.double() - rounded).norm() / rounded.norm()).item() < 5e-5  # (the tensor cores truncate their adds)
    assert ((d.double() - ref).norm() / ref.norm()).item() < 1e-3
    assert torch.equal(tcgemm.gemm(a, b, precision="tf32"), d)
    assert torch.equal(tcgemm.gemm(a, b, precision="tf32"), d)  # (the repeat path)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        other = tcgemm.gemm(a, b, precision="tf32")
    torch.cuda.current_stream().wait_stream(side)
    assert torch.equal(other, d)
    c = torch.randn(m, n, device="cuda", generator=gen)
    want = 0.5 * ref + 2.0 * c.double()
    got = tcgemm.gemm(a, b, c, alpha=0.5, beta=2.0, precision="tf32")
    assert ((got.double() - want).norm() / want.norm()).item() < 1e-3
    bias = torch.randn(n, device="cuda", generator=gen)
    got = tcgemm.gemm(a, b, bias, beta=1.0, precision="tf32")
    assert ((got.double() - (ref + bias.double())).norm() / ref.norm()).item() < 1e-3
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = tcgemm.gemm(a, b, precision="tf32")
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, d)


@pytest.mark.parametrize("layouts", ["rr", "rc", "cr"])
@pytest.mark.parametrize("m,n,k", [(16, 4096, 4096), (3, 1000, 2048), (200, 520, 8192), (48, 4096, 4096),
                                   (64, 1000, 2048)])
def test_fp32_split_k_few_rows(m, n, k, layouts):
    """fp32 with few rows runs K in parts (where its CTAs would not fill the GPU) as one strided batched GEMM
    (tcgemm.api.fp32_k_splits), partial products summed in order: within fp32's error of a float64 reference,
    the same bits on every call, alpha applied, and the same inside a CUDA graph."""
    from tcgemm import api

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    splits = api.fp32_k_splits(m, n, k, sms, b_row_major=layouts[1] == "r")
    gen = torch.Generator(device="cuda").manual_seed(3)
    a = torch.randn(m, k, device="cuda", generator=gen)
    b = torch.randn(k, n, device="cuda", generator=gen)
    if layouts[0] == "c":
        a = a.t().contiguous().t()
    if layouts[1] == "c":
        b = b.t().contiguous().t()
    ref = a.double() @ b.double()
    d = tcgemm.gemm(a, b, alpha=0.5)
    err = ((d.double() - 0.5 * ref).norm() / (0.5 * ref).norm()).item()
    assert err < 1e-5, err
    assert torch.equal(tcgemm.gemm(a, b, alpha=0.5), d)
    out = torch.full_like(d, float("nan"))
    assert tcgemm.gemm(a, b, alpha=0.5, out=out) is out and torch.equal(out, d)
    assert tcgemm.gemm(a, b, alpha=0.5, out=out) is out and torch.equal(out, d)  # the repeat call's path
    if layouts[1] == "r" and m <= k:  # an out over B, with the signature of the prepared call's out
        with pytest.raises(ValueError, match="overlap"):
            tcgemm.gemm(a, b, alpha=0.5, out=b[:m])
    choice = tcgemm.explain(a, b)
    if choice.kernel == "swap_ab_stream_k_3xtf32":  # (up to 128 rows, A row-major: test_fp32_decode_3xtf32)
        assert m <= 128 and layouts[0] == "r"
    else:
        assert ("parts" in choice.reason) == (splits > 1)
    # With C: a bias row, a full matrix, and C updated in place (c = out), D = alpha A B + beta C.
    for c in (torch.randn(n, device="cuda", generator=gen), torch.randn(m, n, device="cuda", generator=gen)):
        want = 0.5 * ref + 1.5 * c.double()
        got = tcgemm.gemm(a, b, c, alpha=0.5, beta=1.5)
        assert ((got.double() - want).norm() / want.norm()).item() < 1e-5
        if c.dim() == 2:
            target = c.clone()
            assert tcgemm.gemm(a, b, target, alpha=0.5, beta=1.5, out=target) is target
            assert torch.equal(target, got)
    with pytest.raises(ValueError, match="beta"):
        tcgemm.gemm(a, b, beta=1.0)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = tcgemm.gemm(a, b, alpha=0.5)
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, d)
