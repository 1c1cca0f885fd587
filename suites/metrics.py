"""Verifier accuracy metrics: overall and per category, precision/recall/F1 of the "correct" verdict, the
confusion matrix, and how often the reward abstained, timed out or crashed.

A score that abstains (``verdict is None``) counts as a "not correct" prediction for accuracy, as a reward
that cannot judge gives the trainer no positive signal; its rate is reported separately.

Each rate carries its 95% interval: Wilson for proportions of items, Wilson carried over for F1
(:func:`f1_score`), the categories' Wilson intervals combined for macro accuracy (:func:`macro_accuracy`), a seeded
bootstrap over items for ROC-AUC and ECE (:mod:`harness.core.uncertainty`); none where the bootstrap has no width.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from harness.core.items import REASON_CRASHED, REASON_TIMEOUT, Score
from harness.core.uncertainty import bootstrap, paired_comparison, randomized_change, wilson
from suites.calibration import best_threshold, expected_calibration_error, is_continuous, roc_auc
from suites.contract import Metric


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def proportion(name: str, value: float | None, higher_is_better: bool | None, n: int, group: str = "overall") -> Metric:
    """A metric that is a share of ``n`` items, with its Wilson interval."""
    interval = wilson(value * n, n) if value is not None and n else None
    return Metric(name, value, higher_is_better, n, group, *(interval or (None, None)))


def bootstrapped(metric: Metric, statistic: Callable[[Sequence], float | None], rows: Sequence) -> Metric:
    """``metric`` with the percentile bootstrap interval of ``statistic`` over ``rows`` (the metric's own value is
    ``statistic(rows)``)."""
    if metric.value is None:
        return metric
    return _with_interval(metric, bootstrap(statistic, rows))


def f1_score(tp: int, fp: int, fn: int, n: int) -> Metric:
    """F1 of the "correct" verdict with an interval that never collapses: F1 = 2J / (1 + J), where J = TP / (TP + FP
    + FN) is the share of true positives among the items labelled or paid correct (the Jaccard index); the interval
    is J's Wilson interval carried over by that increasing map. A percentile bootstrap gave 100.0 [100.0, 100.0]
    when every verdict was right, an interval of no width, as if F1 could not have been lower. Undefined (None)
    without a true positive, as F1 is."""
    if not tp:
        return Metric("f1", None, True, n)
    relevant = tp + fp + fn
    low, high = wilson(tp, relevant) or (0.0, 1.0)
    return Metric("f1", 2 * tp / (2 * tp + fp + fn), True, n, "overall", 2 * low / (1 + low), 2 * high / (1 + high))


def macro_accuracy(right: Sequence[int], counts: Sequence[int], n: int) -> Metric:
    """The mean of the categories' accuracies with the MOVER interval of that mean (Zou and Donner, 2008): each
    category's Wilson interval recovers its variance on each side, ``low = m - sqrt(sum((a_k - l_k)^2)) / K`` and
    ``high = m + sqrt(sum((u_k - a_k)^2)) / K``. One category gives its Wilson interval; all right still leaves
    room below (a percentile bootstrap gave no width there)."""
    if not counts:
        return Metric("macro_accuracy", None, True, n)
    shares = [r / c for r, c in zip(right, counts)]
    bounds = [wilson(r, c) or (0.0, 1.0) for r, c in zip(right, counts)]
    k = len(shares)
    value = math.fsum(shares) / k
    below = math.sqrt(math.fsum((a - lo) ** 2 for a, (lo, _) in zip(shares, bounds))) / k
    above = math.sqrt(math.fsum((hi - a) ** 2 for a, (_, hi) in zip(shares, bounds))) / k
    return Metric("macro_accuracy", value, True, n, "overall", max(0.0, value - below), min(1.0, value + above))


def _with_interval(metric: Metric, interval: tuple[float, float] | None) -> Metric:
    """``metric`` with ``interval``; none where it has no width (every resample gave the same value, as AUROC does
    when the scores separate every pair): a bootstrap cannot say how far the value could be, and [1.0, 1.0] would
    say it could be nowhere else."""
    if interval is None or interval[0] == interval[1]:
        return metric
    return replace(metric, low=interval[0], high=interval[1])


def _f1_of(counts: Mapping[tuple[bool, bool, str], int]) -> float | None:
    """F1 of the "correct" verdict from the count of each (predicted, label, category) row."""
    tp = fp = fn = 0
    for (p, y, _), count in counts.items():
        tp += count * (p and y)
        fp += count * (p and not y)
        fn += count * (y and not p)
    return 2 * tp / (2 * tp + fp + fn) if tp else None  # as verifier_metrics: undefined without a true positive


def _macro_of(counts: Mapping[tuple[bool, bool, str], int]) -> float | None:
    """The mean over categories of each one's accuracy, from the count of each (predicted, label, category) row;
    summed exactly, so that the order in which a resample met its categories cannot move the last digit."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (p, y, c), count in counts.items():
        per[c][0] += count * (p == y)
        per[c][1] += count
    return math.fsum(right / n for right, n in per.values()) / len(per) if per else None


def _precision_of(counts: Mapping[tuple[bool, bool, str], int]) -> float | None:
    paid = sum(c for (p, _, _), c in counts.items() if p)
    return sum(c for (p, y, _), c in counts.items() if p and y) / paid if paid else None


def _recall_of(counts: Mapping[tuple[bool, bool, str], int]) -> float | None:
    right = sum(c for (_, y, _), c in counts.items() if y)
    return sum(c for (p, y, _), c in counts.items() if p and y) / right if right else None


# The metrics whose change between two runs on the same items has the interval of a paired randomization test
# (:func:`harness.core.uncertainty.randomized_change`); accuracy, recall (the accuracy on the items labelled correct)
# and each category's accuracy have the exact McNemar test's dual instead (:func:`paired_comparison`).
PAIRED_RANDOMIZED: dict[str, Callable[[Mapping[tuple[bool, bool, str], int]], float | None]] = {
    "macro_accuracy": _macro_of, "precision": _precision_of, "f1": _f1_of,
}


def paired_changes(labels: Sequence[bool], predicted_a: Sequence[bool], predicted_b: Sequence[bool],
                   categories: Sequence[str]) -> dict[str, tuple[float, float | None, float | None]]:
    """B - A on the same items, with a paired 95% interval, for each metric that has one: accuracy, recall and
    ``accuracy/<category>`` by the interval the exact McNemar test inverts on their items (all, the labelled
    correct, the category's); macro accuracy, precision and F1 by the interval of a paired randomization test,
    which swaps the runs' verdicts item by item (:func:`randomized_change`). Either interval leaves 0 out exactly
    when its test rejects at 5%; a percentile bootstrap does not (it called F1 better at 7 flips against 1, where
    the exact test of the same flips gives p = 0.07). A change undefined for either run (no paid item for
    precision) is left out; its interval is None where no item differs between the runs (nothing to test)."""
    if not (len(labels) == len(predicted_a) == len(predicted_b) == len(categories)):
        raise ValueError("labels, verdicts and categories must have the same length")
    out: dict[str, tuple[float, float | None, float | None]] = {}
    subsets = {"accuracy": [True] * len(labels), "recall": [bool(y) for y in labels]}
    subsets |= {f"accuracy/{c}": [x == c for x in categories] for c in dict.fromkeys(categories)}
    for name, keep in subsets.items():
        right_a = [pa == y for pa, y, k in zip(predicted_a, labels, keep) if k]
        right_b = [pb == y for pb, y, k in zip(predicted_b, labels, keep) if k]
        if right_a:
            test = paired_comparison(right_a, right_b)
            out[name] = (test.difference, test.low, test.high)
    rows = list(zip(predicted_a, predicted_b, labels, categories))
    for name, statistic in PAIRED_RANDOMIZED.items():
        def change(counts: Mapping[tuple[bool, bool, bool, str], int], of=statistic) -> float | None:
            a: dict[tuple[bool, bool, str], int] = defaultdict(int)
            b: dict[tuple[bool, bool, str], int] = defaultdict(int)
            for (pa, pb, y, c), count in counts.items():
                a[pa, y, c] += count
                b[pb, y, c] += count
            value_a, value_b = of(a), of(b)
            return None if value_a is None or value_b is None else value_b - value_a

        value = change(Counter(rows))
        if value is None:
            continue
        tested = randomized_change(change, rows, _exchanged)
        out[name] = (value, None, None) if tested is None else (value, tested.low, tested.high)
    return out


def _exchanged(row: tuple[bool, bool, bool, str]) -> tuple[bool, bool, bool, str]:
    """An item's row with the two runs' verdicts exchanged."""
    pa, pb, y, c = row
    return pb, pa, y, c


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

    per_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for p, y, c in zip(predicted, labels, categories):
        per_cat[c][0] += p == y
        per_cat[c][1] += 1
    order = [c for c in column_order if c in per_cat] + sorted(c for c in per_cat if c not in column_order)
    cat_acc = [per_cat[c][0] / per_cat[c][1] for c in order]

    out = [
        proportion("accuracy", _ratio(tp + tn, n), True, n),
        macro_accuracy([per_cat[c][0] for c in order], [per_cat[c][1] for c in order], n),
        proportion("precision", precision, True, tp + fp),
        proportion("recall", recall, True, tp + fn),
        f1_score(tp, fp, fn, n),
    ]
    out += [proportion(f"accuracy/{c}", a, True, per_cat[c][1], "by_category") for c, a in zip(order, cat_acc)]
    out += [
        Metric("true_positive", tp, None, n, "confusion"),
        Metric("false_positive", fp, None, n, "confusion"),
        Metric("true_negative", tn, None, n, "confusion"),
        Metric("false_negative", fn, None, n, "confusion"),
    ]
    out += calibration_metrics(labels, scores, categories, order)
    reasons = [s.reason for s in scores]
    out += [
        proportion("abstain_rate", _ratio(sum(s.verdict is None for s in scores), n), False, n, "health"),
        proportion("timeout_rate", _ratio(reasons.count(REASON_TIMEOUT), n), False, n, "health"),
        proportion("crash_rate", _ratio(reasons.count(REASON_CRASHED), n), False, n, "health"),
        proportion("label_positive_rate", _ratio(sum(labels), n), None, n, "health"),
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
            bootstrapped(Metric(f"roc_auc{suffix}", roc_auc(ys, vs), True, len(rows), group), _auc_of, rows),
            bootstrapped(Metric(f"ece{suffix}", expected_calibration_error(ys, vs), False, len(rows), group),
                         _ece_of, rows),
            Metric(f"best_threshold{suffix}", best.threshold if best else None, None, len(rows), group),
            proportion(f"best_threshold_accuracy{suffix}", best.accuracy if best else None, True, len(rows), group),
        ]
    return out


def _auc_of(rows: Sequence[tuple[bool, float]]) -> float | None:
    return roc_auc([y for y, _ in rows], [v for _, v in rows])


def _ece_of(rows: Sequence[tuple[bool, float]]) -> float | None:
    return expected_calibration_error([y for y, _ in rows], [v for _, v in rows])


def backfill_intervals(labels: Sequence[bool], scores: Sequence[Score], categories: Sequence[str],
                       stored: Sequence[Metric]) -> dict[str, tuple[float, float]]:
    """The intervals of a run stored before intervals were kept, from its stored items: the metrics recomputed
    from the items, and each interval kept where the recomputed value is the stored one (a metric the items no
    longer give, or give otherwise, keeps none). Proportions the items do not give (a robustness suite's
    false-positive rate) get their Wilson interval from the stored value and count."""
    recomputed = {m.name: m for m in verifier_metrics(labels, scores, categories)}
    out: dict[str, tuple[float, float]] = {}
    for m in stored:
        if m.interval is not None or m.value is None:
            continue
        again = recomputed.get(m.name)
        if again is not None and again.interval is not None and again.value is not None \
                and abs(again.value - m.value) < 1e-9:
            out[m.name] = again.interval
        elif m.name in PROPORTIONS_WITHOUT_ITEMS and m.n:
            out[m.name] = wilson(m.value * m.n, m.n)  # type: ignore[assignment]
    return out


# proportions a suite computes beyond verifier_metrics (the robustness suite's rates)
PROPORTIONS_WITHOUT_ITEMS = frozenset({"false_positive_rate", "false_negative_rate"})
