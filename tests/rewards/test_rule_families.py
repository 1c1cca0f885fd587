"""Families of answers the rule reward misread: JSON answer fields, prose verdicts, qualified families, piecewise
functions in the numeric identity stage, tuples with a ``\\pm``, a truncated formula, and the answer formats of real
completions (money in ``$`` before an answer line, a bracketed qualifier before "is", Chinese answer markers, a
tool's last output). Each family has its rule (named in the test) and each case here scores as labelled, through
the reward's own worker processes."""

from __future__ import annotations

import pytest

from rewards import Item
from rewards.math.choices import question_options
from rewards.math.extraction import Found, extract_final_answer, json_answer
from rewards.math.normalization import tuples_with_plus_minus
from rewards.math.qualifiers import split_qualifier
from rewards.math.reading import number_in_words
from rewards.math.references import single_value, stated_answer
from rewards.math.rejection import cut_inside_formula

B = "The answer is $\\boxed{{{}}}$."

CASES = [
    # paid and wrong before: an answer field in JSON, read as prose, was decided by its last number
    ("json", "4", 'So the final output is:\n{"answer": "2*pi + 4"}', False),
    ("json", "7", '```json\n{"final_answer": "3*sqrt(5) - 7"}\n```', False),
    ("json", "12", '{"answer": 13}', False),
    ("json", "12", 'First I box \\boxed{12}, then answer in the format asked: {"answer": "13"}', False),
    # right and not paid before
    ("json", "12", '{"answer": "12"}', True),
    ("json", "\\frac{3}{7}", '{"explanation": "we divide", "answer": "3/7"}', True),
    ("json", "\\frac{3}{7}", '{"finalAnswer": "\\\\frac{3}{7}"}', True),  # JSON's own escapes
    ("json", "\\frac{3}{7}", '{"answer": "\\frac{3}{7}"}', True),  # LaTeX's backslash, as models write it
    ("json", "1, 2", '{"answer": [1, 2]}', True),
    # piecewise functions agree at every random point and differ elsewhere
    ("piecewise", "|x+30|-30", B.format("|x+31|-31"), False),
    ("piecewise", "\\max(x,-50)", B.format("x"), False),
    ("piecewise", "\\left\\lfloor \\frac{x^2}{100} \\right\\rfloor", B.format("0"), False),
    ("piecewise", "\\lceil x \\rceil", B.format("\\lfloor x \\rfloor + 1"), False),  # differ only at integers
    ("piecewise", "\\min(x, 2)", B.format("\\frac{x+2-|x-2.5|}{2}"), False),
    ("piecewise", "\\max(x,0)", B.format("\\frac{x+|x|}{2}"), True),  # equal: proved or across its breakpoint
    ("piecewise", "\\min(x, 2)", B.format("\\frac{x+2-|x-2|}{2}"), True),
    ("piecewise", "|x^2-4|", B.format("|x-2| \\cdot |x+2|"), True),
    # a qualified reference: the family is the answer, not the bound of its range
    ("qualifier", "(3, m) \\text{ for every } m \\ge 2", "We check small cases. So the condition holds when $a = 2",
     False),
    ("qualifier", "(3, m) \\text{ for every } m \\ge 2", B.format("(3, m) \\text{ for all } m \\ge 3"), False),
    ("qualifier", "(3, m) \\text{ for every } m \\ge 2", B.format("(2, m) \\text{ for all } m \\ge 2"), False),
    ("qualifier", "g(t) = k\\,t \\text{ for some constant } k \\in \\mathbb{R}", B.format("g(t) = kt"), True),
    ("qualifier", "h(m) = 2 \\text{ for every integer } m", B.format("h(x) = 2 \\text{ for all } x"), True),
    ("qualifier", "(b,\\,3)\\ \\text{for all positive integers}\\ b", B.format("(b, 3)"), True),
    ("qualifier", "(3, m) \\text{ for every } m \\ge 2", B.format("(3, n) \\text{ for every } n \\geq 2"), True),
    # verdicts given with their reason
    ("verdict", "No", B.format("\\text{No, such a polynomial does not exist.}"), True),
    ("verdict", "Yes", B.format("\\text{Yes, it is always possible}"), True),
    ("verdict", "Yes", B.format("\\text{No, it is never possible}"), False),
    ("verdict", "Yes", B.format("\\text{Yes or no}"), False),
    # a tuple with one \pm stands for two tuples (it crashed the reward: an interval with complex ends)
    ("plus_minus", "(2,5),\\left(\\frac{3}{2}, 1 \\pm 2i\\right)",
     B.format("(2,5),\\ \\left(\\tfrac{3}{2},\\;1+2i\\right),\\ \\left(\\tfrac{3}{2},\\;1-2i\\right)"), True),
    ("plus_minus", "(2,5),\\left(\\frac{3}{2}, 1 \\pm 2i\\right)",
     B.format("(2,5),\\ \\left(\\tfrac{3}{2},\\;1+2i\\right)"), False),
    ("plus_minus", "(1 \\pm \\sqrt{2}, 3)", B.format("(1 + \\sqrt{2}, 3), (1 - \\sqrt{2}, 3)"), True),
    # a completion cut off inside a formula states no value
    ("truncated", "2", "We check small cases. So the condition holds when $a = 2", False),
    ("truncated", "18", "So the total is $18", True),
    # formats of real completions (written from each format's form, not copied from a data set)
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
    # labelled quantities (rule labelled_quantities): each value against the value of its own label; paid before
    # when only the first value agreed, or when the labels differed
    ("labelled_quantities", "30 \\text{ red}, 40 \\text{ yellow}, 15 \\text{ green}",
     B.format("30 \\text{ red}, 45 \\text{ blue}, 10 \\text{ green}"), False),
    ("labelled_quantities", "30 \\text{ red}, 40 \\text{ yellow}, 15 \\text{ green}",
     B.format("30 \\text{ red}, 45 \\text{ yellow}, 15 \\text{ green}"), False),
    ("labelled_quantities", "12 \\text{ boys}, 18 \\text{ girls}", B.format("12 \\text{ girls}, 18 \\text{ boys}"),
     False),
    ("labelled_quantities", "30 \\text{ red}, 40 \\text{ yellow}", B.format("30, 40"), False),  # no labels given
    # right in any order, with values written otherwise, and units (one label repeated) left to the other rules
    ("labelled_quantities", "30 \\text{ red}, 40 \\text{ yellow}, 15 \\text{ green}",
     B.format("40 \\text{ yellow}, 30 \\text{ red}, 15 \\text{ green}"), True),
    ("labelled_quantities", "\\frac{1}{2} \\text{ hour}, 3 \\text{ miles}", B.format("0.5 \\text{ hour}, 3 \\text{ miles}"),
     True),
    ("labelled_quantities", "3 \\text{ cm}, 4 \\text{ cm}", B.format("3, 4"), True),
    # an answer that opens with "=" (the end of a chain of equalities) states what follows the sign: paid before as
    # its first number (normalization.after_leading_equals)
    ("leading_equals", "1", B.format("= 1 - \\csc\\theta\\cot\\theta"), False),
    ("leading_equals", "1", "We simplify: the expression $= 1 - \\csc\\theta\\cot\\theta$", False),
    ("leading_equals", "2", B.format("=2x + 1"), False),
    ("leading_equals", "1 - \\csc\\theta\\cot\\theta", B.format("= 1 - \\csc\\theta\\cot\\theta"), True),
    ("leading_equals", "5", B.format("=5"), True),
    ("leading_equals", "5", "so $x$ = $5$", True),  # a closing "$" before "=" is not a span opening
    # HTML in a reference read as what it writes (normalization.html_to_latex): superscripts, subscripts, entities;
    # the right answers were refused before, as the markup read as nothing
    ("html", "x<sup>2</sup>+1", B.format("x^2+1"), True),
    ("html", "x<sup>2</sup>+1", B.format("x+1"), False),
    ("html", "a<sub>n</sub> = 2<sup>n</sup>", B.format("a_n = 2^n"), True),
    ("html", "a<sub>n</sub> = 2<sup>n</sup>", B.format("a_n = 2n"), False),
    ("html", "x &gt; 3", B.format("x > 3"), True),
    ("html", "x &gt; 3", B.format("x < 3"), False),
    # a reference written as a sentence is read for the value it states (references.stated_answer): math-verify read
    # the first number it parsed, a number that only modifies a noun, and paid it
    ("prose_reference", "the maximum number of distinct $4$-tuples is eight", B.format("4"), False),
    ("prose_reference", "the maximum number of distinct $4$-tuples is eight", B.format("8"), True),
    ("prose_reference", "The area of the $3$-by-$4$ rectangle is twelve square units", B.format("3"), False),
    ("prose_reference", "The area of the $3$-by-$4$ rectangle is twelve square units", B.format("12"), True),
    ("prose_reference", "There are $5$ ways to pick $2$ of them, so the probability is $\\frac{1}{5}$",
     B.format("5"), False),
    ("prose_reference", "There are $5$ ways to pick $2$ of them, so the probability is $\\frac{1}{5}$",
     B.format("0.2"), True),
    ("prose_reference", "Show that the solution is $n = 18$", B.format("18"), True),
    ("prose_reference", "For $k = 3$ the least value is $12$", B.format("3"), False),
    ("prose_reference", "So they pay $4.50 + $2 = $6.50.\nTherefore the total cost was $6.50", B.format("6.5"), True),
    ("prose_reference", "So they pay $4.50 + $2 = $6.50.\nTherefore the total cost was $6.50", B.format("4.50"),
     False),
    ("prose_reference", "Final Answer: The final answer is $28\\%$. Note: the steps are as follows:",
     B.format("28\\%"), True),
    # an answer written as such a sentence is read the same way (grader.read_statement)
    ("prose_answer", "8", "The answer is: the maximum number of distinct $4$-tuples is eight.", True),
    ("prose_answer", "4", "The answer is: the maximum number of distinct $4$-tuples is eight.", False),
    ("prose_answer", "1", B.format("\\text{the moles combined with 2 moles of acid is 1 mole}"), True),
    ("prose_answer", "2", B.format("\\text{the moles combined with 2 moles of acid is 1 mole}"), False),
    # no single value stated: never a number taken out of it (the grader abstains)
    ("prose_reference", "the multiples of $3$ starting with $9$", B.format("3"), False),
    ("prose_reference", "the multiples of $3$ starting with $9$", B.format("9"), False),
    ("prose_reference", "So she can buy 5 kgs more oil for Rs. 1000 after the reduction", B.format("5"), False),
    # values with units or in a list, and one formula that words qualify, are read as they are
    ("prose_reference", "$125$ miles", B.format("125"), True),
    ("prose_reference", "$(46/3)\\pi$ cubic meters", B.format("\\frac{46\\pi}{3}"), True),
    ("prose_reference", "all integers $n \\geq 3$", B.format("n \\geq 3"), True),
    ("prose_reference", "all integers $n \\geq 3$", B.format("n \\geq 4"), False),
    # bare algebra in one- and two-letter names is math, not text (grader.as_math_input): read as text, its first
    # number was the reference's value and the answer 2 was paid
    ("implicit_products", "2CR + C + R", B.format("2"), False),
    ("implicit_products", "2CR + C + R", "The answer is 2", False),
    ("implicit_products", "3ab+bc", B.format("3"), False),
    ("implicit_products", "x = 2CR", B.format("2"), False),
    ("implicit_products", "2CR + C + R", B.format("2RC+R+C"), True),  # the same product in any order
    ("implicit_products", "2cr + c + r", B.format("2rc+r+c"), True),
    ("implicit_products", "3ab+bc", B.format("3ba+cb"), True),
    ("implicit_products", "3ab+bc", B.format("3ba+cb+1"), False),
    # a bare \\log for the natural logarithm where the other side writes \\ln (normalization.natural_log_as_written):
    # refused before, as math-verify reads a bare \\log as base 10
    ("natural_log", "\\ln \\frac{4}{3}", B.format("\\log \\frac{4}{3}"), True),
    ("natural_log", "\\frac{\\pi}{8}\\ln 2", B.format("\\pi/8 * \\log 2"), True),
    ("natural_log", "\\log 2", B.format("\\ln 2"), True),
    ("natural_log", "\\ln \\frac{4}{3}", B.format("\\log \\frac{3}{4}"), False),
    ("natural_log", "\\ln 2", B.format("\\log_{10} 2"), False),  # a base named is that base
    ("natural_log", "\\ln 2 + \\log 3", B.format("\\ln 2 + \\ln 3"), False),  # both written: two functions
    # an option pick stated with its value or a phrase (extraction.chosen_option): no answer was found before
    ("option_pick", "A", "Solution: Choice_A (4)", True),
    ("option_pick", "B", "the correct solution is Choice_B: True, False.", True),
    ("option_pick", "D", "Therefore, the solution is Choice D: I and III only.", True),
    ("option_pick", "C", "Choice_C of 25% is the solution.", True),
    ("option_pick", "D", "so Choice_D is the correct answer.", True),
    ("option_pick", "A", "Solution: Choice_B (4)", False),
    ("option_pick", "C", "so Choice_C/D is the correct answer.", False),  # two letters are no pick
    ("option_pick", "C", "I rule out option C: it gives 7.", False),  # an option set aside, not picked
    ("option_pick", "B", "From option B: 5 we go on to check the other options", False),
    # several values stated in prose (decision.values_in_prose): only the last number was read before
    ("values_in_prose", "-1,-9", "Therefore x = -1 or x = -9", True),
    ("values_in_prose", "3,4", "So the roots are 3 and 4.", True),
    ("values_in_prose", "3,4", "The answer is 4 and 3", True),
    ("values_in_prose", "3,4", "So the roots are 3 and 5.", False),
    ("values_in_prose", "-1,-9", "Therefore x = -1 or x = 9", False),
    ("values_in_prose", "-9", "Therefore x = -1 or x = -9", False),  # two values offered for one
    ("values_in_prose", "4", "So the roots are 3 and 4.", False),
    # numbers in words, and a count stated before the list it counts (decision.counted_list)
    ("number_in_words", "2", "The graph has two vertical asymptotes.", True),
    ("number_in_words", "3", "The graph has two vertical asymptotes.", False),
    ("number_in_words", "21", "Together they have twenty-one marbles", True),
    ("number_in_words", "250", "Therefore, the answer (arabic numerals) is two hundred fifty dollars.", False),
    ("values_in_prose", "70000", "The answer is Josh's profit was $70,000.", True),  # one number, not 70 and 0
    ("number_in_words", "1", "The answer is the last one", False),  # "one" alone is a pronoun as often
    ("counted_list", "7", "There are 7 primes below 90 ending in 3: 3, 13, 23, 43, 53, 73, 83", True),
    ("counted_list", "83", "There are 7 primes below 90 ending in 3: 3, 13, 23, 43, 53, 73, 83", False),
    ("counted_list", "6", "There are 7 primes below 90 ending in 3: 3, 13, 23, 43, 53, 73, 83", False),
    # an antiderivative stated with its constant of integration (normalization.without_integration_constant)
    ("antiderivative", "-\\frac{x^3}{3} + x^2", B.format("x^2 - x^3/3 + C"), True),
    ("antiderivative", "-\\frac{x^3}{3} + x^2 + C", B.format("x^2 - x^3/3"), True),
    ("antiderivative", "\\frac{x^3}{3}", B.format("\\frac{x^3}{3}+\\mathcal{C}"), True),
    ("antiderivative", "-\\frac{x^3}{3} + x^2", B.format("x^2 + x^3/3 + C"), False),
    ("antiderivative", "A + B", B.format("A + B + C"), False),  # no variable: a sum of three, not a constant added
    ("antiderivative", "Cx", B.format("Cx + C"), False),  # the letter is used elsewhere
    # labelled tuples written side by side (normalization.tuples_side_by_side) and orderings (decision.orderings)
    ("tuples_and_orderings", "(x, y) = (2, 3), (2, 7)", B.format("(2, 3)(2, 7)"), True),
    ("tuples_and_orderings", "(2, 3), (2, 7)", B.format("(2, 3)(2, 8)"), False),
    ("tuples_and_orderings", "F<G<A<D", B.format("F, G, A, D"), True),
    ("tuples_and_orderings", "F<G<A<D", B.format("D > A > G > F"), True),
    ("tuples_and_orderings", "F<G<A<D", B.format("G, F, A, D"), False),
    ("tuples_and_orderings", "F<G<A<D", B.format("D > A > F > G"), False),
    # a statement that opens with its quantifier is its claim over the quantifier's range (qualifiers.split_qualifier):
    # read whole, math-verify paid another claim over the same range
    ("quantified", "\\forall x > 0, 2^x \\geq x^2", B.format("\\forall x > 0, 2^x \\geq x"), False),
    ("quantified", "\\forall x > 0, 2^x \\geq x^2", B.format("\\forall x > 0, 2^x \\geq x^3"), False),
    ("quantified", "∀x＞0, 2<sup>x</sup>≥x<sup>2</sup>", B.format("\\forall x > 0, 2^x \\geq x^3"), False),
    ("quantified", "\\forall x > 0, 2^x \\geq x^2", B.format("\\forall x > 1, 2^x \\geq x^2"), False),
    ("quantified", "∀x＞0, 2<sup>x</sup>≥x<sup>2</sup>", B.format("\\forall x > 0, 2^x \\geq x^2"), True),
    ("quantified", "\\forall x > 0, 2^x \\geq x^2", B.format("\\forall t > 0, 2^t \\geq t^2"), True),
    # functions stated in prose (normalization.functions_in_prose): the list of them
    ("functions_in_prose", "f(x) = 0, f(x) = x + 1", "All solutions are the zero function and f(x) = x + 1", True),
    ("functions_in_prose", "All solutions are the zero function and f(x) = x + 1", B.format("f(x) = 0, f(x) = x + 1"),
     True),
    ("functions_in_prose", "f(x) = 0, f(x) = x + 1", "All solutions are the zero function and f(x) = x - 1", False),
    ("functions_in_prose", "f(x) = 0, f(x) = x + 1", "The only solution is the zero function.", False),
    ("functions_in_prose", "f(x) = x", "The answer is the identity function.", True),
    ("functions_in_prose", "f(x) = 0.5x, f(x) = 0", B.format("f(x) = 0.5x \\text{ or } f(x) = 0"), True),
    # a verdict given with its reason in the reference: the verdict is the answer, never the reason's number
    ("verdict_reference", "Yes, P(2) is composite.", "The answer is Yes", True),
    ("verdict_reference", "Yes, P(2) is composite.", "The answer is No", False),
    ("verdict_reference", "Yes, P(2) is composite.", B.format("2"), False),
    ("verdict_reference", "No, because $7$ divides it", B.format("\\text{No}"), True),
    ("verdict_reference", "No, because $7$ divides it", B.format("7"), False),
]


@pytest.mark.parametrize(("family", "reference", "completion", "paid"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_family_scores_as_labelled(rule_reward, family, reference, completion, paid):
    [score] = rule_reward.score([Item("", reference, completion)])
    assert not score.is_failure, f"{family}: the reward failed: {score.reason} {score.detail}"
    assert (score.verdict is True) == paid, f"{family}: {score.reason} {score.answer!r} {score.detail}"


def test_a_json_answer_field_is_the_answer_when_it_comes_last():
    assert json_answer('{"answer": "2*pi + 4"}').text == "2*pi + 4"
    assert json_answer('{"Final_Answer": 12, "note": "x"}').text == "12"
    assert json_answer('{"answer": ["1", "\\\\sqrt{2}"]}').text == "1, \\sqrt{2}"
    assert json_answer('{"reasoning": "no field names an answer here"}') is None
    assert json_answer('{"answer": "unterminated') is None
    found = extract_final_answer('\\boxed{5} then {"answer": "6"}')
    assert found is not None and (found.rule, found.text) == (Found.JSON, "6")
    found = extract_final_answer('{"answer": "6"} and at last \\boxed{5}')  # the box comes last: it is the answer
    assert found is not None and (found.rule, found.text) == (Found.BOXED, "5")


def test_a_qualifier_is_split_off_only_at_the_top_level_and_never_from_words():
    q = split_qualifier("(3, m) \\text{ for every } m \\ge 2")
    assert (q.core, q.bounds()) == ("(3, m)", frozenset({(">=", 2)}))
    assert split_qualifier("h(x) = 2 \\text{ for all } x").core == "h(x) = 2"
    assert split_qualifier("\\text{arithmetic sequence with difference 2}").qualifier == ""
    assert split_qualifier("arithmetic sequence with difference 2").qualifier == ""
    assert split_qualifier("\\text{for all } n \\ge 2").qualifier == ""  # the clause alone: nothing to split
    assert split_qualifier("\\{x : x > 0 \\text{ with } x \\ne 1\\}").qualifier == ""  # inside braces


def test_a_tuple_with_one_plus_minus_is_two_tuples():
    assert tuples_with_plus_minus("(1 \\pm 2, 3)") == "(1 + 2, 3), (1 - 2, 3)"
    assert tuples_with_plus_minus("(1 \\mp 2, 3)") == "(1 - 2, 3), (1 + 2, 3)"
    assert tuples_with_plus_minus("(1 \\pm 2, 3 \\pm 1)") == "(1 \\pm 2, 3 \\pm 1)"  # which signs go together?
    assert tuples_with_plus_minus("1 \\pm 2") == "1 \\pm 2"  # not a tuple: math-verify reads it as a set


def test_a_formula_left_open_is_told_from_a_price():
    assert cut_inside_formula("So the condition holds when $a = 2")
    assert cut_inside_formula("hence $\\frac{1}{2")
    assert not cut_inside_formula("So the total is $18")
    assert not cut_inside_formula("$x$ costs $5")
    assert not cut_inside_formula("so $a = 2$")


def test_a_prose_reference_that_states_no_single_value_abstains(rule_reward):
    [score] = rule_reward.score([Item("", "the multiples of $3$ starting with $9$", B.format("3"))])
    assert (score.value, score.verdict, score.reason) == (None, None, "unparsable_reference")
    assert stated_answer("the multiples of $3$ starting with $9$") is None


def test_what_a_prose_reference_states():
    assert stated_answer("the maximum number of distinct $4$-tuples is eight") == "8"
    assert stated_answer("Show that the solution is $n = 18$") == "n = 18"
    assert stated_answer("Yes, P(2) is composite.") == "Yes"
    assert stated_answer("Yes, No") == "Yes, No"  # two verdicts: a list, not a verdict and its reason
    assert stated_answer("Therefore the volume is (46/3)\\pi cubic meters") == "(46/3)\\pi"
    assert stated_answer("Total volume = 12 cubic meters") == "12"  # "=" after words states the value
    assert stated_answer("so the number is 10 which is 1,000.99m^{2}") == "1000.99"  # a unit written onto it
    assert single_value("2x") == "2x" and single_value("3xy") is None  # never a number out of an expression
    # an "=" inside a formula's name states no value of the sentence; "answer" with no "is" or ":" is no phrase
    assert stated_answer("All solutions are the zero function and f(x) = x + 1") is None
    assert stated_answer("So x = 5 is the answer we get") is None
    for unchanged in ("18", "x^2 + xy + 3", "$125$ miles", "19, 46, and 82", "35 cm, 4", "all integers $n \\ge 3$",
                      "(3, m) \\text{ for every } m \\ge 2", "No such function exists", "\\frac{NO}{BO}=\\frac{1}{2}"):
        assert stated_answer(unchanged) == unchanged, unchanged


def test_numbers_in_words():
    assert [number_in_words(w) for w in ("eight", "Twenty-one", "ninety nine", "three hundred and five", "a hundred",
                                          "zero")] == [8, 21, 99, 305, 100, 0]
    for other in ("third", "a half", "eighty-eleven", "one two", "tenth", "seventeen apples"):
        assert number_in_words(other) is None, other


def test_options_set_out_as_a_list_read_without_the_next_marker(rule_reward):
    question = "How many terms are integers?\n- (A) 0\n- (B) 1\n- (C) 2\n- (D) More than 2"
    assert question_options(question) == {"A": "0", "B": "1", "C": "2", "D": "More than 2"}
    [right, wrong] = rule_reward.score([Item(question, "The final answer is (B) 1.", B.format("1")),
                                        Item(question, "The final answer is (B) 1.", B.format("0"))])
    assert (right.verdict, wrong.verdict) == (True, False), (right, wrong)
    # the reference's own option text, where the question lists none
    [right, wrong] = rule_reward.score([Item("How many?", "(B) 1", B.format("1")), Item("How many?", "(B) 1", B.format("2"))])
    assert (right.verdict, wrong.verdict) == (True, False), (right, wrong)


def test_an_answer_phrase_that_states_a_value_before_announcing_more_is_read():
    found = extract_final_answer("Final Answer: The final answer is $28\\%$. Note: the steps are as follows:")
    assert found is not None and (found.rule, found.text) == (Found.ANSWER_IS, "28\\%")
    for announcing in ("【答案】\n首先，我们解这个方程组：", "The answer is as follows:\nwe first expand the square, then"):
        found = extract_final_answer(announcing)  # it announces a derivation only: no answer phrase states a value
        assert found is None or found.rule is not Found.ANSWER_IS, found


def test_a_list_is_read_in_the_order_the_question_asks_for(rule_reward):
    down, up = "Order them from greatest to least.", "List them in increasing order."
    items = [Item(down, "F<G<A<D", B.format("D, A, G, F")), Item(down, "F<G<A<D", B.format("F, G, A, D")),
             Item(up, "D, A, G, F", B.format("D<A<G<F")), Item(up, "D, A, G, F", B.format("F<G<A<D"))]
    assert [s.verdict for s in rule_reward.score(items)] == [True, False, True, False]


def test_the_percent_policy_and_an_option_given_by_its_value(rule_reward):
    # a fraction for a percentage is the same number unless the question asks for a percent (then its form is wrong)
    asks = "What percent of the students passed?"
    items = [Item("", "62.5\\%", B.format("0.625")), Item(asks, "62.5\\%", B.format("0.625")),
             Item(asks, "62.5\\%", B.format("62.5")), Item("", "62.5\\%", B.format("0.65"))]
    assert [(s.verdict, s.reason) for s in rule_reward.score(items)] == [
        (True, "verified"), (False, "wrong_form"), (True, "verified"), (False, "mismatch")]
    # a lettered reference and an answer that gives the option's value, where the question lists the options
    question = "Which is it?\n(A) 3 (B) 4 (C) 5 (D) 6"
    items = [Item(question, "B", B.format("4")), Item(question, "B", B.format("4.0")), Item(question, "B", B.format("5")),
             Item(question, "B", B.format("7"))]
    assert [s.verdict for s in rule_reward.score(items)] == [True, True, False, False]
