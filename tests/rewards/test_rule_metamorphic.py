"""The metamorphic property of the rule reward (``tests/rewards/metamorphic.py``): an answer that changes the
reference's value is never paid, and the reference itself (or a list or set in another order) always is.

The test command runs the first ``HARNESS_METAMORPHIC_CASES`` cases (300 by default); ``tox -e metamorphic``
runs 100,000 in one go and prints the count per family (``HARNESS_METAMORPHIC_WORKERS`` workers, 2 by default)."""

from __future__ import annotations

import itertools
import os
from collections import Counter

from rewards import Item
from rewards.rule import RuleReward

from .metamorphic import cases

_BATCH = 400


def test_a_changed_value_is_never_paid_and_the_same_value_always_is():
    total = int(os.environ.get("HARNESS_METAMORPHIC_CASES", "300"))
    seen: Counter[str] = Counter()
    failures = []
    stream = cases(seed=int(os.environ.get("HARNESS_METAMORPHIC_SEED", "0")))
    workers = int(os.environ.get("HARNESS_METAMORPHIC_WORKERS", "2"))
    with RuleReward(workers=workers, timeout=10) as reward:
        done = 0
        while done < total:
            batch = list(itertools.islice(stream, min(_BATCH, total - done)))
            scores = reward.score([Item("", c.reference, c.text()) for c in batch])
            for case, score in zip(batch, scores):
                seen[case.family] += 1
                if (score.verdict is True) != case.paid:
                    failures.append((case, score.reason, score.detail))
            done += len(batch)
    print(f"\nmetamorphic: {done} cases, {len(failures)} failing, {len(seen)} families")
    for family, n in sorted(seen.items()):
        print(f"  {family}: {n}")
    assert not failures, "\n".join(f"{c.family}: {c.reference!r} vs {c.answer!r} -> {r} {d}" for c, r, d in failures[:30])
