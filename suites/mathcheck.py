"""MathCheck-GSM outcome judging (arXiv 2407.08733): is a step-by-step solution's final answer correct?

Categories are MathCheck's question variants (seed, problem understanding, distractor insertion, scenario
understanding). Default data: ``verifier/mathcheck_gsm/outcome_judging_with_reference.jsonl``.
"""

from __future__ import annotations

from suites.jsonl import JsonlVerifierSuite


class MathCheckGSMSuite(JsonlVerifierSuite):
    """MathCheck-GSM outcome judging with gold numeric answers, by question variant."""

    def __init__(self, data: str = "verifier/mathcheck_gsm/outcome_judging_with_reference.jsonl") -> None:
        super().__init__(
            question="question",
            reference="reference_answer",
            completion="solution",
            label="label",
            category="question_type",
            uid="id",
            data=data,
            name="mathcheck-gsm",
        )
