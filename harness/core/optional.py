"""Optional heavy dependencies: import them late, and when they are missing say which extra to install."""

from __future__ import annotations

import importlib
from types import ModuleType

DISTRIBUTION = "rl-reward-harness"

# Which extra of this distribution provides a top-level module.
EXTRA_FOR_MODULE = {
    "torch": "rm",
    "transformers": "rm",
    "vllm": "vllm",
    "openrlhf": "openrlhf",
    "trl": "trl",
    "lm_eval": "lmeval",
    "fastapi": "server",
    "uvicorn": "server",
    "pydantic": "server",
    "ray": "ray",
    "datasets": "hub",
    "matplotlib": "plots",
    "gguf": "gguf",
    "accelerate": "gguf",
    "openai": "openai",
    "httpx": "openai",
}


class MissingDependencyError(ImportError):
    """An optional dependency is not installed; the message carries the install command."""


def install_command(module: str) -> str:
    top = module.split(".")[0]
    extra = EXTRA_FOR_MODULE.get(top)
    line = f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {top}"
    if top == "torch":  # a bare torch pulls a CUDA build of several GB
        line += " (on a machine without a GPU, install a CPU build of torch first, e.g. pip install torch==2.13.0)"
    return line


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the exact install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the package {module.split('.')[0]!r}, which is not installed. "
            f"Install it with: {install_command(module)}"
        ) from exc
