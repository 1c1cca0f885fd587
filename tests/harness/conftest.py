"""Fixtures of the application tests."""

import pytest


@pytest.fixture
def in_process_reward(monkeypatch):
    """``use(spec)``: the integrations (OpenRLHF's reward_func, verl's compute_score) score in-process with a fresh
    reward of ``spec``, closed again after the test."""
    from harness.integrations import _shared

    def use(spec: str) -> None:
        _shared.LOCAL.close()
        monkeypatch.delenv("HARNESS_REWARD_URL", raising=False)
        monkeypatch.setenv("HARNESS_REWARD", spec)

    yield use
    _shared.LOCAL.close()
