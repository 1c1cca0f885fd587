"""How sure a figure is: 95% intervals for the numbers a run reports, and paired tests between two runs.

A benchmark harness sells comparisons, and a difference of three points on 316 items may be noise. Every figure
the harness prints carries one of these:

- a proportion of items (accuracy, precision, recall, a false-positive or abstention rate): the **Wilson** score
  interval, which stays inside [0, 1] and is honest at 0% and 100%, where the textbook interval collapses;
- a statistic of the items that is not a proportion (F1, ROC-AUC, ECE, macro accuracy): a seeded **percentile
  bootstrap** over items, so the same run always prints the same interval;
- a policy's accuracy, a mean over problems of the share of its samples that were right: the **standard error**
  over problems (lm-evaluation-harness's ``stderr``; samples of one problem are not independent draws);
- a mean over seeds: the standard deviation over seeds; a difference paired by seed, its t interval (three seeds
  give a wide one, and it says so);
- two runs over the same items: the **paired difference** in accuracy and an **exact McNemar test** on the items
  whose verdicts disagree (a binomial test of the flips, two-sided), with the interval dual to that test (the
  Clopper-Pearson interval of the flips' split, carried over to the difference): it leaves 0 out exactly when
  the test rejects.

Pure Python (no SciPy in the base install); the tests check each formula against SciPy and statsmodels.
"""

from __future__ import annotations

import math
import random
import sys
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from statistics import NormalDist
from typing import TypeVar

T = TypeVar("T")

LEVEL = 0.95
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20250805  # fixed: a run's bootstrap interval is the same every time it is computed
_Z = NormalDist().inv_cdf(0.5 + LEVEL / 2)


def wilson(successes: float, n: int, level: float = LEVEL) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion ``successes / n``; None when ``n`` is 0."""
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # at 0 of n (n of n) the bound is 0 (1) exactly; the float difference of centre and half leaves 1e-17
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= n else min(1.0, centre + half)
    return low, high


def bootstrap(statistic: Callable[[Sequence[T]], float | None], rows: Sequence[T],
              resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
              level: float = LEVEL) -> tuple[float, float] | None:
    """The percentile bootstrap interval of ``statistic(rows)``: the statistic over ``resamples`` resamples of the
    rows drawn with replacement, seeded; a resample where the statistic is undefined (None) is skipped. None when
    fewer than half of the resamples give a value. Resample ``r`` is the ``n`` items that ``n`` successive calls of
    ``random.Random(seed).randrange(n)`` pick, whatever the speed-up (:func:`resample_indices`)."""
    if not rows:
        return None
    n = len(rows)
    values = [statistic((rows[picks[0]],) if n == 1 else itemgetter(*picks)(rows))
              for picks in _seeded_resamples(n, resamples, seed)]
    return _percentiles(values, resamples, level)


def _percentiles(values: list[float | None], resamples: int, level: float) -> tuple[float, float] | None:
    """The percentile interval of the resamples' values, skipping undefined ones; None when fewer than half are
    defined."""
    defined = sorted(v for v in values if v is not None)
    if len(defined) < resamples / 2:
        return None
    tail = (1 - level) / 2
    return _quantile(defined, tail), _quantile(defined, 1 - tail)


def resample_indices(rng: random.Random, n: int, resamples: int) -> list[array]:
    """``resamples`` arrays of ``n`` indices below ``n``: the very indices that ``n * resamples`` successive calls
    of ``rng.randrange(n)`` give, drawn many at a time. A bootstrap over 2,000 items drew them one call at a time
    and spent most of a ``harness eval`` doing so. Where this Python draws otherwise than :func:`_many_draws`
    reads it (checked on the first draws, from a copy of the generator), the indices come from ``randrange``."""
    total = n * resamples
    start = rng.getstate()
    drawn = _many_draws(rng, n, total)
    if drawn is None or list(drawn[:64]) != _randrange_draws(start, n, min(total, 64)):
        drawn = array("Q", _randrange_draws(start, n, total))
    return [drawn[r * n:(r + 1) * n] for r in range(resamples)]


def _randrange_draws(state: tuple, n: int, count: int) -> list[int]:
    """``count`` successive ``randrange(n)`` of a generator in ``state``, one call at a time: the reference."""
    reference = random.Random()
    reference.setstate(state)
    return [reference.randrange(n) for _ in range(count)]


@lru_cache(maxsize=4)
def _seeded_resamples(n: int, resamples: int, seed: int) -> tuple[array, ...]:
    """The resamples of ``n`` items for ``seed``, kept for the next statistic of the same run."""
    return tuple(resample_indices(random.Random(seed), n, resamples))


def _many_draws(rng: random.Random, n: int, total: int) -> array | None:
    """``total`` draws of ``randrange(n)``, made many at a time (:func:`_translated_draws`, each draw itself,
    0x10FFFF marking a refused try: no draw is that large); None where they cannot be made that way."""
    if array("I").itemsize != 4:
        return None
    drawn = _translated_draws(rng, n, total, range(n), 0x10FFFF)
    return None if drawn is None else array("I", drawn.encode("utf-32-le", "surrogatepass"))


def _translated_draws(rng: random.Random, n: int, total: int, table: Sequence[int], refused: int) -> str | None:
    """``table[rng.randrange(n)]`` for ``total`` successive draws, one character each, as CPython makes the draws:
    one 32-bit word of the Mersenne Twister a try, its top ``n.bit_length()`` bits kept, tried again while they are
    ``n`` or more. ``getrandbits(32 * m)`` gives the next ``m`` words, the first in the lowest bits: each word's
    top 16 bits become one character (UTF-32), one ``str.translate`` turns it into its draw's entry of ``table``
    or into ``refused`` (a value no entry has), and the refused tries are taken out. None where the words are not
    read that way here (more than 16 bits a draw, a big-endian machine): the caller draws one at a time."""
    k = n.bit_length()
    if k > 16 or sys.byteorder != "little":
        return None
    tries = [table[u >> (16 - k)] if u >> (16 - k) < n else refused for u in range(1 << 16)]
    marker = chr(refused)
    parts: list[str] = []
    have = 0
    while have < total:
        words = (total - have) * (1 << k) // n + 64  # enough tries for what is left, nearly always
        mask = int.from_bytes(b"\xff\xff\x00\x00" * words, "little")  # each word's top half, moved down
        tops = ((rng.getrandbits(32 * words) >> 16) & mask).to_bytes(4 * words, "little")
        parts.append(tops.decode("utf-32-le", "surrogatepass").translate(tries).replace(marker, ""))
        have += len(parts[-1])
    return "".join(parts)[:total]


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values by linear interpolation (NumPy's default)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float | None]:
    """The mean and its standard error (sample standard deviation over the square root of n); no error for one."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n)


def mean_and_sd(values: Sequence[float]) -> tuple[float, float | None]:
    """The mean and the sample standard deviation (the spread over seeds)."""
    mean, stderr = mean_and_stderr(values)
    return mean, None if stderr is None else stderr * math.sqrt(len(values))


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """The two-sided exact McNemar p-value: of the items on which the runs disagree, ``only_a`` were right only
    under A and ``only_b`` only under B; under no difference each flip goes either way with probability 1/2."""
    flips = only_a + only_b
    if flips == 0:
        return 1.0
    tail = sum(math.comb(flips, k) for k in range(min(only_a, only_b) + 1)) / 2 ** flips
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class PairedComparison:
    """Two runs' verdicts on the same items: how often each was right, the difference B - A with its interval,
    and the exact McNemar test on the items where exactly one was right. The interval is the test's dual
    (:func:`paired_comparison`): it leaves 0 out exactly when the test rejects at its level."""

    n: int
    accuracy_a: float
    accuracy_b: float
    only_a: int  # right under A, wrong under B
    only_b: int  # right under B, wrong under A
    difference: float  # accuracy_b - accuracy_a
    low: float
    high: float
    p_value: float
    level: float = LEVEL

    def significant(self) -> bool:
        """The exact test rejects at the interval's level; the same as the interval leaving 0 out."""
        return self.p_value < 1 - self.level


def clopper_pearson(successes: int, n: int, level: float = LEVEL) -> tuple[float, float] | None:
    """The exact (Clopper-Pearson) interval of a proportion ``successes / n``: the proportions a two-sided
    binomial test at ``level`` does not reject, each tail at half the rest. None when ``n`` is 0."""
    if n <= 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError(f"{successes} successes of {n}")
    tail = (1 - level) / 2
    # P(X >= k | p) = I_p(k, n - k + 1), increasing in p; P(X <= k | p) = 1 - I_p(k + 1, n - k)
    low = 0.0 if successes == 0 else _beta_quantile(tail, successes, n - successes + 1)
    high = 1.0 if successes == n else _beta_quantile(1 - tail, successes + 1, n - successes)
    return low, high


def _beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of Beta(a, b), by bisection on its distribution function."""
    low, high = 0.0, 1.0
    for _ in range(100):
        mid = (low + high) / 2
        if _incomplete_beta(a, b, mid) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def paired_comparison(right_a: Sequence[bool], right_b: Sequence[bool], level: float = LEVEL) -> PairedComparison:
    """Compare two runs item by item (``right_x[i]``: run x judged item i as its label says).

    The difference B - A is (b - c) / n, with b items right only under B and c only under A: r (2 pi - 1), where
    r = (b + c) / n is the share of items that flipped and pi = b / (b + c) the share of the flips that went B's
    way. The interval takes the exact (Clopper-Pearson) interval of pi, the one the exact McNemar test inverts,
    and scales each end by the exact bound of r that widens it. The sign of each end is the sign of 2 pi - 1 at
    pi's bound, so the interval leaves 0 out exactly when pi = 1/2 is out, that is when the exact test rejects:
    the interval and the test never disagree, as a Wald interval does with few flips. With no flip, or flips one
    way only, the interval still has width on both sides of what was seen (no flip in 2,000 items: +-0.18
    points)."""
    if len(right_a) != len(right_b) or not right_a:
        raise ValueError(f"a paired comparison needs the same items in both runs, got {len(right_a)} and "
                         f"{len(right_b)}")
    n = len(right_a)
    only_a = sum(a and not b for a, b in zip(right_a, right_b))
    only_b = sum(b and not a for a, b in zip(right_a, right_b))
    flips = only_a + only_b
    share_low, share_high = clopper_pearson(only_b, flips, level) or (0.0, 1.0)
    rate_low, rate_high = clopper_pearson(flips, n, level)  # type: ignore[misc]
    low, high = 2 * share_low - 1, 2 * share_high - 1
    low *= rate_high if low < 0 else rate_low
    high *= rate_high if high > 0 else rate_low
    return PairedComparison(n, sum(right_a) / n, sum(right_b) / n, only_a, only_b, (only_b - only_a) / n, low, high,
                            mcnemar_exact(only_a, only_b), level)


RANDOMIZATION_DRAWS = 4000
RANDOMIZATION_SEED = 20250806


@dataclass(frozen=True)
class RandomizedChange:
    """A paired change B - A with the interval and the p-value of one randomization test (:func:`randomized_change`)."""

    value: float
    low: float
    high: float
    p_value: float
    level: float = LEVEL

    def significant(self) -> bool:
        """The test rejects; the same as the interval leaving 0 out."""
        return self.p_value < 1 - self.level


def randomized_change(change: Callable[[Mapping[T, int]], float | None], rows: Sequence[T],
                      swap: Callable[[T], T], draws: int = RANDOMIZATION_DRAWS, seed: int = RANDOMIZATION_SEED,
                      level: float = LEVEL) -> RandomizedChange | None:
    """A paired randomization test of a change between two runs on the same items, and the interval that inverts
    it. ``rows`` are the items, each with both runs' verdicts; ``swap(row)`` is the row with the runs exchanged;
    ``change`` maps each distinct row's count to B - A. Under "the runs are exchangeable" each row that a swap
    changes is swapped with probability 1/2 (so each kind of row with ``m`` items swaps a Binomial(m, 1/2) number
    of them); ``draws`` seeded draws give the null distribution of the change. The p-value is the share of draws
    at least as far from 0 as the change seen; ``q`` is the largest distance that a share of at least ``1 - level``
    of the draws reaches, and the interval is ``change ± q`` (within [-1, 1]): it leaves 0 out exactly when
    ``|change| > q``, that is when the test rejects, so the interval and the verdict never disagree (a percentile
    bootstrap is narrower than the test where few items differ). None where the change is undefined, no row
    differs between the runs, or no swap moves the change (precision when only unpaid items differ): the test
    has nothing to say, and a zero-width interval would claim certainty."""
    counts = Counter(rows)
    seen = change(counts)
    moving = [(row, m) for row, m in counts.items() if swap(row) != row]
    if seen is None or not moving:
        return None
    rng = random.Random(seed)
    distances: list[float] = []
    for _ in range(draws):
        drawn = dict(counts)
        for row, m in moving:
            k = bin(rng.getrandbits(m)).count("1")  # Binomial(m, 1/2): how many of these rows swap
            if k:
                drawn[row] -= k
                drawn[swap(row)] = drawn.get(swap(row), 0) + k
        value = change({r: c for r, c in drawn.items() if c})
        if value is not None:
            distances.append(abs(value))
    if not distances:
        return None
    distances.sort()
    total, alpha = len(distances), 1 - level
    at_least = lambda t: total - bisect_left(distances, t)  # noqa: E731 - draws as far as t or farther
    tolerance = 1e-12  # changes are ratios of counts: equal ones may differ in the last bit
    p_value = at_least(abs(seen) - tolerance) / total
    q = max((t for t in set(distances) if at_least(t - tolerance) / total >= alpha), default=0.0)
    if p_value >= alpha:  # |change| at q up to the last bit: the interval keeps 0, as the test does
        q = max(q, abs(seen))
    if q == 0:  # no draw moved the change: the swaps cannot reach what the statistic reads (nothing to test)
        return None
    return RandomizedChange(seen, max(-1.0, seen - q), min(1.0, seen + q), p_value, level)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz), for x < (a+1)/(a+b+2)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on the CDF): the multiplier of a t interval over few seeds."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    if p < 0.5:
        return -student_t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if student_t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def paired_t_interval(differences: Sequence[float], level: float = LEVEL) -> tuple[float, float, float] | None:
    """The mean of paired differences (Cooper minus static, seed by seed) with its t interval; None for fewer
    than two pairs."""
    if len(differences) < 2:
        return None
    mean, stderr = mean_and_stderr(differences)
    half = student_t_quantile(0.5 + level / 2, len(differences) - 1) * (stderr or 0.0)
    return mean, mean - half, mean + half


def normal_interval(mean: float, stderr: float | None) -> tuple[float, float] | None:
    """mean ± z·stderr at the 95% level."""
    return None if stderr is None else (mean - _Z * stderr, mean + _Z * stderr)


def half_width_stderr(interval: tuple[float, float]) -> float:
    """The standard error a symmetric 95% interval implies (to combine intervals of independent figures)."""
    return (interval[1] - interval[0]) / (2 * _Z)
