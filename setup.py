"""The build step that pyproject.toml cannot declare: a wheel built from a git checkout records its commit.

A run names the commit of the code that made it (``harness.core.versions``). Installed with ``pip install .`` the
code is no longer in a checkout, so the build writes ``harness/_build.json`` (the checkout's HEAD and whether it had
uncommitted changes) into the wheel, and the installed code reads it back. Built outside a checkout, it writes
nothing and runs record the commit as unknown.
"""

import json
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                              cwd=Path(__file__).resolve().parent)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


class BuildWithCommit(build_py):
    def run(self) -> None:
        super().run()
        commit = _git("rev-parse", "HEAD")
        if not commit:
            return
        status = _git("status", "--porcelain", "--untracked-files=no")
        target = Path(self.build_lib) / "harness" / "_build.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({"commit": commit, "dirty": "unknown" if status is None else str(bool(status)).lower()}))


setup(cmdclass={"build_py": BuildWithCommit})
