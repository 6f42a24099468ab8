"""Hostile inputs and faults on the GPU: random problems of every kind against float64, NaN/Inf
propagation as in cuBLAS, operands of more than 2^31 elements, concurrent threads and streams,
bitwise reproducibility.

The property test records what it tried: with TCGEMM_HOSTILE_JSON set (tools/gpu_suite.sh sets
it) the counts of inputs tried and failures, per precision, are written there at the end, with the counts
of its repeat calls ("repeat": how many found a prepared launch, how many invalid calls were tried).
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections import Counter

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcgemm
from tcgemm import fastpath
from tcgemm.check import TOLERANCE, poisoned_like, reference, relative_error

pytestmark = pytest.mark.gpu

_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
           "int8": torch.int8, "fp8e4m3": torch.float8_e4m3fn}
_TRIED: Counter[str] = Counter()
_FAILED: Counter[str] = Counter()
_FAILURES: list[dict[str, object]] = []
_REPEAT: Counter[str] = Counter()  # repeat calls: "prepared" (took tcgemm.fastpath), "full", "invalid" (raised)


def _precisions() -> list[str]:
    names = ["fp32", "tf32", "fp16", "bf16", "int8"]
    if torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0):
        names.append("fp8e4m3")
    return names


@pytest.fixture(scope="module", autouse=True)
def _record_counts():
    yield
    path = os.environ.get("TCGEMM_HOSTILE_JSON")
    if path and _TRIED:
        from tcgemm.bench import environment

        data = {"environment": environment(), "tried": dict(_TRIED), "failed": dict(_FAILED),
                "failures": _FAILURES[:50], "total_tried": sum(_TRIED.values()),
                "total_failed": sum(_FAILED.values()), "repeat": dict(_REPEAT)}
        with open(path, "w") as f:
            json.dump(data, f, indent=1)


def _operand(rows: int, cols: int, layout: str, batch: int | None, dtype: torch.dtype, pad: int, offset: int,
             gen: torch.Generator) -> torch.Tensor:
    """A (batch, rows, cols) view at `offset` elements into a larger random buffer, row- or column-major
    with a leading dimension `pad` elements wider than needed."""
    lead = () if batch is None else (batch,)
    inner, outer = (cols, rows) if layout == "r" else (rows, cols)
    ld = inner + pad
    per = max(ld * outer, 1)
    total = offset + per * (batch or 1) + 1
    if dtype == torch.int8:
        buf = torch.randint(-128, 128, (total,), dtype=torch.int8, device="cuda", generator=gen)
    else:
        buf = torch.randn(total, device="cuda", generator=gen).to(dtype)
    strides = (ld, 1) if layout == "r" else (1, ld)
    if batch is not None:
        strides = (per, *strides)
    return torch.as_strided(buf, (*lead, rows, cols), strides, offset)


def _overlapping(x: torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype
                 ) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(a copy of x, an output of ``shape`` and ``dtype``) in one buffer, overlapping: the copy has x's
    signature (dtype, shape, strides, address mod 16), the output is contiguous and 16-byte aligned like
    poisoned_like's. None where they cannot overlap (an empty one, an output smaller than x's offset)."""
    out_bytes = math.prod(shape) * dtype.itemsize
    if x.numel() == 0 or out_bytes == 0:
        return None
    es = x.element_size()
    x0 = x.storage_offset() * es
    x1 = (x.storage_offset() + sum((n - 1) * st for n, st in zip(x.shape, x.stride(), strict=True)) + 1) * es
    o0 = x0 - x0 % 16
    if o0 + out_bytes <= x0:
        return None
    total = -(-max(o0 + out_bytes, x1) // 16) * 16
    pool = torch.zeros(total, dtype=torch.uint8, device="cuda")
    out = pool[o0:o0 + out_bytes].view(dtype).view(shape)
    copy = torch.as_strided(pool.view(x.dtype), x.shape, x.stride(), x.storage_offset())
    copy.copy_(x)
    return copy, out


_SIZES = st.one_of(st.sampled_from([0, 1, 2, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 257]),
                   st.integers(1, 600))


@settings(max_examples=int(os.environ.get("TCGEMM_HOSTILE_EXAMPLES", "300")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(precision=st.sampled_from(_precisions()), m=_SIZES, n=_SIZES, k=_SIZES,
       la=st.sampled_from("rc"), lb=st.sampled_from("rc"), pad_a=st.integers(0, 9), pad_b=st.integers(0, 9),
       off_a=st.integers(0, 17), off_b=st.integers(0, 17), batch=st.sampled_from([None, 1, 3]),
       broadcast_b=st.booleans(), alpha=st.sampled_from([1, -2, 3]), beta=st.sampled_from([0, 1, -1]),
       use_out=st.booleans(), overlap=st.sampled_from([None, None, "a", "b"]), seed=st.integers(0, 2**31 - 1))
def test_random_problems_match_float64(precision, m, n, k, la, lb, pad_a, pad_b, off_a, off_b, batch, broadcast_b,
                                       alpha, beta, use_out, overlap, seed):
    """A random problem against float64, then the same call again on new tensors of the same signature (same
    shapes, strides, dtypes and alignment; new data and addresses), which takes the prepared repeat path
    (tcgemm.fastpath) where the first call left one. With ``overlap`` (and an out=), an out that overlaps A
    (or B) is passed too, before the valid call (the full path) and after it (the prepared path): both raise."""
    dtype = _DTYPES[precision]
    out_dtype = {"int8": torch.int32, "fp8e4m3": torch.bfloat16}.get(precision, dtype)
    shape = (batch, m, n) if batch is not None else (m, n)

    def inputs(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        a = _operand(m, k, la, batch, dtype, pad_a, off_a, gen)
        b = _operand(k, n, lb, None if broadcast_b else batch, dtype, pad_b, off_b, gen)
        c = None
        if beta != 0:
            c = (torch.randint(-50, 50, shape, device="cuda", generator=gen).to(out_dtype) if precision == "int8"
                 else torch.randn(shape, device="cuda", generator=gen).to(out_dtype))
        return a, b, c

    def call(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None) -> torch.Tensor:
        return tcgemm.gemm(a, b, c, alpha=alpha, beta=beta, out=out, precision="tf32" if precision == "tf32" else None)

    def check(what: str, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor | None, out: torch.Tensor | None) -> None:
        d = call(a, b, c, out)
        torch.cuda.synchronize()
        if use_out:
            assert d is out
        assert d.shape == shape and d.dtype == out_dtype
        ref = reference(a, b, c, alpha, beta)
        err = relative_error(d, ref) if d.numel() else 0.0
        ok = err == 0.0 if precision == "int8" else err <= TOLERANCE[precision] * (1 if beta == 0 else 2)
        if not ok:
            _FAILED[precision] += 1
            _FAILURES.append(dict(precision=precision, m=m, n=n, k=k, layouts=la + lb, batch=batch, error=err,
                                  call=what))
        assert ok, f"{what} call: {precision} {m}x{n}x{k} {la}{lb} batch={batch}: error {err}"

    def invalid(seed: int) -> None:
        a, b, c = inputs(seed)
        bad = _overlapping(a if overlap == "a" else b, shape, out_dtype)
        if bad is None:
            return
        copy, out = bad
        args = (copy, b) if overlap == "a" else (a, copy)
        _REPEAT["invalid"] += 1
        with pytest.raises(ValueError, match="overlaps"):
            call(*args, c, out)

    if use_out and overlap:
        invalid(seed ^ 1)
    _TRIED[precision] += 1
    a, b, c = inputs(seed)
    check("first", a, b, c, poisoned_like(shape, out_dtype, "cuda") if use_out else None)
    # The repeat call: new tensors, same signature.
    a, b, c = inputs(seed + 1)
    out = poisoned_like(shape, out_dtype, "cuda") if use_out else None
    prepared = fastpath.lookup(fastpath.key(a, b, c, out, alpha, beta, None, "tf32" if precision == "tf32" else None,
                                            "auto", None))
    _REPEAT["prepared" if prepared is not None else "full"] += 1
    check("repeat", a, b, c, out)
    if use_out and overlap:
        invalid(seed ^ 2)


@pytest.mark.parametrize("precision", ["fp32", "tf32", "fp16", "bf16"])
def test_nan_and_inf_propagate_like_cublas(precision):
    """A NaN in row i of A makes row i of D NaN (and nothing else); an Inf in column j of B reaches
    column j of D; the masks equal cuBLAS's on the same inputs."""
    dtype = _DTYPES[precision]
    a = torch.randn(300, 200, device="cuda").to(dtype)
    b = torch.randn(200, 264, device="cuda").to(dtype)
    a[17, 5] = float("nan")
    b[3, 40] = float("inf")
    tf32 = precision == "tf32"
    d = tcgemm.gemm(a, b, precision="tf32" if tf32 else None)
    old = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        ref = torch.matmul(a, b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old
    assert torch.isnan(d[17]).all()
    assert torch.equal(torch.isnan(d), torch.isnan(ref))
    assert torch.equal(torch.isinf(d), torch.isinf(ref))
    assert torch.isfinite(d[:17, :40]).all()


def test_fp16_overflow_gives_inf_like_cublas():
    """Sums beyond the fp16 range are written as +-inf (fp32 accumulation, rounding on the way out)."""
    a = torch.full((256, 128), 16.0, device="cuda", dtype=torch.float16)
    a[128:] = 0.25  # these rows stay in range
    b = torch.full((128, 256), 64.0, device="cuda", dtype=torch.float16)
    b[:, 128:] *= -1
    d = tcgemm.gemm(a, b)
    ref = torch.matmul(a, b)
    assert torch.isinf(d[:128]).all() and torch.isfinite(d[128:]).all()
    assert torch.equal(torch.isinf(d), torch.isinf(ref)) and torch.equal(torch.signbit(d), torch.signbit(ref))


@pytest.mark.parametrize("precision,rows,cols", [("int8", 2**21 + 5, 1024), ("fp16", 2**20 + 3, 2048),
                                                 ("fp32", 2**19 + 3, 4096)])
def test_operands_beyond_2_31_elements(precision, rows, cols):
    """A with more than 2^31 elements: offsets are 64-bit all the way (sampled rows against float64)."""
    assert rows * cols > 2**31
    dtype = _DTYPES[precision]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    if dtype == torch.int8:
        a = torch.randint(-128, 128, (rows, cols), dtype=dtype, device="cuda", generator=gen)
        b = torch.randint(-128, 128, (cols, 16), dtype=dtype, device="cuda", generator=gen)
    else:
        a = torch.empty(rows, cols, dtype=dtype, device="cuda").normal_(generator=gen)
        b = torch.randn(cols, 16, device="cuda", generator=gen).to(dtype)
    d = tcgemm.gemm(a, b)
    pick = torch.tensor([0, 1, rows // 2, rows - 2, rows - 1] + [int(x) for x in torch.randint(0, rows, (11,))],
                        device="cuda")
    ref = a[pick].double() @ b.double()
    err = relative_error(d[pick], ref)
    assert err <= TOLERANCE[precision], err
    del a, d
    torch.cuda.empty_cache()


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16", "int8"])
def test_threads_and_streams_match_serial_calls(precision):
    """Eight threads on four streams, each repeating its own GEMMs, give bit for bit the serial results."""
    dtype = _DTYPES[precision]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    shapes = [(257, 129, 300), (64, 512, 96), (1000, 40, 77), (128, 256, 512)] * 2
    inputs = []
    for m, n, k in shapes:
        if dtype == torch.int8:
            inputs.append((torch.randint(-128, 128, (m, k), dtype=dtype, device="cuda", generator=gen),
                           torch.randint(-128, 128, (k, n), dtype=dtype, device="cuda", generator=gen)))
        else:
            inputs.append((torch.randn(m, k, device="cuda", generator=gen).to(dtype),
                           torch.randn(k, n, device="cuda", generator=gen).to(dtype)))
    serial = [tcgemm.gemm(a, b) for a, b in inputs]
    torch.cuda.synchronize()
    streams = [torch.cuda.Stream() for _ in range(4)]
    results: dict[int, list[torch.Tensor]] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            a, b = inputs[i]
            with torch.cuda.stream(streams[i % 4]):
                results[i] = [tcgemm.gemm(a, b) for _ in range(20)]
            streams[i % 4].synchronize()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, ref in enumerate(serial):
        for d in results[i]:
            assert torch.equal(d, ref), (precision, shapes[i])


@pytest.mark.parametrize("kernel,precision", [("auto", "fp32"), ("auto", "tf32"), ("auto", "fp16"),
                                              ("auto", "bf16"), ("auto", "int8"),
                                              ("wgmma_tma_store:128x128x64k4", "bf16"),
                                              ("mma_pipeline", "fp16")])
def test_results_are_bitwise_reproducible(kernel, precision):
    """The same inputs twice give the same bits (no atomics in any reduction, split-K included)."""
    name, _, config = kernel.partition(":")
    if name != "auto" and torch.cuda.get_device_capability() < (9, 0) and name.startswith("wgmma"):
        pytest.skip("Hopper kernel")
    dtype = _DTYPES[precision]
    if dtype == torch.int8:
        a = torch.randint(-128, 128, (512, 2048), dtype=dtype, device="cuda")
        b = torch.randint(-128, 128, (2048, 256), dtype=dtype, device="cuda")
    else:
        a = torch.randn(512, 2048, device="cuda").to(dtype)
        b = torch.randn(2048, 256, device="cuda").to(dtype)
    kw = dict(kernel=name, config=config or None, precision="tf32" if precision == "tf32" else None)
    first = tcgemm.gemm(a, b, **kw)
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b, **kw), first)
    assert math.isfinite(relative_error(first, reference(a, b, None, 1.0, 0.0)))


@pytest.mark.parametrize("kernel,precision", [("wgmma_tma_store:128x80x64k2", "bf16"),
                                              ("wgmma_tma_store:128x128x64b2k3", "bf16"),
                                              ("wgmma_tma_store:128x128x64k4", "bf16"),
                                              ("wgmma_tma_store:64x48x64k4", "bf16"),
                                              ("wgmma_tma_store_kmajor:128x64x32ek2", "tf32")])
def test_split_k_in_rc_is_bitwise_reproducible(kernel, precision):
    """The k-range configs (x @ W^T, B column-major): the same bits on every call, with the last k range shorter
    than the others (K = 8200 in two to four ranges of 64- or 32-wide k-tiles); each range owns one consumer's rows
    and sums the others' partials into them (split_k.cuh: split_k_owned), or with one consumer range 0 all."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    name, _, config = kernel.partition(":")
    dtype = _DTYPES[precision]
    a = torch.randn(300, 8200, device="cuda").to(dtype)
    b = torch.randn(1288, 8200, device="cuda").to(dtype).t()  # (K, N) column-major: the weight as stored
    kw = dict(kernel=name, config=config, precision="tf32" if precision == "tf32" else None)
    first = tcgemm.gemm(a, b, **kw)
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b, **kw), first)
    assert relative_error(first, reference(a, b, None, 1.0, 0.0)) < TOLERANCE[precision]


def test_auto_tail_split_on_transposed_tiles_is_exact_and_reproducible():
    """At 300 tokens auto cuts the last partial wave of 128 x 152 transposed tiles along k (128x152x64Tt): 96
    weight tiles x 2 token tiles on 132 SMs leave 60 in the last wave. The result matches float64, and the two
    parts of a tail tile meet in either order with the same bits: on repeats and on another stream beside other
    work."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    a = torch.randn(300, 3584, device="cuda").to(torch.bfloat16)
    b = torch.randn(12288, 3584, device="cuda").to(torch.bfloat16).t()  # (K, N): the weight as stored
    assert tcgemm.explain(a, b).config == "128x152x64Tt"
    first = tcgemm.gemm(a, b)
    assert relative_error(first, reference(a, b, None, 1.0, 0.0)) < TOLERANCE["bf16"]
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b), first)
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    with torch.cuda.stream(side):
        torch.mm(big, big)
        other = tcgemm.gemm(a, b)
    torch.cuda.synchronize()
    assert torch.equal(other, first)


@pytest.mark.parametrize("tokens", [283, 300, 320])
def test_auto_d_transposed_in_the_ring_is_exact_and_reproducible(tokens):
    """At 280-320 tokens and 6144 outputs auto runs 192 x 80 transposed tiles in pairs sharing the weight tile, their
    D^T staged in the last k-tile's ring slot (192x80x64Trn: the slot goes back only once its TMA stores have read
    it). Every element of a poisoned output is written and matches float64 with a bias added; repeats, another stream
    beside other work, and a CUDA graph's replay give the same bits."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    a = torch.randn(tokens, 4096, device="cuda").to(torch.bfloat16)
    b = torch.randn(6144, 4096, device="cuda").to(torch.bfloat16).t()  # (K, N): the weight as stored
    bias = torch.randn(6144, device="cuda").to(torch.bfloat16)
    assert tcgemm.explain(a, b).config == "192x80x64Trn"
    out = poisoned_like((tokens, 6144), torch.bfloat16, "cuda")
    first = tcgemm.gemm(a, b, bias, beta=1.0, out=out)
    assert not torch.isnan(first).any()
    assert relative_error(first, reference(a, b, bias, 1.0, 1.0)) < TOLERANCE["bf16"]
    for _ in range(3):
        assert torch.equal(tcgemm.gemm(a, b, bias, beta=1.0), first)
    side = torch.cuda.Stream()
    big = torch.randn(4096, 4096, device="cuda")
    with torch.cuda.stream(side):
        torch.mm(big, big)
        other = tcgemm.gemm(a, b, bias, beta=1.0)
    torch.cuda.synchronize()
    assert torch.equal(other, first)
    replayed = poisoned_like((tokens, 6144), torch.bfloat16, "cuda")
    tcgemm.gemm(a, b, bias, beta=1.0, out=replayed)  # (warm: the plan and the kernel exist before capture)
    replayed.fill_(float("nan"))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tcgemm.gemm(a, b, bias, beta=1.0, out=replayed)
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(replayed, first)


@pytest.mark.parametrize("config,precision", [("128x128x128", "fp8e4m3"), ("128x192x128", "fp8e4m3"),
                                              ("128x128x32p4", "tf32"), ("128x192x32p4", "tf32")])
def test_promoted_partial_rows_are_bitwise_reproducible(config, precision):
    """Configs that promote partial sums in consumer-staggered groups (PROMOTE_NEXT) compute the rows of the last,
    shifted row of tiles twice (there and in the row above): both must give the same bits, or D depends on which
    store lands last. M = 1000 and 300 leave partial row tiles."""
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("Hopper kernel")
    dtype = _DTYPES[precision]
    for m, n, k in ((1000, 2048, 1024), (300, 4096, 2048)):
        a = torch.randn(m, k, device="cuda").to(dtype)
        b = torch.randn(n, k, device="cuda").to(dtype).t()
        kw = dict(kernel="wgmma_tma_store_kmajor", config=config, precision="tf32" if precision == "tf32" else None)
        first = tcgemm.gemm(a, b, **kw)
        for _ in range(5):
            assert torch.equal(tcgemm.gemm(a, b, **kw), first), (m, n, k)


@pytest.mark.parametrize("reserved", [2, 9, 66])
def test_gemms_leaving_sms_free_are_correct(reserved):
    """Grids shrunk by tcgemm.reserve_sms (an even, an odd and half of the SMs): the persistent kernels cover
    every tile, the prepared launch of a full-GPU call is not reused inside the block, nor the reverse."""
    a = torch.randn(3001, 2049, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2049, 4111, device="cuda", dtype=torch.bfloat16)
    want = reference(a, b, None, 1.0, 0.0)
    full = tcgemm.gemm(a, b)
    for _ in range(2):
        with tcgemm.reserve_sms(reserved):
            out = poisoned_like(tuple(full.shape), full.dtype, full.device)
            got = tcgemm.gemm(a, b, out=out)
        assert relative_error(got, want) < TOLERANCE["bf16"]
    assert torch.equal(tcgemm.gemm(a, b), full)
