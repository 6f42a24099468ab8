"""Shared fixtures. GPU tests carry the `gpu` marker and skip where no CUDA GPU is visible."""

from __future__ import annotations

import pytest
import torch


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU; tools/gpu_suite.sh runs these on the H100")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A private, empty kernel cache for one test."""
    monkeypatch.setenv("TCGEMM_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(autouse=True)
def _no_driver_context_without_gpu(monkeypatch):
    """Without a GPU there is no CUDA context to make current: CPU tests that drive launch.run with fakes
    skip that step."""
    if not torch.cuda.is_available():
        from tcgemm import launch

        monkeypatch.setattr(launch, "ensure_context", lambda device: None)
