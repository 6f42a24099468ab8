"""Fixtures of the CPU tests."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture
def fake_gpu(monkeypatch):
    """A fake GPU: CPU tensors accepted, an H100's properties (sm_90a, 132 SMs), and the kernels replaced
    by the emulator of the kernel contract in test_api_emulated.py (reads memory as a kernel would)."""
    from test_api_emulated import emulate

    from tcgemm import api, launch

    emulate.calls, emulate.operands, emulate.scales = [], [], []
    monkeypatch.setattr(api, "_check_devices", lambda **t: torch.device("cpu"))
    monkeypatch.setattr(api, "device_info", lambda index: (90, 132, "sm_90a"))
    monkeypatch.setattr(api.torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(launch, "run", emulate)
    return emulate


@pytest.fixture
def gpu(fake_gpu):
    """The same fake GPU under a shorter name."""
    return fake_gpu
