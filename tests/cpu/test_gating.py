"""tcgemm.gating off the GPU (the torch formula) and its kernel's build (kernels/util/gated_act.cu)."""

from __future__ import annotations

import pytest
import torch

from tcgemm import epilogue, gating

ACTS = ["silu", "gelu", "gelu_tanh", "relu"]


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30))


@pytest.mark.parametrize("act", ACTS)
def test_torch_path_is_the_formula(act: str) -> None:
    torch.manual_seed(0)
    gu = torch.randn(7, 2 * 13)
    dh = torch.randn(7, 13)
    want_h, want_dgu = gating.reference(gu, dh, act)
    assert _rel(gating.forward(gu, act), want_h) < 1e-6
    dgu = gating.backward(dh, gu, act)
    assert dgu.shape == gu.shape and dgu.is_contiguous()
    assert _rel(dgu, want_dgu) < 1e-6


def test_refusals_name_the_argument() -> None:
    with pytest.raises(ValueError, match="gate then up"):
        gating.forward(torch.randn(3, 5), "silu")
    with pytest.raises(ValueError, match="activation is one of"):
        gating.forward(torch.randn(3, 4), "tanh")
    with pytest.raises(ValueError, match="grad has shape"):
        gating.backward(torch.randn(3, 3), torch.randn(3, 4), "silu")


@pytest.mark.parametrize("elem", ["__nv_bfloat16", "__half", "float"])
@pytest.mark.parametrize("act", ACTS)
def test_kernel_compiles_without_local_memory(elem: str, act: str) -> None:
    jit = pytest.importorskip("tcgemm.jit")
    from tcgemm import sass

    defines = jit.as_defines([("ELEM", elem), ("ACT", epilogue.ACTIVATIONS[act])])
    try:
        cubin = jit.cubin("util/gated_act.cu", defines, "sm_90a")
    except jit.JitUnavailable as exc:
        pytest.skip(str(exc))
    text = sass.disassemble(cubin)
    assert "gated_forward" in text and "gated_backward" in text
    assert not sass.has_local_memory(text)
