"""Grading one (question, reference, completion): extraction, rejection, exact decision, then math-verify.

This is the one definition of "correct" in the project: the ``rule`` reward, policy evaluation on math suites
and the robustness suite all call :class:`MathGrader`. The order, and where each family of false verdicts is
closed:

1. Extraction (:mod:`rewards.math.extraction`): the reference's answer and the completion's final answer (a box,
   a JSON answer field, an answer phrase, a short tail), then rewritten into plain LaTeX
   (:mod:`rewards.math.normalization`: unicode, plain-text functions, ``\\text{13}``, column vectors, a tuple with a
   ``\\pm``), and split from a qualifier (:mod:`rewards.math.qualifiers`: ``(3, m) for every m >= 2`` is the family
   ``(3, m)``, its range compared apart).
2. Rejection (:mod:`rewards.math.rejection`): completions that have not answered score 0 whatever their last
   number. Each family is a named, cited entry of ``COMPLETION_REJECTIONS`` (looping, alternating, a megabyte in
   a box) or ``ANSWER_REJECTIONS`` (code or gibberish, program expressions, the question's own expression);
   several boxed answers offered as alternatives must each be right.
3. Decision (:mod:`rewards.math.decision`): exact rules that decide without sympy, each a named, cited entry of
   ``DECISIONS`` (identical forms, labelled parts, percentages, angles, numbers, solution sets, tuples, words),
   after option letters and option texts (:mod:`rewards.math.choices`).
4. The rest goes to math-verify (:mod:`rewards.math.symbolic`), with every numeric evaluation bounded, after a
   quick look for different values at two real points (:func:`rewards.math.identities.differ`); what it does not
   match is compared as a real function (:mod:`rewards.math.identities`: identities, exact values).

Steps 1-3 are pure, bounded string and rational arithmetic: :meth:`MathGrader.decide` runs them in any process
and thread and says None when step 4 is needed. :meth:`MathGrader.grade` runs all four, and belongs in a worker
process of :mod:`rewards.sandbox` (math-verify's timeouts are signals). Adding a family is one entry in one of
the lists and one table of cases in ``tests/rewards/test_rule_tables.py``.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

from harness.core.answers import boxed_answers, gsm8k_final
from rewards.contract import (
    REASON_CHOICE,
    REASON_HEDGED,
    REASON_INVALID_OUTPUT,
    REASON_MISMATCH,
    REASON_NO_ANSWER,
    REASON_RESTATED,
    REASON_STRING_MATCH,
    REASON_UNPARSABLE_REFERENCE,
    REASON_VERIFIED,
    Score,
)
from rewards.inputs import clean_completion
from rewards.math.choices import question_options, split_letter
from rewards.math.decision import decide_exactly, decide_unanchored, same_text
from rewards.math.extraction import (
    Extraction,
    Found,
    after_thinking,
    choice_letter,
    chosen_option,
    extract_final_answer,
)
from rewards.math.normalization import (
    functions_in_prose,
    imaginary_unit,
    in_reference_variable,
    natural_log_as_written,
    normalize_answer,
    without_integration_constant,
)
from rewards.math.numeric import same_value
from rewards.math.qualifiers import Qualified, different_bounds, in_reference_names, split_qualifier
from rewards.math.quantities import degrees_in_trig
from rewards.math.reading import last_math_segment, normalize_text, number_of, reads_as_prose
from rewards.math.references import stated_answer
from rewards.math.rejection import (
    ANSWER_REJECTIONS,
    COMPLETION_REJECTIONS,
    UNEVALUATED,
    Answered,
    cut_inside_formula,
    ends_mid_sentence,
    first_rejection,
    is_question_text,
    looks_like_code,
    looks_like_garbage,
    without_list_markers,
)

_MAX_ANSWER_CHARS = 200
_DELIMITED = re.compile(r"\$|\\\[|\\\(|\\boxed")


# Bare algebra in one- and two-letter names (``2CR + C + R``, ``ab + bc``): products of variables, not words.
_ALGEBRA = re.compile(r"(?=[^=+*/-]*[A-Za-z][^=+*/-]*[=+*/-])(?![\s\S]*[A-Za-z]{3})[\w\s+*/^().=-]{1,200}")


def as_math_input(answer: str) -> str:
    """How an extracted answer is handed to math-verify's ``parse``: as it is when it has its own math
    delimiters or reads as prose (``83 packages``), wrapped in ``$...$`` when it is bare math
    (``10\\sqrt3``, ``x \\leq 5``, ``(3,2)``, ``2CR + C + R``), which math-verify would otherwise read as plain
    text: as text, ``2CR + C + R`` was read as its first number, 2, and the answer 2 was paid."""
    if _DELIMITED.search(answer) or (reads_as_prose(answer) and not _ALGEBRA.fullmatch(answer)):
        return answer
    return f"${answer}$"


def reference_answer(reference: str) -> str:
    """The final answer inside a reference: its ``\\boxed{}`` contents (several are one answer of several
    parts, joined by commas), a GSM8K ``#### n``, else the whole reference.

    Completions get no such leniency: only their last box counts, so that hedging over several boxed
    candidates earns nothing."""
    boxed = [b.strip() for b in reversed(boxed_answers(reference, limit=8)) if b.strip()]
    if boxed:
        return ", ".join(dict.fromkeys(boxed))
    final = gsm8k_final(reference)
    return reference.strip() if final is None else final


def read_statement(answer: str) -> Qualified | None:
    """``answer`` as what it states, split from its qualifier: a sentence read whole for the value it states
    (:func:`~rewards.math.references.stated_answer`: ``... combined with 1 mole of acid. Therefore the number of
    moles is 1 mole`` is 1, never cut at its "with"), else the answer split at its qualifier with the core read so
    (``$f(x)=ax+b$, where $b$ is an arbitrary integer``); None when it is a sentence with numbers that states no
    single value."""
    whole = stated_answer(answer)
    if whole is not None and whole != answer:
        return Qualified(whole)
    qualified = split_qualifier(answer)
    core = stated_answer(qualified.core)
    return None if core is None else replace(qualified, core=core)


class _NeedsSymbolic(Exception):
    """Raised inside :meth:`MathGrader.decide` where only math-verify can decide."""


@dataclass(frozen=True)
class GradingConfig:
    """Knobs of the comparison. ``math_verify_timeout`` is math-verify's own per-call signal timeout (whole
    seconds); the hard per-item deadline is the sandbox's."""

    float_rounding: int = 6
    numeric_precision: int = 15
    strict: bool = True
    math_verify_timeout: int = 3
    fallback_chars: int = 200
    short_answer_chars: int = 40
    bare_answer_chars: int = 400
    gold_cache_size: int = 4096
    verdict_cache_size: int = 4096


# How much text may follow the last number of an unanchored completion ("... so 12 dollars in all.").
_UNANCHORED_TRAIL = 40
_CHOICE_TAIL = 300  # where a completion with no answer phrase names its pick: its last lines
_LAST_MATH = re.compile(r"[\d$}\])]")
_DIGIT = re.compile(r"\d")


class MathGrader:
    """Grades completions against references. :meth:`decide` needs no sympy; :meth:`grade` does."""

    def __init__(self, config: GradingConfig | None = None) -> None:
        self.config = config or GradingConfig()
        self._symbolic: Any = None
        self._verdicts: OrderedDict[tuple[str, str, str | None], Score] = OrderedDict()

    @property
    def symbolic(self) -> Any:
        if self._symbolic is None:  # imported late: sympy costs a second; the parent process never needs it
            from rewards.math.symbolic import SymbolicComparer

            cfg = self.config
            self._symbolic = SymbolicComparer(
                timeout_s=cfg.math_verify_timeout, float_rounding=cfg.float_rounding,
                numeric_precision=cfg.numeric_precision, strict=cfg.strict, cache_size=cfg.gold_cache_size,
            )
        return self._symbolic

    def decide(self, reference: str, completion: str, question: str = "") -> Score | None:
        """The score when the pure rules decide it (steps 1-3), else None: then :meth:`grade` is needed."""
        try:
            return self._finish(self._grade(question, reference, completion, symbolic=False))
        except _NeedsSymbolic:
            return None

    def grade(self, reference: str, completion: str, question: str = "") -> Score:
        """Score ``completion`` against ``reference``; the extracted answer is kept, cut to 200 characters."""
        return self._finish(self._grade(question, reference, completion, symbolic=True))

    @staticmethod
    def _finish(score: Score) -> Score:
        if score.answer is not None and len(score.answer) > _MAX_ANSWER_CHARS:
            cut = score.answer[: _MAX_ANSWER_CHARS - 3] + "..."
            return Score(score.value, score.verdict, score.reason, cut, score.detail)
        return score

    # -- the steps ------------------------------------------------------------------------------------
    def _grade(self, question: str, reference: str, completion: str, symbolic: bool) -> Score:
        cfg = self.config
        read_gold = read_statement(normalize_answer(reference_answer(clean_completion(reference))))
        completion = clean_completion(completion)
        text = after_thinking(completion)
        extraction = extract_final_answer(
            completion, short_answer_chars=cfg.short_answer_chars, bare_answer_chars=cfg.bare_answer_chars
        )
        if extraction is None and len(text) <= cfg.bare_answer_chars:  # a completion that only states functions
            functions = functions_in_prose(text.strip())
            extraction = Extraction(functions, Found.BARE, (), len(text)) if functions != text.strip() else None
        pred = normalize_answer(extraction.text) if extraction else None
        if read_gold is None:  # a sentence with numbers that states no one value: no number is taken out of it
            return Score(None, None, REASON_UNPARSABLE_REFERENCE, pred, "a prose reference that states no single value")
        qualified_gold = read_gold
        gold = qualified_gold.core  # "(3, m) for every m >= 2": the family, not its range's bound
        answered = Answered(question, gold, text, extraction, pred, pred)
        rejected = first_rejection(COMPLETION_REJECTIONS, answered)
        if rejected is not None:
            return Score.incorrect(rejected[0].reason, pred, rejected[1])
        for other in extraction.alternatives if extraction else ():  # "either \boxed{3} or \boxed{4}"
            if self._grade(question, reference, f"\\boxed{{{other}}}", symbolic).verdict is not True:
                return Score.incorrect(REASON_HEDGED, pred)  # every answer offered must be right

        options = question_options(question)
        letter = choice_letter(gold, exact=True)
        if letter is not None:  # "(B) 1": the reference gives the option's text where the question does not
            named_gold = split_letter(gold)
            given = {letter: named_gold[1]} if named_gold is not None and named_gold[0] == letter else {}
            return self._grade_choice(letter, pred and (stated_answer(pred) or pred), given | options, text)
        if pred is None:
            if question and is_question_text(question, text):
                return Score.incorrect(REASON_RESTATED, detail="the question given back, not an answer")
            return self._grade_unanchored(question, gold, text, symbolic)
        assert extraction is not None
        answer = pred
        named = split_letter(pred)
        if named is not None and (named[0] in options or pred.lstrip().startswith("(")):
            # "(B) 5": the option's own text is the answer; a text that contradicts the option is not
            option_text = options.get(named[0])
            if option_text is not None and not same_text(option_text, named[1]):
                return Score.incorrect(REASON_MISMATCH, pred, f"option {named[0]} is {option_text!r}")
            pred = named[1]
        rejected = first_rejection(ANSWER_REJECTIONS, Answered(question, gold, text, extraction, answer, pred))
        if rejected is not None:
            return Score.incorrect(rejected[0].reason, pred, rejected[1])
        qualified = read_statement(pred) or split_qualifier(pred)  # "the largest is 8", "(3, m) for every m >= 2"
        different = different_bounds(qualified_gold, qualified)
        if different is not None:
            return Score.incorrect(REASON_MISMATCH, pred, different)
        pred = in_reference_variable(gold, in_reference_names(qualified_gold, qualified))
        gold, pred = without_integration_constant(*natural_log_as_written(gold, pred))

        decided = decide_exactly(question, gold, pred)
        if decided is not None:
            return decided
        if not symbolic:
            raise _NeedsSymbolic
        # A boxed answer is LaTeX; an "answer is ..." phrase or a bare tail may be prose ("83 packages"), which
        # math-verify's own extraction reads better than a LaTeX parse of the whole phrase (see as_math_input).
        math_input = f"\\boxed{{{pred}}}" if extraction.rule is Found.BOXED else as_math_input(pred)
        return self._symbolic_verdict(gold, math_input, pred, imaginary_unit(question, gold))

    def _grade_choice(self, letter: str, pred: str | None, options: dict[str, str], text: str) -> Score:
        """A lettered reference: the completion names the same option by its letter, or by its text alone; where its
        answer names none ("Solution: Choice_B" with no answer phrase, or a phrase that only lists the options),
        the pick its last lines name ("I pick Choice_C")."""
        got = choice_letter(pred, exact=False) if pred is not None else None
        if got is None and pred is not None and options:
            got = next((k for k, v in options.items() if same_text(v, pred)), None)
        if got is None:
            got = chosen_option(text[-_CHOICE_TAIL:])
        if got is None and pred is None:
            return Score.incorrect(REASON_NO_ANSWER)
        if got is None:
            return Score.incorrect(REASON_NO_ANSWER, pred)
        return Score.correct(REASON_CHOICE, got) if got == letter else Score.incorrect(REASON_MISMATCH, got)

    def _grade_unanchored(self, question: str, gold: str, text: str, symbolic: bool) -> Score:
        """No anchored answer: math-verify reads the last expression of the tail, if the tail is prose or math
        that ends with it (not code, not gibberish, not a sentence that runs on past its last number). A plain
        last number against a numeric reference is decided here, by the numbers' rules (:func:`decide_unanchored`)."""
        if self.config.fallback_chars <= 0:
            return Score.incorrect(REASON_NO_ANSWER)
        tail = normalize_answer(without_list_markers(text[-self.config.fallback_chars :]))
        if not _DIGIT.search(tail) and not _DELIMITED.search(tail):
            return Score.incorrect(REASON_NO_ANSWER, detail="no number or formula left once list numbering is set aside")
        if looks_like_code(tail) or looks_like_garbage(tail):
            return Score.incorrect(REASON_INVALID_OUTPUT, detail="code or gibberish, not an answer")
        if cut_inside_formula(tail):
            return Score.incorrect(REASON_NO_ANSWER, detail="cut off inside a formula")
        if ends_mid_sentence(tail):  # cut off: its last number is an answer only if nothing follows it
            last = None
            for last in _LAST_MATH.finditer(tail):
                pass
            if last is None or len(tail) - last.end() > _UNANCHORED_TRAIL:
                return Score.incorrect(REASON_NO_ANSWER, detail="cut off mid-sentence without an answer")
        last = last_math_segment(tail)  # what math-verify would read last: a value, not a sum left to evaluate
        rejected = first_rejection((UNEVALUATED,), Answered(question, gold, text, None, last, last))
        if rejected is not None:
            return Score.incorrect(rejected[0].reason, last, rejected[1])
        decided = decide_unanchored(question, gold, tail)
        if decided is not None:
            return decided
        if not symbolic:
            raise _NeedsSymbolic
        return self._symbolic_verdict(gold, tail, None, imaginary_unit(question, gold))

    def _symbolic_verdict(self, gold: str, math_input: str, pred_text: str | None, imaginary: bool) -> Score:
        """Step 4 for one (reference, answer) pair, once per process: the rollouts of a prompt that give the same
        answer (GRPO samples 16 a prompt) cost one parse and one comparison. ``pred_text`` None: an unanchored
        tail, whose answer is what math-verify reads last in it. ``imaginary``: the letter i is the imaginary unit
        (:func:`~rewards.math.normalization.imaginary_unit`)."""
        key = (gold, math_input, pred_text, imaginary)
        cached = self._verdicts.get(key)
        if cached is not None:
            self._verdicts.move_to_end(key)
            return cached
        parsed = self._parsed(math_input, imaginary, gold=False)
        if pred_text is not None:
            score = self._compare(gold, parsed, pred_text, imaginary)
        else:
            score = (self._compare(gold, parsed, str(parsed[-1]), imaginary) if parsed
                     else Score.incorrect(REASON_NO_ANSWER))
        self._verdicts[key] = score
        if len(self._verdicts) > self.config.verdict_cache_size:
            self._verdicts.popitem(last=False)
        return score

    def _parsed(self, text: str, imaginary: bool, gold: bool) -> list[Any]:
        """math-verify's parse of ``text``, the one way in for both sides: angles in degrees inside trigonometric
        functions as radians (:func:`~rewards.math.quantities.degrees_in_trig`), the imaginary unit if asked."""
        text = degrees_in_trig(text)
        parsed = self.symbolic.parse_gold(text) if gold else self.symbolic.parse(text)
        return self.symbolic.with_imaginary_unit(parsed) if imaginary else parsed

    def _compare(self, gold: str, pred_parsed: list[Any], pred_text: str, imaginary: bool) -> Score:
        """Step 4: a numeric reference against the prediction's bounded value, else math-verify's verify, then
        the identity stage."""
        decided = self._against_number(gold, pred_parsed, pred_text, imaginary)
        if isinstance(decided, Score):
            return decided
        if decided is not None:
            return Score.correct(REASON_VERIFIED, pred_text) if decided else Score.incorrect(REASON_MISMATCH, pred_text)
        gold_parsed = self._parsed(as_math_input(gold), imaginary, gold=True)
        if self.symbolic.differ(gold_parsed, pred_parsed):
            return Score.incorrect(REASON_MISMATCH, pred_text, "different values at a real point")
        if gold_parsed and pred_parsed and self.symbolic.verify(gold_parsed, pred_parsed):
            if self.symbolic.changed_value(gold_parsed, pred_parsed):  # matched only at math-verify's 15 digits
                return Score.incorrect(REASON_MISMATCH, pred_text, "a changed value math-verify's rounding let through")
            return Score.correct(REASON_VERIFIED, pred_text)
        identity = self._identity(gold_parsed, pred_parsed, pred_text)
        if identity is not None:
            return identity
        # Strings (``disproved``, ``Yes``, names) are not math; compare them loosely as text.
        if normalize_text(gold) and normalize_text(gold) == normalize_text(pred_text):
            return Score.correct(REASON_STRING_MATCH, pred_text)
        if not gold_parsed and not normalize_text(gold):
            return Score.incorrect(REASON_UNPARSABLE_REFERENCE, pred_text)
        return Score.incorrect(REASON_MISMATCH, pred_text)

    def _identity(self, gold_parsed: list[Any], pred_parsed: list[Any], pred_text: str) -> Score | None:
        identity = self.symbolic.same_function(gold_parsed, pred_parsed)
        if identity is not None and identity.equal:  # sec^2 x - tan^2 x for 1: equal as real functions
            return Score.correct(REASON_VERIFIED, pred_text, f"the same real function ({identity.ground})")
        return None

    def _against_number(
        self, gold: str, pred_parsed: list[Any], pred_text: str, imaginary: bool
    ) -> bool | Score | None:
        """For a numeric reference: decide from the parsed prediction's value, skipping math-verify's symbolic
        checks. An expression in variables equals a number only as an identity (``sec^2 x - tan^2 x`` for 1),
        which the identity stage decides at once: its numbers reject a wrong expression at the first point,
        where math-verify would simplify the difference. None when undecided (relations, sets, values within
        rounding)."""
        if not self.config.strict or not pred_parsed:
            return None
        gold_value = number_of(gold)
        if gold_value is None or not gold_value.is_finite:
            return None
        value, has_symbols = self.symbolic.value(pred_parsed)
        if has_symbols:
            identity = self._identity(self._parsed(as_math_input(gold), imaginary, gold=True), pred_parsed, pred_text)
            return identity if identity is not None else False
        if value is None:
            return None
        same = same_value(gold_value, value)
        if same and (gold_value.exact is None or value.exact is None):  # equal as floats: a tiny change may hide
            gold_parsed = self._parsed(as_math_input(gold), imaginary, gold=True)
            if self.symbolic.changed_value(gold_parsed, pred_parsed):
                return Score.incorrect(REASON_MISMATCH, pred_text, "a changed value a float's rounding let through")
        return same
