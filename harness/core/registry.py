"""One generic registry type; each kind of component (rewards, suites, trainers, ...) has one instance.

Why lazy entries: ``harness ls`` must list every reward without importing torch or vLLM, so built-in and
plugin entries are stored as ``"module:attr"`` strings and imported only when someone asks for them.
Third-party packages add entries through a Python entry-point group (``harness.rewards``, ...), read on
first use rather than at import time.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata
import inspect
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from harness.core.errors import UserError
from harness.core.optional import EXTRA_FOR_MODULE, install_command

T = TypeVar("T")


class RegistryError(UserError, LookupError):
    """A name is unknown, taken twice, or its target cannot be imported."""


class DuplicateNameError(RegistryError):
    pass


class UnknownNameError(RegistryError, KeyError):
    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


@dataclass(frozen=True)
class Entry:
    """What a registry knows of a name before (and after) importing it."""

    name: str
    target: str  # "module:attr"
    summary: str
    origin: str  # "builtin", "plugin:<distribution>" or "runtime"


def _target_of(obj: Any) -> str:
    return f"{obj.__module__}:{obj.__qualname__}"


def _import_target(target: str) -> Any:
    module_name, _, attr_path = target.partition(":")
    if not module_name or not attr_path:
        raise RegistryError(f"bad target {target!r}: expected 'package.module:attribute'")
    obj: Any = importlib.import_module(module_name)
    for part in attr_path.split("."):
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """Names to components of one kind, with lazy loading and entry-point plugins.

    ``kind`` is used in messages ("unknown reward 'x'"); ``entry_point_group`` is the
    ``importlib.metadata`` group scanned for plugins, once, on the first lookup or listing.
    """

    def __init__(self, kind: str, entry_point_group: str | None = None, *, list_command: str = "",
                 base: type | None = None) -> None:
        self.kind = kind
        self.base = base  # what a registered class must be (a runtime-checkable protocol or a class)
        self._frozen = False
        self.entry_point_group = entry_point_group
        self.list_command = list_command or f"harness ls {kind}s"
        self._entries: dict[str, Entry] = {}
        self._loaded: dict[str, T] = {}
        self._plugins_scanned = entry_point_group is None
        self._sources: list[Callable[[], list[Entry]]] = []
        self._lock = threading.RLock()

    # -- registration -------------------------------------------------------------------------
    def freeze(self) -> None:
        """No registration after this (plugins are loaded): a name cannot change meaning halfway through a run."""
        self._scan_plugins()
        self._frozen = True

    def _check_open(self, name: str) -> None:
        if self._frozen:
            raise RegistryError(f"cannot register {self.kind} {name!r}: the {self.kind} registry is frozen "
                                "(register plugins before the run starts)")

    def _check_type(self, name: str, component: Any, where: str) -> None:
        """A registered class must be of the registry's declared type, checked where it is registered or loaded
        rather than when it is first used; factories (functions) are checked on what they build."""
        if self.base is None or not inspect.isclass(component):
            return
        try:
            ok = issubclass(component, self.base)
        except TypeError:  # a protocol with data members cannot be checked by issubclass
            return
        if not ok:
            raise RegistryError(f"{self.kind} {name!r} ({where}) is {component.__qualname__}, which is not a "
                                f"{self.base.__module__}.{self.base.__qualname__}: it lacks what a {self.kind} must have")

    def add_lazy(self, name: str, target: str, summary: str = "", *, origin: str = "builtin") -> None:
        """Register ``name`` as ``"module:attr"``, imported on first :meth:`get`."""
        self._check_open(name)
        with self._lock:
            if name in self._entries:
                existing = self._entries[name]
                if existing.target == target:
                    return
                raise DuplicateNameError(
                    f"{self.kind} {name!r} is already registered by {existing.origin} ({existing.target}); "
                    f"cannot register it again as {target}"
                )
            self._entries[name] = Entry(name, target, summary, origin)

    def add_source(self, read: Callable[[], list[Entry]]) -> None:
        """Entries that are read from data (a shipped YAML of declared suites) rather than written in code: ``read``
        runs once, on the first lookup or listing, like the entry-point scan, so importing the registry's package
        reads no file."""
        with self._lock:
            self._sources.append(read)
            self._plugins_scanned = False

    @overload
    def register(self, name: str, obj: T, *, summary: str = "") -> T: ...
    @overload
    def register(self, name: str, obj: None = None, *, summary: str = "") -> Callable[[T], T]: ...

    def register(self, name: str, obj: T | None = None, *, summary: str = "") -> Any:
        """Register ``obj`` under ``name``; usable as a decorator: ``@REWARDS.register("mine")``."""

        def add(component: T) -> T:
            self._check_open(name)
            target = _target_of(component)
            self._check_type(name, component, target)
            text = summary or _first_line(getattr(component, "__doc__", None))
            with self._lock:
                existing = self._entries.get(name)
                if existing is not None and existing.target != target:
                    raise DuplicateNameError(
                        f"{self.kind} {name!r} is already registered by {existing.origin} ({existing.target}); "
                        f"choose another name for {target}"
                    )
                if existing is None:
                    self._entries[name] = Entry(name, target, text, "runtime")
                self._loaded[name] = component
            return component

        return add if obj is None else add(obj)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests and interactive sessions use this to undo a registration)."""
        with self._lock:
            self._entries.pop(name, None)
            self._loaded.pop(name, None)

    # -- lookup -------------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The component registered as ``name``, importing it if needed."""
        self._scan_plugins()
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            entry = self._entries.get(name)
        if entry is None:
            raise UnknownNameError(self.unknown_message(name))
        try:
            component = _import_target(entry.target)
        except ImportError as exc:
            raise RegistryError(
                f"{self.kind} {name!r} ({entry.target}) could not be imported: {exc}. "
                f"{_install_hint(exc)}"
            ) from exc
        except AttributeError as exc:
            raise RegistryError(f"{self.kind} {name!r}: {entry.target} does not exist ({exc})") from exc
        self._check_type(name, component, entry.target)
        with self._lock:
            self._loaded[name] = component
        return component

    def entry(self, name: str) -> Entry:
        self._scan_plugins()
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownNameError(self.unknown_message(name)) from None

    def entries(self) -> list[Entry]:
        """Every entry, sorted by name, without importing any of them."""
        self._scan_plugins()
        with self._lock:
            return sorted(self._entries.values(), key=lambda e: e.name)

    def names(self) -> list[str]:
        return [e.name for e in self.entries()]

    def __contains__(self, name: object) -> bool:
        self._scan_plugins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def unknown_message(self, name: str) -> str:
        close = difflib.get_close_matches(name, list(self._entries), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        known = ", ".join(sorted(self._entries)) or "none"
        return f"unknown {self.kind} {name!r}{hint} (known: {known}; see `{self.list_command}`)"

    # -- plugins ------------------------------------------------------------------------------
    def _scan_plugins(self) -> None:
        if self._plugins_scanned:
            return
        with self._lock:
            if self._plugins_scanned:
                return
            for read in self._sources:  # a source that fails is read again on the next lookup, and fails loudly again
                for entry in read():
                    self.add_lazy(entry.name, entry.target, entry.summary, origin=entry.origin)
            self._sources.clear()
            if self.entry_point_group is not None:
                for ep in importlib.metadata.entry_points(group=self.entry_point_group):
                    dist = ep.dist.name if ep.dist is not None else "unknown"
                    self.add_lazy(ep.name, ep.value, summary=f"from {dist}", origin=f"plugin:{dist}")
            self._plugins_scanned = True


def _first_line(doc: str | None) -> str:
    return doc.strip().splitlines()[0] if doc and doc.strip() else ""


def _install_hint(exc: ImportError) -> str:
    if exc.name and exc.name.split(".")[0] in EXTRA_FOR_MODULE:
        return f"Install it with: {install_command(exc.name)}"
    return "Check that the module is installed and importable."
