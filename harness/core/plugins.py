"""Loading a user's own code before a command runs, so that what it registers by decorator is there to use.

Entry points need a package installed; a verifier a user is still writing lives in a file or a module of their
project. ``harness --plugin FILE_OR_MODULE`` (repeatable, or ``HARNESS_PLUGINS`` with paths separated by the
platform's path separator, for CI) imports each one once: a path ending in ``.py`` (or naming an existing file) is
imported from that file, anything else as a module, with the working directory on the import path as
``python -m`` would have it.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from harness.core.errors import UserError

ENV = "HARNESS_PLUGINS"


class PluginError(UserError):
    """A plugin that could not be found or whose code raised on import; the message says which and why."""


_loaded: dict[str, ModuleType] = {}


def plugins_from_env() -> list[str]:
    return [p for p in os.environ.get(ENV, "").split(os.pathsep) if p.strip()]


def load_plugins(refs: Iterable[str]) -> list[ModuleType]:
    return [load_plugin(ref) for ref in refs]


def load_plugin(ref: str) -> ModuleType:
    """Import ``ref`` (a ``.py`` file or a module name) once; a second call returns the same module."""
    ref = ref.strip()
    path = Path(ref).expanduser()
    is_file = ref.endswith(".py") or path.is_file()
    key = str(path.resolve()) if is_file else ref
    if key in _loaded:
        return _loaded[key]
    if is_file:
        if not path.is_file():
            raise PluginError(f"plugin {ref!r}: no such file (looked at {path.resolve()})")
        name = f"harness_plugin_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"plugin {ref!r}: not a Python file that can be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        _run(ref, lambda: spec.loader.exec_module(module))  # type: ignore[union-attr]
    else:
        cwd = os.getcwd()
        if cwd not in sys.path:
            sys.path.insert(0, cwd)
        try:
            found = importlib.util.find_spec(ref)
        except (ImportError, ValueError):
            found = None
        if found is None:
            raise PluginError(f"plugin {ref!r}: no module of that name (a file needs its path, ending in .py; a "
                              f"module must be importable from {cwd} or the environment)")
        module = _run(ref, lambda: importlib.import_module(ref))
    _loaded[key] = module
    return module


def _run(ref: str, load):
    try:
        return load()
    except Exception as exc:  # the user's code raised: say where, in one line, not with our frames around it
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if "importlib" not in f.filename]
        where = f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""
        raise PluginError(f"plugin {ref!r} raised {type(exc).__name__} on import{where}: {exc}") from exc
