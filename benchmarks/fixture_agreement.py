"""Agreement of the rule reward with the answer-equivalence fixtures in ../shared/data, per source (the
``answer-equivalence`` suite).

    python benchmarks/fixture_agreement.py [--show N] [--data-root PATH]
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict

from rewards.rule import RuleReward
from suites import build_suite


def agreement(reward: RuleReward) -> tuple[dict[str, tuple[int, int]], list[tuple[object, str]]]:
    """(per source: (agreeing, cases)), the disagreements with the reward's reason and answer."""
    data = build_suite("answer-equivalence").load()
    scores = reward.score([r.item for r in data.rows])
    per_source: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for row, score in zip(data.rows, scores):
        agree = (score.verdict is True) == row.label
        per_source[row.category][0] += agree
        per_source[row.category][1] += 1
        if not agree:
            misses.append((row, f"{score.reason}: {score.answer!r}"))
    return {k: (v[0], v[1]) for k, v in per_source.items()}, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print up to N disagreements")
    parser.add_argument("--data-root", default=None, help="folder holding verifier/ (default: HARNESS_DATA_ROOT)")
    args = parser.parse_args()
    if args.data_root:
        os.environ["HARNESS_DATA_ROOT"] = args.data_root
    with RuleReward(workers=2) as reward:
        per_source, misses = agreement(reward)
    print(f"{'source':<34}{'cases':>7}{'agree':>7}{'agreement':>11}")
    for source, (agree, n) in sorted(per_source.items()):
        print(f"{source:<34}{n:>7}{agree:>7}{100 * agree / n:>10.1f}%")
    total_agree = sum(a for a, _ in per_source.values())
    total = sum(n for _, n in per_source.values())
    print(f"{'all':<34}{total:>7}{total_agree:>7}{100 * total_agree / total:>10.1f}%")
    for row, why in misses[: args.show]:
        print(f"\n{row.item.uid} expected={row.label} got {why}\n  gold: {row.item.reference[:120]!r}\n"
              f"  pred: {row.item.completion[:120]!r}")


if __name__ == "__main__":
    main()
