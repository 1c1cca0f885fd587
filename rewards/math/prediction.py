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

Most of the first stage's time goes to SLL's lookahead on inputs it has not met, and a third of that to one
decision, ``element``'s choice between ``plus_minus_expr`` (``a \\pm b``), ``set_atom`` and ``relation``, whose
lookahead runs to the end of a plain expression to find that no ``\\pm`` comes. The first stage therefore
rules out, before any lookahead, the alternatives that cannot match the input at all: those whose first tokens
do not include the next one, and those that must match a token (``\\pm``) that the rest of the input does not
hold (:class:`_Exclusions`, computed from the grammar's ATN once). When one alternative is left, LL would choose
it too: any parse goes through it, and a parse that fails there falls to the second stage as before. Decisions
that test precedence (the loops of left-recursive rules) are never decided this way. On the cold worker items
this cut the first stage's time by a quarter, with the same outcome as plain LL on every input tried.

:func:`use_two_stage_prediction` is called by the rule reward's worker initializer, never at import.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

_INSTALLED_MARK = "_two_stage_prediction"


def use_two_stage_prediction() -> None:
    """Make every latex2sympy parse in this process try SLL prediction first (idempotent)."""
    from antlr4.atn.PredictionMode import PredictionMode
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    if getattr(_Latex2Sympy.create_parser, _INSTALLED_MARK, False):
        return
    create_ll_parser = _Latex2Sympy.create_parser

    def create_parser(self: Any, latex_str: str) -> Any:
        parser = create_ll_parser(self, latex_str)
        parser.math = _two_stage(parser, parser.math, PredictionMode, _grammar(type(parser)))  # imported once
        return parser

    setattr(create_parser, _INSTALLED_MARK, True)
    _Latex2Sympy.create_parser = create_parser


# Rules whose decisions the first stage makes with LL's prediction (see the module's docstring).
_FULL_CONTEXT_RULES = ("atom_expr",)


def _decisions_of(parser: Any, rules: tuple[str, ...]) -> set[int]:
    """The grammar's decision numbers inside ``rules``, found by name in the parser's ATN (none if a later
    latex2sympy renames them: the first stage is then plain SLL, slower, with the same results)."""
    return {d for d, state in enumerate(parser.atn.decisionToState) if parser.ruleNames[state.ruleIndex] in rules}


class _Exclusions:
    """For each decision of a grammar, what rules its alternatives out without lookahead: per alternative, the
    tokens it can start with (None where it can match nothing first, so that its first token is another
    rule's) and the tokens that every way through it to the end of its rule matches."""

    def __init__(self, atn: Any) -> None:
        from antlr4.atn.ATNState import StarLoopEntryState
        from antlr4.Token import Token

        required = _required_tokens(atn)
        self.alternatives: dict[int, list[tuple[frozenset[int] | None, frozenset[int]]]] = {}
        for decision, state in enumerate(atn.decisionToState):
            if isinstance(state, StarLoopEntryState) and state.isPrecedenceDecision:
                continue  # the choice depends on the precedence it is called with, not on the tokens alone
            alternatives = []
            for transition in state.transitions:
                first = atn.nextTokens(transition.target)  # an IntervalSet, whose membership test is a loop
                tokens = None if Token.EPSILON in first else frozenset(t for r in first.intervals for t in r)
                alternatives.append((tokens, required[transition.target]))
            self.alternatives[decision] = alternatives

    def only_alternative(self, decision: int, next_token: int, ahead: dict[int, int], index: int) -> int | None:
        """The one alternative (numbered from 1) that can match input whose next token is ``next_token`` at
        position ``index``, where ``ahead`` gives each token type's last position; None if more than one can."""
        left = None
        for number, (first, needs) in enumerate(self.alternatives.get(decision, ()), 1):
            if first is not None and next_token not in first:
                continue
            if any(ahead.get(token, -1) < index for token in needs):
                continue
            if left is not None:
                return None
            left = number
        return left


def _required_tokens(atn: Any) -> dict[Any, frozenset[int]]:
    """For every ATN state, the token types that every path from it to its rule's end matches (single-token
    transitions only; a rule called on the way adds what it requires). The greatest fixed point: start from all
    tokens everywhere but the rules' ends, and narrow until nothing changes."""
    from antlr4.atn.ATNState import RuleStopState
    from antlr4.atn.Transition import AtomTransition, RuleTransition

    everything = frozenset(range(1, atn.maxTokenType + 1))
    required = {state: frozenset() if isinstance(state, RuleStopState) else everything for state in atn.states}
    changed = True
    while changed:
        changed = False
        for state in atn.states:
            if isinstance(state, RuleStopState) or not state.transitions:
                continue
            paths = []
            for transition in state.transitions:
                if isinstance(transition, RuleTransition):
                    paths.append(required[transition.target] | required[transition.followState])
                elif isinstance(transition, AtomTransition):
                    paths.append(required[transition.target] | {transition.label_})
                else:  # epsilon, action, predicate, or a set of tokens: no one token is certain
                    paths.append(required[transition.target])
            narrowed = frozenset.intersection(*paths)
            if narrowed != required[state]:
                required[state] = narrowed
                changed = True
    return required


class _Grammar(NamedTuple):
    full_context: set[int]
    exclusions: _Exclusions


@functools.cache
def _grammar(parser_class: type) -> _Grammar:
    """What the first stage needs of a generated parser's grammar, worked out once per process."""
    return _Grammar(_decisions_of(parser_class, _FULL_CONTEXT_RULES), _Exclusions(parser_class.atn))


def _two_stage(parser: Any, parse_math: Any, modes: Any, grammar: _Grammar) -> Any:
    interp = parser._interp
    predict = interp.adaptivePredict
    tokens = parser.getTokenStream()
    ahead: dict[int, int] = {}  # each token type's last position in the input

    def adaptive_predict(stream: Any, decision: int, outer: Any) -> int:
        if interp.predictionMode != modes.SLL:
            return predict(stream, decision, outer)
        only = grammar.exclusions.only_alternative(decision, stream.LA(1), ahead, stream.index)
        if only is not None:
            return only
        if decision in grammar.full_context:
            interp.predictionMode = modes.LL
            try:
                return predict(stream, decision, outer)
            finally:
                interp.predictionMode = modes.SLL
        return predict(stream, decision, outer)

    interp.adaptivePredict = adaptive_predict

    def math() -> Any:
        # Lex the whole input first: a lexer error is final (the rule ``math`` ends in EOF, so an LL parse meets
        # every token), and a lexer that failed inside the first stage would skip the bad character on the
        # second.
        tokens.fill()
        ahead.update((token.type, position) for position, token in enumerate(tokens.tokens))
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
