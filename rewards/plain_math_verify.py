"""The ``mathverify`` reward: plain math-verify, called the way the field calls it; the baseline row of verifier tables.

math-verify's verdict depends on how the caller hands it the reference, and its users do not agree. Each way in use
is a named convention (``gold=``), so a table says which baseline it compares against:

- ``boxed`` (the default): RL trainers' call. verl's ``verl.utils.reward_score.math_verify.compute_score`` (0.9.1;
  Cooper's released trainer scores with it) wraps the reference in ``\\boxed{}``, parses it with LaTeX extraction
  only, parses the completion with expression and LaTeX extraction, and pays when any gold parse verifies against
  any prediction parse.
- ``dollar``: math-verify's README, ``verify(parse("$" + reference + "$"), parse(completion))`` with its defaults.
- ``raw``: ``verify(parse(reference), parse(completion))`` on the bare reference. A reference written in LaTeX
  without delimiters (``\\frac{1}{2}``) then parses to nothing and every answer to it is called wrong: nobody's
  trainer calls it so, and a table that compares against it flatters whatever it compares.

Nothing of this project's rules is added. Each item runs in the same killable worker processes as the ``rule``
reward, so an input that hangs math-verify scores ``timeout`` and costs only itself, and a table can carry the
baseline row beside every other reward with the same deadlines. Its verdicts equal a plain loop's on the same items
(a test checks each convention on real data).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Literal

from rewards.contract import REASON_CRASHED, REASON_MISMATCH, REASON_VERIFIED, ClosesOnExit, Item, Score
from rewards.rule import to_score
from rewards.sandbox import KillablePool, describe

GoldConvention = Literal["boxed", "dollar", "raw"]


def boxed_verdict(reference: str, completion: str) -> bool:
    """verl's call (``math_verify.compute_score``, 0.9.1): the reference boxed and read by LaTeX extraction, the
    completion read by expression and LaTeX extraction; right when any gold parse verifies against a prediction."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    gold = parse("\\boxed{" + reference + "}", (LatexExtractionConfig(),))
    predicted = parse(completion, (ExprExtractionConfig(), LatexExtractionConfig()))
    return bool(gold and predicted and any(verify(g, p) for p in predicted for g in gold))


def dollar_verdict(reference: str, completion: str) -> bool:
    """math-verify's README: the reference in ``$...$``, both parsed and compared with the package's defaults."""
    from math_verify import parse, verify

    return bool(verify(parse(f"${reference}$"), parse(completion)))


def raw_verdict(reference: str, completion: str) -> bool:
    """The bare reference parsed with the defaults: LaTeX without delimiters is not read."""
    from math_verify import parse, verify

    return bool(verify(parse(reference), parse(completion)))


CONVENTIONS: dict[str, Callable[[str, str], bool]] = {
    "boxed": boxed_verdict, "dollar": dollar_verdict, "raw": raw_verdict,
}


def plain_verdict(reference: str, completion: str, gold: GoldConvention = "boxed") -> bool:
    """math-verify's verdict on one pair under a convention; any exception it raises is a "no", as in the callers'
    own loops (verl's returns 0.0 on any error)."""
    try:
        return CONVENTIONS[gold](reference, completion)
    except BaseException:  # noqa: BLE001 - math-verify's TimeoutException is a BaseException; a plain loop says no
        return False


def _init_worker() -> None:
    logging.getLogger("math_verify").setLevel(logging.ERROR)


def _verify_in_worker(gold: GoldConvention, reference: str, completion: str) -> Score:
    try:
        right = plain_verdict(reference, completion, gold)
    except BaseException as exc:  # noqa: BLE001 - nothing escapes the worker
        return Score.failed(REASON_CRASHED, describe(exc))
    return Score.correct(REASON_VERIFIED) if right else Score.incorrect(REASON_MISMATCH)


class MathVerifyReward(ClosesOnExit):
    """Plain math-verify under the convention ``gold`` (``boxed``: verl's, the default; ``dollar``: math-verify's
    README; ``raw``: the bare reference) in killable workers with a hard per-item ``timeout`` (seconds);
    ``workers`` defaults to the number of CPUs."""

    def __init__(self, gold: GoldConvention = "boxed", workers: int = 0, timeout: float = 10.0,
                 memory_mb: int = 2048) -> None:
        if gold not in CONVENTIONS:
            raise ValueError(f"gold must be one of {', '.join(CONVENTIONS)}, got {gold!r}")
        self.gold = gold
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
        outcomes = self.pool.map(_verify_in_worker, [(self.gold, it.reference, it.completion) for it in items])
        return [to_score(o) for o in outcomes]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # processes do not travel; the copy starts its own on first use
        return state
