"""VerifyBench and VerifyBench-Hard (arXiv 2505.15801): reward accuracy by answer type.

Records carry ``question``, ``answer`` (the reference, often a worked solution), ``completion``,
``gold_correct`` (human label) and ``answer_type`` such as ``"C1 - Single Choice"``; its letter gives the
paper's column: A Numeric, B Expression, C Multi-choice, D String. The default source is the Hugging Face
dataset ``ZJU-REAL/VerifyBench`` (splits ``VerifyBench`` and ``VerifyBenchHard``); ``--data`` reads a local
jsonl file or folder of the same fields instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from suites.jsonl import JsonlVerifierSuite
from suites.loading import Records, read_hub, read_local

ANSWER_TYPE_COLUMNS = {"A": "Numeric", "B": "Expression", "C": "Multi-choice", "D": "String"}
HUB_DATASET = "ZJU-REAL/VerifyBench"


class VerifyBenchSuite(JsonlVerifierSuite):
    """VerifyBench protocol: accuracy per answer type (Numeric, Expression, Multi-choice, String) and AVG."""

    column_order = tuple(ANSWER_TYPE_COLUMNS.values())

    def __init__(self, name: str, hub: str, split: str, data: str = "") -> None:
        super().__init__(
            question="question",
            reference="answer",
            completion="completion",
            label="gold_correct",
            category="answer_type",
            uid="completion_id",
            data=data,
            name=name,
        )
        self.hub = hub
        self.split = split

    def default_records(self) -> Records:
        if self.default_data:
            return read_local(self.default_data)
        return read_hub(self.hub, self.split)

    def category_of(self, record: Mapping[str, Any]) -> str:
        answer_type = str(record.get("answer_type", "")).strip()
        return ANSWER_TYPE_COLUMNS.get(answer_type[:1].upper(), "Other")


def verifybench(hub: str = HUB_DATASET, split: str = "VerifyBench", data: str = "") -> VerifyBenchSuite:
    """VerifyBench (2,000 items) from the hub, or a local copy (the ``data`` option or --data)."""
    return VerifyBenchSuite("verifybench", hub, split, data)


def verifybench_hard(hub: str = HUB_DATASET, split: str = "VerifyBenchHard", data: str = "") -> VerifyBenchSuite:
    """VerifyBench-Hard (1,000 contested items) from the hub, or a local copy (the ``data`` option or --data)."""
    return VerifyBenchSuite("verifybench-hard", hub, split, data)


def sample() -> VerifyBenchSuite:
    """Labelled items shipped inside the package, in VerifyBench's format: the zero-setup default."""
    return VerifyBenchSuite("sample", HUB_DATASET, "", data="package:sample.jsonl")
