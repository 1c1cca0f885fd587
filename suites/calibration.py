"""Diagnostics of a reward with a continuous score, beyond accuracy at one threshold.

Accuracy on a balanced benchmark says little about how a reward model will behave in RL, where it is the score
itself that is paid out. For scores in [0, 1] against correct/incorrect labels: ROC-AUC (does the score rank
right answers above wrong ones, whatever the threshold), a reliability table and the expected calibration
error (do scores of 0.8 mean right four times in five), and accuracy, precision and recall over the threshold,
with the threshold that maximises accuracy. Pure functions of (labels, values).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def is_continuous(values: Sequence[float]) -> bool:
    """True when the scores take values other than 0 and 1 (a model's sigmoid, not a verdict)."""
    return any(0.0 < v < 1.0 for v in values)


def roc_auc(labels: Sequence[bool], values: Sequence[float]) -> float | None:
    """The probability that a random right answer scores above a random wrong one (ties count half)."""
    ranked = sorted(zip(values, labels))
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return None
    rank_sum, i = 0.0, 0
    while i < len(ranked):  # average ranks over ties
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        average = (i + 1 + j) / 2
        rank_sum += average * sum(1 for _, y in ranked[i:j] if y)
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    n: int
    mean_score: float | None
    accuracy: float | None  # share of right answers among the bin's items


def reliability(labels: Sequence[bool], values: Sequence[float], bins: int = 10) -> list[Bin]:
    """Equal-width bins of the score, each with its mean score and the share of right answers in it."""
    out = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [(v, y) for v, y in zip(values, labels) if low <= v < high or (b == bins - 1 and v == 1.0)]
        n = len(members)
        out.append(Bin(low, high, n, sum(v for v, _ in members) / n if n else None,
                       sum(y for _, y in members) / n if n else None))
    return out


def expected_calibration_error(labels: Sequence[bool], values: Sequence[float], bins: int = 10) -> float | None:
    """The mean, weighted by bin size, of |share right - mean score| over the reliability bins."""
    total = len(labels)
    if not total:
        return None
    return sum(b.n / total * abs(b.accuracy - b.mean_score) for b in reliability(labels, values, bins)
               if b.n and b.accuracy is not None and b.mean_score is not None)


@dataclass(frozen=True)
class ThresholdPoint:
    threshold: float
    accuracy: float
    precision: float | None
    recall: float | None


def threshold_curve(labels: Sequence[bool], values: Sequence[float], steps: int = 100) -> list[ThresholdPoint]:
    """Accuracy, precision and recall of "score >= t means correct" for t = 0, 1/steps, ..., 1."""
    out = []
    n = len(labels)
    for k in range(steps + 1):
        t = k / steps
        predicted = [v >= t for v in values]
        tp = sum(p and y for p, y in zip(predicted, labels))
        fp = sum(p and not y for p, y in zip(predicted, labels))
        fn = sum(y and not p for p, y in zip(predicted, labels))
        out.append(ThresholdPoint(t, (n - fp - fn) / n if n else 0.0, tp / (tp + fp) if tp + fp else None,
                                  tp / (tp + fn) if tp + fn else None))
    return out


def best_threshold(labels: Sequence[bool], values: Sequence[float]) -> ThresholdPoint | None:
    """The threshold of the highest accuracy (the lowest such threshold on ties)."""
    curve = threshold_curve(labels, values)
    return max(curve, key=lambda p: (p.accuracy, -p.threshold)) if labels else None
