"""Reading numbers, math segments and words out of answer text: the one low module that extraction, rejection
and decision all stand on, so that none of those stages imports another for a helper.

Pure string code (and :mod:`rewards.math.numeric` for values), linear in the input length: every function here
runs on policy output under RL.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from rewards.math.numeric import Number, evaluate, exact_number, split_top_level

# A word: two letters or more. One definition for every stage: prose detection counts any word, the gibberish
# check (:func:`rewards.math.rejection.looks_like_garbage`) judges the words of three letters or more among them.
WORD = re.compile(r"[A-Za-z]{2,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
# Environment names and \text{...} units are LaTeX, not prose: "\frac{270}{7}\text{ degrees}".
_NON_PROSE = re.compile(r"\\(?:begin|end)\{[^{}]*\}|\\(?:text|mathrm|textbf|operatorname)\s*\{[^{}]*\}")


# A differential (``dx``, ``d\theta``) of an integral or a derivative is two letters, not a word.
_DIFFERENTIAL = re.compile(r"(?<![A-Za-z])d(?:[A-Za-z]|\\[A-Za-z]+)(?![A-Za-z])")


def reads_as_prose(s: str) -> bool:
    r"""True when ``s`` has a word (two letters or more) outside LaTeX commands, environment names and
    ``\text{}``: ``83 packages`` is prose, ``\frac{e^2-1}{2} + \frac{\pi}{4}``, ``x \leq 5`` and
    ``\int_0^1 x^2 \, dx`` and ``\frac{dy}{dx}`` are not."""
    if "\\int" in s or "\\frac{d" in s:
        s = _DIFFERENTIAL.sub(" ", s)
    return WORD.search(_COMMAND.sub(" ", _NON_PROSE.sub(" ", s))) is not None


def words(text: str, *, min_letters: int = 2) -> list[str]:
    """The words of ``text`` outside LaTeX commands (``\\frac`` is not a word), those of ``min_letters`` or more."""
    return [w for w in WORD.findall(_COMMAND.sub(" ", text)) if len(w) >= min_letters]


LATEX_SPACE = r"\\q?quad\b|\\[,;:! ]|~"  # \quad, \qquad, \, \; \: \! "\ " and ~


_TEXT_WRAPPERS = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit)\{([^{}]*)\}")


def unwrap_text(s: str) -> str:
    """``\\text{(B)}`` -> ``(B)``; applied repeatedly to nested wrappers."""
    for _ in range(4):
        new = _TEXT_WRAPPERS.sub(r"\1", s)
        if new == s:
            break
        s = new
    return s


_LATEX_SPACING = re.compile(r"\\left|\\right|\\[,;:! ]|\\displaystyle|\s+|\$")


def canonical_latex(answer: str) -> str:
    """A spacing- and sizing-free form of a LaTeX answer: equal forms are certainly equal answers."""
    return _LATEX_SPACING.sub("", answer).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")


def normalize_text(answer: str) -> str:
    """Loose form for comparing string answers: case, spaces, markup and outer punctuation ignored."""
    s = unwrap_text(answer)
    s = s.replace("\\", " ").replace("$", " ").replace("*", " ")
    s = re.sub(r"\s+", " ", s).strip().strip(".,;:!\"'").strip().lower()
    return s


# One labelled part of an answer: a name (a word, a letter with an index, \text{...}, or a LaTeX operator name such
# as \min) set equal to a value, or followed by a colon and the value.
_LABELLED = re.compile(r"\s*((?:\\(?:text|mathrm|textbf|operatorname)\s*\{\s*([A-Za-z][\w ]*?)\s*\})|\\?([A-Za-z]+)(_\{?\w+\}?)?)"
                       r"\s*[=:]\s*(?!=)(.+?)\s*")  # "Ann: 5" as "Ann = 5"


_SPACING = re.compile(LATEX_SPACE)  # "p = 3, \quad q = 5"


def labelled_parts(answer: str) -> list[tuple[str, str, str]] | None:
    """``p = 3, q = 5`` as [(base, label, value), ...]: the label's letters without an index (``x`` for ``x_1``),
    the label, the value. None unless the answer is two or more labelled parts separated by top-level commas."""
    pieces = split_top_level(_SPACING.sub(" ", answer)) if len(answer) <= 500 else None
    if pieces is None or len(pieces) < 2:
        return None
    out = []
    for piece in pieces:
        m = _LABELLED.fullmatch(piece)
        if m is None or "=" in m.group(5):
            return None
        name = m.group(2) or m.group(3)
        out.append((name, m.group(1).strip(), m.group(5)))
    return out


# A value with its label set as text after it: ``30 \text{ red}``, ``12\,\mathrm{apples}``.
_QUANTITY = re.compile(r"\s*(?P<value>(?:(?!\\(?:text|mathrm|textrm|mbox)\b).)*?[\w)}])\s*"
                       r"\\(?:text|mathrm|textrm|mbox)\s*\{\s*(?P<label>[^{}]*?)\s*\}\s*")


def labelled_quantities(answer: str) -> dict[str, str] | None:
    """``30 \text{ red}, 45 \text{ blue}`` as {label: value}: two or more values, each followed by a label in
    words set as text, the labels all different (a repeated one is a unit, ``3 \text{ cm}, 4 \text{ cm}``). None
    for anything else."""
    pieces = split_top_level(_SPACING.sub(" ", answer)) if len(answer) <= 500 else None
    if pieces is None or len(pieces) < 2:
        return None
    out: dict[str, str] = {}
    for piece in pieces:
        m = _QUANTITY.fullmatch(piece)
        label = single_label(m.group("label")) if m else ""
        if not label or label in out:
            return None
        out[label] = m.group("value").strip()  # type: ignore[union-attr]
    return out


def single_label(text: str) -> str:
    """A label in words, lower case and single-spaced; empty unless it has a word of two letters or more."""
    words = text.lower().split()
    return " ".join(words) if any(WORD.fullmatch(w) for w in words) else ""


_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+")
# E-notation, as calculators, programs and Python's float literals write it: ``3.2e-3`` is 0.0032, exactly. The
# exponent is bounded (the value is then written out in full) and must follow the digits with nothing between,
# so that ``2e`` and ``2e^{3}`` (Euler's number) are never read as it.
_E_NOTATION = re.compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))[eE]([+-]?\d{1,3})(?![\w.])")
MAX_E_EXPONENT = 400
# Words after a number are read as its unit ("83 packages", "12 dollars"); single letters are not (``2 x``).
_UNIT_WORDS = re.compile(r"(?:\s+[A-Za-z]{2,}){1,3}[.!]?")
# The same words set as text in LaTeX, as references write them: ``162\text{ minutes}``, ``5\mathrm{cm}``.
_TEXT_UNIT = re.compile(r"\s*\\(?:text|mbox|mathrm)\{\s*([^{}]*?)\s*\}([.!]?)")


def _is_unit(rest: str) -> bool:
    """Whether ``rest``, what follows a number, is its unit in words (plain, or set as LaTeX text)."""
    text = _TEXT_UNIT.fullmatch(rest)
    return _UNIT_WORDS.fullmatch(rest if text is None else f" {text[1]}{text[2]}") is not None


def plain_number(answer: str) -> str | None:
    """``answer`` as a canonical decimal string when it is a plain number (``1,234.50``, ``$18``), else None.

    Units, percentages and anything symbolic return None and go to the symbolic comparison. A thousands
    separator may be LaTeX's (``1{,}234``, or ``3,\\!110,\\!400`` with the negative thin space that MATH's
    references put after each comma); it still separates groups of three digits only.
    """
    s = answer.strip().replace("{,}", ",").replace(",\\!", ",")
    if s.startswith("\\$"):
        s = s[2:]
    s = s.strip().lstrip("$").rstrip("$").strip().rstrip(".").strip()
    if len(s) > 100_000:
        return None
    scientific = _E_NOTATION.match(s)
    if scientific is not None:
        rest = s[scientific.end() :]
        if (rest and not _is_unit(rest)) or abs(int(scientific.group(2))) > MAX_E_EXPONENT:
            return None
        return _decimal_text(Decimal(scientific.group(1) + "e" + scientific.group(2)))
    number = _PLAIN_NUMBER.match(s)
    if number is None:
        return None
    rest = s[number.end() :]
    if rest and not _is_unit(rest):
        return None
    return number.group(0).replace(",", "")


def _decimal_text(value: Decimal) -> str:
    """``value`` written out as a plain decimal, without an exponent or trailing zeros after the point."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


_FRACTION = re.compile(r"([+-]?)\\[dt]?frac\{([^{}]+)\}\{([^{}]+)\}|([+-]?)\\[dt]?frac(\d)(\d)")
_SLASH = re.compile(r"([+-]?[\d.,]+)\s*/\s*([\d.,]+)")


# A mixed number: a whole number and a proper fraction side by side (``2\\frac{1}{4}``, ``2\\frac14``, ``2 1/4``).
_MIXED = re.compile(r"(-?)(\d{1,12})\s*(?:\\[dt]?frac\{(\d{1,12})\}\{(\d{1,12})\}|\\[dt]?frac(\d)(\d)|\s(\d{1,12})/(\d{1,12}))")


def rational_value(answer: str) -> Fraction | None:
    """The exact value of a plain number or a simple fraction (``\\frac{3}{4}``, ``-\\dfrac{1}{2}``, ``3/4``),
    else None. Lets the grader decide most numeric answers without a LaTeX parse."""
    number = plain_number(answer)
    try:
        if number is not None:
            return Fraction(Decimal(number))  # via Decimal: no limit on digits, unlike int(str)
        if len(answer) > 200:
            return None
        mixed = _MIXED.fullmatch(answer.strip().strip("$").strip())
        if mixed is not None:  # 1\frac{1}{2} and 1 1/2 are one and a half, as written in word problems
            whole = int(mixed.group(2))
            num, den = (int(g) for g in next(p for p in (mixed.group(3, 4), mixed.group(5, 6), mixed.group(7, 8))
                                             if p[0] is not None))
            if 0 < num < den:
                value = whole + Fraction(num, den)
                return -value if mixed.group(1) else value
        s = answer.strip().strip("$").strip().replace(" ", "")
        m = _FRACTION.fullmatch(s)
        if m:
            sign = m.group(1) if m.group(2) is not None else m.group(4)
            num, den = (m.group(2), m.group(3)) if m.group(2) is not None else (m.group(5), m.group(6))
        else:
            m = _SLASH.fullmatch(s)
            if not m:
                return None
            sign, num, den = "", m.group(1), m.group(2)
        n, d = plain_number(num), plain_number(den)
        if n is None or d is None:
            return None
        value = Fraction(n) / Fraction(d)
        return -value if sign == "-" else value
    except (ValueError, ZeroDivisionError):  # int() refuses > 4,300 digits; x/0 has no value
        return None


_UNITS_IN_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                   "sixteen seventeen eighteen nineteen").split()
_TENS_IN_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUES = {word: n for n, word in enumerate(_UNITS_IN_WORDS)} | {
    word: 10 * (n + 2) for n, word in enumerate(_TENS_IN_WORDS)}
_BELOW_HUNDRED = rf"(?:(?:{'|'.join(_TENS_IN_WORDS)})(?:[- ](?:{'|'.join(_UNITS_IN_WORDS[1:10])}))?" \
                 rf"|{'|'.join(sorted(_UNITS_IN_WORDS, key=len, reverse=True))})"
# A cardinal number below a thousand written in English words: "eight", "twenty-one", "three hundred and five".
NUMBER_IN_WORDS = re.compile(rf"(?i)\b(?:(?:{_BELOW_HUNDRED}|a|one)\s+hundred(?:\s+(?:and\s+)?{_BELOW_HUNDRED})?"
                             rf"|{_BELOW_HUNDRED})\b")


def number_in_words(text: str) -> int | None:
    """The value of a cardinal written in words (``eight``, ``twenty-one``, ``three hundred and five``), when
    ``text`` is exactly one; else None. Ordinals and fractions in words (``third``, ``a half``) are not read."""
    if NUMBER_IN_WORDS.fullmatch(text.strip()) is None:
        return None
    value = 0
    for word in re.split(r"[\s-]+", text.strip().lower()):
        if word == "hundred":
            value = (value or 1) * 100
        else:  # "a" (hundred) and "and" add nothing
            value += _WORD_VALUES.get(word, 0)
    return value


def number_of(answer: str) -> Number | None:
    """The value of a numeric answer: plain numbers with separators, currency and unit words first
    (``1,234``, ``$18``, ``83 packages``), then simple LaTeX (``\\frac{\\sqrt3}{2}``)."""
    rational = rational_value(answer)
    if rational is not None:
        return exact_number(rational)
    return evaluate(answer)


# A math segment of prose: $$...$$, $...$, \(...\) or \[...\].
MATH_SEGMENT = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)


def last_math_segment(text: str, *, prose_around: bool = False) -> str | None:
    """The contents of the last ``$...$`` (or ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``) of the last 2,000
    characters of ``text``, else None. With ``prose_around``, only of a sentence: words outside the segment, or
    None (a bare ``$x$`` is the whole answer, not a part picked out of prose)."""
    tail = text[-2000:]
    if "$" not in tail and "\\(" not in tail and "\\[" not in tail:
        return None
    last = None
    for last in MATH_SEGMENT.finditer(tail):
        pass
    if last is None or (prose_around and not WORD.search(tail[: last.start()] + tail[last.end() :])):
        return None
    return next(g for g in last.groups() if g is not None).strip()
