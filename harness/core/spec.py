"""Component specs on the command line: ``rule`` or ``verifyrm:model=PATH,threshold=0.5``.

A spec names a registry entry and gives keyword options as strings. :func:`bind_options` checks the keys
against the component's constructor signature and converts each value to the annotated type, so that a typo
fails before any work starts, with the list of valid keys.

A value in square brackets may hold commas and colons, so that a spec can contain specs:
``cascade:first=rule,then=[cooper:model=rm,negatives=perturb]``. Inside brackets, ``;`` separates the items of a
list option: ``mean:rewards=[rule;verifyrm:model=rm],weights=[0.3;0.7]``.
"""

from __future__ import annotations

import difflib
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from harness.core.errors import UserError
from harness.core.registry import Registry

T = TypeVar("T")


class SpecError(UserError, ValueError):
    """A spec is malformed, names an unknown option, or gives a value of the wrong type."""


@dataclass(frozen=True)
class ComponentSpec:
    name: str
    options: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> ComponentSpec:
        text = text.strip()
        name, sep, rest = text.partition(":")
        name = name.strip()
        if not name:
            raise SpecError(f"empty name in spec {text!r}; expected NAME or NAME:key=value,key=value")
        options: dict[str, str] = {}
        if sep and rest.strip():
            for part in _top_level_parts(rest, text):
                key, eq, value = part.partition("=")
                key = key.strip()
                if not eq or not key:
                    raise SpecError(
                        f"bad option {part.strip()!r} in spec {text!r}; options are written key=value, "
                        "separated by commas"
                    )
                if key in options:
                    raise SpecError(f"option {key!r} is given twice in spec {text!r}")
                value = value.strip()
                if value.startswith("[") and value.endswith("]"):
                    value = value[1:-1].strip()
                options[key] = value
        return cls(name, options)

    def without(self, *keys: str) -> ComponentSpec:
        """This spec less some options (a seed, to group the runs of one setting)."""
        return ComponentSpec(self.name, {k: v for k, v in self.options.items() if k not in keys})

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_quoted(v)}" for k, v in self.options.items())


def _quoted(value: str) -> str:
    return f"[{value}]" if any(c in value for c in ",:;[]") else value


def _split_outside_brackets(text: str, separator: str, spec: str) -> list[str]:
    """``text`` split at the separators outside square brackets; unbalanced brackets fail, naming ``spec``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise SpecError(f"unbalanced ']' in spec {spec!r}")
        elif ch == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise SpecError(f"unclosed '[' in spec {spec!r}")
    parts.append(text[start:])
    return parts


def _top_level_parts(rest: str, text: str) -> list[str]:
    """``rest`` split at the commas outside square brackets."""
    return _split_outside_brackets(rest, ",", text)


def split_list(raw: str) -> list[str]:
    """The items of a list option: separated by ``;`` outside nested brackets."""
    items = [item.strip() for item in _split_outside_brackets(raw, ";", raw)]
    return [item[1:-1] if item.startswith("[") and item.endswith("]") else item for item in items if item]


def _signature_target(factory: Callable[..., Any]) -> Callable[..., Any]:
    return factory.__init__ if inspect.isclass(factory) else factory  # type: ignore[misc]


def option_types(factory: Callable[..., Any]) -> dict[str, tuple[Any, Any]]:
    """Keyword options of ``factory``: name -> (annotated type, default or ``inspect.Parameter.empty``)."""
    target = _signature_target(factory)
    hints = typing.get_type_hints(target)
    params = inspect.signature(target).parameters
    out = {}
    for pname, param in params.items():
        if pname == "self" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        out[pname] = (hints.get(pname, str), param.default)
    return out


def _convert(raw: str, annotation: Any) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        if type(None) in args and raw.lower() in ("none", "null", ""):
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _convert(raw, arg)
            except (TypeError, ValueError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors))
    if origin in (list, tuple) or annotation in (list, tuple):
        (inner,) = typing.get_args(annotation)[:1] or (str,)
        values = [_convert(item, inner) for item in split_list(raw)]
        return tuple(values) if origin is tuple else values
    if origin is Literal:
        allowed = typing.get_args(annotation)
        for choice in allowed:
            if str(choice) == raw:
                return choice
        raise ValueError(f"expected one of {', '.join(map(str, allowed))}")
    if annotation is bool:
        lowered = raw.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if annotation is int:
        return int(raw)
    if annotation is float:
        return float(raw)
    if annotation in (Path,):
        return Path(raw).expanduser()
    if annotation in (str, Any, inspect.Parameter.empty):
        return raw
    raise TypeError(f"options of type {annotation!r} cannot be given in a spec")


def bind_options(factory: Callable[..., Any], options: Mapping[str, str], *, what: str) -> dict[str, Any]:
    """Convert spec options to the keyword arguments of ``factory``; ``what`` names it in errors."""
    known = option_types(factory)
    kwargs: dict[str, Any] = {}
    for key, raw in options.items():
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            valid = ", ".join(sorted(known)) or "none"
            raise SpecError(f"{what} has no option {key!r}{hint} (valid options: {valid})")
        annotation, _ = known[key]
        try:
            kwargs[key] = _convert(raw, annotation)
        except (TypeError, ValueError) as exc:
            raise SpecError(f"{what}: bad value {raw!r} for option {key!r}: {exc}") from None
    missing = [k for k, (_, default) in known.items() if default is inspect.Parameter.empty and k not in kwargs]
    if missing:
        raise SpecError(f"{what} needs the option(s) {', '.join(missing)} (write them as key=value)")
    return kwargs


def build(registry: Registry[Callable[..., T]], spec: str | ComponentSpec) -> T:
    """Instantiate the registry entry named by ``spec`` with its options."""
    parsed = spec if isinstance(spec, ComponentSpec) else ComponentSpec.parse(spec)
    factory = registry.get(parsed.name)
    kwargs = bind_options(factory, parsed.options, what=f"{registry.kind} {parsed.name!r}")
    return factory(**kwargs)
