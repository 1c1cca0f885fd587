"""What a command needs, found before it does any work: packages to install and models to locate.

A reward builds lazily (weights load on the first batch), so a missing package or a model that is nowhere used
to surface after a run had been recorded, as a retried hub download and a long traceback. Components that load
something declare :class:`Preflight`; :func:`ensure_ready` asks each and raises one :class:`NotReady` listing
every problem, with every install line and every place looked, before a run exists.

Locating a model makes at most one request to the hub (``HF_HUB_OFFLINE=1``: none), with a short timeout.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from harness.core.optional import MissingDependencyError, extra_install_line, install_command


class NotReady(MissingDependencyError):
    """What a command needs is missing; the message lists every problem and how to fix it."""


@runtime_checkable
class Preflight(Protocol):
    """A component that can say, without loading anything heavy, what it lacks (empty: ready)."""

    def preflight(self) -> list[str]: ...


def ensure_ready(components: Iterable[object], what: str) -> None:
    """Raise :class:`NotReady` naming every problem of the components that declare :class:`Preflight`."""
    problems: list[str] = []
    for component in components:
        if isinstance(component, Preflight):
            problems += [p for p in component.preflight() if p not in problems]
    if problems:
        lines = "\n".join(f"  - {p}" for p in problems)
        raise NotReady(f"{what} cannot start; nothing was run or recorded:\n{lines}")


def missing_packages(modules: Sequence[str], purpose: str) -> list[str]:
    """One problem per install line among the modules that are not importable: the modules one extra brings are
    named together with it, once (torch and transformers, one ``[rm]``)."""
    by_extra: dict[str, list[str]] = {}
    for m in modules:
        if importlib.util.find_spec(m) is None:
            by_extra.setdefault(extra_install_line(m), []).append(m)
    return [f"{purpose} needs the package{'s' if len(ms) > 1 else ''} {', '.join(repr(m) for m in ms)}: "
            + next((install_command(m) for m in ms if install_command(m) != line), line)
            for line, ms in by_extra.items()]


def model_problems(name: str) -> list[str]:
    """Why ``name`` (a folder or a hub id) cannot be found, or nothing: a folder that exists, a hub id in the local
    cache, or one the hub answers for (one request, none offline)."""
    path = Path(name).expanduser()
    if path.exists():
        return []
    looked = [f"a folder {path.resolve()} (none)"]
    if name.startswith((".", "/", "~")) or name.count("/") > 1 or not name.strip():
        return [f"model {name!r} not found: looked for {looked[0]}"]
    if importlib.util.find_spec("huggingface_hub") is None:
        return [f"model {name!r} not found: looked for {looked[0]}; a hub id needs {install_command('transformers')}"]
    from huggingface_hub import constants, try_to_load_from_cache

    cached = try_to_load_from_cache(name, "config.json")
    if isinstance(cached, str):
        return []
    looked.append(f"the hub cache {constants.HF_HUB_CACHE} (not there)")
    if constants.HF_HUB_OFFLINE or os.environ.get("HF_HUB_OFFLINE") == "1":
        looked.append("the hub (not asked: HF_HUB_OFFLINE=1)")
        return [f"model {name!r} not found: looked for {'; '.join(looked)}"]
    answer = _ask_hub(name)
    if answer is None:
        return []
    looked.append(f"the hub ({answer})")
    return [f"model {name!r} not found: looked for {'; '.join(looked)}"]


def _ask_hub(name: str) -> str | None:
    """None when the hub knows the model; else what it (or the network) said. One request, 10 s at most."""
    from huggingface_hub import HfApi

    try:
        HfApi().model_info(name, timeout=10)
        return None
    except Exception as exc:  # noqa: BLE001 - any answer but a model is the reason it cannot be used
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return f"{type(exc).__name__}: {text[:200]}"
