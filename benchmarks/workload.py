"""The fixed benchmark workload: 2,000 (reference, completion) pairs drawn with a fixed seed from the real
labelled data in ../shared/data (ProcessBench with references, MathCheck-GSM, VerifyBench-Hard subset), and
the hang cases that a reward must survive."""

from __future__ import annotations

import random

from rewards import Item
from suites import build_suite
from suites.contract import LabelledItem

HANG_CASES = [
    "\\boxed{5^{5^{5^{5^5}}}}",
    "\\boxed{(10^{8})!}",
    "\\boxed{(10^{8})! + x}",
    "\\boxed{" + "9" * 50_000 + " \\cdot " + "7" * 50_000 + "}",
    "\\boxed{" + "{" * 5_000 + "1" + "}" * 5_000 + "}",
]


def _pool() -> list[LabelledItem]:
    pool: list[LabelledItem] = []
    for spec, data in (
        ("processbench", None),
        ("mathcheck-gsm", None),
        ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench"),
    ):
        pool.extend(build_suite(spec).load(data).rows)
    return pool


def real_rows(n: int = 2000, seed: int = 0) -> list[LabelledItem]:
    """``n`` labelled rows drawn from ProcessBench, MathCheck-GSM and the VerifyBench-Hard subset."""
    return random.Random(seed).sample(_pool(), n)


def other_items(n: int = 2000, seed: int = 0) -> list[Item]:
    """The rows of the same sources that :func:`real_rows` ``(n, seed)`` did not draw (748 for 2,000): a
    warm-up that shares no pair with the timed items."""
    pool = _pool()
    drawn = {id(row) for row in random.Random(seed).sample(pool, n)}
    return [row.item for row in pool if id(row) not in drawn]


def real_items(n: int = 2000, seed: int = 0) -> list[Item]:
    return [row.item for row in real_rows(n, seed)]


def hang_batch(normal: list[Item]) -> list[Item]:
    """``normal`` with the hang cases spread through it."""
    batch = list(normal)
    step = max(1, len(batch) // (len(HANG_CASES) + 1))
    for k, completion in enumerate(HANG_CASES, 1):
        batch.insert(k * step, Item("hang", "x+1", completion))
    return batch
