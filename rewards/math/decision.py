"""Step 3 of grading: exact rules that decide without a LaTeX parse, in the calling process.

Each rule is a named entry of :data:`DECISIONS`, with the source of the family of answers it decides. A rule
answers a verdict (right or wrong) or None: not its case, or a case it cannot decide, which goes on to the next
rule and in the end to math-verify (:mod:`rewards.math.symbolic`). All are pure string and rational arithmetic,
bounded in the input, safe in any thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from rewards.contract import REASON_MISMATCH, REASON_STRING_MATCH, REASON_VERIFIED, REASON_WRONG_FORM, Score
from rewards.math.intervals import interval_set, same_set
from rewards.math.normalization import normalize_answer, single_spaces
from rewards.math.numeric import Number, numeric_tuple, same_value, split_top_level
from rewards.math.quantities import (
    angle,
    asks_for_percent,
    asks_for_ratio,
    asks_for_time,
    clock_times,
    fixed_unit,
    split_percent,
)
from rewards.math.reading import (
    MATH_SEGMENT,
    NUMBER_IN_WORDS,
    WORD,
    canonical_latex,
    labelled_parts,
    labelled_quantities,
    last_math_segment,
    normalize_text,
    number_in_words,
    number_of,
    plain_number,
    unwrap_text,
)


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

# A name (a letter, a letter with an index, or a label set in text) set equal to one value or a chain of them.
# Possessive after the "=": spaces there are never shared with the value, so a long run of them costs one pass.
_ASSIGNMENT = re.compile(r"\s*(?:[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?|\\(?:text|mathrm|textbf)\{[^{}=<>]*\})\s*=\s*+"
                         r"([^=<>]++(?:=[^=<>]++)*+)")
# A unit set in text at the end of a value, with a power: what math-verify drops from the end of an answer. It
# starts at the command (no leading spaces to try from every position of a long run); the caller strips.
_UNIT_TEXT = re.compile(r"\\(?:text|mbox|mathrm)\{[^{}]*\}(?:\^\{?\d\}?)?\s*$")


def strip_assignment(answer: str) -> str:
    """``x = 10`` -> ``10``: a name set equal to a value answers with the value (a number without its unit). A
    worked chain after the name (``\\text{Volume} = 20 \\times 2 = 40 \\text{ cubic inches}``, a ProcessBench
    completion) answers with its last side, without the unit, when every side has that same value; a chain
    whose sides differ, or that cannot be read as numbers, is left whole for math-verify."""
    m = _ASSIGNMENT.fullmatch(answer)
    if m is None:
        return answer
    sides = [side.strip() for side in m.group(1).split("=")]
    last = _UNIT_TEXT.sub("", sides[-1]).rstrip() or sides[-1]
    values = [number_of(side) for side in (*sides[:-1], last)]
    if len(sides) == 1:
        return last if values[0] is not None else sides[0]
    if any(v is None for v in values) or any(same_value(values[-1], v) is not True for v in values[:-1]):
        return answer
    return last

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
class DecimalPrecision:
    """A decimal literal's precision (``0.333``, ``2.3148 \\times 10^{-3}``, ``1.5e-3``): the value of one unit in
    its last digit, and its number of significant digits."""

    unit: Fraction
    significant: int


_SCIENTIFIC = re.compile(r"(.+?)\s*(?:\\times|\\cdot|\*|x)\s*10\s*\^\s*\{?\s*([-+]?\d{1,4})\s*\}?|(.+?)[eE]([-+]?\d{1,4})")


def decimal_literal(answer: str) -> DecimalPrecision | None:
    """The precision of a plain or scientific decimal literal, None for integers, fractions and the rest."""
    exponent = 0
    m = _SCIENTIFIC.fullmatch(single_spaces(answer.strip()))  # its lazy mantissa would rescan a run of spaces
    if m:
        answer = m.group(1) if m.group(1) is not None else m.group(3)
        exponent = int(m.group(2) if m.group(2) is not None else m.group(4))
    number = plain_number(answer)
    if number is None or "." not in number:
        return None
    digits = number.lstrip("+-").replace(".", "").lstrip("0")
    places = len(number.split(".")[1]) - exponent
    return DecimalPrecision(Fraction(1, 10**places) if places >= 0 else Fraction(10 ** (-places)), len(digits))


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
    """Whether a decimal whose last digit is worth ``unit`` is ``value`` rounded there (within half a unit) or
    cut there (toward zero, less than a unit short): 1.414 and 1.4142 for sqrt 2, 0.6666 and 0.6667 for 2/3,
    never 1.415, which is within a unit but is neither. None when floats cannot resolve the digits."""
    if decimal.exact is not None and value.exact is not None:
        d, v, u = decimal.exact, value.exact, unit
        return abs(d - v) * 2 <= u or 0 <= (v - d if v >= 0 else d - v) < u
    if value.is_huge or decimal.is_huge or value.unreliable or not value.is_finite:
        return None
    if float(unit) < 1e-13 * max(1.0, abs(value.approx)):
        return None
    d, v, u = decimal.approx, value.approx, float(unit)
    slack = 1e-9 * u  # the float's own error, far below a digit
    short = v - d if v >= 0 else d - v
    return abs(d - v) <= u / 2 + slack or -slack <= short < u - slack


# One number in a sentence: digits with thousands separators and a decimal part, a currency sign allowed.
_PROSE_NUMBER = re.compile(r"(?<![\w.])-?\$?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])-?\$?\d+(?:\.\d+)?(?![\w,]\d|\w)")
# What math-verify might read differently from "the one number": LaTeX, operators, percentages, times, ordinals.
_NOT_PLAIN_PROSE = re.compile(r"[\\{}^=<>+*/%:]|\d\s*-\s*\d|\$\s*[^\d\s]|\d(?:st|nd|rd|th)\b|\$.*\$")


def same_text(a: str, b: str) -> bool:
    if normalize_text(a) == normalize_text(b):
        return True
    va, vb = number_of(normalize_answer(a)), number_of(normalize_answer(b))
    return va is not None and vb is not None and same_value(va, vb) is True

def _percentages(question: str, gold: str, pred: str) -> Score | None:
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

def _angles(question: str, gold: str, pred: str) -> Score | None:
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


def _clock_times(question: str, gold: str, pred: str) -> Score | None:
    """Times of day: the answer's times must be the reference's, in order, as seconds after midnight (``20:34:00``
    and ``8:34 PM`` for ``20:34``); then the text around them decides (``same_day``, a day offset), equal as
    loose text, else undecided. Only where the question asks for a time, or a side has seconds or AM/PM, and
    never for a ratio (``12:15`` may be one). Without this, math-verify reads ``same_day, 15:21:02`` as 15 and
    accepts it for ``same_day, 15:21:01``."""
    if asks_for_ratio(question):
        return None
    gold_clock, pred_clock = clock_times(gold), clock_times(pred)
    if gold_clock is None or pred_clock is None or not gold_clock.times or not pred_clock.times:
        return None
    if not (asks_for_time(question) or gold_clock.marked or pred_clock.marked):
        return None
    if gold_clock.times != pred_clock.times:
        return Score.incorrect(REASON_MISMATCH, detail="another time of day")
    same_rest = normalize_text(gold_clock.rest) == normalize_text(pred_clock.rest)
    return Score.correct(REASON_VERIFIED) if same_rest else None


def _numbers(question: str, gold: str, pred: str) -> Score | None:
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


_SENTENCE_BREAK = re.compile(r"[.!?](?=\s)|\n")
_NOT_A_VALUE = re.compile(r"\\(?:approx|le|ge|leq|geq|neq|ne|pm|mp|cdots|ldots|dots)\b|[<>]")
_MAX_TAIL = 1000


def unanchored_number(tail: str) -> str | None:
    """The number math-verify reads last in an unanchored tail, when it is plain to see without its parse: the
    tail's last math is either a number in a last sentence of prose with no other number, operator or LaTeX
    (``... So, the family will eat 63 eggs in a week.``), or a last ``$...$``/``\\(...\\)``/``\\[...\\]`` alone in
    its sentence, with no digit after it, whose content is a number or ends ``= number`` (``\\(x = 128\\)``:
    math-verify compares an equation's last right-hand side with a reference that is not one), with or without a
    unit set in text. None otherwise: the worker's math-verify reads it."""
    if len(tail) > _MAX_TAIL:
        return None
    segments = [(m.start(), m.end(), next(g for g in m.groups() if g is not None)) for m in MATH_SEGMENT.finditer(tail)]
    masked = list(tail)
    for start, end, _ in segments:
        masked[start:end] = " " * (end - start)
    numbers = [(m.start(), m.end(), m.group()) for m in _PROSE_NUMBER.finditer("".join(masked))]
    last_segment = segments[-1] if segments else None
    if numbers and (last_segment is None or numbers[-1][1] > last_segment[1]):
        start = max((m.end() for m in _SENTENCE_BREAK.finditer(tail, 0, numbers[-1][0])), default=0)
        sentence = tail[start:]
        if _NOT_PLAIN_PROSE.search(sentence) or len(_PROSE_NUMBER.findall(sentence)) != 1:
            return None
        return numbers[-1][2]
    if last_segment is None:
        return None
    start = max((m.end() for m in _SENTENCE_BREAK.finditer(tail, 0, last_segment[0])), default=0)
    if any(s >= start for s, _, _ in segments[:-1]) or any(s >= start for s, _, _ in numbers):
        return None
    after = tail[last_segment[1]:]
    content = last_segment[2].strip()
    if re.search(r"\d", after) or "\\" in after or "$" in after or _NOT_A_VALUE.search(content):
        return None
    value = _UNIT_TEXT.sub("", content.split("=")[-1]).strip()  # its unit too, after a label (strip_assignment)
    return value if value and number_of(value) is not None else None


# A count stated before the list it counts: "There are 7 primes below 90 ending in 3: 3, 13, 23, 43, 53, 73, 83".
_LISTED = r"-?\d+(?:\.\d+)?(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+)\s*-?\d+(?:\.\d+)?)+"
_COUNTED_LIST = re.compile(rf"(?<![\w.,-])(\d{{1,3}})\s+[A-Za-z][^:\n\d]{{0,80}}(?:\d[^:\n]{{0,40}})?:"
                           rf"\s*({_LISTED})\s*\.?\s*$")


def counted_list(text: str) -> str | None:
    """The count of a sentence that ends by listing what it counts, when the list has exactly that many elements
    (``There are 7 primes below 90 ending in 3: 3, 13, ..., 83`` with seven listed): the count is the answer the
    sentence states, not the list's last element, which math-verify read. None otherwise."""
    m = _COUNTED_LIST.search(text[-600:])
    if m is None:
        return None
    listed = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", m.group(2).strip())
    return m.group(1) if len(listed) == int(m.group(1)) else None


def decide_unanchored(question: str, gold: str, tail: str) -> Score | None:
    """A numeric reference against :func:`unanchored_number` of a tail (or the count of a list it ends with,
    :func:`counted_list`), by the numbers' rules; None when either is not a plain number or the rules cannot
    say."""
    if number_of(gold) is None:
        return None
    number = counted_list(tail) or unanchored_number(tail)
    decided = _numbers(question, gold, number) if number is not None else None
    return None if decided is None else Score(decided.value, decided.verdict, decided.reason, number, decided.detail)


# Values stated at the end of a sentence, joined by commas, "and" or "or", each bare or set equal to one name:
# "the roots are 3 and 4", "x = -1 or x = -9". The names are read apart (group 1 of _NAMED_VALUE).
_UNKNOWN = r"[A-Za-z](?:_\{?\w+\}?)?"  # x, x_1
_VALUE = r"-?\$?(?:\d{1,3}(?:,\d{3})+(?![\d])|\d+)(?:\.\d+)?(?:/\d+)?"  # 70,000 is one value
_NAMED_VALUE = re.compile(rf"(?:({_UNKNOWN})\s*=\s*)?({_VALUE})")
_ONE_VALUE = rf"(?:{_UNKNOWN}\s*=\s*)?{_VALUE}"
_JOINED = r"\s*(?:,\s*(?:and|or)\s+|,|\s(?:and|or)\s)\s*"
_VALUES_AT_END = re.compile(rf"(?<![\w.,=/-])({_ONE_VALUE}(?:{_JOINED}{_ONE_VALUE})+)\s*[.!]?\s*$")


def _values_in_prose(question: str, gold: str, pred: str) -> Score | None:
    """Several values stated in prose (``the roots are 3 and 4``, ``x = -1 or x = -9``, ``3 and 4``): the list
    of them, judged as the bare list would be (all the solutions, in any order, :func:`_number_lists`); against
    one number, several values are not its answer. Only where nothing before them has a digit, every value that
    is named has the same name, and words say it is prose (a bare ``3, 4`` is the list rule's)."""
    if len(pred) > 300:
        return None
    m = _VALUES_AT_END.search(pred)
    if m is None or re.search(r"\d", pred[: m.start()]):
        return None
    if not WORD.search(pred[: m.start()]) and not re.search(r"\b(?:and|or)\b", m.group(1)):
        return None
    named = _NAMED_VALUE.findall(m.group(1))
    names = [name for name, _ in named]
    if len(set(filter(None, names))) > 1 or (any(names) and not all(names)):
        return None  # x = 1 and y = 2: labelled parts, not values of one unknown
    values = [value for _, value in named]
    if number_of(gold) is not None:
        if len({number_of(v).exact for v in values if number_of(v) is not None}) > 1:  # type: ignore[union-attr]
            return Score.incorrect(REASON_MISMATCH, pred, "several values stated for one")
        return None
    return _number_lists(question, gold, ", ".join(values))


def _number_in_prose(question: str, gold: str, pred: str) -> Score | None:
    """A sentence around one number ("Mary will be left with 58 potted plants", "The graph has two vertical
    asymptotes") against a numeric reference: that number is the answer, as math-verify would read it, without
    its parse. Sentences with several numbers, operators, LaTeX or percentages are left to math-verify. A number in
    words is read only in a sentence that states it (words before it) and has no digit, and never the lone word
    "one" (a pronoun as often); an answer that is a number in words alone ("eleven", "two hundred fifty dollars")
    is not read: real prompts ask for numerals ("the answer (arabic numerals) is"), and their sources label such
    answers wrong."""
    if len(pred) > 300 or not WORD.search(pred) or _NOT_PLAIN_PROSE.search(pred):
        return None
    if not re.search(r"\d", pred):
        in_words = [m for m in NUMBER_IN_WORDS.finditer(pred) if m.group(0).lower() != "one"]
        if len(in_words) != 1 or number_of(gold) is None or not WORD.search(pred[: in_words[0].start()]):
            return None  # a number in words alone ("eleven") is not the numerals real prompts ask for
        return _numbers(question, gold, str(number_in_words(in_words[0].group(0))))
    numbers = _PROSE_NUMBER.findall(pred)
    if len(numbers) != 1:
        return None
    g = number_of(gold)
    p = number_of(numbers[0])
    if g is None or p is None or g.exact is None:
        return None
    return _numbers(question, gold, numbers[0])

# What makes an answer a solution set rather than a point: an inequality, a union, infinity, "or", a number set.
# ``\\left(`` is a bracket, not ``\\le``.
_SOLUTION_SET_MARK = re.compile(r"[<>]|\\(?:le(?!ft)|ge|lt|gt|cup|infty|mathbb)|or")


def _solution_sets(question: str, gold: str, pred: str) -> Score | None:
    """Solution sets: interval notation against inequalities, unions against "or"."""
    if not _SOLUTION_SET_MARK.search(gold + pred):
        return None
    g, p = interval_set(gold), interval_set(pred)
    if g is None or p is None:
        return None
    same = same_set(g[0], p[0])
    if same is None:
        return None
    return Score.correct(REASON_VERIFIED) if same else Score.incorrect(REASON_MISMATCH)

def _tuples(question: str, gold: str, pred: str) -> Score | None:
    """Tuples, points and intervals with numeric elements, compared in order with their brackets. Each element
    is a number under :func:`_numbers`' rules: a decimal that gives the digits of an element with no exact
    decimal form is that element (``(0.333, 1.732)`` for ``(\\frac13, \\sqrt3)``), as it would be alone."""
    g, p = numeric_tuple(gold), numeric_tuple(pred)
    if g is None or p is None or len(g[1]) != len(p[1]):
        return None
    gold_parts, pred_parts = _elements(gold), _elements(pred)
    verdicts = []
    for a, b, gold_text, pred_text in zip(g[1], p[1], gold_parts, pred_parts):
        same = same_value(a, b)
        if same is not True:
            as_number = _numbers(question, gold_text, pred_text)
            same = same if as_number is None else as_number.verdict
        verdicts.append(same)
    if False in verdicts:
        return Score.incorrect(REASON_MISMATCH)
    if all(verdicts) and (g[0], g[2]) == (p[0], p[2]):
        return Score.correct(REASON_VERIFIED)
    return None


_MAX_LIST = 12


def _number_lists(question: str, gold: str, pred: str) -> Score | None:
    """A bare list of numbers (all the solutions, in any order) against one of as many: right when its elements
    can be paired with the reference's, each pair equal under :func:`_numbers`' rules (``1/3, 1.732, 3.1416``
    for ``\\frac13, \\sqrt3, \\pi``, MARIO_EVAL's is_equiv tests).

    The policy: a bare list of answers is the set of the solutions, its order and its repeats ignored (``1, 2, 2``
    is ``1, 2``; ``2, 2`` is not), as math-verify reads it and as the answer-equivalence fixtures judge it (a
    solution listed twice is still the same answer); an element missing or added is wrong. A tuple or interval in
    brackets is ordered (:func:`_tuples`). A list it cannot pair is wrong when both are of integers and fractions
    (:func:`_rational_set`) and their sets differ; any other is left to math-verify."""
    gold_parts, pred_parts = split_top_level(gold), split_top_level(pred)
    if gold_parts is None or pred_parts is None or not 2 <= len(gold_parts) <= _MAX_LIST:
        return None
    if _thousands(gold) or _thousands(pred):  # 12,500 is one number, not the list 500, 12
        return None
    if len(pred_parts) != len(gold_parts):
        return _different_rational_sets(gold_parts, pred_parts)
    unpaired = [g.strip() for g in gold_parts]
    for element in (p.strip() for p in pred_parts):
        match = next((g for g in unpaired if _equal_numbers(question, g, element)), None)
        if match is None:
            return _different_rational_sets(gold_parts, pred_parts)
        unpaired.remove(match)
    return Score.correct(REASON_VERIFIED)


# An integer or a fraction of integers, as an element of a list: no decimals (math-verify rounds those), no
# leading zeros (``1,000`` is a thousand to latex2sympy, not a list).
_RATIONAL_ELEMENT = re.compile(r"(-?)(?:(0|[1-9]\d{0,30})|\\[dt]?frac\{(-?[1-9]\d{0,30}|0)\}\{([1-9]\d{0,30})\}"
                               r"|([1-9]\d{0,30}|0)\s*/\s*([1-9]\d{0,30}))")
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+")


def _thousands(text: str) -> bool:
    """A number with thousands separators (``12,500``, ``1,000,000``), which latex2sympy reads as one number."""
    return _THOUSANDS.fullmatch(text.strip().strip("$").strip()) is not None


def _rational_set(parts: list[str]) -> frozenset[Fraction] | None:
    """The set of values of a list of integers and fractions (a repeat counts once, as in math-verify's sets), or
    None for anything else: a decimal, a root, a name."""
    values = []
    for part in parts:
        m = _RATIONAL_ELEMENT.fullmatch(part.strip())
        if m is None:
            return None
        sign, whole, numerator, denominator = m.group(1), m.group(2), m.group(3) or m.group(5), m.group(4) or m.group(6)
        value = Fraction(int(whole)) if whole is not None else Fraction(int(numerator), int(denominator))
        values.append(-value if sign else value)
    return frozenset(values)


def _different_rational_sets(gold_parts: list[str], pred_parts: list[str]) -> Score | None:
    """Wrong when both lists are of integers and fractions and their sets differ (as math-verify's set comparison
    finds, after a parse of both); else undecided."""
    if not 2 <= len(pred_parts) <= _MAX_LIST:
        return None
    gold_set, pred_set = _rational_set(gold_parts), _rational_set(pred_parts)
    if gold_set is None or pred_set is None or gold_set == pred_set:
        return None
    return Score.incorrect(REASON_MISMATCH, detail="a different set of numbers")


def _equal_numbers(question: str, gold: str, pred: str) -> bool:
    decided = _numbers(question, gold, pred)
    return decided is not None and decided.verdict is True


def _elements(bracketed: str) -> list[str]:
    """The element texts of a tuple :func:`~rewards.math.numeric.numeric_tuple` has read."""
    s = bracketed.strip().strip("$").strip().replace("\\left", "").replace("\\right", "").strip()
    return [part.strip() for part in split_top_level(s[1:-1]) or []]


def _labelled_parts_rule(question: str, gold: str, pred: str) -> Score | None:
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
    verdicts = [decide_exactly(question, g, v) for g, v in pairs]
    if any(v is not None and v.verdict is False for v in verdicts):
        wrong = next(k for k, v in enumerate(verdicts) if v is not None and v.verdict is False)
        return Score.incorrect(REASON_MISMATCH, pred, f"part {wrong + 1} ({parts[wrong][1]}) differs, in the "
                               "reference's order")
    if all(v is not None and v.verdict is True for v in verdicts):
        return Score.correct(REASON_VERIFIED, pred)
    return None


def _identical_forms(question: str, gold: str, pred: str) -> Score | None:
    """The same LaTeX once spacing, sizing commands and redundant braces are set aside."""
    if canonical_latex(gold) and canonical_latex(gold) == canonical_latex(pred):
        return Score.correct(REASON_VERIFIED, pred)
    return None


# Past participles with two spellings: VerifyBench-Hard's rule-reasoning answers are "proved", "disproved" or
# "unknown", and completions write "proven" as often.
_WORD_FORMS = {"proven": "proved", "disproven": "disproved"}


def _word_form(text: str) -> str:
    return " ".join(_WORD_FORMS.get(word, word) for word in normalize_text(text).split(" "))


def _words(question: str, gold: str, pred: str) -> Score | None:
    """Words are not algebra: math-verify would read "Paris" as P*a*r*i*s, equal to "Pairs". A word's other
    spelling of the same form (``proven`` for ``proved``) is the same word."""
    if not is_plain_words(gold):
        return None
    same = _word_form(gold) == _word_form(pred)
    return Score.correct(REASON_STRING_MATCH, pred) if same else Score.incorrect(REASON_MISMATCH, pred)


_OPPOSITE_VERDICT = {"yes": "no", "no": "yes", "true": "false", "false": "true"}
# A verdict word where a clause starts: the answer's first word, or one after a stop, a comma or "or"/"but".
_CLAUSE_VERDICT = re.compile(r"(?:^|[.;,:!?]|\b(?:or|but|and)\b)\s*(yes|no|true|false)\b")


def _verdicts(question: str, gold: str, pred: str) -> Score | None:
    """A Yes/No (True/False) reference against an answer that opens with its verdict and goes on in prose
    (``\\text{No, such a polynomial does not exist.}``): the verdict is the answer. An answer that also gives
    the other verdict at the start of a clause ("Yes, or no if n is odd") has not given one."""
    verdict = normalize_text(gold)
    if verdict not in _OPPOSITE_VERDICT:
        return None
    text = unwrap_text(pred).lower()[:2000].strip(" \t\n$*({[")
    said = [m.group(1) for m in _CLAUSE_VERDICT.finditer(text)]
    if not said or _CLAUSE_VERDICT.match(text) is None:
        return None  # no verdict at its start: the words rule reads it
    if said[0] != verdict or _OPPOSITE_VERDICT[verdict] in said:
        return Score.incorrect(REASON_MISMATCH, pred, "another verdict" if said[0] == verdict else None)
    return Score.correct(REASON_STRING_MATCH, pred)


_TEXT_COMMAND = re.compile(r"\\(?:text|mathrm|textrm|mbox)\b")


def _labelled_quantities(question: str, gold: str, pred: str) -> Score | None:
    """Values with labels set as text (``30 \text{ red}, 40 \text{ yellow}, 15 \text{ green}``): each value is
    compared with the value of the same label, and a label on one side that the other lacks is a mismatch, as is a
    plain list against a labelled one. math-verify read only ``30 \text{ red}`` of each and paid
    ``30 \text{ red}, 45 \text{ blue}, 10 \text{ green}``. Undecided when a value is."""
    gold_parts, parts = labelled_quantities(gold), labelled_quantities(pred)
    if gold_parts is None and parts is None:
        return None
    if gold_parts is None or parts is None:
        labelled, other = (gold_parts, pred) if parts is None else (parts, gold)
        plain = split_top_level(other)
        if plain is None or len(plain) != len(labelled) or any(_TEXT_COMMAND.search(p) for p in plain):
            return None  # no list of as many plain values: another rule's case
        return Score.incorrect(REASON_MISMATCH, pred, "labelled values against unlabelled ones")
    if set(gold_parts) != set(parts):
        missing = sorted(set(gold_parts) ^ set(parts))
        return Score.incorrect(REASON_MISMATCH, pred, f"labels on one side only: {', '.join(missing)}")
    verdicts = {label: decide_exactly(question, gold_parts[label], parts[label]) for label in gold_parts}
    wrong = [label for label, v in verdicts.items() if v is not None and v.verdict is False]
    if wrong:
        return Score.incorrect(REASON_MISMATCH, pred, f"{wrong[0]}: {parts[wrong[0]]} against {gold_parts[wrong[0]]}")
    if all(v is not None and v.verdict is True for v in verdicts.values()):
        return Score.correct(REASON_VERIFIED, pred)
    return None


# An ordering of names: a chain of one relation ("F<G<A<D", "D > A > G > F") or a list ("F, G, A, D") read in the
# order the question asks for, or as written where it names none.
_CHAIN_SIGN = re.compile(r"\s*(<|>|\\lt\b|\\gt\b)\s*")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_']{0,30}")
_ASCENDING = re.compile(r"(?i)\b(?:(?:least|smallest|lowest|shortest|fewest) to (?:the )?(?:greatest|largest|highest|"
                        r"longest|tallest|most)|increasing|ascending)\b")
_DESCENDING = re.compile(r"(?i)\b(?:(?:greatest|largest|highest|longest|tallest|most) to (?:the )?(?:least|smallest|"
                         r"lowest|shortest|fewest)|decreasing|descending)\b")


def _ordering(text: str, question: str) -> tuple[list[str], bool] | None:
    """(the names, from least to greatest where that is known; True when it is) of an ordering, else None."""
    if len(text) > 500:
        return None
    parts = _CHAIN_SIGN.split(text.strip())
    if len(parts) >= 3:
        names = [p.strip() for p in parts[0::2]]
        signs = {s.replace("\\lt", "<").replace("\\gt", ">") for s in parts[1::2]}
        if len(signs) != 1 or not all(_NAME.fullmatch(n) for n in names):
            return None
        return (names, True) if signs == {"<"} else (names[::-1], True)
    pieces = split_top_level(text)
    if pieces is None or len(pieces) < 2 or not all(_NAME.fullmatch(p.strip()) for p in pieces):
        return None
    names = [p.strip() for p in pieces]
    if _DESCENDING.search(question):
        return names[::-1], True
    return (names, True) if _ASCENDING.search(question) else (names, False)


def _orderings(question: str, gold: str, pred: str) -> Score | None:
    """An ordering of names given as a chain of one relation against a list, or another chain: the same names in
    the same order (``F, G, A, D`` for ``F<G<A<D``, and for ``D > A > G > F``). A list is read in the order the
    question asks for ("from least to greatest", "in decreasing order"); where it names none, as written against a
    chain as written. Two lists are not an ordering here (a bare list is a set of answers)."""
    if not (re.search(r"[<>]|\\[lg]t\b", gold) or re.search(r"[<>]|\\[lg]t\b", pred)):
        return None
    g, p = _ordering(gold, question), _ordering(pred, question)
    if g is None or p is None:
        return None
    if not g[1] and not p[1]:
        return None
    if g[1] and p[1]:
        same = g[0] == p[0]
    else:  # a list with no order asked for, against a chain as it is written
        chain, listed = (gold, p[0]) if g[1] else (pred, g[0])
        same = [n.strip() for n in _CHAIN_SIGN.split(chain.strip())[0::2]] == listed
    return Score.correct(REASON_VERIFIED, pred) if same else Score.incorrect(REASON_MISMATCH, pred, "another order")


@dataclass(frozen=True)
class Rule:
    """One exact rule: the family it closes (its robustness-suite family where it has one) and where that family
    is documented. ``decide`` answers a verdict or None (not this rule's case, or undecided)."""

    name: str
    source: str
    decide: Callable[[str, str, str], Score | None]


# In order: the first rule that decides gives the verdict. Adding a family is one entry here and one table of
# cases in tests/rewards (and its cited cases in suites/data/robustness.jsonl).
DECISIONS: tuple[Rule, ...] = (
    Rule("identical_forms", "the same LaTeX up to spacing and sizing", _identical_forms),
    Rule("labelled_quantities", "olympiad answers judged by strong models: 30 red, 40 yellow, 15 green, label by label",
         _labelled_quantities),
    Rule("labelled_parts", "TinyV HardVerify-Math (arXiv 2505.14625): p = 3, q = 5 for 3, 5", _labelled_parts_rule),
    Rule("percent", "CompassVerifier (arXiv 2507.03219): a fraction for a percent", _percentages),
    Rule("angle_units", "VerifyBench (arXiv 2505.15801): degrees against radians", _angles),
    Rule("clock_times", "VerifyBench-Hard's time-zone questions; MARIO_EVAL's is_equiv tests: 20:34 = 08:34 P.M.",
         _clock_times),
    Rule("numbers", "Math-Verify's numeric tests; exact rationals, e-notation, digits given", _numbers),
    Rule("values_in_prose", "olympiad answers judged by strong models: x = -1 or x = -9, the roots are 3 and 4",
         _values_in_prose),
    Rule("number_in_prose", "GSM8K-style answers: one number in a sentence, in digits or in words", _number_in_prose),
    Rule("interval_notation", "Math-Verify's interval tests; set-builder notation (TinyV)", _solution_sets),
    Rule("tuples", "points, tuples and intervals with numeric elements, in order", _tuples),
    Rule("number_lists", "MARIO_EVAL's is_equiv tests: a list of numbers in any order, digits given", _number_lists),
    Rule("orderings", "olympiad answers judged by strong models: F, G, A, D for F<G<A<D", _orderings),
    Rule("verdicts", "Yes/No references against a verdict given with its reason (olympiad proofs' answers)",
         _verdicts),
    Rule("words", "string answers (VerifyBench's String type)", _words),
)


def decide_exactly(question: str, gold: str, pred: str) -> Score | None:
    """Step 3: the verdict of the first rule in :data:`DECISIONS` that decides, or None. A prose answer ("The
    solution is $-2 \\le x \\le 2$") is judged by its last math segment."""
    math_part = last_math_segment(pred, prose_around=True)
    if math_part is not None and math_part != pred:
        decided = decide_exactly(question, gold, math_part)
        return None if decided is None else Score(decided.value, decided.verdict, decided.reason, pred, decided.detail)
    for rule in DECISIONS:
        verdict = rule.decide(question, gold, pred)
        if verdict is not None:
            return verdict if verdict.answer is not None else Score(
                verdict.value, verdict.verdict, verdict.reason, pred, verdict.detail
            )
    return None
