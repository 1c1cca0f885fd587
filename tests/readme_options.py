"""The README's table of reward options, read as a user reads it: the defaults each row gives in parentheses."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
# `name` (value ...) or `name` (words, default value): a number, or true/false
_DOCUMENTED = re.compile(r"`(\w+)` \((?:[^()`]*?\bdefault:? )?(-?\d+(?:\.\d+)?(?:e-?\d+)?|true|false)(?=[ ,:;)])")


def _value(text: str) -> object:
    if text in ("true", "false"):
        return text == "true"
    return float(text) if re.search(r"[.e]", text) else int(text)


def documented_defaults() -> dict[str, dict[str, object]]:
    """Each reward the table names, with the default its row gives each option (a row may name several)."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("| reward | options |"):].split("\n\n")[0].splitlines()[2:]
    defaults: dict[str, dict[str, object]] = {}
    for row in table:
        names, options = row.split(" | ", 1)
        documented = {option: _value(value) for option, value in _DOCUMENTED.findall(options)}
        for name in re.findall(r"`([\w-]+)`", names):
            defaults[name] = documented
    return defaults
