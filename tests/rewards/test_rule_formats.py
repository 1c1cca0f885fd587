"""Answer formats of real completions the rule reward refused: money in ``$`` followed by an answer line, a
qualifier in brackets between "the answer" and "is" with the answer on the next line, Chinese answer markers
(GAOKAO-Bench's 【答案】...<eoa>, 答案是), and a tool-integrated solution whose last word is its output block.

Each family is written here from its form, not copied from a data set: a right value is paid and a changed value
is not, so a rule that reads the wrong part of the text fails one side or the other."""

from __future__ import annotations

import pytest

from rewards import Item
from rewards.inputs import clean_completion
from rewards.math.extraction import Found, extract_final_answer
from rewards.math.rejection import cut_inside_formula, ends_mid_sentence

CASES = [
    # money in "$" earlier in the text, then a plain answer line: an odd count of "$" is no open formula
    ("money", "360", "He works 6 hours at $60 an hour, so he earns 6*60=$<<6*60=360>>360.\nA: 360", True),
    ("money", "361", "He works 6 hours at $60 an hour, so he earns 6*60=$<<6*60=360>>360.\nA: 360", False),
    ("money", "5", "Tickets cost $20 and she has a $15 voucher, so she pays $20 - $15 = $5 more.\nShe pays 5", True),
    ("money", "360", "It costs $<<6*60=360>>360 in all, for the six of them together", True),
    ("money", "360", "It costs $<<6*60=360>>360 in all, for the six of them together, a little", False),
    # a qualifier in brackets between "the answer" and "is", the answer on the line after "is:"
    ("answer_is", "18", "She sells 9 eggs a day for 2 days.\nTherefore, the answer (arabic numerals) is 18.", True),
    ("answer_is", "18", "She sells 9 eggs a day for 2 days.\nTherefore, the answer (arabic numerals) is 19.", False),
    ("answer_is", "110", "He spends $2640 over 24 pairs.\nTherefore, the answer (in dollars) is: \n\n$110", True),
    ("answer_is", "110", "He spends $2640 over 24 pairs.\nTherefore, the answer (in dollars) is: \n\n$111", False),
    ("answer_is", "40", "We count what is left.\nThe final answer is:\n\nWendy sold 40 pastries.", True),
    ("answer_is", "40", "We count what is left.\nThe final answer is:\n\nWendy sold 41 pastries.", False),
    # Chinese answer markers: GAOKAO-Bench's 【答案】...<eoa>, and 答案是 / 答案为
    ("zh_marker", "D", "【解析】集合A与B的交集是{0,1,2}。所以答案是D。<eoe>\n【答案】D<eoa>", True),
    ("zh_marker", "C", "【解析】集合A与B的交集是{0,1,2}。所以答案是D。<eoe>\n【答案】D<eoa>", False),
    ("zh_marker", "B", "【解析】计算得到 $-1+2i$，所以答案是$-1 + 2i$。 <eoe>\n【答案】: B <eoa>", True),
    ("zh_marker", "A", "【解析】计算得到 $-1+2i$，所以答案是$-1 + 2i$。 <eoe>\n【答案】: B <eoa>", False),
    ("zh_marker", "\\frac{2}{3}", "【解析】所以概率为 4/6=2/3。<eoe>\n【答案】$\\frac{2}{3}$<eoa>", True),
    ("zh_marker", "\\frac{2}{3}", "【解析】所以概率为 4/6=2/3。<eoe>\n【答案】$\\frac{3}{4}$<eoa>", False),
    ("zh_marker", "6", "解这个方程，我们得到 $n+1 = 7$，因此 $n = 6$。\n<eoe>\n【答案】6<eoa>", True),
    ("zh_marker", "7", "解这个方程，我们得到 $n+1 = 7$，因此 $n = 6$。\n<eoe>\n【答案】6<eoa>", False),
    ("zh_marker", "12", "两组人数相加，所以答案为12。", True),
    ("zh_marker", "13", "两组人数相加，所以答案为12。", False),
    # the marker opens a derivation ("...如下：") whose last value is the answer
    ("zh_marker", "100", "【答案】\n首先，我们解这个方程组：\n$d=2$，$a_1=1$\n所以 $S_{10}=5(1+19)=100$。<eoa>", True),
    ("zh_marker", "19", "【答案】\n首先，我们解这个方程组：\n$d=2$，$a_1=1$\n所以 $S_{10}=5(1+19)=100$。<eoa>", False),
    # a tool-integrated solution that ends on its output, with no number after it
    ("output", "3", "```python\nprint(75 * 80 / 2000)\n```\n```output\n3.0\n```\nThree trucks are needed.", True),
    ("output", "4", "```python\nprint(75 * 80 / 2000)\n```\n```output\n3.0\n```\nThree trucks are needed.", False),
    # prose after the output that states another number: the output is not the answer
    ("output", "3", "```python\nprint(75 * 80 / 2000)\n```\n```output\n3.0\n```\nSo 4 trucks, one spare.", False),
]


@pytest.mark.parametrize(("family", "reference", "completion", "paid"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_format_scores_as_labelled(rule_reward, family, reference, completion, paid):
    [score] = rule_reward.score([Item("", reference, completion)])
    assert not score.is_failure, f"{family}: the reward failed: {score.reason} {score.detail}"
    assert (score.verdict is True) == paid, f"{family}: {score.reason} {score.answer!r} {score.detail}"


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
