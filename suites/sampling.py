"""``--limit N``: a reproducible sample of N rows across a suite's subsets and labels, not its first N rows.

The first rows of a suite are rarely a fair part of it: ProcessBench's file starts with 400 GSM8K items, most of
them labelled wrong, so its first 200 are one subset and almost one label (precision 0, recall undefined). A limit
takes from every (category, label) stratum in proportion to its size, at least one row from each while N allows,
chosen by a seeded generator, and keeps the file's order, so the same N and seed give the same items everywhere.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from suites.contract import LabelledItem

T = TypeVar("T", bound=LabelledItem)
SEED = 0


def sampled(rows: Sequence[T], limit: int | None, seed: int = SEED) -> list[T]:
    """``limit`` rows drawn uniformly at random (seeded: the same limit, the same rows), in their original order;
    all of them when ``limit`` is None or not smaller. A benchmark's first rows are often its easiest."""
    if limit is None or limit >= len(rows):
        return list(rows)
    return [rows[i] for i in sorted(random.Random(seed).sample(range(len(rows)), limit))]


def stratified(rows: Sequence[T], limit: int | None, seed: int = SEED) -> list[T]:
    """``limit`` rows of ``rows`` spread over their (category, label) strata (all of them when ``limit`` is None or
    not smaller), in their original order."""
    if limit is None or limit >= len(rows):
        return list(rows)
    strata: dict[tuple[str, object], list[int]] = {}
    for i, row in enumerate(rows):
        strata.setdefault((row.category, row.label), []).append(i)
    keys = sorted(strata, key=lambda k: (k[0], str(k[1])))
    # largest remainder: each stratum its proportional share, at least one while the limit allows
    shares = {k: len(strata[k]) * limit / len(rows) for k in keys}
    counts = {k: int(shares[k]) for k in keys}
    for k in keys:
        if counts[k] == 0 and sum(counts.values()) < limit:
            counts[k] = 1
    for k in sorted(keys, key=lambda k: shares[k] - int(shares[k]), reverse=True):
        if sum(counts.values()) >= limit:
            break
        if counts[k] < len(strata[k]):
            counts[k] += 1
    while sum(counts.values()) > limit:  # the minimum of one per stratum overshot: trim the largest
        counts[max(keys, key=lambda k: counts[k])] -= 1
    rng = random.Random(seed)
    chosen = sorted(i for k in keys for i in rng.sample(strata[k], counts[k]))
    return [rows[i] for i in chosen]
