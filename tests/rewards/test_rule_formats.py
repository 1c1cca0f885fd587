"""The rules behind the answer formats of real completions the rule reward refused (their cases, a right and a
changed value for each, are in tests/rewards/test_rule_families.py): money in ``$`` before an answer line, a
qualifier in brackets between "the answer" and "is", Chinese answer markers (GAOKAO-Bench's 【答案】...<eoa>,
答案是), and a tool-integrated solution whose last word is its output block."""

from __future__ import annotations

from rewards.inputs import clean_completion
from rewards.math.extraction import Found, extract_final_answer
from rewards.math.rejection import cut_inside_formula, ends_mid_sentence


def test_prices_before_the_last_line_leave_no_formula_open():
    assert not cut_inside_formula("She pays $20 - $15 = $5 more.\nA: 360")
    assert not cut_inside_formula("so 6*60=$<<6*60=360>>360")
    # the last line alone decides: a formula left open there is still told, whatever came before
    assert cut_inside_formula("It costs $5 and $3.\nSo the condition holds when $a = 2")
    assert cut_inside_formula("He paid $4\nthen $a = 2$ and $b")


def test_the_answer_phrase_reads_past_a_bracketed_qualifier():
    found = extract_final_answer("Therefore, the answer (arabic numerals) is 18.")
    assert found is not None and (found.rule, found.text) == (Found.ANSWER_IS, "18")
    found = extract_final_answer("Therefore, the answer (arabic numerals) is:\n\n56")
    assert found is not None and found.text == "56"


def test_chinese_markers_anchor_and_the_bare_word_does_not():
    found = extract_final_answer("所以，正确答案是 $-i$。")
    assert found is not None and (found.rule, found.text) == (Found.ANSWER_IS, "-i")
    doubt = "我们先把两个式子相加。这个答案不对，我们再算一遍，两边同时乘以二，得到的是多少呢？再看一看题目的条件。"
    found = extract_final_answer(doubt)
    assert found is None or found.rule is not Found.ANSWER_IS


def test_the_end_of_answer_token_ends_the_completion_and_marks_an_end():
    assert clean_completion("【答案】D<eoa>\n【解析】多余") == "【答案】D"
    assert not ends_mid_sentence("【解析】所以答案是D。\n【答案】D ")


def test_an_output_block_is_read_only_as_the_last_word():
    found = extract_final_answer("```python\nprint(2)\n```\n```output\n2\n```\nTwo apples.")
    assert found is not None and (found.rule, found.text) == (Found.OUTPUT, "2")
    code = "```python\nfor k in range(2):\n    print(k + 1)\n```\n"
    found = extract_final_answer(code + "```output\n2\n```\nThen we add 3 more, so 5 apples in all.")
    assert found is None or found.rule is not Found.OUTPUT
    found = extract_final_answer(code + "```output\n1\n2\n```\nDone.")  # several lines printed: no one value
    assert found is None or found.rule is not Found.OUTPUT
