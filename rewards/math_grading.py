"""Grading one (question, reference, completion): extraction, validity checks, exact rules, then math-verify.

This is the one definition of "correct" in the project: the ``rule`` reward, policy evaluation on math suites
and the robustness suite all call :class:`MathGrader`. The order, and where each family of false verdicts is
closed:

1. The reference's answer and the completion's final answer are extracted (:mod:`rewards.extract`) and
   rewritten into plain LaTeX (:mod:`rewards.normalize`: unicode, plain-text functions, ``\\text{13}``, column
   vectors).
2. Completions that have not answered score 0 whatever their last number (:mod:`rewards.validity`): looping or
   cut off after the answer, code or gibberish, several boxed answers offered as alternatives, the question's
   own expression given back for a "factor"/"simplify" question.
3. Exact rules decide what they can without sympy: option letters and option texts (:mod:`rewards.choices`),
   identical forms, percentages and angles (:mod:`rewards.quantities`), numbers compared exactly or by the
   digits they give (:mod:`rewards.numeric`), solution sets (:mod:`rewards.intervals`), tuples, words.
4. The rest goes to math-verify (:mod:`rewards.symbolic`), with every numeric evaluation bounded; what it
   does not match is compared as a real function (:mod:`rewards.identities`: identities, exact values).

Steps 1-3 are pure, bounded string and rational arithmetic: :meth:`MathGrader.decide` runs them in any process
and thread and says None when step 4 is needed. :meth:`MathGrader.grade` runs all four, and belongs in a worker
process of :mod:`rewards.sandbox` (math-verify's timeouts are signals).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from harness.core.answers import boxed_answers, gsm8k_final
from rewards.choices import question_options, split_letter
from rewards.contract import (
    REASON_HEDGED,
    REASON_INVALID_OUTPUT,
    REASON_MISMATCH,
    REASON_NO_ANSWER,
    REASON_RESTATED,
    REASON_UNPARSABLE_REFERENCE,
    REASON_VERIFIED,
    REASON_WRONG_FORM,
    Score,
)
from rewards.extract import (
    after_thinking,
    answer_statements,
    canonical_latex,
    choice_letter,
    extract_final_answer,
    labelled_parts,
    normalize_text,
    plain_number,
    rational_value,
    unwrap_text,
)
from rewards.inputs import clean_completion
from rewards.intervals import interval_set, same_set
from rewards.normalize import in_reference_variable, normalize_answer
from rewards.numeric import Number, evaluate, exact_number, numeric_tuple, same_value, split_top_level
from rewards.quantities import angle, asks_for_percent, fixed_unit, split_percent
from rewards.validity import (
    alternates_and_stops,
    ending_loop,
    ends_mid_sentence,
    is_program_expression,
    is_question_text,
    looks_like_code,
    looks_like_garbage,
    loop_voids_answer,
    restates_question,
    without_list_markers,
)

_MAX_ANSWER_CHARS = 200
_DELIMITED = re.compile(r"\$|\\\[|\\\(|\\boxed")
_COMMAND = re.compile(r"\\[A-Za-z]+")
# Environment names and \text{...} units are LaTeX, not prose: "\frac{270}{7}\text{ degrees}".
_NON_PROSE = re.compile(r"\\(?:begin|end)\{[^{}]*\}|\\(?:text|mathrm|textbf|operatorname)\s*\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _in_question_order(parts: list[tuple[str, str, str]], question: str) -> list[tuple[str, str, str]]:
    """Labelled parts in the order the question names them ("find the minimum and maximum": ``Min`` before
    ``Max``, whichever the answer wrote first), when it names each; else in the answer's own order."""
    places = []
    for base, _, _ in parts:
        word = re.escape(base) if len(base) > 1 else re.escape(base) + r"(?![A-Za-z])"
        found = re.search(r"(?<![A-Za-z\\])" + word, question, re.I if len(base) > 1 else 0)
        if found is None:
            return parts
        places.append(found.start())
    return [part for _, part in sorted(zip(places, parts), key=lambda pair: pair[0])]


def as_math_input(answer: str) -> str:
    """How an extracted answer is handed to math-verify's ``parse``: as it is when it has its own math
    delimiters or reads as prose (``83 packages``), wrapped in ``$...$`` when it is bare math
    (``10\\sqrt3``, ``x \\leq 5``, ``(3,2)``), which math-verify would otherwise read as plain text."""
    if _DELIMITED.search(answer) or _WORD.search(_COMMAND.sub(" ", _NON_PROSE.sub(" ", answer))):
        return answer
    return f"${answer}$"


_ASSIGNMENT = re.compile(r"\s*[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?\s*=\s*([^=<>]+)")


def strip_assignment(answer: str) -> str:
    """``x = 10`` -> ``10``: a single-variable assignment answers with its right-hand side."""
    m = _ASSIGNMENT.fullmatch(answer)
    return m.group(1).strip() if m else answer


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


_WORDS = re.compile(r"[A-Za-z][A-Za-z'\- ]*[A-Za-z]")


def is_plain_words(answer: str) -> bool:
    """True for answers such as ``Paris``, ``disproved`` or ``apple pear``: letters only, two or more."""
    return bool(_WORDS.fullmatch(unwrap_text(answer).strip()))


_EXACT_FORM = re.compile(
    r"(?i)\bexact\b|simplest\s+(?:radical\s+)?form|radical\s+form|in\s+terms\s+of\s+\\?(?:pi|π)|"
    r"common\s+fraction|as\s+a\s+fraction"
)
_MIN_SIGNIFICANT_DIGITS = 3


def asks_for_exact_form(question: str) -> bool:
    """The question asks for an exact value ("exact", "simplest radical form", "in terms of pi", "common
    fraction"): a decimal approximation is then a wrong answer, however many digits it gives."""
    return bool(_EXACT_FORM.search(question[:5000]))


@dataclass(frozen=True)
class Decimal:
    """A decimal literal's precision (``0.333``, ``2.3148 \\times 10^{-3}``, ``1.5e-3``): the value of one unit in
    its last digit, and its number of significant digits."""

    unit: Fraction
    significant: int


_SCIENTIFIC = re.compile(r"(.+?)\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d{1,4})\s*\}?|(.+?)[eE]([-+]?\d{1,4})")


def decimal_literal(answer: str) -> Decimal | None:
    """The precision of a plain or scientific decimal literal, None for integers, fractions and the rest."""
    exponent = 0
    m = _SCIENTIFIC.fullmatch(answer.strip())
    if m:
        answer = m.group(1) if m.group(1) is not None else m.group(3)
        exponent = int(m.group(2) if m.group(2) is not None else m.group(4))
    number = plain_number(answer)
    if number is None or "." not in number:
        return None
    digits = number.lstrip("+-").replace(".", "").lstrip("0")
    places = len(number.split(".")[1]) - exponent
    return Decimal(Fraction(1, 10**places) if places >= 0 else Fraction(10 ** (-places)), len(digits))


def _terminates(value: Number) -> bool:
    """True for a rational whose decimal expansion ends (denominator 2^a 5^b)."""
    if value.exact is None:
        return False
    d = value.exact.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _rounds_to(decimal: Number, unit: Fraction, value: Number) -> bool | None:
    """Whether a decimal whose last digit is worth ``unit`` is ``value`` rounded or cut there: within one unit
    of its last digit. None when floats cannot resolve the digits."""
    if decimal.exact is not None and value.exact is not None:
        return abs(decimal.exact - value.exact) < unit
    if value.is_huge or decimal.is_huge or value.unreliable or not value.is_finite:
        return None
    if float(unit) < 1e-13 * max(1.0, abs(value.approx)):
        return None
    return abs(decimal.approx - value.approx) < float(unit) * (1 - 1e-9)


def number_of(answer: str) -> Number | None:
    """The value of a numeric answer: plain numbers with separators, currency and unit words first
    (``1,234``, ``$18``, ``83 packages``), then simple LaTeX (``\\frac{\\sqrt3}{2}``)."""
    rational = rational_value(answer)
    if rational is not None:
        return exact_number(rational)
    return evaluate(answer)


_MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


def last_math_segment(answer: str) -> str | None:
    """The contents of the last ``$...$`` (or ``\\(...\\)``, ``\\[...\\]``) of a prose answer that has words
    outside it, else None."""
    if "$" not in answer and "\\(" not in answer and "\\[" not in answer:
        return None
    last = None
    for last in _MATH_SEGMENT.finditer(answer[-2000:]):
        pass
    if last is None:
        return None
    outside = answer[-2000:][: last.start()] + answer[-2000:][last.end() :]
    if not _WORD.search(outside):
        return None
    return next(g for g in last.groups() if g is not None).strip()


def _statement_key(statement: str) -> object:
    """What a final-answer statement says, for telling different answers apart: its value when numeric, else
    its spacing-free form (``\\$16,\\!386.20`` and ``16,\\!386.20`` are one answer)."""
    answer = normalize_answer(statement)
    answer = last_math_segment(answer) or answer
    answer = answer.replace("\\$", "").replace("\\!", "").replace("\\%", "").replace("%", "").strip()
    value = number_of(answer)
    if value is not None and value.exact is not None:
        return value.exact
    return canonical_latex(answer)


# One number in a sentence: digits with thousands separators and a decimal part, a currency sign allowed.
_PROSE_NUMBER = re.compile(r"(?<![\w.])-?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])-?\$?\d+(?:\.\d+)?(?![\w,]\d|\w)")
# What math-verify might read differently from "the one number": LaTeX, operators, percentages, times, ordinals.
_NOT_PLAIN_PROSE = re.compile(r"[\\{}^=<>+*/%:]|\d\s*-\s*\d|\$\s*[^\d\s]|\d(?:st|nd|rd|th)\b|\$.*\$")


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
    gold_cache_size: int = 4096


# No final answer is this long: longer "answers" (a megabyte in a box) are not read, by math-verify or anything.
# 60,000 characters still holds a 50,000-digit number, which is compared by its size.
_MAX_READABLE_ANSWER = 60_000
# How much text may follow the last number of an unanchored completion ("... so 12 dollars in all.").
_UNANCHORED_TRAIL = 40
_LAST_MATH = re.compile(r"[\d$}\])]")
_DIGIT = re.compile(r"\d")


class MathGrader:
    """Grades completions against references. :meth:`decide` needs no sympy; :meth:`grade` does."""

    def __init__(self, config: GradingConfig | None = None) -> None:
        self.config = config or GradingConfig()
        self._symbolic: Any = None

    @property
    def symbolic(self) -> Any:
        if self._symbolic is None:  # imported late: sympy costs a second; the parent process never needs it
            from rewards.symbolic import SymbolicComparer

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
        gold = normalize_answer(reference_answer(clean_completion(reference)))
        completion = clean_completion(completion)
        text = after_thinking(completion)
        extraction = extract_final_answer(completion, short_answer_chars=cfg.short_answer_chars)
        pred = normalize_answer(extraction.text) if extraction else None
        loop = ending_loop(text)
        if loop is not None and loop_voids_answer(loop, extraction is not None and extraction.end < len(text) - len(loop)):
            return Score.incorrect(REASON_INVALID_OUTPUT, pred, "the completion ends in a loop")
        if extraction is not None:
            stated = [_statement_key(s) for s in answer_statements(text)]
            if alternates_and_stops(stated, text):
                return Score.incorrect(REASON_INVALID_OUTPUT, pred, "different answers, then cut off mid-sentence")
        for other in extraction.alternatives if extraction else ():  # "either \boxed{3} or \boxed{4}"
            if self._grade(question, reference, f"\\boxed{{{other}}}", symbolic).verdict is not True:
                return Score.incorrect(REASON_HEDGED, pred)  # every answer offered must be right

        if pred is not None and len(pred) > _MAX_READABLE_ANSWER:
            return Score.incorrect(REASON_INVALID_OUTPUT, pred, f"a final answer of {len(pred)} characters")
        options = question_options(question)
        letter = choice_letter(gold, exact=True)
        if letter is not None:
            return self._grade_choice(letter, pred, options)
        if pred is None:
            if question and is_question_text(question, text):
                return Score.incorrect(REASON_RESTATED, detail="the question given back, not an answer")
            return self._grade_unanchored(gold, text, symbolic)
        assert extraction is not None
        if extraction.rule == "tail" and (looks_like_code(pred) or looks_like_garbage(pred)):
            return Score.incorrect(REASON_INVALID_OUTPUT, pred, "code or gibberish, not an answer")
        if is_program_expression(pred):
            return Score.incorrect(REASON_INVALID_OUTPUT, pred, "a program expression, not a number")
        named = split_letter(pred)
        if named is not None and (named[0] in options or pred.lstrip().startswith("(")):
            # "(B) 5": the option's own text is the answer; a text that contradicts the option is not
            option_text = options.get(named[0])
            if option_text is not None and not self._same_text(option_text, named[1]):
                return Score.incorrect(REASON_MISMATCH, pred, f"option {named[0]} is {option_text!r}")
            pred = named[1]
        if restates_question(question, gold, pred):
            return Score.incorrect(REASON_RESTATED, pred, "the question's own expression, not the asked form")
        pred = in_reference_variable(gold, pred)

        decided = self._exact_rules(question, gold, pred)
        if decided is not None:
            return decided
        if not symbolic:
            raise _NeedsSymbolic
        # A boxed answer is LaTeX; an "answer is ..." phrase or a bare tail may be prose ("83 packages"), which
        # math-verify's own extraction reads better than a LaTeX parse of the whole phrase (see as_math_input).
        pred_parsed = self.symbolic.parse(f"\\boxed{{{pred}}}" if extraction.rule == "boxed" else as_math_input(pred))
        return self._compare(gold, pred_parsed, pred)

    def _same_text(self, a: str, b: str) -> bool:
        if normalize_text(a) == normalize_text(b):
            return True
        va, vb = number_of(normalize_answer(a)), number_of(normalize_answer(b))
        return va is not None and vb is not None and same_value(va, vb) is True

    def _grade_choice(self, letter: str, pred: str | None, options: dict[str, str]) -> Score:
        """A lettered reference: the completion names the same option by its letter, or by its text alone."""
        if pred is None:
            return Score.incorrect(REASON_NO_ANSWER)
        got = choice_letter(pred, exact=False)
        if got is None and options:
            got = next((k for k, v in options.items() if self._same_text(v, pred)), None)
        if got is None:
            return Score.incorrect(REASON_NO_ANSWER, pred)
        return Score.correct("choice", got) if got == letter else Score.incorrect(REASON_MISMATCH, got)

    def _exact_rules(self, question: str, gold: str, pred: str) -> Score | None:
        """Step 3: the verdict of the first rule that decides, or None. A prose answer ("The solution is
        $-2 \\le x \\le 2$") is judged by its last math segment."""
        math_part = last_math_segment(pred)
        if math_part is not None and math_part != pred:
            decided = self._exact_rules(question, gold, math_part)
            return None if decided is None else Score(decided.value, decided.verdict, decided.reason, pred, decided.detail)
        if canonical_latex(gold) and canonical_latex(gold) == canonical_latex(pred):
            return Score.correct(REASON_VERIFIED, pred)
        for rule in (self._labelled_parts, self._percent, self._angle, self._number, self._number_in_prose,
                     self._interval, self._tuple):
            verdict = rule(question, gold, pred)
            if verdict is not None:
                return verdict if verdict.answer is not None else Score(
                    verdict.value, verdict.verdict, verdict.reason, pred, verdict.detail
                )
        if is_plain_words(gold):
            # Words are not algebra: math-verify would read "Paris" as P*a*r*i*s, equal to "Pairs".
            same = normalize_text(gold) == normalize_text(pred)
            return Score.correct("string_match", pred) if same else Score.incorrect(REASON_MISMATCH, pred)
        return None

    def _percent(self, question: str, gold: str, pred: str) -> Score | None:
        """Percentages. For a question that asks for a percent, the numbers compare with or without their sign,
        and the fraction a percent stands for (``0.25`` for ``25\\%``) is wrong. Otherwise a percent on one side
        only may be read either way (``25\\%`` is 25 percent, and it is 0.25)."""
        gold_number, gold_percent = split_percent(gold)
        pred_number, pred_percent = split_percent(pred)
        if not (gold_percent or pred_percent):
            return None
        g, p = number_of(gold_number), number_of(pred_number)
        if g is None or p is None or g.exact is None or p.exact is None:
            return None
        if g.exact == p.exact and (gold_percent == pred_percent or asks_for_percent(question)):
            return Score.correct(REASON_VERIFIED, pred)
        if asks_for_percent(question):
            if gold_percent and not pred_percent and p.exact * 100 == g.exact:
                return Score.incorrect(REASON_WRONG_FORM, pred, "a fraction where the question asks for a percent")
            return Score.incorrect(REASON_MISMATCH, pred)
        if gold_percent != pred_percent:
            fraction_side, percent_side = (g, p) if pred_percent else (p, g)
            if percent_side.exact == fraction_side.exact * 100 or percent_side.exact == fraction_side.exact:
                return Score.correct(REASON_VERIFIED, pred)
            return Score.incorrect(REASON_MISMATCH, pred)
        return None

    def _angle(self, question: str, gold: str, pred: str) -> Score | None:
        """Degrees against radians: equal when the angles are, unless the question fixes the unit."""
        g, p = angle(gold), angle(pred)
        unit = fixed_unit(question)
        if g is None or p is None:
            # a bare number against degrees, for a question that is not about radians: compare the numbers
            for bare, marked in ((gold, p), (pred, g)):
                if marked is not None and marked[1] == "degrees" and unit != "radians" and angle(bare) is None:
                    number = number_of(bare)
                    if number is not None and not number.is_huge:
                        same = abs(number.approx * 3.141592653589793 / 180 - marked[0].approx) <= 1e-12 * max(
                            1.0, abs(marked[0].approx)
                        )
                        return Score.correct(REASON_VERIFIED) if same else Score.incorrect(REASON_MISMATCH)
            return None
        if g[1] != p[1] and unit is not None and p[1] != unit:
            return Score.incorrect(REASON_WRONG_FORM, pred, f"the question asks for {unit}")
        same = same_value(g[0], p[0])
        if same is None:
            return None
        return Score.correct(REASON_VERIFIED) if same else Score.incorrect(REASON_MISMATCH)

    def _number(self, question: str, gold: str, pred: str) -> Score | None:
        """Numbers: exact values compare exactly; a decimal stands for a value with no exact decimal form when
        it is that value rounded or cut at its last digit and gives at least three significant digits (unless
        the question asks for an exact form); values known only by size compare by size."""
        pred = strip_assignment(pred) if "=" not in gold else pred
        g, p = number_of(gold), number_of(pred)
        if g is None or p is None:
            return None
        if g.exact is not None and p.exact is not None and g.exact == p.exact:
            return Score.correct(REASON_VERIFIED)
        pred_decimal, gold_decimal = decimal_literal(pred), decimal_literal(gold)
        if pred_decimal is not None and gold_decimal is None and not _terminates(g):
            if asks_for_exact_form(question):
                return Score.incorrect(REASON_WRONG_FORM, pred, "a decimal where the question asks for an exact form")
            close = _rounds_to(p, pred_decimal.unit, g)
            if close is None:
                return None
            ok = close and pred_decimal.significant >= _MIN_SIGNIFICANT_DIGITS
            return Score.correct(REASON_VERIFIED, detail="the digits given") if ok else Score.incorrect(REASON_MISMATCH)
        if gold_decimal is not None and pred_decimal is None and not _terminates(p):
            close = _rounds_to(g, gold_decimal.unit, p)
            if close is None:
                return None
            ok = close and gold_decimal.significant >= _MIN_SIGNIFICANT_DIGITS
            return Score.correct(REASON_VERIFIED, detail="the reference's digits") if ok else Score.incorrect(REASON_MISMATCH)
        same = same_value(g, p)
        if same is None:
            return None
        return Score.correct(REASON_VERIFIED) if same else Score.incorrect(REASON_MISMATCH)

    def _number_in_prose(self, question: str, gold: str, pred: str) -> Score | None:
        """A sentence around one number ("Mary will be left with 58 potted plants") against a numeric
        reference: that number is the answer, as math-verify would read it, without its parse. Sentences with
        several numbers, operators, LaTeX or percentages are left to math-verify."""
        if len(pred) > 300 or not _WORD.search(pred) or _NOT_PLAIN_PROSE.search(pred):
            return None
        numbers = _PROSE_NUMBER.findall(pred)
        if len(numbers) != 1:
            return None
        g = number_of(gold)
        p = number_of(numbers[0])
        if g is None or p is None or g.exact is None:
            return None
        return self._number(question, gold, numbers[0])

    def _interval(self, question: str, gold: str, pred: str) -> Score | None:
        """Solution sets: interval notation against inequalities, unions against "or"."""
        if not any(mark in gold + pred for mark in ("<", ">", "\\le", "\\ge", "\\lt", "\\gt", "\\cup", "\\infty", "or", "\\mathbb")):
            return None
        g, p = interval_set(gold), interval_set(pred)
        if g is None or p is None:
            return None
        same = same_set(g[0], p[0])
        if same is None:
            return None
        return Score.correct(REASON_VERIFIED) if same else Score.incorrect(REASON_MISMATCH)

    def _tuple(self, question: str, gold: str, pred: str) -> Score | None:
        """Tuples, points and intervals with numeric elements, compared in order with their brackets."""
        g, p = numeric_tuple(gold), numeric_tuple(pred)
        if g is None or p is None or len(g[1]) != len(p[1]):
            return None
        verdicts = [same_value(a, b) for a, b in zip(g[1], p[1])]
        if False in verdicts:
            return Score.incorrect(REASON_MISMATCH)
        if all(verdicts) and (g[0], g[2]) == (p[0], p[2]):
            return Score.correct(REASON_VERIFIED)
        return None

    def _labelled_parts(self, question: str, gold: str, pred: str) -> Score | None:
        """An answer of several labelled parts (``p = 3, q = 5``; ``\\text{Min} = 2, \\text{Max} = 7``) against a
        reference of as many parts: the parts are read in order, or by label when the reference labels them too,
        and each is compared by these same rules. A set of solutions (``x = 1, x = 2``; ``x_1 = 5, x_2 = 3``: one
        letter, with or without indices) is not ordered and is left to the set comparison. Undecided when a part
        is."""
        parts = labelled_parts(pred)
        if parts is None or len({base for base, _, _ in parts}) < len(parts):
            return None
        gold_parts = labelled_parts(gold)
        if gold_parts is not None:
            by_label = {label: value for _, label, value in gold_parts}
            if set(by_label) != {label for _, label, _ in parts}:
                return None
            pairs = [(by_label[label], value) for _, label, value in parts]
        else:
            gold_values = split_top_level(gold)
            if gold_values is None or len(gold_values) != len(parts) or labelled_parts(gold_values[0]) is not None:
                return None
            parts = _in_question_order(parts, question)
            pairs = list(zip((g.strip() for g in gold_values), (value for _, _, value in parts)))
        verdicts = [self._exact_rules(question, g, v) for g, v in pairs]
        if any(v is not None and v.verdict is False for v in verdicts):
            wrong = next(k for k, v in enumerate(verdicts) if v is not None and v.verdict is False)
            return Score.incorrect(REASON_MISMATCH, pred, f"part {wrong + 1} ({parts[wrong][1]}) differs, in the "
                                   "reference's order")
        if all(v is not None and v.verdict is True for v in verdicts):
            return Score.correct(REASON_VERIFIED, pred)
        return None

    def _grade_unanchored(self, gold: str, text: str, symbolic: bool) -> Score:
        """No anchored answer: math-verify reads the last expression of the tail, if the tail is prose or math
        that ends with it (not code, not gibberish, not a sentence that runs on past its last number)."""
        if self.config.fallback_chars <= 0:
            return Score.incorrect(REASON_NO_ANSWER)
        tail = normalize_answer(without_list_markers(text[-self.config.fallback_chars :]))
        if not _DIGIT.search(tail) and not _DELIMITED.search(tail):
            return Score.incorrect(REASON_NO_ANSWER, detail="no number or formula left once list numbering is set aside")
        if looks_like_code(tail) or looks_like_garbage(tail):
            return Score.incorrect(REASON_INVALID_OUTPUT, detail="code or gibberish, not an answer")
        if ends_mid_sentence(tail):  # cut off: its last number is an answer only if nothing follows it
            last = None
            for last in _LAST_MATH.finditer(tail):
                pass
            if last is None or len(tail) - last.end() > _UNANCHORED_TRAIL:
                return Score.incorrect(REASON_NO_ANSWER, detail="cut off mid-sentence without an answer")
        if not symbolic:
            raise _NeedsSymbolic
        parsed = self.symbolic.parse(tail)
        if not parsed:
            return Score.incorrect(REASON_NO_ANSWER)
        return self._compare(gold, parsed, str(parsed[-1]))

    def _compare(self, gold: str, pred_parsed: list[Any], pred_text: str) -> Score:
        """Step 4: a numeric reference against the prediction's bounded value, else math-verify's verify."""
        decided = self._against_number(gold, pred_parsed)
        if decided is not None:
            return Score.correct(REASON_VERIFIED, pred_text) if decided else Score.incorrect(REASON_MISMATCH, pred_text)
        gold_parsed = self.symbolic.parse_gold(as_math_input(gold))
        if gold_parsed and pred_parsed and self.symbolic.verify(gold_parsed, pred_parsed):
            return Score.correct(REASON_VERIFIED, pred_text)
        identity = self.symbolic.same_function(gold_parsed, pred_parsed)
        if identity is not None and identity.equal:  # sec^2 x - tan^2 x for 1: equal as real functions
            return Score.correct(REASON_VERIFIED, pred_text, f"the same real function ({identity.ground})")
        # Strings (``disproved``, ``Yes``, names) are not math; compare them loosely as text.
        if normalize_text(gold) and normalize_text(gold) == normalize_text(pred_text):
            return Score.correct("string_match", pred_text)
        if not gold_parsed and not normalize_text(gold):
            return Score.incorrect(REASON_UNPARSABLE_REFERENCE, pred_text)
        return Score.incorrect(REASON_MISMATCH, pred_text)

    def _against_number(self, gold: str, pred_parsed: list[Any]) -> bool | None:
        """For a numeric reference: decide from the parsed prediction's value, skipping the reference's parse
        and math-verify's symbolic checks. None when undecided (relations, sets, values within rounding)."""
        if not self.config.strict or not pred_parsed:
            return None
        gold_value = number_of(gold)
        if gold_value is None or not gold_value.is_finite:
            return None
        value, has_symbols = self.symbolic.value(pred_parsed)
        if has_symbols:
            return None  # an expression in x equals a number only as an identity (sec^2 x - tan^2 x): step 4
        if value is None:
            return None
        return same_value(gold_value, value)
