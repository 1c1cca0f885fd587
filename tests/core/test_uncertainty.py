"""Each statistic the harness prints against a reference implementation (statsmodels, SciPy), on generated data:
a wrong formula (a Wald interval for Wilson, a one-sided McNemar, a population sd) fails here."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import uncertainty as u

statsmodels_proportion = pytest.importorskip("statsmodels.stats.proportion")
contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
scipy_stats = pytest.importorskip("scipy.stats")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=3000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_equals_statsmodels(case):
    k, n = case
    low, high = u.wilson(k, n)
    ref_low, ref_high = statsmodels_proportion.proportion_confint(k, n, alpha=0.05, method="wilson")
    assert low == pytest.approx(ref_low, abs=1e-9) and high == pytest.approx(ref_high, abs=1e-9)


def test_wilson_is_exactly_0_and_1_at_the_ends():
    """0 of n has the lower bound 0 and n of n the upper bound 1, not 1.08e-19 or 0.9999999999999999 (a stored
    bound that prints as 0.0 but is not 0 fails an equality and reads as a nonzero rate in JSON)."""
    for n in range(1, 3000):
        assert u.wilson(0, n)[0] == 0.0 and u.wilson(n, n)[1] == 1.0, n
        assert u.wilson(0, n)[1] > 0.0 and u.wilson(n, n)[0] < 1.0  # and never a point


def test_wilson_of_no_items_is_none():
    assert u.wilson(0, 0) is None


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_exact_mcnemar_equals_statsmodels(only_a, only_b):
    table = [[7, only_a], [only_b, 11]]  # the concordant cells do not enter the test
    reference = contingency.mcnemar(table, exact=True).pvalue
    assert u.mcnemar_exact(only_a, only_b) == pytest.approx(reference, rel=1e-9, abs=1e-12)
    assert u.mcnemar_exact(only_a, only_b) == pytest.approx(
        scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0, rel=1e-9)


def test_paired_interval_is_scipys_exact_interval_of_the_flips_carried_over():
    rng = random.Random(3)
    a = [rng.random() < 0.7 for _ in range(400)]
    b = [x if rng.random() < 0.9 else not x for x in a]
    compared = u.paired_comparison(a, b)
    flips = compared.only_a + compared.only_b
    share = scipy_stats.binomtest(compared.only_b, flips).proportion_ci(confidence_level=0.95, method="exact")
    rate = scipy_stats.binomtest(flips, 400).proportion_ci(confidence_level=0.95, method="exact")
    low, high = 2 * share.low - 1, 2 * share.high - 1
    assert low < high < 0  # B is worse here, by more than chance: each end scaled by the rate bound that widens it
    assert compared.low == pytest.approx(low * rate.high, abs=1e-12)
    assert compared.high == pytest.approx(high * rate.low, abs=1e-12)
    assert compared.difference == pytest.approx(sum(b) / 400 - sum(a) / 400)
    assert compared.only_a == sum(x and not y for x, y in zip(a, b))
    assert compared.p_value == pytest.approx(contingency.mcnemar([[0, compared.only_a], [compared.only_b, 0]],
                                                                 exact=True).pvalue)


@pytest.mark.parametrize("successes, n", [(0, 1), (1, 1), (0, 20), (3, 20), (20, 20), (7, 8), (1, 8), (0, 2000),
                                          (17, 2000), (1000, 2000), (4999, 5000)])
def test_clopper_pearson_equals_statsmodels(successes, n):
    low, high = u.clopper_pearson(successes, n)
    ref_low, ref_high = statsmodels_proportion.proportion_confint(successes, n, alpha=0.05, method="beta")
    assert low == pytest.approx(ref_low, abs=1e-12) and high == pytest.approx(ref_high, abs=1e-12)


def _runs(only_a: int, only_b: int, n: int) -> tuple[list[bool], list[bool]]:
    same = n - only_a - only_b
    return ([True] * only_a + [False] * only_b + [True] * (same // 2) + [False] * (same - same // 2),
            [False] * only_a + [True] * only_b + [True] * (same // 2) + [False] * (same - same // 2))


def test_the_paired_interval_leaves_zero_out_exactly_when_the_exact_test_rejects():
    """On a grid of discordant counts (each up to 50: every count at 20 items, every second to 100, every fifth above)
    and sizes from 20 to 5,000 items: the interval and the test
    never disagree (a Wald interval does: 7 flips against 1 in 2,000 items gave [-0.6, -0.0] beside p = 0.07)."""
    checked = rejected = 0
    for n in (20, 57, 100, 316, 1000, 2000, 5000):
        step = 1 if n <= 20 else 2 if n <= 100 else 5
        for only_a in range(0, 51, step):
            for only_b in range(0, 51, step):
                if only_a + only_b > n:
                    continue
                c = u.paired_comparison(*_runs(only_a, only_b, n))
                excludes_zero = c.low > 0 or c.high < 0
                assert excludes_zero == (c.p_value < 0.05) == c.significant(), (only_a, only_b, n, c)
                assert c.low <= c.difference <= c.high and c.low < c.high
                checked += 1
                rejected += excludes_zero
    assert checked > 1500 and 0.2 < rejected / checked < 0.9  # both outcomes are well represented


def test_runs_with_identical_verdicts_still_have_an_interval_of_width():
    c = u.paired_comparison(*_runs(0, 0, 2000))
    assert c.difference == 0 and c.p_value == 1.0
    top = statsmodels_proportion.proportion_confint(0, 2000, alpha=0.05, method="beta")[1]
    assert c.high == pytest.approx(top) and c.low == pytest.approx(-top) and 0.0015 < c.high < 0.002


def test_flips_all_one_way_leave_room_above_and_below_what_was_seen():
    """12 flips, all B's way, in 300 items: significant, and the difference may be smaller or larger than 4 points
    (the exact bounds of the flip rate scale the split's bound)."""
    c = u.paired_comparison(*_runs(0, 12, 300))
    share_low = statsmodels_proportion.proportion_confint(12, 12, alpha=0.05, method="beta")[0]
    rate_low, rate_high = statsmodels_proportion.proportion_confint(12, 300, alpha=0.05, method="beta")
    assert c.significant() and c.difference == pytest.approx(0.04)
    assert c.low == pytest.approx((2 * share_low - 1) * rate_low) and c.high == pytest.approx(rate_high)
    assert 0 < c.low < c.difference < c.high
    mirrored = u.paired_comparison(*_runs(12, 0, 300))
    assert (mirrored.low, mirrored.high) == (pytest.approx(-c.high), pytest.approx(-c.low))


def test_seven_flips_against_one_is_no_difference_shown_by_either():
    c = u.paired_comparison(*_runs(7, 1, 2000))  # B - A = -6 / 2000
    assert c.difference == pytest.approx(-0.003)
    assert c.p_value == pytest.approx(0.0703125) and not c.significant()
    assert c.low < 0 < c.high


def test_paired_comparison_refuses_different_items():
    with pytest.raises(ValueError, match="same items"):
        u.paired_comparison([True, False], [True])


def test_stderr_and_sd_equal_scipy():
    values = [0.25, 0.5, 1.0, 0.0, 0.75, 0.5]
    mean, stderr = u.mean_and_stderr(values)
    assert mean == pytest.approx(sum(values) / 6) and stderr == pytest.approx(scipy_stats.sem(values))
    _, sd = u.mean_and_sd(values)
    assert sd == pytest.approx(scipy_stats.tstd(values))


def test_bootstrap_percentile_interval_agrees_with_scipy():
    """The same statistic, the same data: SciPy's percentile bootstrap (its own generator) lands within a few
    tenths of a point of ours; a wrong quantile or a resample of the wrong size would not."""
    rng = random.Random(7)
    rows = [(rng.random() < 0.6, rng.random() < 0.6) for _ in range(300)]

    def agreement(sample):
        return sum(x == y for x, y in sample) / len(sample)

    low, high = u.bootstrap(agreement, rows, resamples=2000)
    data = ([x for x, _ in rows], [y for _, y in rows])
    ref = scipy_stats.bootstrap(data, lambda x, y: (x == y).mean(), paired=True, vectorized=False,
                                n_resamples=2000, method="percentile", random_state=1).confidence_interval
    assert low == pytest.approx(ref.low, abs=0.01) and high == pytest.approx(ref.high, abs=0.01)
    assert u.bootstrap(agreement, rows, resamples=200) == u.bootstrap(agreement, rows, resamples=200)  # seeded


@pytest.mark.parametrize("df", [1, 2, 3, 5, 10, 30, 100])
@pytest.mark.parametrize("p", [0.6, 0.9, 0.975, 0.995])
def test_student_t_quantile_equals_scipy(df, p):
    assert u.student_t_quantile(p, df) == pytest.approx(scipy_stats.t.ppf(p, df), rel=1e-9)
    assert u.student_t_quantile(1 - p, df) == pytest.approx(scipy_stats.t.ppf(1 - p, df), rel=1e-9)
    assert u.student_t_cdf(1.3, df) == pytest.approx(scipy_stats.t.cdf(1.3, df), rel=1e-9)


@pytest.mark.parametrize("df", [1, 2, 5, 30, 1000])
def test_student_t_cdf_equals_scipy_near_zero_and_in_the_tails(df):
    """Near t = 0 the incomplete beta is read at x near 1, where only one of its two continued fractions
    converges well: a wrong choice of branch is off by up to 0.48 there, yet right at t = 1.3."""
    for t in (0.001, 0.1, 0.5, 2.0, 5.0, 100.0):
        assert u.student_t_cdf(t, df) == pytest.approx(scipy_stats.t.cdf(t, df), rel=1e-9, abs=1e-12)
        assert u.student_t_cdf(-t, df) == pytest.approx(scipy_stats.t.cdf(-t, df), rel=1e-9, abs=1e-12)


def test_paired_t_interval_equals_scipys_ttest_rel():
    a, b = [0.31, 0.24, 0.38], [0.16, 0.25, 0.0]
    mean, low, high = u.paired_t_interval([y - x for x, y in zip(a, b)])
    ref = scipy_stats.ttest_rel(b, a).confidence_interval(0.95)
    assert (low, high) == (pytest.approx(ref.low), pytest.approx(ref.high))
    assert mean == pytest.approx(sum(b) / 3 - sum(a) / 3)
    assert u.paired_t_interval([0.1]) is None


@settings(max_examples=60, deadline=None)
@given(n=st.one_of(st.integers(1, 70), st.integers(1000, 2100), st.sampled_from([2 ** 15, 2 ** 16 - 1, 2 ** 16,
                                                                                 2 ** 16 + 1])),
       seed=st.integers(0, 2 ** 40), resamples=st.integers(1, 4))
def test_resamples_are_the_draws_of_randrange(n, seed, resamples):
    """The draws made many at a time are, one for one, those of successive ``randrange(n)`` calls: a bootstrap
    interval is the same whichever way it was drawn (a wrong bit, word order or refusal rule would not be)."""
    rng = random.Random(seed)
    expected = [[rng.randrange(n) for _ in range(n)] for _ in range(resamples)]
    assert [list(picks) for picks in u.resample_indices(random.Random(seed), n, resamples)] == expected
    fast = u._many_draws(random.Random(seed), n, n * resamples)  # not only by falling back to randrange
    assert (fast is None) == (n >= 2 ** 16) and (fast is None or list(fast) == sum(expected, []))


def test_bootstrap_gives_the_interval_of_one_draw_at_a_time():
    """The interval of the fast resamples equals the one of resamples drawn by ``randrange`` call by call, for
    one item and for many."""
    for n in (1, 7, 300):
        rows = [(i % 3 == 0, i % 2 == 0) for i in range(n)]

        def agreement(sample):
            return sum(x == y for x, y in sample) / len(sample)

        rng = random.Random(u.BOOTSTRAP_SEED)
        values = sorted(agreement([rows[rng.randrange(n)] for _ in range(n)]) for _ in range(200))
        expected = (u._quantile(values, 0.025), u._quantile(values, 0.975))
        assert u.bootstrap(agreement, rows, resamples=200) == expected


def test_equal_paired_differences_give_their_value_and_no_inverted_interval():
    mean, low, high = u.paired_t_interval([0.5, 0.5, 0.5])  # exactly equal: a standard error of exactly 0
    assert (mean, low, high) == (0.5, 0.5, 0.5)


def _accuracy_change(counts):
    """B - A in accuracy from the count of each (right under A, right under B) row."""
    n = sum(counts.values())
    return sum(c * (int(b) - int(a)) for (a, b), c in counts.items()) / n


def _swap(row):
    return row[1], row[0]


def _rows(only_a: int, only_b: int, both: int = 40, neither: int = 10):
    return [(True, False)] * only_a + [(False, True)] * only_b + [(True, True)] * both + [(False, False)] * neither


def test_the_randomization_interval_leaves_zero_out_exactly_when_its_test_rejects():
    for only_a in range(0, 25, 3):
        for only_b in range(0, 25, 3):
            tested = u.randomized_change(_accuracy_change, _rows(only_a, only_b), _swap)
            if only_a + only_b == 0:
                assert tested is None  # nothing differs: nothing to test, and no zero-width interval
                continue
            assert tested.low < tested.high
            assert (tested.low > 0 or tested.high < 0) == tested.significant(), (only_a, only_b, tested)
            # for accuracy the randomization test is McNemar's: its p-value is the exact one, up to its draws
            assert tested.p_value == pytest.approx(u.mcnemar_exact(only_a, only_b), abs=0.03), (only_a, only_b)


def test_the_randomization_change_turns_with_the_runs():
    """B better than A by 9 flips against 1: positive, significant; the other way round the mirror image."""
    forward = u.randomized_change(_accuracy_change, _rows(1, 9), _swap)
    backward = u.randomized_change(_accuracy_change, [_swap(r) for r in _rows(1, 9)], _swap)
    assert forward.value == pytest.approx(8 / 60) and backward.value == pytest.approx(-8 / 60)
    assert forward.significant() and backward.significant() and forward.low > 0 > backward.high
    assert backward.low == pytest.approx(-forward.high, abs=0.02)
    assert backward.high == pytest.approx(-forward.low, abs=0.02)


def test_a_change_no_swap_can_move_has_no_interval():
    """Precision when the runs differ only on items neither paid: every swap leaves it as it is."""
    def precision_change(counts):
        paid_a = sum(c for (pa, _, y), c in counts.items() if pa)
        paid_b = sum(c for (_, pb, y), c in counts.items() if pb)
        right_a = sum(c for (pa, _, y), c in counts.items() if pa and y)
        right_b = sum(c for (_, pb, y), c in counts.items() if pb and y)
        return right_b / paid_b - right_a / paid_a

    rows = [(True, True, True)] * 10 + [(False, False, False)] * 5
    assert u.randomized_change(precision_change, rows, lambda r: (r[1], r[0], r[2])) is None
    rows += [(True, False, False)] * 3  # A paid three wrong items B did not: now swaps move it
    tested = u.randomized_change(precision_change, rows, lambda r: (r[1], r[0], r[2]))
    assert tested.value == pytest.approx(1 - 10 / 13) and tested.low < tested.high
