"""Labelled (question, reference, completion, label) rows for reward-model training, and their split.

Rows come from jsonl or parquet files with the column names of Cooper's released VerifyRM data
(``question``, ``reference_answer``, ``completion``, ``label``), or from any registered verifier suite. The
validation split keeps questions apart: every completion of one question lands on the same side, so the
held-out accuracy measures generalisation to new questions, not to new completions of seen ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.optional import require
from suites import build_suite
from suites.jsonl import as_label, as_text
from suites.loading import DataError, resolve_data_path

COOPER_COLUMNS = ("question", "reference_answer", "completion", "label")


@dataclass(frozen=True)
class LabelledRow:
    question: str
    reference: str
    completion: str
    label: bool
    source: str


def _records(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        pq = require("pyarrow.parquet", "reading parquet training data")
        return pq.read_table(path).to_pylist()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    raise DataError(f"{path}: training data must be .jsonl or .parquet")


def rows_from_file(path: str) -> list[LabelledRow]:
    resolved = resolve_data_path(path)
    out = []
    for i, rec in enumerate(_records(resolved)):
        missing = [c for c in COOPER_COLUMNS if c not in rec]
        if missing:
            raise DataError(
                f"{resolved}: row {i} lacks {', '.join(missing)}; training files need the columns "
                f"{', '.join(COOPER_COLUMNS)} (or train from a suite with --suite)"
            )
        out.append(
            LabelledRow(as_text(rec["question"]), as_text(rec["reference_answer"]), as_text(rec["completion"]),
                        as_label(rec["label"]), resolved.name)
        )
    return out


def rows_from_suite(spec: str, data: str | None = None) -> list[LabelledRow]:
    loaded = build_suite(spec).load(data)
    return [
        LabelledRow(r.item.question, r.item.reference, r.item.completion, r.label, f"{spec}/{r.category}")
        for r in loaded.rows
    ]


def split_by_question(
    rows: Sequence[LabelledRow], val_fraction: float, seed: int = 0
) -> tuple[list[LabelledRow], list[LabelledRow]]:
    """(train, validation), deterministic in ``seed``; all rows of a question fall on one side."""
    if not 0.0 < val_fraction < 1.0:
        raise ValueError(f"val_fraction must be between 0 and 1, got {val_fraction}")
    train, val = [], []
    for row in rows:
        digest = hashlib.sha256(f"{seed}\x00{row.question}".encode()).digest()
        (val if int.from_bytes(digest[:8], "big") / 2**64 < val_fraction else train).append(row)
    if not train or not val:
        raise DataError(f"the split left an empty side ({len(train)} train, {len(val)} validation); use more data")
    return train, val


def write_jsonl(rows: Iterable[LabelledRow], path: Path) -> None:
    """Rows in the field names of the generic ``jsonl`` suite, so ``harness eval --suite jsonl`` reads them."""
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            record = asdict(r)
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def load_training_rows(files: Sequence[str], suites: Sequence[str], limit: int | None = None, seed: int = 0) -> list[LabelledRow]:
    """Rows from every file and suite given; ``limit`` keeps a random sample of that many (for quick runs)."""
    rows: list[LabelledRow] = []
    for path in files:
        rows += rows_from_file(path)
    for spec in suites:
        rows += rows_from_suite(spec)
    if not rows:
        raise DataError("no training data: give --data FILE (jsonl or parquet) and/or --suite NAME")
    if limit is not None and limit < len(rows):
        import random

        rows = random.Random(seed).sample(rows, limit)
    return rows
