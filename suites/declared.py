"""Verifier suites built from their declarations in ``suites/data/suites.yaml`` (VerifyBench, VerifyBench-Hard,
ProcessBench, MathCheck-GSM, the packaged sample).

Each declared name is an attribute of this module (``suites.declared:verifybench-hard`` in the registry): a
factory whose options are ``data`` (another location), and for a hub dataset ``hub`` and ``split``. A suite
declared with both a file and a hub dataset (VerifyBench) reads the file when ``harness data fetch`` has put it
under the data root (the published bytes, checked by hash), else the hub's copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from suites.declarations import VerifierDeclaration, declarations
from suites.jsonl import JsonlVerifierSuite
from suites.loading import DataError, Records, read_hub, read_local, resolve_data_path


class DeclaredSuite(JsonlVerifierSuite):
    """A labelled jsonl suite whose field names, category rule and default data come from its declaration."""

    def __init__(self, declaration: VerifierDeclaration, data: str = "", hub: str = "", split: str = "") -> None:
        fields = declaration.fields
        super().__init__(
            question=fields["question"], reference=fields["reference"], completion=fields["completion"],
            label=fields["label"], uid=fields.get("uid", ""), data=data, name=declaration.name,
        )
        self.declaration = declaration
        self.column_order = declaration.columns
        self.category_name = declaration.category_name
        self.hub, self.split = hub, split

    def default_records(self) -> Records:
        if self.default_data or not self.hub:
            return super().default_records()
        declared = self.declaration.data
        if declared:
            try:
                resolve_data_path(declared)
            except DataError:
                pass  # not fetched: the hub's copy, if the hub can be reached
            else:
                return read_local(declared)
        try:
            return read_hub(self.hub, self.split)
        except (DataError, ImportError) as exc:
            if not self.declaration.fetch:
                raise
            raise DataError(f"{exc}\nOr fetch the published file once, checked by hash: harness data fetch "
                            f"{self.declaration.fetch} (then {self.name} reads {declared} under the data root)") from exc

    def category_of(self, record: Mapping[str, Any]) -> str:
        return self.declaration.category.of(record)


def _factory(declaration: VerifierDeclaration) -> Callable[..., DeclaredSuite]:
    if declaration.hub:

        def from_hub(data: str = "", hub: str = declaration.hub, split: str = declaration.split) -> DeclaredSuite:
            return DeclaredSuite(declaration, data, hub, split)

        made = from_hub
    else:

        def local(data: str = declaration.data) -> DeclaredSuite:
            return DeclaredSuite(declaration, data)

        made = local
    made.__doc__ = declaration.summary
    made.__qualname__ = made.__name__ = declaration.name
    return made


def __getattr__(name: str) -> Callable[..., DeclaredSuite]:
    declaration = declarations().verifier.get(name)
    if declaration is None:
        raise AttributeError(f"no suite {name!r} is declared in suites.yaml")
    return _factory(declaration)

