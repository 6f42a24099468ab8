"""Argument validation and problem description, on CPU and meta tensors (no GPU needed)."""

from __future__ import annotations

import pytest
import torch

import tcgemm
from tcgemm.problem import StrideCopyWarning, describe, layout_of


def test_layout_of_row_col_and_slices():
    x = torch.empty(6, 10)
    assert layout_of(x) == ("row", 10)
    assert layout_of(x.t()) == ("col", 10)
    assert layout_of(x[:, :4]) == ("row", 10)  # slice of a wider tensor: padded ld
    assert layout_of(x[:, ::2]) is None
    assert layout_of(torch.empty(1, 5)) == ("row", 5)
    assert layout_of(torch.empty(5, 1)) in (("row", 1), ("col", 5))


def test_describe_reads_transposes_in_place():
    a = torch.empty(40, 30).t()  # (30, 40) column-major
    b = torch.empty(40, 20)
    p, t = describe(a, b)
    assert (p.m, p.n, p.k) == (30, 20, 40)
    assert p.layouts == "cr" and p.a.ld == 30
    assert t["a"].data_ptr() == a.data_ptr()  # no copy


def test_column_major_out_swaps_operands():
    a, b = torch.empty(30, 40), torch.empty(40, 20)
    out = torch.empty(20, 30).t()
    p, t = describe(a, b, out=out)
    assert p.swapped and (p.m, p.n) == (20, 30)
    assert p.layouts == "cc"  # B^T and A^T of row-major inputs are column-major
    assert t["a"] is b and t["b"] is a


def test_batch_broadcast_and_strides():
    a = torch.empty(3, 8, 5)
    b = torch.empty(5, 7)
    p, _ = describe(a, b)
    assert p.batch == 3 and p.a.batch_stride == 40 and p.b.batch_stride == 0


def test_bias_broadcast_strides():
    a, b = torch.empty(8, 5), torch.empty(5, 7)
    p, _ = describe(a, b, torch.empty(7), beta=1.0)
    assert p.c_strides == (0, 1, 0)
    p, _ = describe(a, b, torch.empty(8, 1), beta=1.0)
    assert p.c_strides == (1, 0, 0)
    p, _ = describe(a, b, torch.empty(8, 7), beta=0.0)
    assert p.c_strides is None  # beta == 0: C is never read
    # One row: a bias is the broadcast row (row stride 0) however it was viewed, and so is a whole 1 x N C.
    one = torch.empty(1, 5)
    assert describe(one, b, torch.empty(7), beta=1.0)[0].c_strides == (0, 1, 0)
    assert describe(one, b, torch.empty(1, 7), beta=1.0)[0].c_strides == (0, 1, 0)
    assert describe(one, b, torch.empty(7, 2)[:, 0].unsqueeze(0), beta=1.0)[0].c_strides == (0, 2, 0)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(a=torch.empty(3, 4), b=torch.empty(5, 6)), ValueError, "inner dimensions"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6, dtype=torch.float64)), TypeError, "same dtype"),
        (dict(a=torch.empty(3, 4, dtype=torch.float64), b=torch.empty(4, 6, dtype=torch.float64)), TypeError,
         "supports"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), out=torch.empty(6, 3)), ValueError, "shape"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), beta=1.0), ValueError, "needs c"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), c=torch.empty(5, 6), beta=1.0), ValueError, "broadcast"),
        (dict(a=torch.empty(2, 3, 4), b=torch.empty(3, 4, 6)), ValueError, "batch"),
        (dict(a=torch.empty(3), b=torch.empty(3, 6)), ValueError, "2-D"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), precision="int4"), ValueError, "unknown"),
        (dict(a=torch.empty(3, 4, dtype=torch.float16), b=torch.empty(4, 6, dtype=torch.float16),
              precision="tf32"), TypeError, "float32"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), alpha="2"), TypeError, "alpha"),
        (dict(a=torch.empty(3, 4), b=torch.empty(4, 6), out=torch.empty(3, 12)[:, ::2]), ValueError,
         "row-major or column-major"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, words):
    with pytest.raises(error, match=words):
        describe(**kwargs)


def test_out_overlapping_an_input_is_refused():
    buf = torch.empty(64)
    a = buf[:12].view(3, 4)
    b = torch.empty(4, 4)
    with pytest.raises(ValueError, match="overlaps a"):
        describe(a, b, out=buf[4:16].view(3, 4))


def test_out_may_be_c_for_in_place_update():
    a, b, c = torch.empty(3, 4), torch.empty(4, 5), torch.empty(3, 5)
    p, _ = describe(a, b, c, beta=1.0, out=c)
    assert p.c_strides == (5, 1, 0)


def test_uncommon_strides_warn_and_copy():
    a = torch.empty(8, 10)[:, ::2]
    with pytest.warns(StrideCopyWarning, match="a has strides"):
        p, t = describe(a, torch.empty(5, 3))
    assert t["a"].is_contiguous() and p.layouts == "rr"


def test_gemm_refuses_cpu_tensors_before_anything_runs():
    out = torch.full((3, 5), 7.0)
    with pytest.raises(ValueError, match="CUDA tensors"):
        tcgemm.gemm(torch.randn(3, 4), torch.randn(4, 5), out=out)
    assert torch.all(out == 7.0)  # nothing written


def test_kernels_lists_the_ladder():
    names = [k["name"] for k in tcgemm.kernels()]
    assert names[0] == "simt_naive" and "simt_warp_tiling" in names
    for k in tcgemm.kernels():
        assert k["technique"] and k["precisions"] and k["seed"] and k["configs"]
