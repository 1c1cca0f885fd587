"""Answers with a unit that the comparison must respect: percentages and angles.

- A percent is not its fraction when the question asks for a percent: for "What percent of 80 is 20?" with
  reference ``25\\%``, ``25``, ``25\\%`` and "25 percent" are right, but ``\\frac{1}{4}`` and ``0.25`` are not,
  although math-verify counts ``25\\%`` equal to ``0.25`` (it reads ``\\%`` as a division by 100). Reading the
  fraction as the percent is a false positive of rule verifiers on percentage questions (VerifyBench,
  arXiv 2505.15801, lists units and percentages among its answer-form checks).
- An angle in degrees is the same answer as the same angle in radians when the question does not fix the unit:
  ``60^\\circ`` and ``\\frac{\\pi}{3}``. When it does ("in radians", "in degrees"), the other unit is wrong. Unit
  mismatches are a false-negative family of TinyV's taxonomy (arXiv 2505.14625).
- An angle in degrees inside a trigonometric function is its radian measure: ``\\sin(90^\\circ - x)`` is
  ``\\cos x`` and ``\\sin 30^\\circ`` is ``\\frac12``. latex2sympy drops the degree sign and reads
  ``\\sin 30^\\circ`` as the sine of 30 radians (:func:`degrees_in_trig`).
- A time of day is its number of seconds after midnight (:func:`clock_times`): ``20:34``, ``20:34:00`` and
  ``8:34 PM`` are one time. math-verify reads ``same_day, 15:21:01`` as 15, the first number it meets, and so
  took any time in the same hour for it.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from rewards.math.numeric import Number, approx_number, evaluate

_PERCENT_SIGN = re.compile(r"\s*(?:\\text\s*\{\s*\\?%\s*\}|\\%|%|\\percent\b|(?<![A-Za-z])percent(?![A-Za-z]))\s*$")
_ASKS_PERCENT = re.compile(r"(?i)percent|%")


def split_percent(answer: str) -> tuple[str, bool]:
    """(the number, whether it carried a percent sign or word)."""
    m = _PERCENT_SIGN.search(answer)
    return (answer[: m.start()].strip(), True) if m else (answer.strip(), False)


def asks_for_percent(question: str) -> bool:
    return bool(_ASKS_PERCENT.search(question))


_DEGREES = re.compile(
    r"\s*(?:\^\s*\{?\s*\\circ\s*\}?|\\degree|°|(?:\\text\s*\{\s*)?(?<![A-Za-z])degrees?(?![A-Za-z])\s*\}?)\s*$"
)
_RADIANS = re.compile(r"\s*(?:\\text\s*\{\s*)?(?<![A-Za-z])(?:radians?|rad)(?![A-Za-z])\s*\}?\s*$")
# "in radians", "radian measure" or "radians" (the first is a case of the last); the same for degrees, and a
# degree sign.
_FIXES_RADIANS = re.compile(r"(?i)\bradian(?:s\b| measure\b)")
_FIXES_DEGREES = re.compile(r"(?i)\bdegree(?:s\b| measure\b)|\\circ|°")


def fixed_unit(question: str) -> str | None:
    """``radians`` or ``degrees`` when the question names one unit (and not both), else None. Most questions
    name neither: a substring test on the case-folded text (casefold takes each letter of "rad", "deg" and
    "\\c" that the case-blind patterns match to that letter) skips the patterns for them."""
    folded = question.casefold()
    radians = "rad" in folded and bool(_FIXES_RADIANS.search(question))
    degrees = ("deg" in folded or "\\c" in folded or "°" in question) and bool(_FIXES_DEGREES.search(question))
    if radians == degrees:
        return None
    return "radians" if radians else "degrees"


_TRIG = re.compile(r"\\(?:arc)?(?:sin|cos|tan|cot|sec|csc)(?![A-Za-z])")
# Unlike _DEGREES, which reads a whole answer's end, this reads inside an expression: its braces must balance,
# so that the sign never takes a closing brace of the expression around it (\boxed{\sin 30^\circ}).
_DEGREE_LITERAL = re.compile(
    r"(?<![\w.])(\d{1,6}(?:\.\d{1,6})?)\s*(?:\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])|\\degree(?![A-Za-z]))"
)


def degrees_in_trig(text: str) -> str:
    """``text`` with each angle in degrees written as its radian measure (``30^\\circ`` -> ``(\\frac{30\\pi}{180})``)
    when a trigonometric function takes part in it; unchanged otherwise (a bare ``60^\\circ`` is
    :func:`angle`'s to compare). Both sides of a comparison get it, so degrees still equal degrees."""
    if not _TRIG.search(text):
        return text
    return _DEGREE_LITERAL.sub(lambda m: f"(\\frac{{{m.group(1)}\\pi}}{{180}})", text)


def angle(answer: str) -> tuple[Number, str] | None:
    """(value in radians, the unit it was written in) for ``60^\\circ``, ``60 degrees``, ``\\frac{\\pi}{3}`` or
    ``1.2 radians``; None for a number without a unit or a multiple of pi (``\\frac{\\pi}{3}`` is radians)."""
    m = _DEGREES.search(answer)
    if m and m.start() > 0:
        value = evaluate(answer[: m.start()])
        if value is None or value.is_huge:
            return None
        return approx_number(value.approx * math.pi / 180), "degrees"
    m = _RADIANS.search(answer)
    text = answer[: m.start()] if m and m.start() > 0 else answer
    if m is None and "\\pi" not in text:
        return None
    value = evaluate(text)
    if value is None or value.is_huge:
        return None
    return value, "radians"


# hours:minutes[:seconds], two-digit minutes and seconds, then an optional AM/PM (also \text{P.M.})
_CLOCK = re.compile(
    r"(?<![\d:.])(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?![\d:])"
    r"(?:\s*(?:\\text\s*\{\s*)?([AaPp])\.?\s*[Mm]\.?(?![A-Za-z])\s*\}?)?"
)
_ASKS_TIME = re.compile(r"(?i)\b(?:time|clock|o'clock|a\.m\.|p\.m\.|24-hour|12-hour|timezone)\b")
_ASKS_RATIO = re.compile(r"(?i)\bratios?\b|\bproportion")


def asks_for_time(question: str) -> bool:
    return bool(_ASKS_TIME.search(question))


def asks_for_ratio(question: str) -> bool:
    return bool(_ASKS_RATIO.search(question))


class ClockReading(NamedTuple):
    """The times of day in an answer, in seconds after midnight, in order; the text around them; whether one of
    them is unmistakably a time (with seconds or AM/PM, not a ratio)."""

    times: list[int]
    rest: str
    marked: bool


def clock_times(answer: str) -> ClockReading | None:
    """The times of day in ``answer``, or None when a match is not a valid time (``25:00``, ``13:00 PM``)."""
    times, marked = [], False
    for m in _CLOCK.finditer(answer):
        marked = marked or m.group(3) is not None or m.group(4) is not None
        hours, minutes, seconds, half = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), m.group(4)
        if half is not None:
            if not 1 <= hours <= 12:
                return None
            hours = hours % 12 + (12 if half in "Pp" else 0)
        elif hours > 23:
            return None
        times.append(hours * 3600 + minutes * 60 + seconds)
    return ClockReading(times, _CLOCK.sub(" ", answer), marked)
