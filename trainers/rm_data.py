"""Labelled (question, reference, completion, label) rows for reward-model training, and their split.

Rows come from jsonl or parquet files with the column names of Cooper's released VerifyRM data
(``question``, ``reference_answer``, ``completion``, ``label``), or from any registered verifier suite. The
validation split keeps questions apart: every completion of one question lands on the same side, so the
held-out accuracy measures generalisation to new questions, not to new completions of seen ones.

A reward model that scores a GRPO policy is given each question as the policy was asked it (the problem and the
instruction the trainers append, :class:`suites.math_data.Problem`); :func:`policy_item` makes that item from a
row's bare problem, through the one function the trainer scores with (:func:`rewards.inputs.reward_item`), for
its training data (``train-rm --questions policy``), its static checks and its probe.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rewards.contract import Item
from rewards.inputs import reward_item
from suites import build_suite
from suites.contract import LabelledItem
from suites.cooper_data import read_cooper_file
from suites.loading import DataError
from suites.math_data import Problem


def rows_from_suite(spec: str, data: str | None = None) -> list[LabelledItem]:
    loaded = build_suite(spec).load(data)
    return [LabelledItem(r.item, r.label, f"{spec}/{r.category}") for r in loaded.rows]


def split_by_question(
    rows: Sequence[LabelledItem], val_fraction: float, seed: int = 0
) -> tuple[list[LabelledItem], list[LabelledItem]]:
    """(train, validation), deterministic in ``seed``; all rows of a question fall on one side."""
    if not 0.0 < val_fraction < 1.0:
        raise ValueError(f"val_fraction must be between 0 and 1, got {val_fraction}")
    train, val = [], []
    for row in rows:
        digest = hashlib.sha256(f"{seed}\x00{row.item.question}".encode()).digest()
        (val if int.from_bytes(digest[:8], "big") / 2**64 < val_fraction else train).append(row)
    if not train or not val:
        raise DataError(f"the split left an empty side ({len(train)} train, {len(val)} validation); use more data")
    return train, val


def policy_item(question: str, reference: str, completion: str, metadata: dict[str, Any] | None = None) -> Item:
    """The item the GRPO trainer scores for a rollout of the problem ``question``: its prompt as the TRL backend
    writes it (``Problem.messages()``) through :func:`rewards.inputs.reward_item`."""
    return reward_item(Problem(question, reference).messages(), reference, completion, metadata)


def as_policy_asked(rows: Sequence[LabelledItem]) -> list[LabelledItem]:
    """Labelled rows with each item as :func:`policy_item` makes it (labels and categories kept)."""
    return [LabelledItem(policy_item(r.item.question, r.item.reference, r.item.completion, dict(r.item.metadata)),
                         r.label, r.category) for r in rows]


# How ``train-rm`` reads a row's question: as the data gives it, or as a GRPO policy is asked it.
QUESTION_FORMS = {"given": list, "policy": as_policy_asked}


def write_jsonl(rows: Iterable[LabelledItem], path: Path) -> None:
    """Rows in the field names of the generic ``jsonl`` suite, so ``harness eval --suite jsonl`` reads them."""
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            record = {"question": r.item.question, "reference": r.item.reference, "completion": r.item.completion,
                      "label": r.label, "source": r.category}
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def load_training_rows(files: Sequence[str], suites: Sequence[str], limit: int | None = None, seed: int = 0) -> list[LabelledItem]:
    """Rows from every file and suite given; ``limit`` keeps a random sample of that many (for quick runs)."""
    rows: list[LabelledItem] = []
    for path in files:
        rows += read_cooper_file(path)
    for spec in suites:
        rows += rows_from_suite(spec)
    if not rows:
        raise DataError("no training data: give --data FILE (jsonl or parquet) and/or --suite NAME")
    if limit is not None and limit < len(rows):
        import random

        rows = random.Random(seed).sample(rows, limit)
    return rows
