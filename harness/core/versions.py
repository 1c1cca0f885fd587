"""What a run's numbers depend on, recorded with every stored run: the packages' versions and the code's commit.

A figure can be recomputed only from the code that made it, so each run names the commit of the checkout its code
was imported from and whether that checkout had uncommitted changes to tracked files (``dirty``). An install
from a wheel has no checkout: it records the commit its wheel was built from, when the build ran in a checkout
(``commit_from: build``), else unknown, never guessed.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
from pathlib import Path

_VERSIONED = (
    "rl-reward-harness", "math-verify", "latex2sympy2_extended", "sympy", "torch", "transformers", "trl",
    "datasets", "accelerate", "vllm",
)
UNKNOWN = "unknown"


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


CODE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the harness, rewards, suites and trainers


@functools.lru_cache(maxsize=4)
def code_commit(root: Path = CODE_ROOT) -> dict[str, str]:
    """``commit`` (the checkout's HEAD, or ``unknown``) and ``dirty`` (``true``/``false``/``unknown``) of the
    code under ``root`` (by default the code this process imported). Read once a process: a run's code cannot
    change under it."""
    root = Path(root).resolve()
    toplevel = _git(root, "rev-parse", "--show-toplevel")
    if not toplevel or Path(toplevel).resolve() != root:  # an install outside a checkout of this project
        return built_commit(root)
    commit = _git(root, "rev-parse", "HEAD") or UNKNOWN
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    dirty = UNKNOWN if status is None else str(bool(status)).lower()
    return {"commit": commit, "dirty": dirty}


def built_commit(root: Path = CODE_ROOT) -> dict[str, str]:
    """The commit a wheel was built from (``harness/_build.json``, written by the build when its source was a git
    checkout, see setup.py), else unknown."""
    import json

    try:
        built = json.loads((Path(root) / "harness" / "_build.json").read_text())
        return {"commit": str(built["commit"]), "dirty": str(built.get("dirty", UNKNOWN)), "commit_from": "build"}
    except (OSError, ValueError, KeyError, TypeError):
        return {"commit": UNKNOWN, "dirty": UNKNOWN}


def package_versions() -> dict[str, str]:
    """The versions of the packages a run depends on, with the code's commit and dirtiness."""
    versions = {"python": platform.python_version(), **code_commit()}
    for dist in _VERSIONED:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions
