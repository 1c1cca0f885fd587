"""The versions of the packages a run's numbers depend on, recorded with every stored run."""

from __future__ import annotations

import importlib.metadata
import platform

_VERSIONED = ("rl-reward-harness", "math-verify", "latex2sympy2_extended", "sympy", "torch", "transformers", "vllm")


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for dist in _VERSIONED:
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions
