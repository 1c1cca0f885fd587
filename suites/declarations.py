"""The declared suites of ``suites/data/suites.yaml``, read as data: no suite code is imported here, so the
registry can list them (``harness ls suites``) before anyone builds one.

A declaration that does not say what a suite needs fails when the file is read, naming the suite and the key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

DECLARATIONS = "suites.yaml"
_ROLES = ("question", "reference", "completion", "label")


class DeclarationError(ValueError):
    """``suites.yaml`` does not say what a suite needs; the message names the suite and the key."""


@dataclass(frozen=True)
class CategoryRule:
    """How a record's category is read: the value of ``field``, cut before the last ``before_last``, or its first
    letter mapped by ``first_letter`` (then ``other`` for a letter not in the map). No field: every record is
    ``all``; a record without the field: ``unknown``."""

    field: str = ""
    before_last: str = ""
    first_letter: Mapping[str, str] = dataclasses.field(default_factory=dict)
    other: str = "unknown"

    def of(self, record: Mapping[str, Any]) -> str:
        if not self.field:
            return "all"
        value = record.get(self.field)
        text = "" if value is None else str(value)
        if self.before_last:
            text = text.rsplit(self.before_last, 1)[0]
        if self.first_letter:
            return self.first_letter.get(text.strip()[:1].upper(), self.other)
        return "unknown" if value is None else text


@dataclass(frozen=True)
class VerifierDeclaration:
    """A reward-accuracy suite that is only data and field names."""

    name: str
    summary: str
    fields: Mapping[str, str]  # question, reference, completion, label, and optionally uid
    category: CategoryRule
    category_name: str = "category"
    columns: tuple[str, ...] = ()
    data: str = ""  # default location: under the data root, or package:FILE
    hub: str = ""  # or a Hugging Face dataset ...
    split: str = ""  # ... and its split
    fetch: str = ""  # the `harness data fetch` set that puts ``data`` in place, where one does


@dataclass(frozen=True)
class PolicyDeclaration:
    """A math benchmark for policies: where its files are, how a prompt and a reference are read from a record."""

    name: str
    display: str
    files: tuple[str, ...]
    question: str  # a template over the record's fields: "{Body} {Question}"
    answer: str  # the field holding the reference
    parse: str = "text"  # how the reference is read (suites.math_benchmarks names the parsers)
    reader: str = "jsonl"  # how the files are laid out (suites.math_benchmarks names the readers)


@dataclass(frozen=True)
class Declarations:
    verifier: Mapping[str, VerifierDeclaration]
    policy: Mapping[str, PolicyDeclaration]
    cooper_table3: tuple[str, ...]


def _require(entry: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise DeclarationError(f"{DECLARATIONS}: {where} has no {key!r}")
    return entry[key]


def _verifier(name: str, entry: Mapping[str, Any]) -> VerifierDeclaration:
    where = f"verifier suite {name!r}"
    fields = dict(_require(entry, "fields", where))
    missing = [role for role in _ROLES if role not in fields]
    if missing:
        raise DeclarationError(f"{DECLARATIONS}: {where} maps no field for {', '.join(missing)}")
    hub = entry.get("hub") or {}
    if not entry.get("data") and not hub:
        raise DeclarationError(f"{DECLARATIONS}: {where} needs a default 'data' location or a 'hub' dataset")
    try:
        category = CategoryRule(**entry.get("category", {}))
    except TypeError as exc:
        raise DeclarationError(f"{DECLARATIONS}: {where}: category: {exc}") from None
    return VerifierDeclaration(
        name, str(entry.get("summary", "")), fields, category, str(entry.get("category_name", "category")),
        tuple(entry.get("columns", ())), str(entry.get("data", "")), str(hub.get("dataset", "")),
        str(hub.get("split", "")), str(entry.get("fetch", "")),
    )


def _policy(name: str, entry: Mapping[str, Any]) -> PolicyDeclaration:
    where = f"policy benchmark {name!r}"
    return PolicyDeclaration(
        name, str(entry.get("display", name)), tuple(_require(entry, "files", where)),
        str(_require(entry, "question", where)), str(_require(entry, "answer", where)),
        str(entry.get("parse", "text")), str(entry.get("reader", "jsonl")),
    )


def parse_declarations(document: Mapping[str, Any]) -> Declarations:
    """Declarations from the parsed YAML document (checked: a missing key fails here, not at scoring time)."""
    policy = {name: _policy(name, entry) for name, entry in (document.get("policy") or {}).items()}
    table3 = tuple(document.get("cooper_table3") or ())
    unknown = [b for b in table3 if b not in policy]
    if unknown:
        raise DeclarationError(f"{DECLARATIONS}: cooper_table3 names benchmarks not declared: {', '.join(unknown)}")
    verifier = {name: _verifier(name, entry) for name, entry in (document.get("verifier") or {}).items()}
    return Declarations(verifier, policy, table3)


@cache
def declarations() -> Declarations:
    """The shipped declarations, read once."""
    import yaml

    return parse_declarations(yaml.safe_load(files("suites").joinpath("data", DECLARATIONS).read_text("utf-8")))
