"""Grading one (reference, completion) pair: extraction, a plain-number fast path, then math-verify.

This is the one definition of "correct" in the project: the ``rule`` reward, policy evaluation on math suites
and the robustness suite all call :meth:`MathGrader.grade`. It runs inside the worker processes of
:mod:`rewards.sandbox`, which is why it may use math-verify's signal-based timeouts.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from rewards.contract import (
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
    plain_number,
    unwrap_text,
)


_MAX_ANSWER_CHARS = 200


@dataclass(frozen=True)
class GradingConfig:
    """Knobs of the comparison. ``math_verify_timeout`` is math-verify's own per-call signal timeout (whole
    seconds); the hard per-item deadline is the sandbox's."""

    float_rounding: int = 6
    numeric_precision: int = 15
    strict: bool = True
    math_verify_timeout: int = 3
    fallback_chars: int = 300
    short_answer_chars: int = 40
    gold_cache_size: int = 4096


def reference_answer(reference: str) -> str:
    """The final answer inside a reference: its last ``\\boxed{}`` (worked solutions), a GSM8K ``#### n``,
    else the whole reference."""
    boxed = boxed_answers(reference, limit=1)
    if boxed and boxed[0].strip():
        return boxed[0].strip()
    hashes = reference.rfind("####")
    if hashes >= 0:
        return reference[hashes + 4 :].strip()
    return reference.strip()


_WORDS = re.compile(r"[A-Za-z][A-Za-z'\- ]*[A-Za-z]")


def is_plain_words(answer: str) -> bool:
    """True for answers such as ``Paris``, ``disproved`` or ``apple pear``: letters only, two or more."""
    return bool(_WORDS.fullmatch(unwrap_text(answer).strip()))


def _numbers_equal(gold: str, pred: str) -> bool | None:
    """True/False when decided exactly; None when math-verify should decide (rounding tolerance)."""
    try:
        g, p = Decimal(gold), Decimal(pred)
    except InvalidOperation:
        return None
    if g == p:
        return True
    if g == g.to_integral_value() and p == p.to_integral_value():
        return False
    return None


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
        parsed = self._parse(f"${gold}$")
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

        letter = choice_letter(gold, exact=True)
        if letter is not None:
            got = choice_letter(pred, exact=False) if pred is not None else None
            if got is None:
                return Score.incorrect(REASON_NO_ANSWER, pred)
            return Score.correct("choice", got) if got == letter else Score.incorrect(REASON_MISMATCH, got)

        if pred is None:
            return self._grade_unanchored(gold, completion)

        gold_number, pred_number = plain_number(gold), plain_number(pred)
        if gold_number is not None and pred_number is not None:
            equal = _numbers_equal(gold_number, pred_number)
            if equal is True:
                return Score.correct(REASON_VERIFIED, pred)
            if equal is False:
                return Score.incorrect(REASON_MISMATCH, pred)

        if is_plain_words(gold):
            # Words are not algebra: math-verify would read "Paris" as P*a*r*i*s, equal to "Pairs".
            same = normalize_text(gold) == normalize_text(pred)
            return Score.correct("string_match", pred) if same else Score.incorrect(REASON_MISMATCH, pred)

        # A short bare tail ("Doubling ten times gives 1024.") is prose: let math-verify find the expression.
        pred_parsed = self._parse(pred if extraction and extraction.rule == "tail" else f"${pred}$")
        return self._compare(gold, pred_parsed, pred)

    def _grade_unanchored(self, gold: str, completion: str) -> Score:
        """No anchored answer: let math-verify look for the last expression in the completion's tail."""
        if self.config.fallback_chars <= 0:
            return Score.incorrect(REASON_NO_ANSWER)
        tail = after_thinking(completion)[-self.config.fallback_chars :]
        parsed = self._parse(tail)
        if not parsed:
            return Score.incorrect(REASON_NO_ANSWER)
        return self._compare(gold, parsed, str(parsed[-1]))

    def _compare(self, gold: str, pred_parsed: list[Any], pred_text: str) -> Score:
        mv = self._math_verify()
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
