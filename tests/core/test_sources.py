"""Every source file of the project compiles without a warning: an invalid escape sequence in a string or docstring
(``"\\s"``) is a DeprecationWarning today and a SyntaxWarning from Python 3.12, printed at every import."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_every_source_compiles_without_a_warning():
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "*.py"], capture_output=True, text=True).stdout.split()
    if not files:  # not a checkout: the packages' own files
        files = [str(p.relative_to(REPO)) for d in ("harness", "rewards", "suites", "trainers") for p in (REPO / d).rglob("*.py")]
    assert files
    for name in files:
        source = (REPO / name).read_text(encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(source, name, "exec")
