"""Rule reward throughput against a plain single-process math-verify loop, on the same 2,000 real items.

Run with ``tox -e bench``. Each case runs once (a round is tens of seconds); the table printed at the end
gives items/s, the ratio to the plain loop, measured in the same run, and the share of items the rule reward
decided in the calling process, without math-verify.
"""

from __future__ import annotations

import time

import pytest

from rewards.plain_math_verify import plain_verdict
from rewards.rule import RuleReward

from .conftest import RESULTS
from .workload import HANG_CASES, hang_batch, other_items, real_items


@pytest.fixture(scope="module")
def items():
    return real_items(2000)


def plain_loop(items):
    """math-verify as RL trainers call it (verl 0.9.1's ``compute_score``: the reference boxed), in one process."""
    return [plain_verdict(it.reference, it.completion, gold="boxed") for it in items]


def record(name, n, seconds, decided_here=None):
    RESULTS[name] = {"items": n, "seconds": seconds, "items_per_s": n / seconds}
    if decided_here is not None:
        RESULTS[name]["decided_here"] = decided_here / n


def test_plain_math_verify_loop(benchmark, items):
    start = time.perf_counter()
    benchmark.pedantic(plain_loop, args=(items,), rounds=1, iterations=1)
    record("plain math-verify loop", len(items), time.perf_counter() - start)


@pytest.mark.parametrize("workers", [1, 2])
def test_rule_reward(benchmark, items, workers):
    with RuleReward(workers=workers) as reward:
        reward.start()  # start the workers outside the timing
        start = time.perf_counter()
        scores = benchmark.pedantic(reward.score, args=(items,), rounds=1, iterations=1)
        record(f"rule reward, {workers} worker(s)", len(items), time.perf_counter() - start, reward.decided_here)
    assert len(scores) == len(items)
    assert sum(s.reason == "timeout" for s in scores) <= 5


@pytest.mark.parametrize("workers", [1, 2])
def test_rule_reward_warm(benchmark, items, workers):
    """The reward as a training run meets it after its first steps: the workers have already graded the other
    748 real items of the same sources (math-verify's parser builds its prediction cache as it meets new forms),
    none of them timed here."""
    warm_up = other_items(len(items))
    with RuleReward(workers=workers) as reward:
        reward.score(warm_up)
        reward.decided_here = 0
        start = time.perf_counter()
        scores = benchmark.pedantic(reward.score, args=(items,), rounds=1, iterations=1)
        record(f"rule reward, {workers} worker(s), warm", len(items), time.perf_counter() - start,
               reward.decided_here)
    assert len(scores) == len(items)


def test_rule_reward_batch_with_hang_cases(benchmark, items):
    batch = hang_batch(items[:500])
    with RuleReward(workers=2, timeout=10) as reward:
        reward.start()
        start = time.perf_counter()
        scores = benchmark.pedantic(reward.score, args=(batch,), rounds=1, iterations=1)
        record(f"rule reward, 2 workers, 500 + {len(HANG_CASES)} hang cases", len(batch), time.perf_counter() - start)
    hangs = [s for s, it in zip(scores, batch) if it.question == "hang"]
    assert len(hangs) == len(HANG_CASES) and all(s.verdict is False for s in hangs)
