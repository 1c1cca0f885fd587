"""Verifier accuracy metrics: overall and per category, precision/recall/F1 of the "correct" verdict, the
confusion matrix, and how often the reward abstained, timed out or crashed.

A score that abstains (``verdict is None``) counts as a "not correct" prediction for accuracy, as a reward
that cannot judge gives the trainer no positive signal; its rate is reported separately.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from harness.core.items import REASON_CRASHED, REASON_TIMEOUT, Score
from suites.calibration import best_threshold, expected_calibration_error, is_continuous, roc_auc
from suites.contract import Metric


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def verifier_metrics(
    labels: Sequence[bool],
    scores: Sequence[Score],
    categories: Sequence[str],
    column_order: Sequence[str] = (),
) -> list[Metric]:
    if not (len(labels) == len(scores) == len(categories)):
        raise ValueError("labels, scores and categories must have the same length")
    n = len(labels)
    predicted = [s.verdict is True for s in scores]
    tp = sum(p and y for p, y in zip(predicted, labels))
    fp = sum(p and not y for p, y in zip(predicted, labels))
    fn = sum((not p) and y for p, y in zip(predicted, labels))
    tn = n - tp - fp - fn
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = (
        2 * precision * recall / (precision + recall)
        if precision is not None and recall is not None and precision + recall > 0
        else None
    )

    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p, y, c in zip(predicted, labels, categories):
        per_cat[c][0] += p == y
        per_cat[c][1] += 1
    order = [c for c in column_order if c in per_cat] + sorted(c for c in per_cat if c not in column_order)
    cat_acc = [per_cat[c][0] / per_cat[c][1] for c in order]

    out = [
        Metric("accuracy", _ratio(tp + tn, n), True, n),
        Metric("macro_accuracy", sum(cat_acc) / len(cat_acc) if cat_acc else None, True, n),
        Metric("precision", precision, True, tp + fp),
        Metric("recall", recall, True, tp + fn),
        Metric("f1", f1, True, n),
    ]
    out += [Metric(f"accuracy/{c}", a, True, per_cat[c][1], "by_category") for c, a in zip(order, cat_acc)]
    out += [
        Metric("true_positive", tp, None, n, "confusion"),
        Metric("false_positive", fp, None, n, "confusion"),
        Metric("true_negative", tn, None, n, "confusion"),
        Metric("false_negative", fn, None, n, "confusion"),
    ]
    out += calibration_metrics(labels, scores, categories, order)
    reasons = [s.reason for s in scores]
    out += [
        Metric("abstain_rate", _ratio(sum(s.verdict is None for s in scores), n), False, n, "health"),
        Metric("timeout_rate", _ratio(reasons.count(REASON_TIMEOUT), n), False, n, "health"),
        Metric("crash_rate", _ratio(reasons.count(REASON_CRASHED), n), False, n, "health"),
        Metric("label_positive_rate", _ratio(sum(labels), n), None, n, "health"),
    ]
    return out


def calibration_metrics(labels: Sequence[bool], scores: Sequence[Score], categories: Sequence[str],
                        order: Sequence[str]) -> list[Metric]:
    """ROC-AUC, expected calibration error and the best threshold with its accuracy, overall and per category,
    for rewards whose scores are continuous (a model's probability); none for verdict-only rewards."""
    judged = [(y, float(s.value), c) for y, s, c in zip(labels, scores, categories) if s.value is not None]
    if not is_continuous([v for _, v, _ in judged]):
        return []
    out: list[Metric] = []
    for name in ("", *order):
        rows = [(y, v) for y, v, c in judged if not name or c == name]
        ys, vs = [y for y, _ in rows], [v for _, v in rows]
        suffix, group = (f"/{name}", "calibration_by_category") if name else ("", "calibration")
        best = best_threshold(ys, vs)
        out += [
            Metric(f"roc_auc{suffix}", roc_auc(ys, vs), True, len(rows), group),
            Metric(f"ece{suffix}", expected_calibration_error(ys, vs), False, len(rows), group),
            Metric(f"best_threshold{suffix}", best.threshold if best else None, None, len(rows), group),
            Metric(f"best_threshold_accuracy{suffix}", best.accuracy if best else None, True, len(rows), group),
        ]
    return out
