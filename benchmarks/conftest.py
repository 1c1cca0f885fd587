"""Collects items/s of each benchmark and prints them, with ratios to the baseline, after the run."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

RESULTS: dict[str, dict[str, float]] = {}

_REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _data_root_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_DATA_ROOT", os.environ.get("HARNESS_DATA_ROOT", str(_REPO.parent / "shared" / "data")))


def pytest_terminal_summary(terminalreporter) -> None:
    if not RESULTS:
        return
    base = RESULTS.get("plain math-verify loop", {}).get("items_per_s")
    terminalreporter.section("rule reward throughput (same items, one run)")
    terminalreporter.write_line(
        f"{'case':<44}{'items':>7}{'seconds':>10}{'items/s':>10}{'x plain loop':>14}{'decided here':>14}"
    )
    for name, r in RESULTS.items():
        ratio = f"{r['items_per_s'] / base:.2f}" if base else "-"
        here = f"{100 * r['decided_here']:.1f}%" if "decided_here" in r else "-"
        terminalreporter.write_line(
            f"{name:<44}{int(r['items']):>7}{r['seconds']:>10.2f}{r['items_per_s']:>10.1f}{ratio:>14}{here:>14}"
        )
