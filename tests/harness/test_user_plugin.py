"""A user's own verifier, registered by decorator in their own file or module, loaded with --plugin or
HARNESS_PLUGINS: the README's example is run exactly as written."""

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main

from .csv_tables import csv_tables

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> tuple[str, list[str]]:
    """The plugin file and the command of the README's "Plug in a verifier"."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Plug in a verifier"):]
    code = re.search(r"saved as `lastnum.py`:\n\n```python\n(.*?)```", section, re.S).group(1)
    command = re.search(r"runs with `harness (eval --plugin lastnum.py [^`]*)`", section).group(1)
    return code, shlex.split(command)


def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    code, args = readme_example()
    (tmp_path / "lastnum.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*args, "--store", str(tmp_path / "s.sqlite"), "--format", "csv"])
    assert result.exit_code == 0, result.output
    tables = csv_tables(result.stdout)
    [by_category] = [rows for title, rows in tables.items() if title.startswith("Accuracy by")]
    assert by_category[0]["reward"] == "lastnum:tolerance=0.5", result.output
    # the accuracy in percent, as every text format prints it, with its interval's bounds
    [metrics] = [rows for title, rows in tables.items() if title.startswith("Metrics")]
    accuracy = next(r for r in metrics if r["metric"] == "accuracy")
    assert re.fullmatch(r"\d+\.\d", accuracy["value"]) and accuracy["n"] == "50", accuracy
    assert float(accuracy["value low"]) <= float(accuracy["value"]) <= float(accuracy["value high"])


def test_a_module_named_in_the_environment_is_loaded_for_every_command(tmp_path, monkeypatch):
    (tmp_path / "my_checks.py").write_text(
        "from rewards import REWARDS, Score\n\n"
        "@REWARDS.register('always_right')\n"
        "class AlwaysRight:\n"
        "    '''Says correct to everything (a plugin for the tests).'''\n"
        "    def score(self, items):\n"
        "        return [Score.correct() for _ in items]\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["ls", "rewards"], env={"HARNESS_PLUGINS": "my_checks"})
    assert result.exit_code == 0, result.output
    assert "always_right" in result.output and "Says correct to everything" in result.output


@pytest.mark.parametrize("content, expected", [
    (None, r"plugin '.*missing\.py': no such file"),
    ("x = 1 / 0\n", r"plugin '.*broken\.py' raised ZeroDivisionError on import \(.*broken\.py, line 1\)"),
])
def test_a_plugin_that_cannot_load_is_one_line_naming_it(tmp_path, content, expected):
    name = "missing.py" if content is None else "broken.py"
    if content is not None:
        (tmp_path / name).write_text(content)
    for args in (["--plugin", str(tmp_path / name), "ls"], ["ls", "--plugin", str(tmp_path / name)]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code != 0 and re.search(expected, result.output), result.output
        assert "Traceback" not in result.output


def test_an_unknown_module_says_how_to_name_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--plugin", "no_such_module_here", "ls"])
    assert result.exit_code != 0 and "no module of that name" in result.output and ".py" in result.output
