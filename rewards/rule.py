"""The ``rule`` reward: math-verify with answer extraction, run in killable worker processes."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from rewards.contract import REASON_CRASHED, REASON_OUT_OF_MEMORY, REASON_TIMEOUT, ClosesOnExit, Item, Score
from rewards.math.grader import GradingConfig, MathGrader
from rewards.math.latex_numbers import use_direct_integers
from rewards.math.prediction import use_two_stage_prediction
from rewards.sandbox import FAILURE_MEMORY, FAILURE_TIMEOUT, KillablePool, Outcome, Submitter, describe

_GRADER: MathGrader | None = None  # one per worker process, set by the pool initializer
# Items per worker task. The items that reach the workers are math-verify's slow ones (25 ms on average against
# 0.07 ms of pool overhead), so chunks stay small: they keep the two workers evenly loaded.
_CHUNK = 4
_RECENT_ITEMS = 4096  # about two training steps of rollouts
_MAX_CHARS_HERE = 50_000  # larger completions are decided in a worker, where a deadline can stop them


def _init_grader(config: GradingConfig) -> None:
    global _GRADER
    # math-verify logs a warning per internal timeout; in a worker that is noise, the score records it.
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    use_two_stage_prediction()
    use_direct_integers()
    from rewards.math.dfa.snapshot import load_shipped  # ANTLR's classes: imported where parses happen

    load_shipped()  # a cold worker starts with the automaton a warm one has built (False: it builds its own)
    _GRADER = MathGrader(config)


def _grade_in_worker(question: str, reference: str, completion: str) -> Score:
    # imported here: the worker has math-verify loaded already; the calling process never needs it (sympy and
    # ANTLR cost a fifth of a second of every command's start-up)
    from math_verify.errors import TimeoutException as MathVerifyTimeout

    assert _GRADER is not None, "worker was not initialised"
    try:
        return _GRADER.grade(reference, completion, question)
    except MemoryError as exc:
        return Score.failed(REASON_OUT_OF_MEMORY, describe(exc))
    except MathVerifyTimeout as exc:  # a signal-based timeout that fired outside math-verify's own handlers
        return Score.failed(REASON_TIMEOUT, describe(exc))
    except BaseException as exc:  # noqa: BLE001 - nothing a grader raises escapes the worker
        return Score.failed(REASON_CRASHED, describe(exc))


class RuleReward(ClosesOnExit):
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
        self._starting: threading.Thread | None = None  # start_early's thread, joined by close
        self._grader = MathGrader(self.config)  # the pure rules only; sympy is imported by the workers
        self._recent: OrderedDict[tuple[str, str, str], Score] = OrderedDict()  # the last items scored, by text
        self._recent_lock = threading.Lock()
        self.decided_here = 0  # items decided without a worker, and sent to one: the fast path's share
        self.sent_to_workers = 0

    @property
    def pool(self) -> KillablePool:
        if self._pool is None:
            self._pool = KillablePool(
                self.workers,
                self.timeout,
                memory_limit_mb=self.memory_mb,
                initializer=_init_grader,
                initargs=(self.config,),
                preload=("rewards.math.grader", "math_verify"),
            )
        return self._pool

    def start_early(self) -> None:
        """Start the workers in a thread of this process's own and return: a command reads its data meanwhile."""
        if self._starting is None and self._pool is None:
            self._starting = threading.Thread(target=self.pool.start, name="rule-reward-start", daemon=True)
            self._starting.start()

    def start(self) -> None:
        """Start the workers and load math-verify in them now rather than on the first item that needs it."""
        self.pool.map(_grade_in_worker, [("", "x+1", "\\boxed{1+x}")] * self.workers)

    def score(self, items: Sequence[Item]) -> list[Score]:
        """The items' scores; an item scored lately (the same question, reference and completion) is given its
        score again without grading it twice: a training step's rollouts are checked by the trainer and by a
        reward that learns from them (Cooper). Failures are not kept: an item that timed out is tried again."""
        keys = [(it.question, it.reference, it.completion) for it in items]
        with self._recent_lock:
            known = [self._recent.get(key) for key in keys]
        missing = [i for i, score in enumerate(known) if score is None]
        for i, (score, _) in zip(missing, self.score_timed([items[i] for i in missing])):
            known[i] = score
        with self._recent_lock:
            for i in missing:
                if not known[i].is_failure:  # type: ignore[union-attr]
                    self._recent[keys[i]] = known[i]  # type: ignore[assignment]
            while len(self._recent) > _RECENT_ITEMS:
                self._recent.popitem(last=False)
        return known  # type: ignore[return-value]

    def score_timed(self, items: Sequence[Item]) -> list[tuple[Score, float]]:
        """Scores with the seconds each item took (in its worker, or here; the deadline for killed items).

        Items that the grader's pure rules decide (plain numbers, exact rationals, identical forms, option
        letters, ...) are decided in this process, with no round trip; only the rest go to the workers, in
        chunks."""
        results: list[tuple[Score, float] | None] = [None] * len(items)
        submitter = Submitter(self.pool, _grade_in_worker)  # the workers start while this decides
        chunk: list[int] = []

        def send() -> None:
            submitter.put(list(chunk), [(items[i].question, items[i].reference, items[i].completion) for i in chunk])
            chunk.clear()

        for i, it in enumerate(items):  # the workers start on the first undecided items while this goes on
            start = time.perf_counter()
            decided = self._decide_here(it)
            if decided is None:
                chunk.append(i)
                if len(chunk) >= _CHUNK:
                    send()
            else:
                results[i] = (decided, time.perf_counter() - start)
        if chunk:
            send()
        submitted = submitter.tasks()
        for indices, task in submitted:
            for i, outcome in zip(indices, self.pool.outcomes(task)):
                results[i] = (to_score(outcome), outcome.seconds)
        sent = sum(len(indices) for indices, _ in submitted)
        self.decided_here += len(items) - sent
        self.sent_to_workers += sent
        return [r for r in results if r is not None]

    def score_each(self, items: Sequence[Item], on_score: Callable[[int, Score, float], None]) -> None:
        """Each item's score as soon as it exists: decided here at once, or sent to a worker alone and handed out
        when that worker finishes (an item that hangs holds only itself, not the items that share its batch)."""
        from concurrent.futures import as_completed

        submitter = Submitter(self.pool, _grade_in_worker)  # the workers start while this decides
        for i, it in enumerate(items):
            start = time.perf_counter()
            decided = self._decide_here(it)
            if decided is not None:
                self.decided_here += 1
                on_score(i, decided, time.perf_counter() - start)
            else:
                submitter.put(i, [(it.question, it.reference, it.completion)])
        tasks = {task.future: (i, task) for i, task in submitter.tasks()}
        self.sent_to_workers += len(tasks)
        for future in as_completed(tasks):
            i, task = tasks[future]
            [outcome] = self.pool.outcomes(task)
            on_score(i, to_score(outcome), outcome.seconds)

    def _decide_here(self, item: Item) -> Score | None:
        """The pure rules' verdict, or None for the workers (also for inputs too large to risk here, and for
        any failure of the rules, which the worker then meets and reports as the item's score)."""
        if len(item.completion) > _MAX_CHARS_HERE or len(item.reference) > _MAX_CHARS_HERE // 10:
            return None
        try:
            return self._grader.decide(item.reference, item.completion, item.question)
        except Exception:  # noqa: BLE001 - the worker grades it again and keeps the cause
            return None

    def close(self) -> None:
        if self._starting is not None:  # a pool stopped while it starts could leave a worker behind
            self._starting.join()
            self._starting = None
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # processes do not travel; the copy starts its own on first use
        state["_starting"] = None
        state["_recent"], state["_recent_lock"] = OrderedDict(), None  # a lock does not travel either
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._recent_lock = threading.Lock()


_FAILURE_REASONS = {FAILURE_TIMEOUT: REASON_TIMEOUT, FAILURE_MEMORY: REASON_OUT_OF_MEMORY}


def to_score(outcome: Outcome[Score]) -> Score:
    """A worker's outcome as a score: its value, or a failed score naming the deadline, the memory cap or the crash."""
    if outcome.value is not None:
        return outcome.value
    return Score.failed(_FAILURE_REASONS.get(outcome.failure or "", REASON_CRASHED), outcome.detail)
