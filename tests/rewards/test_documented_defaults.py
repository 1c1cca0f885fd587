"""The README's table of reward options is the contract a user reads: every default it gives in parentheses is the
constructor's default of each reward the row names."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from rewards import REWARDS

README = Path(__file__).resolve().parents[2] / "README.md"
# `name` (value ...) or `name` (words, default value): a number, or true/false
_DOCUMENTED = re.compile(r"`(\w+)` \((?:[^()`]*?\bdefault:? )?(-?\d+(?:\.\d+)?(?:e-?\d+)?|true|false)(?=[ ,:;)])")


def _rows() -> list[tuple[list[str], dict[str, str]]]:
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| reward | options |"):].split("\n\n")[0].splitlines()[2:]
    rows = []
    for row in table:
        names, options = row.split(" | ", 1)
        rows.append((re.findall(r"`([\w-]+)`", names), dict(_DOCUMENTED.findall(options))))
    return rows


def _value(text: str) -> object:
    if text in ("true", "false"):
        return text == "true"
    return float(text) if re.search(r"[.e]", text) else int(text)


def test_every_default_in_the_readmes_reward_table_is_the_constructors():
    checked = 0
    for names, documented in _rows():
        for name in names:
            parameters = inspect.signature(REWARDS.get(name)).parameters
            for option, text in documented.items():
                assert option in parameters, f"the README documents {name}'s {option}, which it does not take"
                assert parameters[option].default == _value(text), (name, option, text, parameters[option].default)
                checked += 1
    documented = {(name, option) for names, options in _rows() for name in names for option in options}
    # the table's rows are read: a change to its layout that hid them would leave nothing checked
    assert {("cooper", "snapshot_every"), ("cooper", "seed"), ("rule", "timeout"), ("remote", "threshold"),
            ("judge", "temperature"), ("cooper", "discrete")} <= documented and checked >= 30
