"""The ``answer-equivalence`` suite: the (gold, prediction, equivalent?) cases of the test suites of Math-Verify,
lighteval, MARIO_EVAL and hendrycks/math, from ``verifier/answer_equivalence_fixtures`` under the data root.

Each library's cases encode its own conventions (decimal commas, units, option letters read from prose), so full
agreement is not expected everywhere; accuracy per category is the agreement with each source. Cases their
source disables are left out; the per-case options of the source tests (match types, precision) are not
reproduced: a reward runs with its defaults, as a user would run it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from harness.core.items import Item, Score
from suites.contract import LabelledItem, Metric, SuiteData
from suites.loading import resolve_data_path
from suites.metrics import verifier_metrics
from suites.sampling import stratified

FIXTURE_DIR = "verifier/answer_equivalence_fixtures"


class AnswerEquivalenceSuite:
    name = "answer-equivalence"

    def load(self, data: str | None = None, limit: int | None = None) -> SuiteData:
        folder = resolve_data_path(data or FIXTURE_DIR)
        rows, digest = [], hashlib.sha256()
        for path in sorted(folder.glob("*.jsonl")):
            text = path.read_text(encoding="utf-8")
            digest.update(text.encode())
            for line in text.splitlines():
                record = json.loads(line)
                if record.get("disabled_in_source"):
                    continue
                item = Item("", str(record["gold"]), str(record["pred"]), {"uid": str(record["id"])})
                rows.append(LabelledItem(item, bool(record["expected_equivalent"]), str(record["source_repo"])))
        rows = stratified(rows, limit)
        return SuiteData(rows, str(folder), digest.hexdigest()[:16], tuple(dict.fromkeys(r.category for r in rows)), "source")

    def metrics(self, data: SuiteData, scores: Sequence[Score]) -> list[Metric]:
        return verifier_metrics([r.label for r in data.rows], scores, [r.category for r in data.rows])
