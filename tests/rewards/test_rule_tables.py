"""The grader's rules as lists: each exact rule and each rejection is a named, cited entry, and each has a table
of cases here that it decides itself (a rule added without its table fails the coverage test)."""

from __future__ import annotations

import pytest

from rewards.math.decision import DECISIONS
from rewards.math.extraction import extract_final_answer
from rewards.math.rejection import ANSWER_REJECTIONS, COMPLETION_REJECTIONS, Answered

# rule name -> (question, reference, answer, verdict)
DECISION_CASES = {
    "identical_forms": [("", r"\frac{1}{2}", r"\frac{1}{2}", True), ("", "x^2+1", "x^2 + 1", True)],
    "labelled_quantities": [("", r"30 \text{ red}, 40 \text{ yellow}", r"40 \text{ yellow}, 30 \text{ red}", True),
                            ("", r"30 \text{ red}, 40 \text{ yellow}", r"30 \text{ red}, 45 \text{ yellow}", False),
                            ("", r"30 \text{ red}, 40 \text{ yellow}", r"30 \text{ red}, 40 \text{ blue}", False),
                            ("", r"30 \text{ red}, 40 \text{ yellow}", "30, 40", False),
                            ("", r"3 \text{ cm}, 4 \text{ cm}", "3, 4", None)],  # a unit: not this rule's
    "labelled_parts": [("Find p and q.", "3, 5", "p = 3, q = 5", True),
                       ("Find p and q.", "3, 5", "p = 3, q = 6", False),
                       # labels that are LaTeX operator names, in the question's order
                       ("Find the minimum and the maximum.", "2, 7", r"\max = 7, \min = 2", True),
                       ("Find the minimum and the maximum.", "2, 7", r"\max = 2, \min = 7", False)],
    "percent": [("What percent of 8 is 2?", r"25\%", "0.25", False), ("", r"25\%", "25", True)],
    "angle_units": [("", r"90^\circ", r"\frac{\pi}{2}", True), ("", r"90^\circ", r"\frac{\pi}{3}", False)],
    "numbers": [("", "0.0032", "3.2e-3", True), ("", "2^{64}", "2^{64}+1", False),
                # mixed numbers, as word problems write them
                ("", "1 1/2", "1.5", True), ("", r"\frac{3}{2}", r"1\frac{1}{2}", True),
                ("", r"\frac{1}{2}", r"1\frac{1}{2}", False), ("", r"\frac{266}{3}", r"88 \frac{2}{3}", True),
                ("", r"\frac{268}{3}", r"88 \frac{2}{3}", False), ("", "3.5", r"3\tfrac{1}{2}", True),
                # a decimal is the value rounded or cut at its last digit, not anything within a unit of it
                ("", r"\sqrt{2}", "1.4142", True), ("", r"\frac{2}{3}", "0.6666", True),
                ("", r"\sqrt{2}", "1.415", False), ("", r"\pi", "3.15", False), ("", r"-\frac{2}{3}", "-0.665", False),
                # a name set equal to a value, or to a chain of equal values, with a unit
                ("", "40", r"\text{Volume} = 20 \times 2 = 40 \text{ cubic inches}", True),
                ("", "40", r"V = 40 \text{ cm}^3", True), ("", "41", r"\text{Volume} = 20 \times 2 = 40", False),
                ("", "40", r"\text{Volume} = 20 \times 3 = 40", None)],  # a false chain: math-verify's
    "orderings": [("", "F<G<A<D", "F, G, A, D", True), ("", "F<G<A<D", "G, F, A, D", False),
                  ("Order them from greatest to least.", "F<G<A<D", "F, G, A, D", False)],
    "values_in_prose": [("", "3, 4", "the roots are 4 and 3", True), ("", "3, 4", "the roots are 3 and 5", False),
                        ("", "4", "x = 3 or x = 4", False)],
    "number_in_prose": [("", "58", "Mary will be left with 58 potted plants", True),
                        ("", "2", "It has two vertical asymptotes", True), ("", "3", "It has two asymptotes", False)],
    "interval_notation": [("", "(2, 5]", r"\{x \mid 2 < x \le 5\}", True), ("", "(2, 5]", "2 < x < 5", False)],
    "tuples": [("", "(1, 2)", "(1, 2)", True), ("", "(1, 2)", "(2, 1)", False),
               # each element under the numbers' digits rule
               ("", r"(\frac{1}{3}, \sqrt{3})", "(0.333, 1.732)", True),
               ("", r"(\frac{1}{3}, \sqrt{3})", "(0.33, 1.732)", False),
               ("Give the exact coordinates.", r"(\frac{1}{3}, \sqrt{3})", "(0.333, 1.732)", False)],
    "number_lists": [("", r"\frac13, \sqrt3, \pi", "1/3, 1.732, 3.1416", True),
                     ("", "-2, 3", "3, -2", True),
                     ("Give the exact solutions.", r"\frac13, \sqrt3", "0.333, 1.732", None),
                     ("", r"\frac13, \sqrt3", "0.33, 1.732", None),
                     # sets of integers and fractions that differ: wrong, without math-verify
                     ("", "1, 2, 3", "1, 2", False),
                     ("", r"-3, -2, \frac{1}{3}, \frac{1}{2}", r"\frac{5}{4},\frac{7}{4},\frac{8}{4},\frac{9}{4}",
                      False),
                     ("", r"\dfrac{1}{2}, 3", "1/2, 4", False),
                     ("", "1, 2", "1, 3, 3", False),
                     # a list is the set of its answers: a missing element is wrong even when a repeat keeps the
                     # length; a repeat alone is math-verify's (its sets ignore it, as the fixtures' judges do)
                     ("", "1, 2", "2, 2", False), ("", "1, 2, 3", "1, 1, 2", False), ("", "1, 2", "1, 2, 2", None),
                     # anything else unpaired is math-verify's: a root, a decimal
                     ("", "1, 3", r"1, \sqrt{2}", None), ("", "1, 2", "1.5, 2", None),
                     # a number with thousands separators is one number to latex2sympy, not a list
                     ("", "1,000", "1, 0", None), ("", "12,500", "500, 12", None), ("", "12, 500", "12,500", None)],
    "words": [("", "Paris", "paris", True), ("", "Paris", "Pairs", False),
              ("", "disproved", "Disproven", True), ("", "proved", "disproven", False)],
    # a verdict that opens its reason is the verdict; one that also gives the other verdict has given none
    "verdicts": [("", "No", r"\text{No, such a polynomial does not exist.}", True),
                 ("", "Yes", r"\text{Yes, it is always possible}", True),
                 ("", r"\text{True}", "true, by induction", True),
                 ("", "Yes", r"\text{No, it is never possible}", False),
                 ("", "Yes", r"\text{Yes, or no when } n \text{ is odd}", False),
                 ("", "No", "Not always", None)],  # no verdict at its start: the words rule's
    "clock_times": [("Give the time in 24-hour format.", "same_day, 15:21:01", "same_day, 15:21:02", False),
                    ("Give the time in 24-hour format.", "same_day, 09:01", "2014-09-25, same_day, 09:00", False),
                    ("Give the time in 24-hour format.", "same_day, 09:01", "same_day, 09:01", True),
                    ("", "20:34", "20:34:00", True), ("", "20:34", r"08:34 \text{P.M.}", True),
                    ("", "20:34", "8:34 AM", False),
                    ("Give the time.", "+1, 07:04", "same_day, 07:04", None),  # the day is another rule's
                    ("", "10:15", "20:30", None),  # no seconds, no AM/PM, no time asked: a ratio, perhaps
                    ("What is the ratio of the times?", "12:15:20", "12:15:21", None)],
}

# rule name -> (question, reference, completion) that the rule rejects
REJECTION_CASES = {
    "looping": [("What is 2 + 2?", "4",
                 "It is \\boxed{4}. " + "Hmm, it is \\boxed{5}. No wait, it is \\boxed{4}. " * 8 + "Hmm, it")],
    "alternating": [("What is 2 + 2?", "4",
                     "The answer is 4. No wait, the answer is 5. Hmm, the answer is 4. Or maybe the")],
    "resource": [("What is 2 + 2?", "4", r"\boxed{" + "4" * 70_000 + "}")],
    "code_or_gibberish": [("What is 2 + 2?", "4", "brtx vlkq ghmm 4"), ("What is 2 + 2?", "4", "]]]] {{{{ 4")],
    "program_expression": [("What is 2 + 2?", "4", r"\boxed{len('abcd')}")],
    "restated": [("Factor $x^2 - 1$.", "(x-1)(x+1)", r"\boxed{x^2 - 1}")],
    "unevaluated": [("Compute $\\sum_{k=1}^{10} k$.", "55", r"\boxed{\sum_{k=1}^{10} k}"),
                    ("Evaluate the integral.", r"\frac{1}{3}", r"The answer is $\int_0^1 x^2 \, dx$."),
                    ("Find the limit.", "1", r"\boxed{L = \lim_{x \to 0} \frac{\sin x}{x}}")],
}


@pytest.mark.parametrize(("reference", "answer"), [
    ("55", r"\sum_{k=1}^{10} k = 55"),  # a chain answers with its last side
    (r"\sum_{k=1}^{n} k^2", r"\sum_{k = 1}^{n} k^{2}"),  # the reference is itself a sum
    ("120", "5!"), ("10", r"\binom{5}{2}"), ("1", r"\sin^2 x + \cos^2 x")])
def test_what_is_not_left_unevaluated(reference, answer):
    from rewards.math.rejection import leaves_unevaluated

    assert not leaves_unevaluated(reference, answer)


def test_every_rule_is_named_once_cited_and_has_its_table():
    decisions = [rule.name for rule in DECISIONS]
    rejections = [rule.name for rule in COMPLETION_REJECTIONS + ANSWER_REJECTIONS]
    assert len(set(decisions)) == len(decisions) and len(set(rejections)) == len(rejections)
    assert all(rule.source for rule in DECISIONS + COMPLETION_REJECTIONS + ANSWER_REJECTIONS)
    assert set(decisions) == set(DECISION_CASES)
    assert set(rejections) == set(REJECTION_CASES)


@pytest.mark.parametrize(("name", "case"), [(n, c) for n, cases in DECISION_CASES.items() for c in cases])
def test_each_exact_rule_decides_its_own_cases(name, case):
    question, gold, pred, verdict = case
    rule = next(r for r in DECISIONS if r.name == name)
    score = rule.decide(question, gold, pred)
    assert (score.verdict if score is not None else None) is verdict, (name, case, score)


@pytest.mark.parametrize(("name", "case"), [(n, c) for n, cases in REJECTION_CASES.items() for c in cases])
def test_each_rejection_rejects_its_own_cases_and_is_the_first_to(name, case):
    from rewards.math.grader import MathGrader
    from rewards.math.normalization import normalize_answer

    question, gold, completion = case
    extraction = extract_final_answer(completion)
    answer = normalize_answer(extraction.text) if extraction else None
    answered = Answered(question, gold, completion, extraction, answer, answer)
    rule = next(r for r in COMPLETION_REJECTIONS + ANSWER_REJECTIONS if r.name == name)
    assert rule.check(answered) is not None
    score = MathGrader().decide(gold, completion, question)
    assert score is not None and score.verdict is False and score.reason == rule.reason, score


def test_number_lists_rejects_only_what_math_verify_rejects():
    """Differential, property-based: lists of distinct integers and fractions, written as integers, ``\\frac``,
    ``\\dfrac`` and ``a/b``, against permutations and mutations of themselves; wherever the rule decides,
    math-verify's own parse and verify of the pair give the same verdict."""
    pytest.importorskip("math_verify")
    from fractions import Fraction

    from hypothesis import given, settings
    from hypothesis import strategies as st
    from math_verify import parse, verify

    rule = next(r for r in DECISIONS if r.name == "number_lists")
    values = st.builds(Fraction, st.integers(-12, 12), st.integers(1, 4))

    def written(value: Fraction, form: int) -> str:
        if value.denominator == 1:
            return str(value.numerator)
        sign = "-" if value < 0 else ""
        n, d = abs(value.numerator), value.denominator
        return [f"{sign}\\frac{{{n}}}{{{d}}}", f"{sign}\\dfrac{{{n}}}{{{d}}}", f"{value.numerator}/{d}"][form]

    lists = st.lists(values, min_size=2, max_size=5, unique=True)

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(lists, st.data())
    def check(gold_values, data):
        change = data.draw(st.sampled_from(["permute", "replace", "drop", "add"]))
        pred_values = data.draw(st.permutations(gold_values))
        if change == "replace":
            pred_values[0] = data.draw(values)
        elif change == "drop" and len(pred_values) > 2:
            pred_values.pop()
        elif change == "add":
            pred_values.append(data.draw(values))
        gold = ", ".join(written(v, data.draw(st.integers(0, 2))) for v in gold_values)
        pred = ", ".join(written(v, data.draw(st.integers(0, 2))) for v in pred_values)
        decided = rule.decide("", gold, pred)
        if decided is not None:
            expected = bool(verify(parse(f"${gold}$"), parse(f"\\boxed{{{pred}}}")))
            assert decided.verdict is expected, (gold, pred, decided)

    check()


def test_long_runs_of_spaces_cost_one_pass():
    """Where the grader reads an answer, a long run of spaces is read once, not once per space: an answer phrase
    followed by nothing but spaces (four whitespace runs in a row in its pattern: 400 spaces cost 13 s), a name
    and "=" before a value that does not close, a unit after a run, a decimal literal's mantissa. These run in
    the calling process, where no deadline applies; a run of 200,000 would take hours at the old costs."""
    from rewards.math.decision import decimal_literal, strip_assignment, unanchored_number
    from rewards.math.extraction import extract_final_answer
    from rewards.math.grader import MathGrader

    run = " " * 200_000
    assert extract_final_answer("The answer is" + run).text == "is"  # the anchor's last word, as before
    assert extract_final_answer("The answer is" + run + "\n" + run).text == "is"
    assert strip_assignment("x =" + run + "1 <") == "x =" + run + "1 <"
    assert strip_assignment(r"\text{a} =" + run + "1 = 2" + run + "<").endswith("<")
    assert strip_assignment("x = 1 = 1" + run + "2").startswith("x = 1")
    assert strip_assignment("V = 40" + run + r"\text{ cm}") == "40"
    assert unanchored_number(r"so \[ x = 1" + run + r"2 \]") is None
    assert decimal_literal("1.5" + run + "y") is None
    grader, run = MathGrader(), run[:40_000]  # under the longest answer read at all (60,000 characters)
    for completion in ("The answer is" + run, r"\boxed{x =" + run + "1 <}", r"\boxed{40" + run + r"^\circ}",
                       r"\boxed{40" + run + r"\%}", r"\boxed{1.5" + run + r"\times 10^{3}}"):
        score = grader.decide("4", completion, "Compute it.")
        assert score is None or score.verdict is False, completion[:20]


@pytest.mark.parametrize(
    "answer, read",
    [
        ("x = 10", "10"),  # a name set to a value answers with the value
        (r"x = 5 \text{ cm}", "5"),  # without its unit
        ("x = y + 1", "y + 1"),  # a side that is no number: the expression, for math-verify, without the name
        (r"\text{Volume} = 20 \times 2 = 40 \text{ cubic inches}", "40"),  # a worked chain of one value: its end
        ("x = 2 = 3", "x = 2 = 3"),  # a chain whose sides differ is left whole
        ("10", "10"),  # no assignment
    ],
)
def test_an_assignment_answers_with_its_value(answer, read):
    from rewards.math.decision import strip_assignment

    assert strip_assignment(answer) == read
