"""Graders people train with, called from their own released packages: baseline rows that are the peer's own code.

Nothing here re-implements a grader. Each reward imports the released function and calls it as its trainer does,
item by item, with the completion and the reference; what it returns is read as its trainer reads it.

- ``verl-math-verify``: ``verl.utils.reward_score.math_verify.compute_score(solution, ground_truth)`` of verl
  0.9.1 (1.0 or 0.0; its own spawn pool and 30 s deadline; a timeout or an error is 0.0). The Cooper release
  scores its rule reward with it.
- ``verl-dapo``: ``verl.utils.reward_score.math_dapo.compute_score(solution, ground_truth)`` of verl 0.9.1, the
  DAPO recipe's grader (the last 300 characters, an ``Answer:`` line or else the last ``\\boxed{}``, normalised and
  compared as strings; its ``acc`` is the verdict, its ``score`` of 1 or -1 the reward).

Both need ``pip install 'rl-reward-harness[verl]'`` (verl 0.9.1 installs without a GPU; it pins transformers
below 5.11, so it is an extra of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.core.optional import require
from rewards.contract import REASON_CRASHED, REASON_MISMATCH, REASON_VERIFIED, Item, Score
from rewards.sandbox import describe

_MATH_VERIFY = "verl.utils.reward_score.math_verify"
_DAPO = "verl.utils.reward_score.math_dapo"


def _as_score(right: bool, answer: str | None = None) -> Score:
    return Score.correct(REASON_VERIFIED, answer) if right else Score.incorrect(REASON_MISMATCH, answer)


class _ReleasedGrader:
    """Calls one released ``compute_score`` per item in ``threads`` threads (verl's reward managers call it per
    sample; verl's math-verify sends each call to its own process pool, so threads only keep that pool busy)."""

    module: str = ""
    purpose: str = ""

    def __init__(self, threads: int = 4) -> None:
        self.threads = max(1, threads)
        self._compute: Callable[..., Any] | None = None

    @property
    def compute(self) -> Callable[..., Any]:
        if self._compute is None:
            self._compute = require(self.module, self.purpose).compute_score
        return self._compute

    def read(self, returned: Any) -> Score:
        raise NotImplementedError

    def _one(self, item: Item) -> Score:
        try:
            return self.read(self.compute(item.completion, item.reference))
        except Exception as exc:  # noqa: BLE001 - a released grader's error costs its item, never the batch
            return Score.failed(REASON_CRASHED, describe(exc))

    def score(self, items: Sequence[Item]) -> list[Score]:
        self.compute  # noqa: B018 - a missing package is one error before any item, not one per item
        with ThreadPoolExecutor(self.threads) as pool:
            return list(pool.map(self._one, items))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_compute": None}


class VerlMathVerify(_ReleasedGrader):
    """verl 0.9.1's ``math_verify.compute_score``: 1.0 right, 0.0 otherwise (timeouts and errors included)."""

    module = _MATH_VERIFY
    purpose = "the verl-math-verify reward (verl's own math-verify grader)"

    def read(self, returned: Any) -> Score:
        return _as_score(float(returned) >= 1.0)


class VerlDapo(_ReleasedGrader):
    """verl 0.9.1's ``math_dapo.compute_score``: its ``acc`` is the verdict; the answer it read is kept."""

    module = _DAPO
    purpose = "the verl-dapo reward (the DAPO recipe's grader in verl)"

    def read(self, returned: Any) -> Score:
        return _as_score(bool(returned["acc"]), str(returned.get("pred", "")))
