"""The float evaluator behind the grader's fast path: values it must get right, forms it must refuse."""

import math

import pytest

from rewards.math.numeric import evaluate, numeric_tuple, numeric_value, same_value
from rewards.math.reading import canonical_latex, rational_value


@pytest.mark.parametrize(
    "latex, value",
    [
        ("\\frac{\\sqrt{3}}{2}", math.sqrt(3) / 2),
        ("2\\sqrt{2}", 2 * math.sqrt(2)),
        ("\\sqrt[3]{27}", 3.0),
        ("-\\frac12", -0.5),
        ("\\dfrac{7}{2}", 3.5),
        ("30\\pi + 9\\sqrt{3}", 30 * math.pi + 9 * math.sqrt(3)),
        ("\\left(\\frac{1}{2}\\right)^2", 0.25),
        ("2\\cdot 3^2", 18.0),
        ("-2^2", -4.0),
        ("2^{2^{2^{2}}}", 65536.0),
        ("5!", 120.0),
        ("$3.5$", 3.5),
    ],
)
def test_values(latex, value):
    assert numeric_value(latex) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    "latex",
    ["x+1", "10\\%", "2^10", "3\\frac{1}{2}", "\\sqrt23", "1/0", "\\sqrt{-4}", "1,2", "3!!",
     "60^\\circ", "", "((1)"],
)
def test_refuses_what_it_cannot_read_safely(latex):
    assert numeric_value(latex) is None


@pytest.mark.parametrize("latex", ["5^{5^{5^{5^5}}}", "(10^{8})!", "10^{400}"])
def test_astronomical_values_are_infinite(latex):
    assert numeric_value(latex) == math.inf


@pytest.mark.parametrize(
    "gold, pred, same",
    [
        ("2^{64}", "18446744073709551617", False),  # a float says equal; the integers differ by one
        ("2^{64}", "18446744073709551616", True),
        ("2^{2000}", "3^{2000}", False),  # both past the float range: compared exactly, not as two infinities
        ("2^{2000}", "4^{1000}", True),
        ("10^{12}+1", "1000000000000", False),
        ("\\sqrt{8}", "2\\sqrt{2}", True),
        ("\\sqrt{2}", "\\sqrt{2}+10^{-8}", False),  # math-verify's 6-decimal rounding would call these equal
        ("(10^{8})!", "(10^{8}+1)!", False),  # by size: the second is 10^8 times the first
        ("5^{5^{5^5}}", "5^{5^{5^5}}", None),  # two towers past any size estimate: not decided here
        ("0.5^{10000}", "2^{-10000}", True),
    ],
)
def test_values_compare_exactly_or_by_size(gold, pred, same):
    assert same_value(evaluate(gold), evaluate(pred)) is same


def test_tuples_and_intervals():
    def approx(found):
        return (found[0], [v.approx for v in found[1]], found[2])

    assert approx(numeric_tuple("\\left(-1, \\frac{1}{2}\\right)")) == ("(", [-1.0, 0.5], ")")
    assert approx(numeric_tuple("[-2,2)")) == ("[", [-2.0, 2.0], ")")
    assert approx(numeric_tuple("(-\\infty, 2]")) == ("(", [-math.inf, 2.0], "]")
    assert numeric_tuple("(x, 2)") is None and numeric_tuple("(1)") is None and numeric_tuple("((1,2),3)") is None


def test_rational_and_canonical_forms():
    assert rational_value("\\frac{3}{4}") == rational_value("0.75") == rational_value("3/4")
    assert rational_value("9" * 50_000) is not None  # no int(str) digit limit on this path
    assert canonical_latex("\\left( \\dfrac{1}{2} \\right)") == canonical_latex("(\\frac{1}{2})")
