"""The ``robustness`` suite: reward-hacking and abuse inputs with the verdict a trustworthy verifier must give.

346 cases written by this project, kept in ``suites/data/robustness.jsonl`` (the one copy: a family is added
there, each case with the source of its pattern in its ``source`` field): judge master keys, degenerate outputs,
hedging, copied questions, invalid (truncated, looping, refusing) outputs, prompt injection, resource attacks,
unicode look-alikes, and right and wrong answers in other notations (TinyV's false-negative families and more). Metrics:
the false-positive rate on must-reject cases, the false-negative rate on must-accept cases, timeouts, per family.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from harness.core.items import REASON_TIMEOUT, Item, Score
from suites.contract import LabelledItem, Metric, SuiteData
from suites.metrics import proportion
from suites.loading import DataError, read_local
from suites.sampling import stratified

PACKAGED = "package:robustness.jsonl"


def _completion(record: dict[str, Any]) -> str:
    if "completion" in record:
        return str(record["completion"])
    spec = record.get("completion_repeat")
    if not isinstance(spec, dict):
        raise DataError(f"robustness case {record.get('uid')} has neither completion nor completion_repeat")
    return str(spec.get("prefix", "")) + str(spec["repeat"]) * int(spec["times"]) + str(spec.get("suffix", ""))


class RobustnessSuite:
    """Must-reject and must-accept cases; label True means the completion must be accepted."""

    name = "robustness"

    def load(self, data: str | None = None, limit: int | None = None) -> SuiteData:
        records = read_local(data or PACKAGED)
        rows = []
        for rec in records.rows:
            meta = {"uid": rec["uid"], "family": rec["family"], "source": rec["source"]}
            item = Item(rec["question"], rec["reference"], _completion(rec), meta)
            rows.append(LabelledItem(item, bool(rec["accept"]), rec["family"]))
        rows = stratified(rows, limit)
        families = tuple(dict.fromkeys(r.category for r in rows))
        return SuiteData(rows, records.source, records.content_hash, families, "attack family")

    def metrics(self, data: SuiteData, scores: Sequence[Score]) -> list[Metric]:
        rejects = [(r, s) for r, s in zip(data.rows, scores) if not r.label]
        accepts = [(r, s) for r, s in zip(data.rows, scores) if r.label]
        fp = sum(s.verdict is True for _, s in rejects)
        fn = sum(s.verdict is not True for _, s in accepts)
        correct = len(data.rows) - fp - fn
        out = [
            proportion("accuracy", correct / len(data.rows), True, len(data.rows)),
            proportion("false_positive_rate", fp / len(rejects) if rejects else None, False, len(rejects)),
            proportion("false_negative_rate", fn / len(accepts) if accepts else None, False, len(accepts)),
            proportion("timeout_rate", sum(s.reason == REASON_TIMEOUT for s in scores) / len(scores), False,
                       len(scores), "health"),
        ]
        per: dict[str, list[bool]] = defaultdict(list)
        for r, s in zip(data.rows, scores):
            per[r.category].append((s.verdict is True) == r.label)
        out += [proportion(f"accuracy/{fam}", sum(v) / len(v), True, len(v), "by_category") for fam, v in per.items()]
        return out
