"""Two-stage ANTLR prediction for latex2sympy's parser, the step where a worker spends most of its time.

latex2sympy parses with ANTLR's full LL prediction. Its grammar is ambiguous enough that most decisions end in
full-context prediction, which ANTLR does not cache: three quarters of a worker's time went to it. ANTLR's own
remedy, documented with its ``PredictionMode.SLL``, is to parse first with SLL prediction, which is cached across
parses and stops at the first syntax error, and to parse again with full LL prediction only when that first
stage fails. Its guarantee is what makes this safe: an SLL parse that succeeds returns the same tree that LL
returns; where SLL is too weak it reports a syntax error, never another tree. latex2sympy's error listener raises
at the first syntax error in either mode, so a parse here either succeeds with LL's tree or falls back to LL and
meets what LL meets. A differential test (``tests/rewards/test_prediction.py``) holds the outcomes (a tree, or a
failure) to plain LL's on real answers.

SLL alone, without the fallback, is not the same parser: it rejects some inputs that LL reads, and math-verify
then reads another candidate of the answer (one such change accepted a wrong polynomial).

One decision of the grammar always needs full context: in ``atom_expr``, whether a letter's superscript is
followed by its own subscript (``x^2_3`` may also be ``x^2`` with an index outside it), so that SLL fails on
every power followed by anything else (``x^2 + 1``, ``5r^5``, ``y^2 = 8x``): 38% of 1,360 distinct
expressions of the MATH-style test sets here failed the first stage, and 262 of those 521 failures were there.
The first stage makes that rule's decisions as LL does (SLL first, full context where SLL conflicts), and SLL
everywhere else; after it, 1 of the 288 first-stage failures left was not a syntax error of LL's too.

:func:`use_two_stage_prediction` is called by the rule reward's worker initializer, never at import.
"""

from __future__ import annotations

from typing import Any

_INSTALLED_MARK = "_two_stage_prediction"


def use_two_stage_prediction() -> None:
    """Make every latex2sympy parse in this process try SLL prediction first (idempotent)."""
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    if getattr(_Latex2Sympy.create_parser, _INSTALLED_MARK, False):
        return
    create_ll_parser = _Latex2Sympy.create_parser

    found: list[set[int]] = []  # the full-context decisions, looked up on the first parser

    def create_parser(self: Any, latex_str: str) -> Any:
        parser = create_ll_parser(self, latex_str)
        if not found:
            found.append(_decisions_of(parser, _FULL_CONTEXT_RULES))
        parser.math = _two_stage(parser, parser.math, PredictionMode, found[0])  # imported once
        return parser

    setattr(create_parser, _INSTALLED_MARK, True)
    _Latex2Sympy.create_parser = create_parser


# Rules whose decisions the first stage makes with LL's prediction (see the module's docstring).
_FULL_CONTEXT_RULES = ("atom_expr",)


def _decisions_of(parser: Any, rules: tuple[str, ...]) -> set[int]:
    """The grammar's decision numbers inside ``rules``, found by name in the parser's ATN (none if a later
    latex2sympy renames them: the first stage is then plain SLL, slower, with the same results)."""
    return {d for d, state in enumerate(parser.atn.decisionToState) if parser.ruleNames[state.ruleIndex] in rules}


def _two_stage(parser: Any, parse_math: Any, modes: Any, full_context: set[int]) -> Any:
    interp = parser._interp
    predict = interp.adaptivePredict

    def adaptive_predict(tokens: Any, decision: int, outer: Any) -> int:
        if decision in full_context and interp.predictionMode == modes.SLL:
            interp.predictionMode = modes.LL
            try:
                return predict(tokens, decision, outer)
            finally:
                interp.predictionMode = modes.SLL
        return predict(tokens, decision, outer)

    interp.adaptivePredict = adaptive_predict

    def math() -> Any:
        # Lex the whole input first: a lexer error is final (the rule ``math`` ends in EOF, so an LL parse meets
        # every token), and a lexer that failed inside the first stage would skip the bad character on the
        # second.
        parser.getTokenStream().fill()
        interp.predictionMode = modes.SLL
        try:
            return parse_math()
        except Exception as exc:  # noqa: BLE001 - only syntax errors fall through to the second stage
            if not _is_syntax_error(exc):
                raise
        parser.reset()
        interp.predictionMode = modes.LL
        return parse_math()

    return math


def _is_syntax_error(exc: Exception) -> bool:
    """ANTLR's own exceptions, or the plain ``Exception`` that latex2sympy's error listener raises for a syntax
    error, or a recursion too deep (SLL's closure recurses differently from LL's: LL decides that input too).
    Anything else (a memory error, math-verify's timeout, a bug) propagates from the first stage as it would
    have from LL."""
    from antlr4.error.Errors import IllegalStateException, RecognitionException

    return type(exc) is Exception or isinstance(exc, (RecognitionException, IllegalStateException, RecursionError))
