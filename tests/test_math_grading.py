"""The grader on a table of real answer forms, in-process (the main thread, so math-verify's alarms work)."""

import pytest

from rewards.math_grading import GradingConfig, MathGrader, is_plain_words, reference_answer


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


def test_no_answer_reason(grader):
    score = grader.grade("7", "Let me think about this problem carefully and slowly without concluding. " * 10)
    assert (score.value, score.verdict, score.reason) == (0.0, False, "no_answer_found")


def test_reference_answer_extraction():
    assert reference_answer("so $\\boxed{30\\pi + 9\\sqrt{3}}$.") == "30\\pi + 9\\sqrt{3}"
    assert reference_answer("work\n#### 12") == "12"
    assert reference_answer("  B ") == "B"


def test_gold_is_parsed_once_per_distinct_reference(grader, monkeypatch):
    fresh = MathGrader(GradingConfig())
    calls = []
    real = fresh._parse
    monkeypatch.setattr(fresh, "_parse", lambda text: calls.append(text) or real(text))
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
