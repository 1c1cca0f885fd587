"""Two-stage ANTLR prediction (SLL first, LL where SLL fails) gives latex2sympy's own results: held to plain LL
on every distinct answer of the answer-equivalence fixtures, the VerifyBench-Hard subset (references and the
last boxed answer of each completion) and MATH-500's answers."""

from __future__ import annotations

import pytest

from suites.answers import real_answers

pytest.importorskip("math_verify")

from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy, latex2sympy  # noqa: E402

from rewards.math import prediction  # noqa: E402


@pytest.fixture
def ll_parser(monkeypatch):
    """latex2sympy as shipped (LL prediction); whatever a test installs is undone after it."""
    monkeypatch.setattr(_Latex2Sympy, "create_parser", _Latex2Sympy.create_parser)


def _outcome(text: str) -> str:
    """The parse, or the kind of its failure (math-verify reads any ``Exception`` from latex2sympy as "no
    parse"; the message, which says where the parser stopped, is not compared)."""
    try:
        return repr(latex2sympy(text))
    except BaseException as exc:  # noqa: BLE001 - the failure is the outcome compared
        return f"failed: {type(exc).__name__}"


# SLL alone rejects these (implicit products next to powers need LL's full context): the second stage reads them
NEEDS_LL = ["5r^5", "x^3+3x-6", "y^2 = 8x", r"10\text{ cm}^2", r"\left[ \frac{\pi^2}{8}, \frac{5 \pi^2}{4} \right]"]
# a character the lexer does not know: an error in both modes, not a parse of what the lexer skipped
LEXER_ERRORS = [r"\15", r"\boxed{\15}", r"3 + \7"]
SYNTAX_ERRORS = [r"\frac{1}{", "(1, 2", r"x^{"]


@pytest.mark.parametrize("text", NEEDS_LL + LEXER_ERRORS + SYNTAX_ERRORS)
def test_the_same_outcome_as_ll(ll_parser, text):
    expected = _outcome(text)
    prediction.use_two_stage_prediction()
    assert _outcome(text) == expected


def test_sll_alone_is_not_enough(ll_parser):
    """The inputs above really need the second stage: SLL prediction by itself fails on each."""
    from antlr4.atn.PredictionMode import PredictionMode

    create_ll_parser = _Latex2Sympy.create_parser

    def sll_only(self, latex_str):
        parser = create_ll_parser(self, latex_str)
        parser._interp.predictionMode = PredictionMode.SLL
        return parser

    _Latex2Sympy.create_parser = sll_only
    assert all(_outcome(text) == "failed: Exception" for text in NEEDS_LL)


def test_powers_are_read_in_the_first_stage(ll_parser):
    """A power followed by anything but its subscript needs full context at one decision of ``atom_expr``; made
    with LL's prediction there, the first stage reads these, and the second stage (LL for the whole input)
    never runs."""
    from antlr4.atn.PredictionMode import PredictionMode

    prediction.use_two_stage_prediction()
    parsers = []
    create_two_stage_parser = _Latex2Sympy.create_parser
    _Latex2Sympy.create_parser = lambda self, text: parsers.append(create_two_stage_parser(self, text)) or parsers[-1]

    def last_mode(text: str) -> int:
        _outcome(text)
        return parsers[-1]._interp.predictionMode

    assert all(last_mode(text) == PredictionMode.SLL for text in NEEDS_LL[:4])
    assert last_mode(r"\frac{1}{") == PredictionMode.LL  # a syntax error still reaches the second stage


def _element_decision() -> tuple[object, int]:
    from latex2sympy2_extended.gen.antlr4_13_2.PSParser import PSParser

    [decision] = [d for d, state in enumerate(PSParser.atn.decisionToState)
                  if PSParser.ruleNames[state.ruleIndex] == "element"]
    return PSParser, decision


def test_what_each_alternative_must_match_is_read_from_the_grammar():
    """``element`` chooses between ``plus_minus_expr``, ``set_atom`` and ``relation``: only the first must match
    a ``\\pm``; every parse of ``math`` ends in EOF; no precedence decision is ruled on."""
    from antlr4.atn.ATNState import StarLoopEntryState

    parser, decision = _element_decision()
    exclusions = prediction._Exclusions(parser.atn)
    assert [needs for _, needs in exclusions.alternatives[decision]] == [{parser.PLUS_MINUS}, set(), set()]
    assert all(needs == {parser.EOF} for _, needs in exclusions.alternatives[0])
    assert not [d for d in exclusions.alternatives if isinstance(parser.atn.decisionToState[d], StarLoopEntryState)
                and parser.atn.decisionToState[d].isPrecedenceDecision]
    after_x = {parser.PLUS_MINUS: 5, parser.EOF: 6}  # "x + y \\pm 1": last positions of the tokens ahead
    assert exclusions.only_alternative(decision, parser.LETTER_NO_E, after_x, 0) is None
    assert exclusions.only_alternative(decision, parser.LETTER_NO_E, {parser.EOF: 6}, 0) == 3  # relation


def test_a_plain_expression_needs_no_lookahead_at_element(ll_parser):
    """Without a ``\\pm`` ahead, ``element`` is a ``relation`` before any lookahead: its DFA, where SLL keeps what
    its lookahead found, gains nothing from a long polynomial (it gained states at every new shape before)."""
    parser, decision = _element_decision()
    prediction.use_two_stage_prediction()
    dfa = parser.decisionsToDFA[decision]
    before = len(dfa._states)
    assert _outcome("x^{90} + 3x^{80} - x^{70} + 7x^{60} - \\frac{x^{50}}{2} + 1") != "failed: Exception"
    assert len(dfa._states) == before


def test_real_answers_parse_as_with_ll(ll_parser, data_root):
    """Every third distinct real answer (about 400, of them about 50 that SLL alone rejects)."""
    texts = real_answers()[::3]
    assert len(texts) > 300
    expected = [_outcome(t) for t in texts]
    prediction.use_two_stage_prediction()
    got = [_outcome(t) for t in texts]
    differ = [(t, e, g) for t, e, g in zip(texts, expected, got) if e != g]
    assert not differ, differ[:5]


def test_the_rule_reward_workers_use_it(ll_parser, monkeypatch):
    monkeypatch.setattr(_Latex2Sympy, "parse_number", _Latex2Sympy.parse_number)
    from rewards.math.grader import GradingConfig
    from rewards.rule import _init_grader

    assert not getattr(_Latex2Sympy.create_parser, "_two_stage_prediction", False)
    _init_grader(GradingConfig())
    assert getattr(_Latex2Sympy.create_parser, "_two_stage_prediction", False)
    assert getattr(_Latex2Sympy.parse_number, "_direct_integers", False)


NUMBERS = ["7", "007", "1,000", "12,\\!500", "3.5", "0.001", "2^{10}", "\\frac{12}{35}", "1" * 4000, "1" * 4100,
           "10\\%", "x_{12}"]


def test_integers_made_directly_are_latex2sympys_own(ll_parser, monkeypatch, data_root):
    """latex2sympy's numbers made without sympy's parser are the same objects: on number forms (leading zeros,
    thousands, decimals, a 4,100-digit literal past the direct path's limit) and every ninth real answer."""
    from rewards.math import latex_numbers

    monkeypatch.setattr(_Latex2Sympy, "parse_number", _Latex2Sympy.parse_number)
    texts = NUMBERS + real_answers()[2::9]
    expected = [_outcome(t) for t in texts]
    latex_numbers.use_direct_integers()
    assert getattr(_Latex2Sympy.parse_number, "_direct_integers", False)
    got = [_outcome(t) for t in texts]
    differ = [(t[:80], e[:80], g[:80]) for t, e, g in zip(texts, expected, got) if e != g]
    assert not differ, differ[:5]
