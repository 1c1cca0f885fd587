"""What flows between suites, rewards, trainers and the store: an :class:`Item` to judge and the :class:`Score` a
reward gives it, with the reasons the project's rewards use. The data of the reward contract, in the foundation
so that suites and rewards, which know nothing of each other, share it; the contract itself (what a reward does
with them) is :mod:`rewards.contract`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


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
REASON_CHOICE = "choice"  # the same option of a multiple-choice question, by its letter or its text
REASON_STRING_MATCH = "string_match"  # the same words (a name, "disproved"), compared as text


FAILURE_REASONS = frozenset({REASON_TIMEOUT, REASON_CRASHED, REASON_OUT_OF_MEMORY})


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
        """An item the reward (or whatever serves it) could not finish (``timeout``, ``crashed``,
        ``out_of_memory``): value 0, with the cause in ``detail``. The caller gets a score, never an exception;
        the one failure type of the project, from a worker pool, the server's batcher or an adapter."""
        if reason not in FAILURE_REASONS:
            raise ValueError(f"a failure's reason is one of {', '.join(sorted(FAILURE_REASONS))}, got {reason!r}")
        return cls(0.0, False, reason, None, detail)

    @property
    def is_failure(self) -> bool:
        """The item was not judged but failed (its 0 is not a verdict on the answer)."""
        return self.reason in FAILURE_REASONS

    @classmethod
    def abstain(cls, reason: str) -> Score:
        return cls(None, None, reason)
