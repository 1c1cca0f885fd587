"""The identity stage: answers math-verify does not match, compared as real functions under the domain policy
(variables real), with the numeric ground's guard against differences hidden below its tolerance."""

from __future__ import annotations

import pytest

from rewards.math.grader import MathGrader

pytest.importorskip("math_verify")

SAME = [
    ("1", r"\sec^2(x)-\tan^2(x)"),  # a numeric reference against an expression in x
    ("1", r"\sin^2 x+\cos^2 x"),
    (r"\ln(x+\sqrt{x^2-1})", r"\cosh^{-1}(x)"),  # defined for x >= 1 only: the second range of points
    (r"\ln(x+\sqrt{x^2-1})", r"\operatorname{arccosh}(x)"),
    (r"\tanh(x)", r"\frac{e^x-e^{-x}}{e^x+e^{-x}}"),
    (r"\sqrt{x^2+1}", r"\cosh(\sinh^{-1}(x))"),
    ("2|x|", r"\sqrt{4x^2}"),
    ("|x|", r"\sqrt{x^2}"),
    ("|x^2-1|", r"|x-1|\cdot|x+1|"),
    (r"\frac{4t^2-1}{2t}", "0.5*(4.0*t^2-1.0)/t"),
    (r"\frac{1}{\cos^2 x}", r"1+\tan^2 x"),
    ("x", r"\ln(e^x)"),
]

DIFFERENT = [
    ("x", r"\sqrt{x^2}"),  # |x|: the domain policy
    ("2x", r"\sqrt{4x^2}"),
    (r"2\ln x", r"\ln(x^2)"),  # defined for negative x too
    ("1", r"\sec^2(x)+\tan^2(x)"),
    (r"\ln(x+\sqrt{x^2+1})", r"\cosh^{-1}(x)"),
    ("x^2", "t^2"),  # another variable is another function
    ("x", "x+10^{-12}"),  # above the tolerance
    (r"\pi x", "3.14159265358979x"),  # a rounding, read as the rational it writes
    ("x", "x+10^{-60}"),  # below the tolerance: the guard
    ("x", r"x\tanh(100)"),
    ("x", "x+e^{-1000x^2}"),
    ("x", r"\frac{1000000000000000000001x}{1000000000000000000000}"),
    ("x", r"x(2-\cos(1-\cos(10^{-15})))"),
    ("2^{100}", "2^{100}+1"),
]


@pytest.fixture(scope="module")
def grader():
    return MathGrader()


@pytest.mark.parametrize(("reference", "answer"), SAME)
def test_the_same_real_function_is_accepted(grader, reference, answer):
    score = grader.grade(reference, f"\\boxed{{{answer}}}")
    assert score.verdict is True, (reference, answer, score)


@pytest.mark.parametrize(("reference", "answer"), DIFFERENT)
def test_a_different_function_is_rejected(grader, reference, answer):
    score = grader.grade(reference, f"\\boxed{{{answer}}}")
    assert score.verdict is False, (reference, answer, score)


def test_each_ground_is_named_and_the_guard_is_what_rejects_a_hidden_difference():
    from math_verify import parse

    from rewards.math.identities import _as_real, numeric_check, same_function

    def first(text):
        return parse(f"\\boxed{{{text}}}")[0]

    assert same_function(first(r"\ln(x+\sqrt{x^2-1})"), first(r"\cosh^{-1}(x)")).ground == "numeric"
    assert same_function(first(r"\tanh(x)"), first(r"\frac{e^x-e^{-x}}{e^x+e^{-x}}")).ground == "proved"
    for hidden in (r"x+10^{-60}", r"x\tanh(100)", r"x(2-\cos(1-\cos(10^{-15})))"):
        gold, pred, symbols = _as_real(first("x"), first(hidden))
        verdict, _ = numeric_check(gold, pred, symbols)
        assert verdict is not None and verdict.equal  # the numbers alone cannot tell ...
        assert same_function(first("x"), first(hidden)) is None  # ... so the answer is not accepted on them


@pytest.mark.parametrize(
    ("reference", "answer"),
    [("-x^7-2x^5+x^2", "-x^7 - 5x^5 + x^2"), ("21a^5 - 7a^4 - 16a^2 + 32a", "21a^5 - 7a^4 - 16a^2 - 32a"),
     (r"\frac{2x-7}{(x+1)(x-2)}", r"\frac{2x+7}{(x+1)(x-2)}"), (r"\sin(2x)", r"2\sin x")],
)
def test_a_wrong_expression_is_told_apart_by_its_values_before_math_verify_simplifies(grader, reference, answer):
    score = grader.grade(reference, f"\\boxed{{{answer}}}")
    assert (score.verdict, score.detail) == (False, "different values at a real point"), score


def test_the_quick_difference_never_rejects_what_math_verify_accepts():
    """Differential, on others' equivalence judgements (the answer-equivalence fixtures) and the robustness
    suite's equivalent forms: wherever math-verify's own parse and verify accept a pair, the values agree."""
    from math_verify import parse, verify

    from rewards.math.symbolic import SymbolicComparer
    from suites import build_suite

    comparer = SymbolicComparer(timeout_s=5, float_rounding=6, numeric_precision=15, strict=True, cache_size=8)
    rows = build_suite("answer-equivalence").load().rows + [r for r in build_suite("robustness").load().rows if r.label]
    accepted = 0
    for row in rows:
        gold, pred = parse(row.item.reference), parse(row.item.completion)
        if gold and pred and verify(gold, pred):
            accepted += 1
            assert not comparer.differ(gold, pred), (row.item.reference, row.item.completion)
    assert accepted >= 200
