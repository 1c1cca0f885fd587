"""The reward contract: a batch of :class:`Item` in, one :class:`Score` per item out, in the same order.

Every reward kind (rule, verifyrm, judge, cooper, plugins) implements :class:`Reward`; the evaluator, the
trainers and the reward server call nothing else. A reward that learns online (Cooper) also implements
:class:`LearnsFromFeedback`: after a batch has been scored *and the scores handed out*, the caller passes
the batch back to :meth:`LearnsFromFeedback.learn`. Callers detect it with ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from harness.core.items import (  # noqa: F401 - the contract's data, re-exported: ``from rewards.contract import Item``
    REASON_CHOICE,
    REASON_CRASHED,
    REASON_HEDGED,
    REASON_INVALID_OUTPUT,
    REASON_MISMATCH,
    REASON_NO_ANSWER,
    REASON_OUT_OF_MEMORY,
    REASON_RESTATED,
    REASON_STRING_MATCH,
    REASON_TIMEOUT,
    REASON_UNPARSABLE_REFERENCE,
    REASON_VERIFIED,
    REASON_WRONG_FORM,
    Item,
    Score,
)
from harness.core.records import Artifact


@runtime_checkable
class Reward(Protocol):
    """Scores a batch. Implementations must be safe to call from any thread. Rewards are picklable (they cross
    process pools and servers; a copy starts its own workers or loads its own weights on first use), except
    those that learn (:class:`LearnsFromFeedback`): they own their weights and optimizer, so they are served
    (``harness serve``) rather than copied, and pickling one raises ``TypeError``."""

    def score(self, items: Sequence[Item]) -> list[Score]: ...


@runtime_checkable
class Closeable(Protocol):
    """A reward that holds processes, models or connections, released by ``close()``. The project's rewards
    are also context managers (:class:`ClosesOnExit`): ``with build_reward(spec) as reward: ...``."""

    def close(self) -> None: ...


@runtime_checkable
class ScoresEach(Protocol):
    """A reward that hands each item's score out as soon as it exists (``on_score(index, score, seconds)``, from
    any thread, once per item, with the seconds the item itself took), so that a caller with a deadline keeps the
    scores that are ready when it passes, and a caller with many items keeps every worker busy instead of
    waiting for each batch's slowest item (the rule reward: items decided here at once, the rest as their
    workers finish)."""

    def score_each(self, items: Sequence[Item], on_score: Callable[[int, Score, float], None]) -> None: ...


@runtime_checkable
class TimedReward(Protocol):
    """A reward that reports how long each item took (the rule reward: the seconds in its worker)."""

    def score_timed(self, items: Sequence[Item]) -> list[tuple[Score, float]]: ...


@runtime_checkable
class StartsEarly(Protocol):
    """A reward with something slow to start (worker processes that import sympy): ``start_early`` begins it in
    the background and returns at once, so that it overlaps what the caller does before it scores (reading the
    data). Scoring calls wait only for what they need; ``close`` waits for the start to end."""

    def start_early(self) -> None: ...


class ClosesOnExit:
    """``with reward: ...`` closes the reward at the end of the block."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def close_reward(reward: object) -> None:
    """Release what a reward holds, when it holds anything."""
    if isinstance(reward, Closeable):
        reward.close()


@runtime_checkable
class LearnsFromFeedback(Protocol):
    """A reward that updates itself from a batch it has scored (Cooper's online reward model).

    Called after the scores of ``items`` were returned to the trainer and before the next batch is scored.
    Returns update metrics (loss, number of valid pairs, ...) for the run store, or an empty mapping when it
    did not update.
    """

    def learn(self, items: Sequence[Item], scores: Sequence[Score]) -> Mapping[str, float]: ...


@runtime_checkable
class KeepsArtifacts(Protocol):
    """A reward that writes files a run's figures depend on (a learning reward model's weights every few
    updates): the trainer records each one, by hash, in the run."""

    def artifacts(self) -> Sequence[Artifact]: ...


@runtime_checkable
class ChecksWithRule(Protocol):
    """A reward that checks rollouts with the rule reward itself (Cooper, to find its positives and to keep its
    negatives wrong). A trainer hands it the run's one rule reward (:meth:`use_rule`), the one that measures the
    rollouts' rule accuracy: each rollout is then checked once, by one set of workers, instead of by two pools
    competing for the same cores. The reward does not close a rule reward it was handed."""

    def use_rule(self, rule: Reward) -> None: ...


@runtime_checkable
class ResumesWithPolicy(Protocol):
    """A reward whose state changes during training (Cooper's weights and optimizer): the trainer saves it into
    every policy checkpoint and restores it from the checkpoint the policy resumes from, so that a stopped run
    never goes on with a policy from one step and a reward model from another.

    ``load_state(None)`` means the policy starts from step 0: the reward starts as configured, whatever state it
    found elsewhere (a ``checkpoint_dir`` of its own is for a reward served without a trainer).
    """

    def save_state(self, folder: Path) -> None: ...

    def load_state(self, folder: Path | None) -> None: ...


def reward_value(result: object, abstention: float | None = 0.0) -> float | None:
    """The number a trainer receives for a reward's result: the score's value; ``abstention`` when the reward
    could not judge (TRL accepts None and drops the sample; OpenRLHF and verl need a float); 0.0 for an item the
    reward failed on (anything that is not a :class:`Score`). The one place where this is decided."""
    if not isinstance(result, Score):
        return 0.0
    return abstention if result.value is None else float(result.value)


def check_scores(items: Sequence[Item], scores: Sequence[Score], who: str) -> list[Score]:
    """Enforce the one-score-per-item contract on a reward's output (plugins included)."""
    scores = list(scores)
    if len(scores) != len(items):
        raise ValueError(f"reward {who} returned {len(scores)} scores for {len(items)} items")
    for s in scores:
        if not isinstance(s, Score):
            raise TypeError(f"reward {who} returned {type(s).__name__}, expected rewards.Score")
    return scores
