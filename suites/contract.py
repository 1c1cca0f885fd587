"""What a reward-evaluation suite is: labelled items in, metrics out.

A suite loads :class:`LabelledItem` rows (an item, the benchmark's "is this completion correct" label, and a
category such as VerifyBench's answer type) and turns one :class:`~rewards.contract.Score` per row into
:class:`Metric` values. Metrics say how they aggregate and whether higher is better, so that tables and
comparisons need no per-metric knowledge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from harness.core.items import Item, Score
from harness.core.store import Metric  # noqa: F401 - the one metric type, re-exported for suites


@dataclass(frozen=True)
class LabelledItem:
    """An item with its "is this completion correct" label (None where the data has none: triples to label) and
    a category (VerifyBench's answer type, a source). The one labelled-item type of the project: suites, reward-
    model training and hybrid labelling all use it."""

    item: Item
    label: bool | None
    category: str = ""


@dataclass(frozen=True)
class SuiteData:
    """Loaded rows plus where they came from (a path or hub id) and a content hash, for the run store."""

    rows: list[LabelledItem]
    source: str
    content_hash: str
    categories: tuple[str, ...] = field(default_factory=tuple)
    category_name: str = "category"  # what a category is here, for table titles: "answer type", "attack family"


@runtime_checkable
class VerifierSuite(Protocol):
    """A reward-accuracy suite. ``data`` overrides where rows are read from; ``limit`` keeps a sample of N across its subsets and labels (:mod:`suites.sampling`)."""

    name: str

    def load(self, data: str | None = None, limit: int | None = None) -> SuiteData: ...

    def metrics(self, data: SuiteData, scores: Sequence[Score]) -> list[Metric]: ...
