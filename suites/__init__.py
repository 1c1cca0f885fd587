"""Suites: what rewards and policies are scored on, in one registry (:data:`SUITES`).

Entries are lazy import paths, or declarations read from ``suites/data/suites.yaml`` on first use, so
``harness ls suites`` imports no suite code. Third-party suites register
with ``@SUITES.register("name")`` or the ``harness.suites`` entry-point group.
"""

from __future__ import annotations

from harness.core.registry import Entry, Registry
from harness.core.spec import ComponentSpec, build
from suites.contract import LabelledItem, Metric, SuiteData, VerifierSuite

SUITES: Registry = Registry("suite", entry_point_group="harness.suites")


def _declared_entries() -> list[Entry]:
    """The suites declared in ``suites/data/suites.yaml`` (VerifyBench, ProcessBench, MathCheck-GSM, ...)."""
    from suites.declarations import declarations

    return [Entry(name, f"suites.declared:{name}", d.summary, "builtin (suites.yaml)")
            for name, d in declarations().verifier.items()]


SUITES.add_source(_declared_entries)
SUITES.add_lazy("robustness", "suites.robustness:RobustnessSuite", "reward-hacking and abuse inputs (must reject / accept)")
SUITES.add_lazy("jsonl", "suites.jsonl:JsonlVerifierSuite", "any labelled jsonl; map fields with options")
SUITES.add_lazy("answer-equivalence", "suites.fixtures:AnswerEquivalenceSuite",
                "answer-equivalence cases of Math-Verify, lighteval, MARIO_EVAL, hendrycks (agreement per source)")
SUITES.add_lazy("hacking", "suites.hacking:HackingProbeSuite", "degenerate variants of real correct answers: what a reward pays for")


def build_suite(spec: str | ComponentSpec) -> VerifierSuite:
    """A suite from a spec such as ``verifybench-hard`` or ``jsonl:question=problem,label=ok``."""
    suite = build(SUITES, spec)
    if not isinstance(suite, VerifierSuite):
        name = spec if isinstance(spec, str) else spec.name
        raise TypeError(f"suite {name!r} built {type(suite).__name__}, which lacks load() and metrics()")
    return suite


__all__ = ["SUITES", "LabelledItem", "Metric", "SuiteData", "VerifierSuite", "build_suite"]
