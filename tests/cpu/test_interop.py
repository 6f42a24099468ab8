"""tcgemm.gemm on DLPack arrays (tcgemm.interop), on the CPU: a tiny array class that speaks DLPack
around a torch CPU tensor stands in for CuPy/JAX, and the emulated GPU of test_api_emulated.py runs
the kernels. This module's own ``from_dlpack`` is how results get back to that class, as
``cupy.from_dlpack`` does for CuPy arrays."""

from __future__ import annotations

import sys
import types

import pytest
import torch

import tcgemm
from tcgemm import interop


class Array:
    """A foreign array: DLPack only, no torch API."""

    def __init__(self, t: torch.Tensor) -> None:
        self._t = t

    def __dlpack__(self, *args, **kwargs):
        return self._t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


def from_dlpack(x) -> Array:
    return Array(torch.from_dlpack(x))


def test_foreign_operands_are_read_in_place_and_the_result_comes_back_foreign(gpu):
    a, b = torch.randn(9, 7), torch.randn(7, 5)
    d = tcgemm.gemm(Array(a), Array(b))
    assert type(d) is Array
    torch.testing.assert_close(torch.from_dlpack(d), a @ b)
    read_a, read_b = gpu.operands[-1]
    assert read_a.data_ptr() == a.data_ptr() and read_b.data_ptr() == b.data_ptr()  # zero-copy


def test_transposed_foreign_operand_keeps_its_strides(gpu):
    b = torch.randn(5, 7).t()  # column-major
    d = tcgemm.gemm(torch.randn(3, 7), Array(b))
    assert type(d) is Array  # the first foreign operand decides the result's type
    assert gpu.calls[-1][1].b.layout == "col"


def test_foreign_c_and_out(gpu):
    a, b, c = torch.randn(4, 6), torch.randn(6, 3), torch.randn(3)
    d = tcgemm.gemm(a, b, Array(c), beta=2.0)
    assert type(d) is Array
    torch.testing.assert_close(torch.from_dlpack(d), a @ b + 2 * c)
    out_t = torch.full((4, 3), float("nan"))
    out = Array(out_t)
    assert tcgemm.gemm(Array(a), Array(b), out=out) is out  # written in place, returned as given
    torch.testing.assert_close(out_t, a @ b)
    out_torch = torch.empty(4, 3)
    assert tcgemm.gemm(Array(a), b, out=out_torch) is out_torch


def test_torch_only_calls_are_untouched():
    a = torch.randn(2, 2)
    assert interop.to_torch(a, a, None, None) == (a, a, None, None, None)


def test_a_type_without_from_dlpack_is_refused_before_running(gpu):
    module = types.ModuleType("tcgemm_test_nowhere")
    cls = type("Opaque", (Array,), {"__module__": "tcgemm_test_nowhere"})
    sys.modules[module.__name__] = module
    try:
        with pytest.raises(TypeError, match=r"tcgemm\.interop\.register\(Opaque, from_dlpack\)"):
            tcgemm.gemm(cls(torch.randn(2, 2)), torch.randn(2, 2))
        assert not gpu.calls
        interop.register(cls, from_dlpack)
        assert type(tcgemm.gemm(cls(torch.randn(2, 2)), torch.randn(2, 2))) is Array
    finally:
        del sys.modules[module.__name__]
        interop._REGISTERED.pop(cls, None)
        interop._FOUND.clear()


def test_unreadable_dlpack_object_names_the_argument(gpu):
    class Broken:
        def __dlpack__(self, *args, **kwargs):
            raise BufferError("no export")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError, match=r"b is a .*Broken with __dlpack__"):
        tcgemm.gemm(Array(torch.randn(2, 2)), Broken())


def test_known_libraries_resolve_to_their_from_dlpack():
    np = pytest.importorskip("numpy")
    assert interop.from_dlpack_for(np.zeros(2)) is np.from_dlpack
    fake_jax_array = type("ArrayImpl", (), {"__module__": "jaxlib.xla_extension"})()
    if "jax" not in sys.modules:
        jax = types.ModuleType("jax")
        jax_dlpack = types.ModuleType("jax.dlpack")
        jax_dlpack.from_dlpack = from_dlpack
        jax.dlpack = jax_dlpack
        sys.modules.update({"jax": jax, "jax.dlpack": jax_dlpack})
        try:
            assert interop.from_dlpack_for(fake_jax_array) is from_dlpack  # jaxlib -> jax.dlpack.from_dlpack
        finally:
            del sys.modules["jax"], sys.modules["jax.dlpack"]
            interop._FOUND.clear()
