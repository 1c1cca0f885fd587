"""Grading one (reference, completion) pair: extraction, a plain-number fast path, then math-verify.

This is the one definition of "correct" in the project: the ``rule`` reward, policy evaluation on math suites
and the robustness suite all call :meth:`MathGrader.grade`. It runs inside the worker processes of
:mod:`rewards.sandbox`, which is why it may use math-verify's signal-based timeouts.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rewards.numeric import numeric_tuple, numeric_value
from rewards.contract import (
    REASON_HEDGED,
    REASON_MISMATCH,
    REASON_NO_ANSWER,
    REASON_UNPARSABLE_REFERENCE,
    REASON_VERIFIED,
    Score,
)
from rewards.extract import (
    after_thinking,
    boxed_answers,
    choice_letter,
    extract_final_answer,
    normalize_text,
    canonical_latex,
    rational_value,
    unwrap_text,
)


_MAX_ANSWER_CHARS = 200


_DELIMITED = re.compile(r"\$|\\\[|\\\(|\\boxed")
_COMMAND = re.compile(r"\\[A-Za-z]+")
# Environment names and \text{...} units are LaTeX, not prose: "\frac{270}{7}\text{ degrees}".
_NON_PROSE = re.compile(r"\\(?:begin|end)\{[^{}]*\}|\\(?:text|mathrm|textbf|operatorname)\s*\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z]{2,}")


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


def _same_number(gold: float, pred: float) -> bool | None:
    """True when equal to float precision, False when clearly apart, None in between (math-verify rounds).
    Infinite values are equal only to the same infinity."""
    if math.isinf(gold) or math.isinf(pred):
        return gold == pred  # same infinity (an interval's end), or an overflow that is no finite answer
    scale = max(1.0, abs(gold))
    gap = abs(gold - pred)
    if gap <= 1e-9 * scale:
        return True
    if gap > 1e-4 * scale:
        return False
    return None


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


def reference_answer(reference: str) -> str:
    """The final answer inside a reference: its ``\\boxed{}`` contents (several are one answer of several
    parts, joined by commas), a GSM8K ``#### n``, else the whole reference.

    Completions get no such leniency: only their last box counts, so that hedging over several boxed
    candidates earns nothing."""
    boxed = [b.strip() for b in reversed(boxed_answers(reference, limit=8)) if b.strip()]
    if boxed:
        return ", ".join(dict.fromkeys(boxed))
    hashes = reference.rfind("####")
    if hashes >= 0:
        return reference[hashes + 4 :].strip()
    return reference.strip()


_WORDS = re.compile(r"[A-Za-z][A-Za-z'\- ]*[A-Za-z]")


def is_plain_words(answer: str) -> bool:
    """True for answers such as ``Paris``, ``disproved`` or ``apple pear``: letters only, two or more."""
    return bool(_WORDS.fullmatch(unwrap_text(answer).strip()))


class MathGrader:
    """Grades completions against references. Holds a bounded cache of parsed references, so each distinct
    reference is parsed once per process however many rollouts share it."""

    def __init__(self, config: GradingConfig | None = None) -> None:
        self.config = config or GradingConfig()
        self._gold_cache: OrderedDict[str, list[Any]] = OrderedDict()
        self._mv = None

    def _math_verify(self):  # imported late: sympy costs a second; the parent process never needs it
        if self._mv is None:
            import math_verify

            self._mv = math_verify
        return self._mv

    def _parse(self, latex: str) -> list[Any]:
        mv = self._math_verify()
        return mv.parse(latex, parsing_timeout=self.config.math_verify_timeout)

    def parse_gold(self, gold: str) -> list[Any]:
        cached = self._gold_cache.get(gold)
        if cached is not None:
            self._gold_cache.move_to_end(gold)
            return cached
        parsed = self._parse(as_math_input(gold))
        self._gold_cache[gold] = parsed
        if len(self._gold_cache) > self.config.gold_cache_size:
            self._gold_cache.popitem(last=False)
        return parsed

    def grade(self, reference: str, completion: str) -> Score:
        """Score ``completion`` against ``reference``; the extracted answer is kept, cut to 200 characters."""
        score = self._grade(reference, completion)
        if score.answer is not None and len(score.answer) > _MAX_ANSWER_CHARS:
            cut = score.answer[: _MAX_ANSWER_CHARS - 3] + "..."
            return Score(score.value, score.verdict, score.reason, cut)
        return score

    def _grade(self, reference: str, completion: str) -> Score:
        cfg = self.config
        gold = reference_answer(reference)
        extraction = extract_final_answer(completion, short_answer_chars=cfg.short_answer_chars)
        pred = extraction.text if extraction else None
        for other in extraction.alternatives if extraction else ():  # "either \boxed{3} or \boxed{4}"
            if self._grade(reference, f"\\boxed{{{other}}}").verdict is not True:
                return Score.incorrect(REASON_HEDGED, pred)  # every answer offered must be right

        letter = choice_letter(gold, exact=True)
        if letter is not None:
            got = choice_letter(pred, exact=False) if pred is not None else None
            if got is None:
                return Score.incorrect(REASON_NO_ANSWER, pred)
            return Score.correct("choice", got) if got == letter else Score.incorrect(REASON_MISMATCH, got)

        if pred is None:
            return self._grade_unanchored(gold, completion)
        assert extraction is not None

        # Fast paths that decide without a LaTeX parse (most of the cost): identical forms, exact rationals.
        if canonical_latex(gold) and canonical_latex(gold) == canonical_latex(pred):
            return Score.correct(REASON_VERIFIED, pred)
        gold_value, pred_value = rational_value(gold), rational_value(pred)
        if gold_value is not None and pred_value is not None:
            equal = self._rationals_equal(gold_value, pred_value)
            if equal is True:
                return Score.correct(REASON_VERIFIED, pred)
            if equal is False:
                return Score.incorrect(REASON_MISMATCH, pred)
        decided = self._numeric_verdict(gold, strip_assignment(pred) if "=" not in gold else pred)
        if decided is not None:
            return Score(decided.value, decided.verdict, decided.reason, pred)

        if is_plain_words(gold):
            # Words are not algebra: math-verify would read "Paris" as P*a*r*i*s, equal to "Pairs".
            same = normalize_text(gold) == normalize_text(pred)
            return Score.correct("string_match", pred) if same else Score.incorrect(REASON_MISMATCH, pred)

        # A boxed answer is LaTeX; an "answer is ..." phrase or a bare tail may be prose ("83 packages"), which
        # math-verify's own extraction reads better than a LaTeX parse of the whole phrase (see as_math_input).
        pred_parsed = self._parse(f"\\boxed{{{pred}}}" if extraction.rule == "boxed" else as_math_input(pred))
        return self._compare(gold, pred_parsed, pred)

    def _rationals_equal(self, gold: Fraction, pred: Fraction) -> bool | None:
        """True/False when exact arithmetic decides; None inside math-verify's rounding tolerance, where
        math-verify decides (it counts 0.333333 as 1/3)."""
        if gold == pred:
            return True
        tolerance = Fraction(1, 10**self.config.float_rounding) * max(1, abs(gold))
        return None if abs(gold - pred) <= tolerance else False

    def _numeric_verdict(self, gold: str, pred: str) -> Score | None:
        """Decide numeric answers (``\\frac{\\sqrt{3}}{2}`` vs ``\\sqrt{3}/2``) by float value when the values are
        clearly equal or clearly apart; None leaves it to math-verify."""
        gold_value, pred_value = numeric_value(gold), numeric_value(pred)
        if gold_value is not None and pred_value is not None:
            same = _same_number(gold_value, pred_value)
            if same is None:
                return None
            return Score.correct(REASON_VERIFIED, pred) if same else Score.incorrect(REASON_MISMATCH, pred)
        gold_tuple, pred_tuple = numeric_tuple(gold), numeric_tuple(pred)
        if gold_tuple is None or pred_tuple is None or len(gold_tuple[1]) != len(pred_tuple[1]):
            return None
        verdicts = [_same_number(g, p) for g, p in zip(gold_tuple[1], pred_tuple[1])]
        if False in verdicts:
            return Score.incorrect(REASON_MISMATCH, pred)
        brackets_match = (gold_tuple[0], gold_tuple[2]) == (pred_tuple[0], pred_tuple[2])
        if all(verdicts) and brackets_match:
            return Score.correct(REASON_VERIFIED, pred)
        return None

    def _grade_unanchored(self, gold: str, completion: str) -> Score:
        """No anchored answer: let math-verify look for the last expression in the completion's tail."""
        if self.config.fallback_chars <= 0:
            return Score.incorrect(REASON_NO_ANSWER)
        tail = after_thinking(completion)[-self.config.fallback_chars :]
        parsed = self._parse(tail)
        if not parsed:
            return Score.incorrect(REASON_NO_ANSWER)
        return self._compare(gold, parsed, str(parsed[-1]))

    def _against_number(self, gold: str, pred_parsed: list[Any]) -> bool | None:
        """For a numeric reference: decide from the parsed prediction's value, skipping the reference's parse
        and math-verify's symbolic checks. None when undecided (relations, sets, values within rounding)."""
        if not self.config.strict or not pred_parsed:
            return None
        gold_value = numeric_value(gold)
        expr = pred_parsed[0]
        if gold_value is None or math.isinf(gold_value) or type(expr).__module__.split(".")[0] != "sympy":
            return None
        import sympy

        if not isinstance(expr, sympy.Expr) or isinstance(expr, sympy.MatrixBase):
            return None
        if expr.free_symbols:
            return False  # strict mode: an expression in x never equals a number
        try:
            value = complex(self._evaluate(expr))
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return None
        if value.imag != 0 or not math.isfinite(value.real):
            return None
        return _same_number(gold_value, value.real)

    def _evaluate(self, expr: Any) -> Any:
        from math_verify.utils import timeout

        return timeout(timeout_seconds=self.config.math_verify_timeout)(expr.evalf)(30)

    def _compare(self, gold: str, pred_parsed: list[Any], pred_text: str) -> Score:
        mv = self._math_verify()
        decided = self._against_number(gold, pred_parsed)
        if decided is not None:
            return Score.correct(REASON_VERIFIED, pred_text) if decided else Score.incorrect(REASON_MISMATCH, pred_text)
        gold_parsed = self.parse_gold(gold)
        if gold_parsed and pred_parsed:
            ok = mv.verify(
                gold_parsed,
                pred_parsed,
                float_rounding=self.config.float_rounding,
                numeric_precision=self.config.numeric_precision,
                strict=self.config.strict,
                timeout_seconds=self.config.math_verify_timeout,
            )
            if ok:
                return Score.correct(REASON_VERIFIED, pred_text)
        # Strings (``disproved``, ``Yes``, names) are not math; compare them loosely as text.
        if normalize_text(gold) and normalize_text(gold) == normalize_text(pred_text):
            return Score.correct("string_match", pred_text)
        if not gold_parsed and not normalize_text(gold):
            return Score.incorrect(REASON_UNPARSABLE_REFERENCE, pred_text)
        return Score.incorrect(REASON_MISMATCH, pred_text)
