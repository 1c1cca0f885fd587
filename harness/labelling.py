"""Hybrid annotation (Cooper §3): label (question, reference, completion) triples by agreement.

Each triple is scored by the rule reward and by a judge; triples where both give the same verdict are kept
with that verdict as their label, the rest are dropped. When the input already carries gold labels (a
verifier suite), the report also says how accurate the kept labels are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rewards.contract import Reward, Score
from suites import build_suite
from suites.contract import LabelledItem
from suites.cooper_data import COOPER_COLUMNS, read_cooper_file
from suites.loading import DataError


@dataclass(frozen=True)
class LabelReport:
    total: int
    kept: int
    both_correct: int
    both_incorrect: int
    rule_only_correct: int
    judge_only_correct: int
    judge_unparsed: int
    kept_accuracy_vs_gold: float | None
    rule_accuracy_vs_gold: float | None
    judge_accuracy_vs_gold: float | None

    @property
    def agreement(self) -> float:
        return self.kept / self.total if self.total else 0.0


def _accuracy(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def load_triples(input_file: str | None, suite_spec: str | None, data: str | None, limit: int | None) -> list[LabelledItem]:
    """The triples to label: a file of Cooper's columns (labels optional) or a verifier suite (its labels only
    grade the report)."""
    if bool(input_file) == bool(suite_spec):
        raise DataError("give exactly one of --input FILE and --suite NAME")
    if suite_spec:
        return list(build_suite(suite_spec).load(data, limit).rows)
    return read_cooper_file(input_file, labels=False, limit=limit, option="--input")  # type: ignore[arg-type]


def hybrid_label(
    triples: Sequence[LabelledItem], rule: Reward, judge: Reward, batch_size: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[tuple[LabelledItem, bool]], LabelReport]:
    """(kept triples with their agreed label, report); ``progress(done, total)`` after each batch."""
    items = [t.item for t in triples]
    rule_scores: list[Score] = []
    judge_scores: list[Score] = []
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        rule_scores += rule.score(batch)
        judge_scores += judge.score(batch)
        if progress is not None:
            progress(len(rule_scores), len(items))
    kept = []
    counts = {"both_correct": 0, "both_incorrect": 0, "rule_only_correct": 0, "judge_only_correct": 0}
    for triple, r, j in zip(triples, rule_scores, judge_scores):
        rv, jv = r.verdict is True, j.verdict is True
        key = {(True, True): "both_correct", (False, False): "both_incorrect",
               (True, False): "rule_only_correct", (False, True): "judge_only_correct"}[(rv, jv)]
        counts[key] += 1
        if rv == jv:
            kept.append((triple, rv))
    gold = [(t.label, i) for i, t in enumerate(triples) if t.label is not None]
    report = LabelReport(
        total=len(triples),
        kept=len(kept),
        judge_unparsed=sum(s.reason == "unparsed" for s in judge_scores),
        kept_accuracy_vs_gold=_accuracy([(t.label, label) for t, label in kept if t.label is not None]),
        rule_accuracy_vs_gold=_accuracy([(g, rule_scores[i].verdict is True) for g, i in gold]),
        judge_accuracy_vs_gold=_accuracy([(g, judge_scores[i].verdict is True) for g, i in gold]),
        **counts,
    )
    return kept, report


def write_labelled(kept: Sequence[tuple[LabelledItem, bool]], report: LabelReport, output: Path) -> Path:
    """The labelled jsonl (Cooper's columns, ready for ``harness train-rm --data``) and ``<output>.report.json``."""
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for triple, label in kept:
            values = (triple.item.question, triple.item.reference, triple.item.completion, label)
            fh.write(json.dumps(dict(zip(COOPER_COLUMNS, values)), ensure_ascii=False) + "\n")
    tmp.replace(output)
    report_path = output.with_name(output.name + ".report.json")
    report_path.write_text(json.dumps({**asdict(report), "agreement": report.agreement}, indent=2))
    return report_path


def label_file(
    judge_spec: str, output: Path, *, rule_spec: str = "rule", input_file: str | None = None,
    suite_spec: str | None = None, data: str | None = None, limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[LabelReport, Path]:
    """Hybrid labelling end to end, as ``harness label`` runs it: read the triples, check both rewards can start,
    label, and write the kept triples and the report (atomically); returns (report, report path). The rewards
    are released whatever happens."""
    from harness.core.readiness import ensure_ready
    from rewards import build_reward
    from rewards.contract import close_reward

    triples = load_triples(input_file, suite_spec, data, limit)
    rule, judge = build_reward(rule_spec), build_reward(judge_spec)
    try:
        ensure_ready([rule, judge], "harness label")
        kept, report = hybrid_label(triples, rule, judge, progress=progress)
    finally:
        for reward in (rule, judge):
            close_reward(reward)
    return report, write_labelled(kept, report, Path(output))
