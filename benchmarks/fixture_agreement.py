"""Agreement of the rule reward with the answer-equivalence fixtures in ../shared/data, per source.

The fixtures are (gold, pred, expected) cases from the test suites of Math-Verify, lighteval, MARIO_EVAL and
hendrycks/math; each follows its own library's conventions, so 100% is not expected everywhere. Disabled
cases are skipped; per-case options of the source tests (match types, precision) are not reproduced: the
rule reward runs with its defaults, as a user would run it.

    python benchmarks/fixture_agreement.py [--show N] [--data-root PATH]
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from rewards import Item
from rewards.rule import RuleReward
from suites.loading import resolve_data_path

FIXTURE_DIR = "verifier/answer_equivalence_fixtures"


@dataclass(frozen=True)
class Case:
    source: str
    case_id: str
    gold: str
    pred: str
    expected: bool


def load_cases(folder: Path) -> list[Case]:
    cases = []
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("disabled_in_source"):
                continue
            cases.append(Case(r["source_repo"], r["id"], str(r["gold"]), str(r["pred"]), bool(r["expected_equivalent"])))
    return cases


def agreement(reward: RuleReward, cases: list[Case]) -> tuple[dict[str, tuple[int, int]], list[tuple[Case, str]]]:
    scores = reward.score([Item("", c.gold, c.pred) for c in cases])
    per_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for case, score in zip(cases, scores):
        agree = (score.verdict is True) == case.expected
        per_source[case.source][0] += agree
        per_source[case.source][1] += 1
        if not agree:
            misses.append((case, f"{score.reason}: {score.answer!r}"))
    return {k: (v[0], v[1]) for k, v in per_source.items()}, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N disagreements")
    parser.add_argument("--data-root", default=None, help="folder holding verifier/ (default: HARNESS_DATA_ROOT)")
    args = parser.parse_args()
    if args.data_root:
        os.environ["HARNESS_DATA_ROOT"] = args.data_root
    cases = load_cases(resolve_data_path(FIXTURE_DIR))
    with RuleReward(workers=2) as reward:
        per_source, misses = agreement(reward, cases)
    print(f"{'source':<34}{'cases':>7}{'agree':>7}{'agreement':>11}")
    for source, (agree, n) in sorted(per_source.items()):
        print(f"{source:<34}{n:>7}{agree:>7}{100 * agree / n:>10.1f}%")
    total_agree = sum(a for a, _ in per_source.values())
    total = sum(n for _, n in per_source.values())
    print(f"{'all':<34}{total:>7}{total_agree:>7}{100 * total_agree / total:>10.1f}%")
    for case, why in misses[: args.show]:
        print(f"\n{case.case_id} expected={case.expected} got {why}\n  gold: {case.gold[:120]!r}\n  pred: {case.pred[:120]!r}")


if __name__ == "__main__":
    main()
