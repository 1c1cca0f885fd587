"""The grader on a table of real answer forms, in-process (the main thread, so math-verify's alarms work)."""

import pytest

from rewards.math.decision import is_plain_words
from rewards.math.grader import GradingConfig, MathGrader, reference_answer


@pytest.fixture(scope="module")
def grader():
    return MathGrader(GradingConfig(math_verify_timeout=2))


@pytest.mark.parametrize(
    "reference, completion, correct",
    [
        ("18", "The answer is 18.", True),
        ("18.0", "#### 18", True),
        ("1434", "#### 1,434", True),
        ("18", "#### 19", False),
        ("\\frac{1}{2}", "\\boxed{0.5}", True),
        ("0.5", "\\boxed{\\frac{1}{2}}", True),
        ("\\frac{1}{3}", "\\boxed{0.3}", False),
        ("2\\sqrt{2}", "\\boxed{\\sqrt{8}}", True),
        ("x^2+2x+1", "\\boxed{(x+1)^2}", True),
        ("x^2+2x+1", "\\boxed{x^2+1}", False),
        ("(-2, 2)", "\\boxed{(-2,2)}", True),
        ("(-2, 2)", "\\boxed{[-2,2]}", False),
        ("\\{2, 3\\}", "\\boxed{\\{3, 2\\}}", True),
        ("y = 2x + 1", "\\boxed{y = 1 + 2x}", True),
        ("C", "The answer is (C).", True),
        ("(C)", "\\boxed{\\text{(C)}}", True),
        ("C", "\\boxed{D}", False),
        ("C", "I cannot decide between the options here, all seem plausible to me really.", False),
        ("Paris", "The answer is paris", True),
        ("Paris", "The answer is Pairs", False),
        ("disproved", "**Answer:** Disproved.", True),
        ("The total is $\\frac{10\\cdot 11}{2} = \\boxed{55}$.", "\\boxed{55}", True),
        ("The total is 55.\n#### 55", "The answer is 55", True),
        ("1024", "Doubling ten times gives 1024.", True),
        ("10", "\\boxed{x = 10}", True),
        ("10", "\\boxed{x = 12}", False),
        ("(-\\infty, 0]", "\\boxed{[0, \\infty)}", False),
        ("(-\\infty, 0]", "\\boxed{(-\\infty, 0]}", True),
    ],
)
def test_grade_table(grader, reference, completion, correct):
    score = grader.grade(reference, completion)
    assert score.verdict is correct, score


def test_no_answer_and_loop_reasons(grader):
    score = grader.grade("7", "Let me think about this problem carefully and slowly, without ever concluding anything")
    assert (score.value, score.verdict, score.reason) == (0.0, False, "no_answer_found")
    score = grader.grade("7", "Let me think about this problem carefully and slowly without concluding. " * 10)
    assert (score.value, score.verdict, score.reason) == (0.0, False, "invalid_output")


def test_reference_answer_extraction():
    assert reference_answer("so $\\boxed{30\\pi + 9\\sqrt{3}}$.") == "30\\pi + 9\\sqrt{3}"
    assert reference_answer("work\n#### 12") == "12"
    assert reference_answer("  B ") == "B"


def test_gold_is_parsed_once_per_distinct_reference(grader, monkeypatch):
    fresh = MathGrader(GradingConfig())
    calls = []
    real = fresh.symbolic.parse
    monkeypatch.setattr(fresh.symbolic, "parse", lambda text: calls.append(text) or real(text))
    for completion in ("\\boxed{1+x}", "\\boxed{x+2}", "\\boxed{2+x-1}"):
        fresh.grade("x+1", completion)
    gold_parses = [c for c in calls if c in ("$x+1$", "x+1")]
    assert len(gold_parses) == 1


def test_plain_words():
    assert is_plain_words("Paris") and is_plain_words("apple pear") and is_plain_words("\\text{No}")
    assert not is_plain_words("x") and not is_plain_words("2x") and not is_plain_words("\\pi")


def test_long_answers_are_cut(grader):
    score = grader.grade("3", "\\boxed{" + "9" * 5000 + "}")
    assert score.verdict is False and len(score.answer) <= 200


@pytest.mark.parametrize("reference, completion, verdict, reason", [
    ("4", "It is either \\boxed{3} or \\boxed{4}.", False, "hedged"),
    ("4", "\\boxed{3}/\\boxed{4}", False, "hedged"),
    ("C", "Maybe \\boxed{A}, or perhaps \\boxed{C}", False, "hedged"),
    ("2", "so \\boxed{2} or equivalently \\boxed{\\frac{4}{2}}", True, "verified"),  # both offered answers right
    ("4", "x = \\boxed{3}. Adding the last apple gives a total of \\boxed{4}.", True, "verified"),  # no choice offered
    ("4", "\\boxed{4} \\boxed{5} \\boxed{6}", False, "mismatch"),  # only the last box counts
])
def test_hedged_boxes_pay_only_when_every_alternative_is_right(grader, reference, completion, verdict, reason):
    score = grader.grade(reference, completion)
    assert (score.verdict, score.reason) == (verdict, reason)


@pytest.mark.parametrize(
    "question, reference, completion, verdict, reason",
    [
        # no evaluation of towers: compared by size
        ("", "4", "So the result is 9^9^9^9", False, "mismatch"),
        ("", "9^{9^{9^9}}", "The answer is 4", False, "mismatch"),
        # exact values, not float tolerance; decimals by the digits they give
        ("", "2^{64}", "\\boxed{18446744073709551617}", False, "mismatch"),
        ("", "\\frac{1}{4000000}", "\\boxed{0.0000002}", False, "mismatch"),
        ("", "\\frac{2}{7}", "\\boxed{0.2857}", True, "verified"),
        ("", "\\frac{2}{7}", "\\boxed{0.29}", False, "mismatch"),  # two significant digits are not enough
        ("Give the exact value.", "\\frac{2}{7}", "\\boxed{0.2857}", False, "wrong_form"),
        # the last of several statements on one line is the answer
        ("", "20", "the answer is 19, no wait, the answer is 20.", True, "verified"),
        # a percent, not its fraction
        ("What percent of 8 is 2?", "25\\%", "\\boxed{0.25}", False, "wrong_form"),
        ("What percent of 8 is 2?", "25\\%", "The answer is 25.", True, "verified"),
        # control tokens of the policy's tokenizer
        ("", "1596", "so she pays \\$1596.<|im_end|><|endoftext|>", True, "verified"),
        ("", "1596", "Therefore, in all, she pays a total of \\$1596.<|im_end|>", True, "verified"),
        ("", "1596", "The answer is 1596<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nThe answer is 7", True,
         "verified"),
        # loops, alternation, code
        ("", "12", "The answer is 12. Wait. The answer is 13. Wait. " * 6 + "The answer", False, "invalid_output"),
        # one answer stated by its phrase and its box is one statement, whatever follows; two different ones
        # and a stop mid-sentence are not an answer
        ("", "3", "The answer is \\boxed{3}.\nThanks", True, "verified"),
        ("", "3", "#### \\boxed{3}\nThanks", True, "verified"),
        ("", "3", "The answer is 4. Wait. The answer is \\boxed{3}.\nThanks", False, "invalid_output"),
        ("", "4", "x = 8 / 2\nprint(x)  # 4", False, "invalid_output"),
        # forms: restated expression, interval as inequality, angle units, text-wrapped numbers, vectors, options
        ("Simplify $\\frac{9}{12}$.", "\\frac{3}{4}", "\\boxed{\\frac{9}{12}}", False, "restates_question"),
        ("Solve $2x > 8$.", "(4, \\infty)", "\\boxed{x > 4}", True, "verified"),
        ("Find the angle.", "\\frac{\\pi}{4}", "\\boxed{45^\\circ}", True, "verified"),
        ("Find the angle in radians.", "\\frac{\\pi}{4}", "\\boxed{45^\\circ}", False, "wrong_form"),
        ("Find the angle in degrees.", "45^\\circ", "\\boxed{\\frac{\\pi}{4}}", False, "wrong_form"),
        ("", "7", "\\boxed{\\text{7}}", True, "verified"),
        ("", "(3, 4)", "\\boxed{\\begin{bmatrix} 3 \\\\ 4 \\end{bmatrix}}", True, "verified"),
        ("Pick one. (A) 3 (B) 9 (C) 27", "9", "The answer is (B) 9", True, "verified"),
        ("Pick one. (A) 3 (B) 9 (C) 27", "B", "The answer is 9", True, "choice"),
        # e-notation is the rational it writes; an option letter only standing alone; program syntax is no number
        ("", "\\frac{2}{625}", "\\boxed{3.2e-3}", True, "verified"),
        ("", "1500", "The answer is 1.5E3", True, "verified"),
        ("", "\\frac{2}{625}", "\\boxed{3.2e-2}", False, "mismatch"),
        ("Pick one. (A) 3 (B) 9 (C) 27", "B", "\\boxed{\\mathrm{B}+1}", False, "no_answer_found"),
        ("", "4", "The answer is os.path.join('a') + 4", False, "invalid_output"),
        ("", "12", "\\boxed{len('abcdefghijkl')}", False, "invalid_output"),
        # functions in plain text by their C and Python names too; a value zero to evalf's accuracy is zero
        ("", "\\frac{\\pi}{3}", "\\boxed{acos(1/2)}", True, "verified"),
        ("", "0", "\\boxed{tan(pi)}", True, "verified"),
        ("", "0", "\\boxed{sin(pi) + 10^{-30}}", False, "mismatch"),
        # set-builder notation is the set its condition defines, on its own variable
        ("", "(2, 5]", "\\boxed{\\{x \\mid 2 < x \\le 5\\}}", True, "verified"),
        ("", "(2, 5]", "\\boxed{\\{x \\mid 2 \\le x \\le 5\\}}", False, "mismatch"),
        # a function's variable is bound: renamed to the reference's, unless that would merge two variables
        ("", "g(x) = 3x - 1", "\\boxed{g(t) = 3t - 1}", True, "verified"),
        ("", "f(x) = \\sqrt{x} + 1", "\\boxed{f(t) = \\sqrt{t} + 1}", True, "verified"),
        ("", "f(x) = x + 1", "\\boxed{f(t) = t + x}", False, "mismatch"),
        # a function's graph y = ... for its definition f(x) = ..., either way round, as the bare formula already is
        ("", "f(x) = 2x + 3", "\\boxed{y = 2x + 3}", True, "verified"),
        ("", "y = 2x + 3", "\\boxed{f(x) = 2x + 3}", True, "verified"),
        ("", "f(x) = 2x + 3", "\\boxed{y = 2x + 3y}", False, "mismatch"),
        ("", "f(x) = 2x + 3", "\\boxed{y \\le 2x + 3}", False, "mismatch"),
        # i is the imaginary unit where the question speaks of complex numbers or the reference is one
        ("", "1+2i", "\\boxed{i(2-i)}", True, "verified"),
        ("", "2i", "\\boxed{(1+i)^2}", True, "verified"),
        ("", "1+2i", "\\boxed{1-2i}", False, "mismatch"),
        ("Compute i^2, where i is the imaginary unit.", "-1", "\\boxed{i^2}", True, "verified"),
        ("", "-1", "\\boxed{i^2}", False, "mismatch"),
        ("The i-th term of a sequence is i^2 + 1. Give it.", "i^2 + 1", "\\boxed{0}", False, "mismatch"),
        # boxes joined by "and" between LaTeX spaces
        ("", "(2, 2), (6, 2)", "\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}", True, "verified"),
        ("", "(2, 2), (6, 2)", "\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 3)}", False, "mismatch"),
        # labelled parts in the reference's order, or the question's; a set of solutions in any order
        ("", "3, 5", "\\boxed{p = 3, q = 5}", True, "verified"),
        ("", "3, 5", "\\boxed{p = 5, q = 3}", False, "mismatch"),
        ("Find the minimum and maximum.", "2, 7", "\\boxed{\\text{Max} = 7, \\text{Min} = 2}", True, "verified"),
        ("", "3, 5", "\\boxed{x_1 = 5, x_2 = 3}", True, "verified"),
        # an answer spread over boxes joined by "and" is read whole; "or" keeps them alternatives
        ("", "(1, 2), (2, 1)", "The pairs are \\boxed{(1, 2)} and \\boxed{(2, 1)}.", True, "verified"),
        ("", "3", "It is \\boxed{3} and \\boxed{4}.", False, "mismatch"),
        ("", "5", "First \\boxed{12}. Then we get \\boxed{5}.", True, "verified"),
        ("", "3", "\\boxed{\\boxed{3}}", True, "verified"),  # a box in a box is one answer
        # a space between a command and its brace is no part of the answer (TeX skips it)
        ("", "8\\sqrt{3} \\text { square inches}", "\\boxed{8\\sqrt{3}}", True, "verified"),
        ("", "8\\sqrt{3} \\text { square inches}", "\\boxed{8\\sqrt{2}}", False, "mismatch"),
        # a labelled value, or a worked chain of equal values, with its unit: the value
        ("", "40", "\\boxed{\\text{Volume} = 20 \\times 2 = 40 \\text{ cubic inches}}", True, "verified"),
        ("", "40", "\\boxed{\\text{Volume of the locker} = 40\\text{ cubic inches}}", True, "verified"),
        ("", "400", "\\boxed{\\text{Volume} = 20 \\times 2 = 40 \\text{ cubic inches}}", False, "mismatch"),
        ("", "40", "\\boxed{\\text{Volume} = 20 \\times 3 = 40 \\text{ cubic inches}}", False, "mismatch"),
        # two spellings of one participle
        ("", "disproved", "**Answer:** Disproven.", True, "string_match"),
        ("", "proved", "**Answer:** Disproven.", False, "mismatch"),
    ],
)
def test_rules_of_the_published_families(grader, question, reference, completion, verdict, reason):
    score = grader.grade(reference, completion, question)
    assert (score.verdict, score.reason) == (verdict, reason), score


def test_decide_needs_no_sympy_and_agrees_with_grade(grader):
    pairs = [("3", "\\boxed{3}"), ("\\frac{1}{2}", "\\boxed{0.5}"), ("x^2+1", "\\boxed{1+x^2}"), ("C", "(C)")]
    for reference, completion in pairs:
        decided = grader.decide(reference, completion)
        assert decided is None or decided == grader.grade(reference, completion)
    assert grader.decide("3", "\\boxed{3}") is not None  # plain numbers are decided without math-verify
    assert grader.decide("x^2+1", "\\boxed{1+x^2}") is None  # algebra needs it


def test_a_repeated_answer_is_parsed_and_compared_once_per_process(monkeypatch):
    """GRPO samples 16 rollouts a prompt, many with the same final answer: one parse and one comparison each."""
    grader = MathGrader()
    parsed = []
    parse = grader.symbolic.parse
    monkeypatch.setattr(grader.symbolic, "parse", lambda text: parsed.append(text) or parse(text))
    for _ in range(16):
        assert grader.grade("x^2-1", "So we get \\boxed{(x-1)(x+1)}.").verdict is True
    assert grader.grade("x^2-1", "\\boxed{(x-1)(x+2)}").verdict is False
    assert [t for t in parsed if t.startswith("\\boxed")] == ["\\boxed{(x-1)(x+1)}", "\\boxed{(x-1)(x+2)}"]


@pytest.mark.parametrize(
    ("reference", "answer", "correct"),
    [
        (r"\cos x", r"\sin(90^\circ - x)", True),  # MARIO_EVAL's is_equiv tests
        (r"\sin(90^{\circ}-x)", r"\cos x", True),
        (r"\frac{1}{2}", r"\sin 30^\circ", True),
        (r"\frac{\sqrt{3}}{2}", r"\cos 30^{\circ}", True),
        (r"\frac{1 + \sqrt{5}}{4}", r"\cos 36^\circ", True),
        ("1", r"\tan 45\degree", True),
        (r"\frac{1}{2}", r"\sin 60^\circ", False),
        (r"\frac{1}{2}", r"\sin 30", False),  # no degree sign: 30 radians
        (r"\sin 30", r"\frac{1}{2}", False),
    ],
)
def test_degrees_inside_trigonometric_functions(grader, reference, answer, correct):
    pytest.importorskip("math_verify")
    assert grader.grade(reference, f"\\boxed{{{answer}}}").verdict is correct


def test_degrees_become_radians_only_inside_trigonometry():
    from rewards.math.quantities import degrees_in_trig

    assert degrees_in_trig(r"\sin 30^\circ + 2") == r"\sin (\frac{30\pi}{180}) + 2"
    assert degrees_in_trig(r"\cos(90^{\circ} - x)") == r"\cos((\frac{90\pi}{180}) - x)"
    assert degrees_in_trig(r"60^\circ") == r"60^\circ"  # a bare angle is the angle rule's
    assert degrees_in_trig(r"\sin x + 2^\text{nd}") == r"\sin x + 2^\text{nd}"


ROUNDING_REFERENCES = ["\\frac{1}{3}", "\\frac{2}{3}", "\\frac{1}{7}", "\\frac{\\sqrt{2}}{2}", "\\frac{\\pi}{4}",
                       "\\frac{\\sqrt{3}}{3}"]


def _decimals(value: float) -> list[str]:
    """Decimals near ``value`` at three to five places: cut, rounded, and one unit either side."""
    import math

    out = []
    for places in (3, 4, 5):
        unit = 10.0 ** -places
        cut = math.floor(value / unit)
        out += [f"{k * unit:.{places}f}" for k in (cut - 1, cut, cut + 1, cut + 2)]
    return out


@pytest.mark.parametrize("reference", ROUNDING_REFERENCES)
def test_a_decimal_is_judged_the_same_for_a_value_and_its_negative(grader, reference):
    """Metamorphic: negating both sides changes no verdict, for decimals cut, rounded and off by a unit."""
    from rewards.math.numeric import evaluate

    for answer in _decimals(evaluate(reference).approx):
        plus = grader.grade(reference, f"\\boxed{{{answer}}}")
        minus = grader.grade(f"-{reference}", f"\\boxed{{-{answer}}}")
        assert plus.verdict == minus.verdict, (reference, answer, plus, minus)


@pytest.mark.parametrize("reference, answer, correct", [
    ("\\frac{1}{3}", "0.333", True),  # cut and rounded alike
    ("\\frac{1}{3}", "0.334", False),  # 0.00067 above: more than half a unit, and not a cut
    ("-\\frac{1}{3}", "-0.334", False),
    ("\\frac{\\sqrt{2}}{2}", "0.70710", True),  # cut at its last digit
    ("-\\frac{\\sqrt{2}}{2}", "-0.70710", True),
    ("-\\frac{\\sqrt{2}}{2}", "-0.70712", False),
    ("\\frac{1}{64}", "0.0156", False),  # 0.015625 has an exact decimal form: only it is the value
    ("\\frac{1}{64}", "0.015625", True),
])
def test_a_decimal_pays_only_as_the_value_cut_or_rounded_at_its_last_digit(grader, reference, answer, correct):
    assert grader.grade(reference, f"\\boxed{{{answer}}}").verdict is correct


def test_a_list_of_up_to_twelve_numbers_is_decided_without_math_verify(grader):
    twelve = ", ".join(str(k) for k in range(1, 13))
    decided = grader.decide(twelve, "\\boxed{" + ", ".join(str(k) for k in range(12, 0, -1)) + "}")
    assert decided is not None and decided.verdict is True
    decided = grader.decide(twelve, "\\boxed{" + ", ".join(str(k) for k in range(13, 1, -1)) + "}")
    assert decided is not None and decided.verdict is False


@pytest.mark.parametrize(("reference", "completion", "correct"), [
    # MATH's thousands separator, a comma and a negative thin space (real references of ProcessBench's MATH split)
    ("3,\\!110,\\!400", "\\boxed{3110400}", True), ("3,\\!110,\\!400", "\\boxed{3104400}", False),
    ("16,\\!471", "The answer is 16,471.", True), ("1,\\!2", "\\boxed{12}", None),
    # a reference's unit in words set as LaTeX text
    ("162\\text{ minutes}", "\\boxed{162}", True), ("162\\text{ minutes}", "The answer is 161 minutes.", False),
    ("65 \\text{ children tickets }", "\\boxed{40}", False), ("9 \\text{ multiples}", "\\boxed{9}", True),
])
def test_latex_separators_and_text_units_are_decided_without_math_verify(grader, reference, completion, correct):
    """Decided in the calling process as the worker grades them; None: still a worker's (a list, not 12)."""
    decided = grader.decide(reference, completion)
    if correct is None:
        assert decided is None or decided.verdict is not True
    else:
        assert decided is not None and decided.verdict is correct, decided
    assert grader.grade(reference, completion).verdict is bool(correct)


def test_a_wrong_labelled_part_is_named_by_its_place(grader):
    assert grader.grade("3, 5", "\\boxed{p = 3, q = 6}").detail.startswith("part 2 (q) differs")
    assert grader.grade("3, 5", "\\boxed{p = 4, q = 5}").detail.startswith("part 1 (p) differs")
