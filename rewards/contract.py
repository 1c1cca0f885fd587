"""The reward contract: a batch of :class:`Item` in, one :class:`Score` per item out, in the same order.

Every reward kind (rule, verifyrm, judge, cooper, plugins) implements :class:`Reward`; the evaluator, the
trainers and the reward server call nothing else. A reward that learns online (Cooper) also implements
:class:`LearnsFromFeedback`: after a batch has been scored *and the scores handed out*, the caller passes
the batch back to :meth:`LearnsFromFeedback.learn`. Callers detect it with ``isinstance``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Item:
    """One thing to score: a completion to ``question`` judged against ``reference``.

    ``metadata`` carries free fields such as ``answer_type``, ``uid``, ``source`` or a prompt id; rewards must
    not require any of them.
    """

    question: str
    reference: str
    completion: str
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("question", "reference", "completion"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Item.{name} must be a str, got {type(value).__name__}")
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def __reduce__(self):  # mappingproxy does not pickle; items cross process and server boundaries
        return (Item, (self.question, self.reference, self.completion, dict(self.metadata)))

    @property
    def uid(self) -> str | None:
        uid = self.metadata.get("uid")
        return None if uid is None else str(uid)


# Reasons a score may carry. Free text is allowed; these are the ones the project's rewards use.
REASON_VERIFIED = "verified"
REASON_MISMATCH = "mismatch"
REASON_NO_ANSWER = "no_answer_found"
REASON_HEDGED = "hedged"  # several answers offered as alternatives, not all of them right
REASON_TIMEOUT = "timeout"
REASON_CRASHED = "crashed"
REASON_OUT_OF_MEMORY = "out_of_memory"
REASON_INVALID_OUTPUT = "invalid_output"  # looping, cut off after its answer, code or gibberish
REASON_RESTATED = "restates_question"  # the question's own expression given back for "factor", "simplify" ...
REASON_WRONG_FORM = "wrong_form"  # a fraction for a percent, the other angle unit, a decimal for an exact form
REASON_UNPARSABLE_REFERENCE = "unparsable_reference"


@dataclass(frozen=True)
class Score:
    """A reward's judgement of one item.

    ``value`` is in [0, 1], or ``None`` when the reward cannot judge (then ``verdict`` is ``None`` too);
    ``verdict`` is the boolean "the completion's final answer is correct"; ``reason`` says briefly why
    (``verified``, ``mismatch``, ``no_answer_found``, ``timeout``, ``crashed``...); ``answer`` is the final
    answer the reward extracted, when it extracts one; ``detail`` keeps the cause of a failure (the exception,
    the deadline) or which rule decided, for whoever reads the run afterwards.
    """

    value: float | None
    verdict: bool | None
    reason: str = ""
    answer: str | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if self.value is not None and not (0.0 <= self.value <= 1.0):
            raise ValueError(f"Score.value must be in [0, 1] or None, got {self.value}")
        if self.value is None and self.verdict is not None:
            raise ValueError("a Score without a value cannot carry a verdict")

    @classmethod
    def correct(cls, reason: str = REASON_VERIFIED, answer: str | None = None, detail: str = "") -> Score:
        return cls(1.0, True, reason, answer, detail)

    @classmethod
    def incorrect(cls, reason: str = REASON_MISMATCH, answer: str | None = None, detail: str = "") -> Score:
        return cls(0.0, False, reason, answer, detail)

    @classmethod
    def failed(cls, reason: str, detail: str) -> Score:
        """An item the reward could not finish (``timeout``, ``crashed``, ``out_of_memory``): value 0, with
        the cause in ``detail``. The caller gets a score, never an exception."""
        return cls(0.0, False, reason, None, detail)

    @classmethod
    def abstain(cls, reason: str) -> Score:
        return cls(None, None, reason)


@runtime_checkable
class Reward(Protocol):
    """Scores a batch. Implementations must be safe to call from any thread and picklable."""

    def score(self, items: Sequence[Item]) -> list[Score]: ...


@runtime_checkable
class LearnsFromFeedback(Protocol):
    """A reward that updates itself from a batch it has scored (Cooper's online reward model).

    Called after the scores of ``items`` were returned to the trainer and before the next batch is scored.
    Returns update metrics (loss, number of valid pairs, ...) for the run store, or an empty mapping when it
    did not update.
    """

    def learn(self, items: Sequence[Item], scores: Sequence[Score]) -> Mapping[str, float]: ...


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
