"""The ``mathverify`` reward: plain math-verify with its own defaults, the row every verifier paper compares against.

Each item is ``verify(parse(reference), parse(completion))`` exactly as math-verify's README writes it: its own
extraction of the answer from the completion, its own parsing and comparison defaults, nothing of this project's
rules. It runs in the same killable worker processes as the ``rule`` reward, so an input that hangs math-verify
scores ``timeout`` and costs only itself, and a table can carry the baseline row beside every other reward with the
same deadlines. Its verdicts equal a plain loop's on the same items (a test checks them on real data).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from rewards.contract import REASON_CRASHED, REASON_MISMATCH, REASON_VERIFIED, ClosesOnExit, Item, Score
from rewards.rule import to_score
from rewards.sandbox import KillablePool, describe


def plain_verdict(reference: str, completion: str) -> bool:
    """math-verify's verdict on one pair, as its README writes it (any exception it raises is a "no")."""
    from math_verify import parse, verify

    try:
        return bool(verify(parse(reference), parse(completion)))
    except BaseException:  # noqa: BLE001 - math-verify's TimeoutException is a BaseException; a plain loop says no
        return False


def _init_worker() -> None:
    logging.getLogger("math_verify").setLevel(logging.ERROR)


def _verify_in_worker(reference: str, completion: str) -> Score:
    try:
        right = plain_verdict(reference, completion)
    except BaseException as exc:  # noqa: BLE001 - nothing escapes the worker
        return Score.failed(REASON_CRASHED, describe(exc))
    return Score.correct(REASON_VERIFIED) if right else Score.incorrect(REASON_MISMATCH)


class MathVerifyReward(ClosesOnExit):
    """Plain math-verify (``verify(parse(reference), parse(completion))``, its defaults) in killable workers with a
    hard per-item ``timeout`` (seconds); ``workers`` defaults to the number of CPUs."""

    def __init__(self, workers: int = 0, timeout: float = 10.0, memory_mb: int = 2048) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.timeout = timeout
        self.memory_mb = memory_mb
        self._pool: KillablePool | None = None

    @property
    def pool(self) -> KillablePool:
        if self._pool is None:
            self._pool = KillablePool(self.workers, self.timeout, memory_limit_mb=self.memory_mb,
                                      initializer=_init_worker, preload=("math_verify",))
        return self._pool

    def score(self, items: Sequence[Item]) -> list[Score]:
        outcomes = self.pool.map(_verify_in_worker, [(it.reference, it.completion) for it in items])
        return [to_score(o) for o in outcomes]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # processes do not travel; the copy starts its own on first use
        return state
