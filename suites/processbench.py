"""ProcessBench (arXiv 2412.06559) with reference answers, as an outcome-verification suite.

The label is ``final_answer_correct``; the completion a verifier sees is the solution's ``steps`` joined by
blank lines; the category is the subset (``gsm8k``, ``math``) taken from the record id. The default data is
``verifier/processbench/with_reference`` under the data root (the hub copy has no reference answers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from suites.jsonl import JsonlVerifierSuite


class ProcessBenchSuite(JsonlVerifierSuite):
    """ProcessBench final-answer correctness against the joined reference answers."""

    def __init__(self, data: str = "verifier/processbench/with_reference") -> None:
        super().__init__(
            question="problem",
            reference="reference_answer",
            completion="steps",
            label="final_answer_correct",
            uid="id",
            data=data,
            name="processbench",
        )

    def category_of(self, record: Mapping[str, Any]) -> str:
        return str(record.get("id", "unknown")).rsplit("-", 1)[0]
