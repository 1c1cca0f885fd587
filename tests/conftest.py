"""Shared fixtures: the real data in ../shared/data, a temporary run store, one rule reward per session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA_ROOT = Path(os.environ.get("HARNESS_DATA_ROOT", REPO.parent / "shared" / "data"))
VERIFYBENCH_HARD = DATA_ROOT / "verifier" / "verifybench_hard_subset_longjudgebench"
FIXTURES = DATA_ROOT / "verifier" / "answer_equivalence_fixtures"


@pytest.fixture(scope="session")
def data_root() -> Path:
    if not (DATA_ROOT / "verifier").is_dir():
        pytest.fail(f"the shared data is missing: expected {DATA_ROOT}/verifier. Fetch it once with "
                    f"`HARNESS_DATA_ROOT={DATA_ROOT} harness data fetch` (every set, checked by hash), or point "
                    "HARNESS_DATA_ROOT at a copy")
    return DATA_ROOT


@pytest.fixture(autouse=True)
def _data_root_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(DATA_ROOT))


@pytest.fixture
def store(tmp_path: Path):
    from harness.core.store import RunStore

    return RunStore(tmp_path / "runs.sqlite")


@pytest.fixture(scope="session")
def rule_reward():
    """One pool of two workers shared by the tests that only score (starting workers costs a second)."""
    from rewards.rule import RuleReward

    reward = RuleReward(workers=2, timeout=10)
    yield reward
    reward.close()


def svg_texts(path) -> list[str]:
    """The texts a matplotlib SVG shows (titles, axis labels, tick labels, legend entries), in drawing order:
    matplotlib draws text as glyph paths and names each one in a comment."""
    import re
    from pathlib import Path

    return re.findall(r"<!-- (.*?) -->", Path(path).read_text())
