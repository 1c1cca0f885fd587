"""Labelled verifier data in jsonl, with field names mapped by options.

This is the base of every verifier suite here; the declared suites (VerifyBench, ProcessBench, MathCheck, in
``suites/data/suites.yaml``) only fix field names, a default data location and how a record's category is read. On the command line the
field mapping is a suite spec: ``--suite jsonl:question=problem,reference=gold,completion=output,label=ok``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.core.answers import clean_reference
from harness.core.items import Item, Score
from suites.contract import LabelledItem, Metric, SuiteData
from suites.loading import DataError, Records, read_local
from suites.metrics import verifier_metrics
from suites.sampling import stratified

_TRUE = {"true", "correct", "yes", "1"}
_FALSE = {"false", "incorrect", "no", "0"}


def as_text(value: Any) -> str:
    """Field values as text: lists of steps joined by blank lines, integral floats without ``.0``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n\n".join(value)
    raise TypeError(f"expected text, a number or a list of strings, got {type(value).__name__}")


def as_reference(value: Any) -> str:
    """A reference answer: text or a number, cleaned of its typesetting (:func:`clean_reference`). A list or an
    object is refused: which of its parts would be the answer is a guess (a list of one answer, ``["6"]``, read as
    the text ``['6']`` matches nothing)."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return clean_reference(as_text(value))
    raise TypeError(f"the reference must be text or a number, got {type(value).__name__} {str(value)[:60]}; "
                    "give the answer itself (several answers as one text, such as \"1, 2\")")


def as_label(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError(f"cannot read {value!r} as a correct/incorrect label (use true/false, 1/0, Correct/Incorrect)")


class JsonlVerifierSuite:
    """Verifier accuracy on any labelled jsonl: map its fields with options, point ``--data`` at it."""

    column_order: tuple[str, ...] = ()
    category_name: str = ""  # default: the category field's name

    def __init__(
        self,
        question: str = "question",
        reference: str = "reference",
        completion: str = "completion",
        label: str = "label",
        category: str = "",
        uid: str = "",
        data: str = "",
        name: str = "jsonl",
    ) -> None:
        self.name = name
        self.fields = {"question": question, "reference": reference, "completion": completion, "label": label}
        self.category_field = category
        self.uid_field = uid
        self.default_data = data

    # -- loading ------------------------------------------------------------------------------
    def default_records(self) -> Records:
        if not self.default_data:
            raise DataError(f"suite {self.name!r} has no default data; pass --data FILE_OR_FOLDER")
        return read_local(self.default_data)

    def load(self, data: str | None = None, limit: int | None = None) -> SuiteData:
        if limit is not None and limit < 1:
            raise DataError(f"--limit must be a positive number of items, got {limit}")
        records = read_local(data) if data else self.default_records()
        rows = stratified([self._row(record, i, records.where(i)) for i, record in enumerate(records.rows)], limit)
        if not rows:
            raise DataError(f"{records.source} holds no records")
        order = self.column_order or tuple(sorted({r.category for r in rows}))
        kind = self.category_name or (self.category_field.replace("_", " ") if self.category_field else "category")
        return SuiteData(rows, records.source, records.content_hash, order, kind)

    def _field(self, record: Mapping[str, Any], role: str, where: str) -> Any:
        key = self.fields[role]
        if key not in record:
            raise DataError(
                f"{where}: no field {key!r} for the {role} "
                f"(its fields: {', '.join(sorted(record))}); map it with --suite {self.name}:{role}=FIELD"
            )
        return record[key]

    def _row(self, record: Mapping[str, Any], index: int, where: str) -> LabelledItem:
        try:
            question, completion = (as_text(self._field(record, role, where)) for role in ("question", "completion"))
            reference = as_reference(self._field(record, "reference", where))
            label = as_label(self._field(record, "label", where))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, DataError):
                raise
            raise DataError(f"{where}: {exc}") from None
        metadata: dict[str, Any] = {"index": index}
        uid = record.get(self.uid_field) if self.uid_field else None
        metadata["uid"] = str(uid) if uid is not None else str(index)
        category = self.category_of(record)
        metadata["category"] = category
        for extra in ("answer_type", "answer_subtype", "source", "completion_model", "generator"):
            if extra in record and isinstance(record[extra], (str, int, float)):
                metadata[extra] = record[extra]
        return LabelledItem(Item(question, reference, completion, metadata), label, category)

    def category_of(self, record: Mapping[str, Any]) -> str:
        if not self.category_field:
            return "all"
        value = record.get(self.category_field)
        return "unknown" if value is None else str(value)

    # -- scoring ------------------------------------------------------------------------------
    def metrics(self, data: SuiteData, scores: Sequence[Score]) -> list[Metric]:
        return verifier_metrics(
            [r.label for r in data.rows], scores, [r.category for r in data.rows], data.categories
        )
