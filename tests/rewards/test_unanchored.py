"""Unanchored tails decided without math-verify's parse: the number it would read last, where that is plain,
checked against math-verify itself on every real completion here that has no anchored answer."""

from __future__ import annotations

import re

import pytest

from rewards.math.decision import decide_unanchored, unanchored_number


@pytest.mark.parametrize(
    ("tail", "number"),
    [
        ("9 eggs/day * 7 days = 63 eggs.\n\nSo, the family will consume 63 eggs in a week.", "63"),
        ("so \\[x = \\frac{3968}{31}\\]\n\\[x = 128\\]", "128"),
        (r"is approximately \(3.3\) to the nearest tenth.", "3.3"),
        (r"is \(\frac{21}{32}\).", r"\frac{21}{32}"),
        # a labelled chain with its unit (a ProcessBench completion)
        (r"Timothy's locker is: \[ \text{Volume} = 20 \times 2 = 40 \text{ cubic inches} \]", "40"),
        (r"the probability is \(\frac{42}{64} = \frac{21}{32}\).", r"\frac{21}{32}"),
        # not plain: left to math-verify
        (r"So, \( x = 14 \) and \( y = 15 \) is not a solution.", None),  # two answers in the last sentence
        (r"is \(3.3\), or 33 tenths", None),  # a number after the math
        (r"\[r = \frac{79.6}{24} \approx 3.32\]", None),  # an approximation
        ("so 40 - 36 = 4 guests did not get a second hotdog.", None),  # an operation in the last sentence
        ("Josh made a profit of $195,000 and spent $130,000.", None),  # two numbers
        (r"which is \(x^2 + 1\).", None),  # not a number
        ("no numbers at all.", None),
    ],
)
def test_the_number_read_last(tail, number):
    assert unanchored_number(tail) == number


def test_decided_by_the_numbers_rules_only_for_a_numeric_reference():
    assert decide_unanchored("", "128", r"so \[x = 128\]").verdict is True
    assert decide_unanchored("", "16", "Therefore, 18 watermelons were left.").verdict is False
    assert decide_unanchored("", "x + 1", "So it is 3.") is None


# A unit set in text at the end of the last display: math-verify drops it unless the answer begins with text.
_UNIT_BEFORE_CLOSE = re.compile(r"\s*\\text\{[^{}]*\}(?:\^\{?\d\}?)?(?=\s*(?:\\\]|\\\)|\$)\s*$)")


def test_agrees_with_math_verify_on_every_real_unanchored_tail():
    """Differential, on ProcessBench, MathCheck-GSM and the VerifyBench-Hard subset: wherever the tail is decided
    here, math-verify's own parse and verify of the same tail give the same verdict, or, where a text label
    (``\\text{Volume} = 40 \\text{ cubic inches}``) kept math-verify from dropping the unit, the verdict it gives
    once the unit is dropped."""
    from math_verify import parse, verify

    from rewards.inputs import clean_completion
    from rewards.math.extraction import after_thinking, extract_final_answer
    from rewards.math.grader import as_math_input, reference_answer
    from rewards.math.normalization import normalize_answer
    from rewards.math.rejection import without_list_markers
    from suites import build_suite

    decided = unit_kept = 0
    for spec, data in (("processbench", None), ("mathcheck-gsm", None),
                       ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench")):
        for row in build_suite(spec).load(data).rows:
            completion = clean_completion(row.item.completion)
            if extract_final_answer(completion) is not None:
                continue
            gold = normalize_answer(reference_answer(clean_completion(row.item.reference)))
            tail = normalize_answer(without_list_markers(after_thinking(completion)[-200:]))
            score = decide_unanchored(row.item.question, gold, tail)
            if score is None:
                continue
            decided += 1
            expected = bool(verify(parse(as_math_input(gold)), parse(tail)))
            if score.verdict is not expected:  # only where math-verify kept a unit that a text label hid from it
                without_unit = _UNIT_BEFORE_CLOSE.sub("", tail)
                assert without_unit != tail, (gold, tail)
                assert score.verdict is bool(verify(parse(as_math_input(gold)), parse(without_unit))), (gold, tail)
                unit_kept += 1
    assert decided >= 40
    assert unit_kept <= 2  # ProcessBench's "\text{Volume of Timothy's locker} = 20 \times 2 = 40 \text{ cubic inches}"
