"""A third-party reward installed as a real package (tests/plugins/harness_exact_plugin) through its entry point."""

import importlib.metadata

import pytest
from click.testing import CliRunner

from harness.cli import main
from rewards import REWARDS, build_reward

PLUGIN = "harness-exact-plugin"


@pytest.fixture(autouse=True)
def plugin_installed():
    try:
        importlib.metadata.distribution(PLUGIN)
    except importlib.metadata.PackageNotFoundError:
        pytest.fail(f"{PLUGIN} is not installed: pip install tests/plugins/harness_exact_plugin (tox does this)")


def test_entry_point_reward_is_listed_with_its_origin(tmp_path):
    entry = REWARDS.entry("exact")
    assert entry.origin == f"plugin:{PLUGIN}" and entry.target == "harness_exact_plugin:ExactMatchReward"
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s.sqlite"), "ls", "rewards"])
    assert result.exit_code == 0 and "exact" in result.output and PLUGIN in result.output


def test_entry_point_reward_runs_in_eval(tmp_path):
    result = CliRunner().invoke(
        main, ["--store", str(tmp_path / "s.sqlite"), "eval", "--reward", "exact:case_sensitive=true",
               "--suite", "sample", "--format", "csv"],
    )
    assert result.exit_code == 0, result.output
    assert "exact:case_sensitive=true" in result.output
    reward = build_reward("exact")
    from rewards import Item

    assert [s.verdict for s in reward.score([Item("q", "Paris", "thinking\nparis"), Item("q", "1", "2")])] == [True, False]
