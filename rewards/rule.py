"""The ``rule`` reward: math-verify with answer extraction, run in killable worker processes."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence

from rewards.contract import REASON_CRASHED, REASON_OUT_OF_MEMORY, REASON_TIMEOUT, Item, Score
from rewards.math_grading import GradingConfig, MathGrader
from rewards.sandbox import FAILURE_MEMORY, FAILURE_TIMEOUT, KillablePool, Outcome, describe

_GRADER: MathGrader | None = None  # one per worker process, set by the pool initializer


def _init_grader(config: GradingConfig) -> None:
    global _GRADER
    # math-verify logs a warning per internal timeout; in a worker that is noise, the score records it.
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    _GRADER = MathGrader(config)


def _grade_in_worker(question: str, reference: str, completion: str) -> Score:
    assert _GRADER is not None, "worker was not initialised"
    try:
        return _GRADER.grade(reference, completion, question)
    except MemoryError as exc:
        return Score.failed(REASON_OUT_OF_MEMORY, describe(exc))
    except BaseException as exc:  # noqa: BLE001 - math-verify's TimeoutException is a BaseException
        # A signal-based timeout that fired outside math-verify's own handlers is still a timeout.
        reason = REASON_TIMEOUT if type(exc).__name__ == "TimeoutException" else REASON_CRASHED
        return Score.failed(reason, describe(exc))


class RuleReward:
    """Rule-based verifier: extracts the final answer and checks it against the reference with math-verify.

    Each item runs in a worker process with a hard ``timeout`` (seconds); a hung or crashed item scores 0 with
    reason ``timeout`` or ``crashed`` and the rest of the batch is unaffected. ``workers`` defaults to the
    number of CPUs. ``fallback_chars=0`` makes extraction strict (no answer without an anchor such as
    ``\\boxed{}`` or "The answer is").
    """

    def __init__(
        self,
        workers: int = 0,
        timeout: float = 10.0,
        memory_mb: int = 2048,
        float_rounding: int = 6,
        numeric_precision: int = 15,
        strict: bool = True,
        fallback_chars: int = 200,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.config = GradingConfig(
            float_rounding=float_rounding,
            numeric_precision=numeric_precision,
            strict=strict,
            # math-verify's own alarms fire well inside our hard deadline, so the common slow case is
            # handled without killing the worker.
            math_verify_timeout=max(1, int(timeout // 4)),
            fallback_chars=fallback_chars,
        )
        self._pool: KillablePool | None = None
        self.last_latencies: list[float] = []

    @property
    def pool(self) -> KillablePool:
        if self._pool is None:
            self._pool = KillablePool(
                self.workers,
                self.timeout,
                memory_limit_mb=self.memory_mb,
                initializer=_init_grader,
                initargs=(self.config,),
                preload=("rewards.math_grading", "math_verify"),
            )
        return self._pool

    def score(self, items: Sequence[Item]) -> list[Score]:
        return [s for s, _ in self.score_timed(items)]

    def score_timed(self, items: Sequence[Item]) -> list[tuple[Score, float]]:
        """Scores with the seconds each item took in its worker (the deadline for killed items)."""
        outcomes = self.pool.map(_grade_in_worker, [(it.question, it.reference, it.completion) for it in items])
        return [(_to_score(o), o.seconds) for o in outcomes]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> RuleReward:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # processes do not travel; the copy starts its own on first use
        return state


_FAILURE_REASONS = {FAILURE_TIMEOUT: REASON_TIMEOUT, FAILURE_MEMORY: REASON_OUT_OF_MEMORY}


def _to_score(outcome: Outcome[Score]) -> Score:
    if outcome.value is not None:
        return outcome.value
    return Score.failed(_FAILURE_REASONS.get(outcome.failure or "", REASON_CRASHED), outcome.detail)
