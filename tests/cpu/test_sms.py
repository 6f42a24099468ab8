"""tcgemm.reserve_sms: the SMs a GEMM may fill, nesting, and errors that name the fix (the GPU side:
tests/gpu/test_hostile.py::test_gemms_leaving_sms_free_are_correct)."""

from __future__ import annotations

import pytest

import tcgemm
from tcgemm import sms


def test_reserve_nests_and_restores() -> None:
    assert sms.usable(132) == 132 and sms.reserved() == 0
    with tcgemm.reserve_sms(2):
        assert sms.usable(132) == 130
        with tcgemm.reserve_sms(8):
            assert sms.usable(132) == 124
        assert sms.reserved() == 2
    assert sms.usable(132) == 132


@pytest.mark.parametrize("count", [-1, 1.5, True, "2"])
def test_reserve_rejects_what_is_not_a_count(count: object) -> None:
    with pytest.raises(ValueError, match="count must be an int"), tcgemm.reserve_sms(count):  # type: ignore[arg-type]
        pass


def test_reserving_nearly_all_sms_names_the_limit() -> None:
    with tcgemm.reserve_sms(131), pytest.raises(ValueError, match="reserve at most 130"):
        sms.usable(132)
