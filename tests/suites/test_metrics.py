from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewards import Score
from suites import metrics
from suites.metrics import verifier_metrics


def by_metric(metrics):
    """The metrics by name, as Metric records (their intervals included)."""
    return {m.name: m for m in metrics}


def by_name(metrics):
    return {m.name: m.value for m in metrics}


def test_confusion_precision_recall_by_hand():
    labels = [True, True, False, False, True, False]
    scores = [
        Score.correct(), Score.incorrect(), Score.correct(), Score.incorrect(), Score.abstain("unparsed"),
        Score.incorrect("timeout"),
    ]
    cats = ["A", "A", "B", "B", "B", "A"]
    m = by_name(verifier_metrics(labels, scores, cats, column_order=["B", "A"]))
    # tp=1 (0), fn=2 (1, 4), fp=1 (2), tn=2 (3, 5)
    assert (m["true_positive"], m["false_negative"], m["false_positive"], m["true_negative"]) == (1, 2, 1, 2)
    assert m["accuracy"] == pytest.approx(3 / 6)
    assert m["precision"] == pytest.approx(1 / 2) and m["recall"] == pytest.approx(1 / 3)
    assert m["f1"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert m["accuracy/A"] == pytest.approx(2 / 3) and m["accuracy/B"] == pytest.approx(1 / 3)
    assert m["macro_accuracy"] == pytest.approx(0.5)
    assert m["abstain_rate"] == pytest.approx(1 / 6) and m["timeout_rate"] == pytest.approx(1 / 6)


def test_category_order_and_higher_is_better():
    metrics = verifier_metrics([True], [Score.correct()], ["Z"], column_order=["A", "Z"])
    names = [m.name for m in metrics if m.group == "by_category"]
    assert names == ["accuracy/Z"]
    assert {m.name: m.higher_is_better for m in metrics}["timeout_rate"] is False


def test_undefined_precision_is_none_not_zero():
    m = by_name(verifier_metrics([False, False], [Score.incorrect(), Score.incorrect()], ["a", "a"]))
    assert m["precision"] is None and m["recall"] is None and m["f1"] is None and m["accuracy"] == 1.0


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError):
        verifier_metrics([True], [], ["a"])


def test_score_contract_rejects_bad_values():
    with pytest.raises(ValueError):
        Score(1.5, True)
    with pytest.raises(ValueError):
        Score(None, True)


def test_a_confidently_wrong_reward_has_the_worst_calibration():
    """Scores of exactly 1.0 belong to the top bin: every answer paid at 1.0 and every one wrong is an ECE of 1."""
    from suites.calibration import expected_calibration_error, reliability

    assert expected_calibration_error([False] * 6, [1.0] * 6) == 1.0
    assert expected_calibration_error([False, True, True], [1.0, 1.0, 0.0]) == pytest.approx(2 / 3)
    assert sum(b.n for b in reliability([True, False], [1.0, 0.0])) == 2


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["a", "b", "c"])), max_size=40))
def test_bootstrap_statistics_count_as_the_formulas_do(rows):
    """F1 and macro accuracy as the bootstrap computes them (by counting equal rows) are the textbook formulas."""
    tp = sum(p and y for p, y, _ in rows)
    fp = sum(p and not y for p, y, _ in rows)
    fn = sum(y and not p for p, y, _ in rows)
    assert metrics._f1_of(Counter(rows)) == (2 * tp / (2 * tp + fp + fn) if tp else None)
    categories = sorted({c for _, _, c in rows})
    shares = [sum(p == y for p, y, c in rows if c == k) / sum(c == k for _, _, c in rows) for k in categories]
    expected = sum(shares) / len(shares) if shares else None
    assert metrics._macro_of(Counter(rows)) == pytest.approx(expected)


def test_a_bootstrapped_interval_has_its_two_ends_around_the_value():
    """F1 and macro accuracy carry the bootstrap's low and high ends, not one of them twice."""
    labels = [i % 3 != 0 for i in range(60)]
    scores = [Score.correct() if (i % 4 != 0) else Score.incorrect() for i in range(60)]
    got = {m.name: m for m in verifier_metrics(labels, scores, ["A" if i % 2 else "B" for i in range(60)])}
    for name in ("f1", "macro_accuracy"):
        assert got[name].low < got[name].value < got[name].high, name


def test_f1_is_undefined_not_a_crash_when_every_verdict_is_wrong():
    """Precision and recall both 0 (no true positive): F1 is None, and nothing divides by zero."""
    got = by_name(verifier_metrics([True, False], [Score.incorrect(), Score.correct()], ["A", "A"]))
    assert got["precision"] == 0.0 and got["recall"] == 0.0 and got["f1"] is None


def test_backfilled_intervals_only_for_the_values_the_items_give_again():
    """A run stored before intervals were kept gets one for a metric its items give again, and none for one they
    give otherwise (the interval would be of another number)."""
    from suites.metrics import backfill_intervals

    labels = [i % 3 != 0 for i in range(30)]
    scores = [Score.correct() if i % 4 else Score.incorrect() for i in range(30)]
    categories = ["A"] * 30
    fresh = {m.name: m for m in verifier_metrics(labels, scores, categories)}
    stored = [metrics.Metric("accuracy", fresh["accuracy"].value, True, 30, "overall"),
              metrics.Metric("f1", fresh["f1"].value + 0.05, True, 30, "overall")]
    got = backfill_intervals(labels, scores, categories, stored)
    assert got == {"accuracy": fresh["accuracy"].interval}


def test_f1s_interval_is_wilsons_of_the_jaccard_share_carried_over():
    """F1 = 2J / (1 + J), J = TP / (TP + FP + FN): the interval is statsmodels' Wilson interval of J, mapped."""
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    labels = [True] * 30 + [False] * 20
    verdicts = [True] * 24 + [False] * 6 + [True] * 5 + [False] * 15  # TP 24, FN 6, FP 5
    f1 = by_metric(verifier_metrics(labels, [Score.correct() if v else Score.incorrect() for v in verdicts],
                                    ["A"] * 50))["f1"]
    low, high = proportion.proportion_confint(24, 35, alpha=0.05, method="wilson")
    assert f1.value == pytest.approx(48 / 59)
    assert (f1.low, f1.high) == (pytest.approx(2 * low / (1 + low)), pytest.approx(2 * high / (1 + high)))


def test_macro_accuracy_is_the_mover_interval_of_the_categories_wilson_intervals():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    labels = [True] * 40
    verdicts = [True] * 18 + [False] * 2 + [True] * 5 + [False] * 15  # category A 18/20, B 5/20
    got = by_metric(verifier_metrics(labels, [Score.correct() if v else Score.incorrect() for v in verdicts],
                                     ["A"] * 20 + ["B"] * 20))["macro_accuracy"]
    (la, ua), (lb, ub) = (proportion.proportion_confint(k, 20, alpha=0.05, method="wilson") for k in (18, 5))
    mean = (0.9 + 0.25) / 2
    assert got.value == pytest.approx(mean)
    assert got.low == pytest.approx(mean - ((0.9 - la) ** 2 + (0.25 - lb) ** 2) ** 0.5 / 2)
    assert got.high == pytest.approx(mean + ((ua - 0.9) ** 2 + (ub - 0.25) ** 2) ** 0.5 / 2)
    one = by_metric(verifier_metrics(labels[:20], [Score.correct()] * 18 + [Score.incorrect()] * 2, ["A"] * 20))
    assert (one["macro_accuracy"].low, one["macro_accuracy"].high) == (pytest.approx(la), pytest.approx(ua))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from("ABC"),
                          st.floats(min_value=0, max_value=1)), min_size=1, max_size=40))
def test_no_metric_has_an_interval_of_no_width(rows):
    """All right, all wrong, one item, one category: an interval either has width or is not given."""
    labels = [y for y, _, _, _ in rows]
    scores = [Score(v, p, "model") for _, p, _, v in rows]
    for m in verifier_metrics(labels, scores, [c for _, _, c, _ in rows]):
        if m.interval is not None:
            assert m.low < m.high, m
