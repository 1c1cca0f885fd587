"""Rewards made of rewards: a cascade, all, any, and a weighted mean. Each is a reward like any other (eval,
serve, train and the tables take it unchanged), and its parts are any registered rewards, by spec.

- ``cascade:first=rule,then=[verifyrm:model=RM]``: the first reward decides where it is confident, the second is
  consulted only on the rest. With ``trust=correct`` (the default) the first decides when it says *correct*: the
  rule reward's verified answers are right, and its rejections are where rule verifiers miss equivalent answers
  (TinyV, arXiv 2505.14625: over 38% of rule-rejected answers on Big-Math were right, and a small model consulted
  only on them improved RL). ``trust=verdict``: the first decides whenever it gives a verdict, the second only
  on its abstentions. Each score's ``detail`` says which stage decided.
- ``all:rewards=[rule;judge:model=M]``: correct when every part says correct (value: the lowest) -- the hybrid
  labelling rule, where the rule reward and a judge must agree.
- ``any:rewards=[...]``: correct when some part says correct (value: the highest).
- ``mean:rewards=[...],weights=[...]``: the weighted mean of the parts' values (for shaping), correct at or above
  ``threshold``.

A part that cannot judge an item (``value=None``) makes ``all`` and ``any`` decide on the others and ``mean``
average over the others; when no part judges, the composite abstains too. A composite with a part that learns
(Cooper) learns too: :meth:`learn` passes each scored batch on to every part that learns, so a cascade with a
Cooper stage updates it; such a composite is served, not copied, like Cooper.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from rewards.contract import ClosesOnExit, Item, LearnsFromFeedback, Reward, Score, check_scores, close_reward


def _build(spec: str) -> Reward:
    from rewards import build_reward  # the registry: composites nest any registered reward

    return build_reward(spec)


class Composite(ClosesOnExit):
    """The parts' lifecycle, shared by every composite."""

    parts: list[Reward]
    names: list[str]

    def preflight(self) -> list[str]:
        from harness.core.readiness import Preflight

        return [p for part in self.parts if isinstance(part, Preflight) for p in part.preflight()]

    def _score_part(self, k: int, items: Sequence[Item]) -> list[Score]:
        return check_scores(items, self.parts[k].score(items), self.names[k]) if items else []

    def close(self) -> None:
        for part in self.parts:
            close_reward(part)


class LearningComposite(ClosesOnExit):
    """A composite with a part that learns, wrapped so that it learns too: each scored batch goes on to every part
    that learns (``learn`` metrics prefixed with the part's name). It owns those parts' weights: served, not
    copied."""

    def __init__(self, inner: Composite) -> None:
        self.inner = inner

    def score(self, items: Sequence[Item]) -> list[Score]:
        return self.inner.score(items)

    def preflight(self) -> list[str]:
        return self.inner.preflight()

    def learn(self, items: Sequence[Item], scores: Sequence[Score]) -> Mapping[str, float]:
        metrics: dict[str, float] = {}
        for name, part in zip(self.inner.names, self.inner.parts):
            if isinstance(part, LearnsFromFeedback):
                prefix = name.split(":", 1)[0]
                metrics.update({f"{prefix}_{k}": v for k, v in part.learn(items, scores).items()})
        return metrics

    def close(self) -> None:
        self.inner.close()

    def __getstate__(self) -> dict:
        raise TypeError("a composite with a reward that learns owns that reward's weights: serve it, do not copy it")


def _finished(composite: Composite) -> Any:
    return LearningComposite(composite) if any(isinstance(p, LearnsFromFeedback) for p in composite.parts) else composite


class Cascade(Composite):
    def __init__(self, first: str, then: str, trust: Literal["correct", "verdict"] = "correct") -> None:
        self.names = [first, then]
        self.parts = [_build(first), _build(then)]
        self.trust = trust

    def _decides(self, score: Score) -> bool:
        return score.verdict is True if self.trust == "correct" else score.verdict is not None

    def score(self, items: Sequence[Item]) -> list[Score]:
        first = self._score_part(0, items)
        rest = [i for i, s in enumerate(first) if not self._decides(s)]
        second = self._score_part(1, [items[i] for i in rest])
        out = [Score(s.value, s.verdict, s.reason, s.answer, f"decided by {self.names[0]}") for s in first]
        for i, s in zip(rest, second):
            out[i] = Score(s.value, s.verdict, s.reason, s.answer or first[i].answer,
                           f"decided by {self.names[1]} ({self.names[0]}: {first[i].reason})")
        return out


class _Pool(Composite):
    """A composite that scores every item with every part and combines the values."""

    def __init__(self, rewards: list[str]) -> None:
        if len(rewards) < 2:
            raise ValueError("a composite needs at least two rewards: rewards=[SPEC;SPEC]")
        self.names = list(rewards)
        self.parts = [_build(spec) for spec in rewards]

    def combine(self, scores: list[Score]) -> Score:
        raise NotImplementedError

    def score(self, items: Sequence[Item]) -> list[Score]:
        per_part = [self._score_part(k, items) for k in range(len(self.parts))]
        return [self.combine([part[i] for part in per_part]) for i in range(len(items))]


class _Vote(_Pool):
    """A verdict by a quantifier over the parts that could judge (abstentions left out), with the value of the
    part that decides it: the lowest for ``all`` (one rejection is enough), the highest for ``any``."""

    quantifier: ClassVar[Callable[[Iterable[bool]], bool]]
    pick: ClassVar[Callable[[Iterable[float]], float]]
    reasons: ClassVar[tuple[str, str]]  # (correct, not correct)

    def combine(self, scores: list[Score]) -> Score:
        judged = [s for s in scores if s.value is not None]
        if not judged:
            return Score.abstain("no part could judge")
        ok = type(self).quantifier(s.verdict is True for s in judged)
        return Score(type(self).pick(s.value for s in judged if s.value is not None), ok,
                     self.reasons[0] if ok else self.reasons[1], next((s.answer for s in judged if s.answer), None))


class All(_Vote):
    quantifier = all
    pick = min
    reasons = ("all_agree", "some_part_rejects")


class Any_(_Vote):
    quantifier = any
    pick = max
    reasons = ("some_part_accepts", "all_reject")


class Mean(_Pool):
    def __init__(self, rewards: list[str], weights: list[float] | None = None, threshold: float = 0.5) -> None:
        super().__init__(rewards)
        self.weights = list(weights) if weights else [1.0] * len(rewards)
        if len(self.weights) != len(self.parts) or any(w < 0 for w in self.weights) or not sum(self.weights):
            raise ValueError(f"weights must be {len(self.parts)} non-negative numbers, not all zero: weights=[W;W]")
        self.threshold = threshold

    def combine(self, scores: list[Score]) -> Score:
        judged = [(w, s) for w, s in zip(self.weights, scores) if s.value is not None]
        total = sum(w for w, _ in judged)
        if not judged or total == 0:
            return Score.abstain("no part could judge")
        value = sum(w * s.value for w, s in judged) / total  # type: ignore[operator]
        return Score(value, value >= self.threshold, "weighted_mean")


def cascade(first: str, then: str, trust: Literal["correct", "verdict"] = "correct") -> Any:
    """The ``cascade`` reward (see the module docstring)."""
    return _finished(Cascade(first, then, trust))


def all_of(rewards: list[str]) -> Any:
    """The ``all`` reward: correct when every part says correct."""
    return _finished(All(rewards))


def any_of(rewards: list[str]) -> Any:
    """The ``any`` reward: correct when some part says correct."""
    return _finished(Any_(rewards))


def weighted_mean(rewards: list[str], weights: list[float] | None = None, threshold: float = 0.5) -> Any:
    """The ``mean`` reward: the weighted mean of the parts' values."""
    return _finished(Mean(rewards, weights, threshold))
