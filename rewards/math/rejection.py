"""Completions whose "answer" must not pay, whatever its value: each check closes a published family of false
positives of rule verifiers. All are pure string code, linear in the input, safe to run in the caller.

- :func:`ending_loop` and :func:`alternates_and_stops`: truncated and looping outputs, CompassVerifier's
  invalid class (arXiv 2507.03219): a policy that alternates between answers until it is cut off has not
  answered, even when its last-but-one statement happens to be right.
- :func:`looks_like_code` and :func:`looks_like_garbage`: an "answer" found only as the last number of code or
  gibberish (Pitfalls of Rule- and Model-based Verifiers, arXiv 2505.22203: degenerate outputs that earn reward;
  math-verify's fallback extraction takes the last number of any text).
- :func:`restates_question`: the question's own expression given back for "factor", "expand", "simplify",
  "reduce" or "rationalise" questions. A symbolic checker finds it equal to the reference (math-verify compares
  by value), so the policy is paid for doing nothing; the asked form is part of the answer.
- :func:`leaves_unevaluated`: a limit, sum, product or integral given as the answer to a question whose answer is
  its value. math-verify evaluates them, so the question's own ``\\sum_{k=1}^{10} k`` is paid as 55.
- :func:`is_question_text`: the question itself given back; its last number is no answer, even when it happens
  to equal the reference.
- :func:`without_list_markers`: a plan's numbering ("1. Determine ... 3. Compute the result.") is no answer;
  fallback extraction would read its last marker as one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from harness.core.answers import UNESCAPED_DOLLAR
from rewards.contract import REASON_INVALID_OUTPUT, REASON_RESTATED, REASON_WRONG_FORM
from rewards.math.extraction import Extraction, Found, answer_statements
from rewards.math.normalization import normalize_answer
from rewards.math.numeric import split_top_level
from rewards.math.reading import canonical_latex, last_math_segment, number_of, words

_LOOP_WINDOW = 5000
_MAX_PERIOD = 1000
_MIN_LOOP_CHARS = 80


def single_spaced(text: str) -> str:
    """``text`` with each run of whitespace made one space, a leading run included: ``re.sub(r"\\s+", " ", text)``
    by ``str.split``, which splits on the same characters (both test ``str.isspace``) several times faster; it
    runs on every completion's last 5,000 characters."""
    words = " ".join(text.split())
    if not words:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + words + (" " if text[-1].isspace() else "")


def ending_loop(completion: str) -> str | None:
    """The repeated block when the completion ends inside a loop, else None: its last characters (at least 80,
    and at least two whole periods) repeat with one period of up to 1,000 characters, whitespace aside. A loop
    broken by a final answer ("Let me think. " * 1000 + "The answer is 7") does not end the completion."""
    s = single_spaced(completion[-_LOOP_WINDOW:]).rstrip()
    n = len(s)
    key_len = 24
    if n < _MIN_LOOP_CHARS:
        return None
    key = s[-key_len:]
    end = n - 1
    for _ in range(12):  # the nearest earlier occurrences of the last characters give the candidate periods
        j = s.rfind(key, 0, end)
        if j < 0:
            return None
        period = n - key_len - j
        if period > _MAX_PERIOD:
            return None
        span = max(period, _MIN_LOOP_CHARS)  # s[-span:] equal to the span one period earlier
        if span + period <= n and s[n - span :] == s[n - span - period : n - period]:
            return s[n - period :]
        end = j + key_len - 1
    return None


_DIGIT = re.compile(r"\d")


def loop_voids_answer(block: str, answered_before: bool) -> bool:
    """A loop voids the completion when it repeats numbers or answers (the policy is going round its
    candidates), or when nothing was answered before it. A note repeated after a stated final answer does not
    take that answer back."""
    return not answered_before or bool(_DIGIT.search(block)) or "boxed" in block


_TERMINAL = re.compile(r"""[.!?)\]}$'"`*✓。！？:]\s*$|\\\]\s*$|\\\)\s*$|\d\s*$""")


# A last line that is an answer alone under an answer heading (PRM800K's "# Answer", "Final Answer:"): an answer
# written as asked, not a sentence cut off.
# GAOKAO-Bench's "【答案】D" is such a line too.
_ANSWER_SECTION = re.compile(r"(?i)(?:^|\n)[ \t]*(?:(?:#+[ \t]*)?(?:final[ \t]+)?answer[ \t]*:?[ \t]*\n+|【答案】)"
                             r"[ \t]*[^\n]{1,200}$")


def ends_mid_sentence(text: str) -> bool:
    """The text stops without a sentence's or a formula's end: the mark of a completion cut off at its length
    limit. A last line that is an answer alone under an answer heading is an end."""
    stripped = text.rstrip()
    return bool(stripped) and not _TERMINAL.search(stripped[-10:]) and not _ANSWER_SECTION.search(stripped[-400:])


def cut_inside_formula(text: str) -> bool:
    """The text stops inside a formula it opened on its last line: an odd number of ``$`` on that line whose last
    one opens math (a letter, a bracket or a command follows it: "... holds when $a = 2"), not a price ("costs
    $18", GSM8K's "$<<6*60=360>>360"). What such a text ends with is the start of a formula, not a value it
    states. Only the last line counts: prices earlier in the text ("She pays $20 - $15 = $5 more.") leave an odd
    count of ``$`` that pairs nothing, and an answer line after them ("A: 360") is no formula."""
    stripped = text.rstrip()
    line = stripped[stripped.rfind("\n") + 1 :][-2000:]
    marks = list(UNESCAPED_DOLLAR.finditer(line))
    if len(marks) % 2 == 0:
        return False
    after = line[marks[-1].end() :].lstrip()
    return bool(after) and not (after[0].isdigit() or after[0] in ".-+" or after.startswith("<<"))


def alternates_and_stops(answers: list[object], text: str) -> bool:
    """Several different final answers stated ("the answer is 12 ... the answer is 13 ...") and a stop
    mid-sentence: the policy went back and forth until it was cut off, and has not answered. ``answers`` are
    the statements' values (or forms), compared for equality."""
    return len(set(answers)) >= 2 and ends_mid_sentence(text)


_CODE_MARKS = {
    "fence": re.compile(r"```"),
    "definition": re.compile(r"(?m)^\s*(?:def|class)\s+\w+\s*[(:]"),
    "import": re.compile(r"(?m)^\s*(?:import\s+\w|from\s+\w+\s+import\b|#include\b)"),
    "return": re.compile(r"(?m)^\s*return\b"),
    "print": re.compile(r"\b(?:print|console\.log|printf|puts)\s*\("),
    "loop": re.compile(r"(?m)^\s*(?:for|while|if)\b[^\n]*:\s*$|\b(?:for|while)\s*\([^)]*;"),
    "statement_end": re.compile(r"(?m);\s*$"),
    "comment": re.compile(r"(?m)^\s*(?:#|//)\s|\)\s*(?:#|//)\s"),
    "operator": re.compile(r"\w\s*(?:==|\+=|-=|\*=|!=)\s*\w|\blambda\b|\w\[\w*\]\s*="),
}


def looks_like_code(text: str) -> bool:
    """Program code: a fence, or two different kinds of code marks (``def``, ``import``, ``return``,
    ``print(``, a loop header, a trailing ``;``, a ``#`` comment, ``==``/``+=``). Assignments alone are not
    code: math solutions write ``x = 5`` too."""
    tail = text[-5000:]
    kinds = {kind for kind, mark in _CODE_MARKS.items() if mark.search(tail)}
    return "fence" in kinds or len(kinds) >= 2


# A call on a dotted name (``os.path.join(``, ``np.sqrt(``) or a call given a quoted string (``print('x')``): program
# syntax that math answers do not use (``f(x)``, ``\\sin(x)`` and ``g(t) = 3t`` are none of these).
_PROGRAM_EXPRESSION = re.compile(
    r"(?<![\\\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\s*\(|(?<![\\\w.])[A-Za-z_]\w*\s*\(\s*(?:'[^']*'|\"[^\"]*\")")


def is_program_expression(answer: str) -> bool:
    """A final answer written as a program expression (``os.path.join('a') + 4``) is not a number, whatever
    number it ends in: reading its last number would let code that prints anything be scored as that number."""
    return _PROGRAM_EXPRESSION.search(answer[:2000]) is not None


_VOWELS = set("aeiouyAEIOUY")
_CONSONANT_RUN = re.compile(r"[^aeiouyAEIOUY]{5,}")
_SYMBOL_RUN = re.compile(r"([{}\[\];|~@#&_<>])\1{3,}")


def looks_like_garbage(text: str) -> bool:
    """Gibberish: runs of the same bracket or symbol (``{{{{``, ``;;;;``), or mostly unpronounceable "words"
    (no vowel, or five consonants in a row) among words of three letters or more. LaTeX commands are not
    words."""
    text = text[-2000:]
    if _SYMBOL_RUN.search(text):
        return True
    found = words(text, min_letters=3)
    if len(found) < 2:
        return False
    bad = sum(1 for w in found if not (_VOWELS & set(w)) or _CONSONANT_RUN.search(w))
    return bad / len(found) > 0.5


_TRANSFORM = re.compile(
    r"(?i)\b(?:factor(?:i[sz]e)?|expand|simplify|reduce|rationali[sz]e|combine)\b(?!\s+of\b)|"
    r"\b(?:simplest|lowest|expanded|factored|reduced)\s+(?:radical\s+)?(?:form|terms)\b"
)
_SINGLE_BRACED = re.compile(r"([\^_])\{(\w)\}")
# An expression to transform has structure: an operator, a fraction, a root or a bracket, not just a word.
_STRUCTURE = re.compile(r"[\^/()*+\-]|\\frac|\\sqrt|\\cdot|\\times")


def _form(text: str) -> str:
    return _SINGLE_BRACED.sub(r"\1\2", canonical_latex(text)).replace("\\cdot", "").replace("*", "")


def restates_question(question: str, reference: str, answer: str) -> bool:
    """True when the question asks to transform an expression (factor, expand, simplify, reduce, rationalise,
    simplest form) and the answer gives back an expression of the question, in a form other than the
    reference's. Bare numbers are never restatements."""
    if not question or not _TRANSFORM.search(question[:5000]):
        return False
    form = _form(answer)
    if len(form) < 3 or form == _form(reference) or not _STRUCTURE.search(form.lstrip("-")):
        return False
    return form in _form(question[:5000])


# Operators that ask to be evaluated. math-verify evaluates what it parses of them (sympy's ``doit``), so that
# ``\sum_{k=1}^{10} k`` is paid as 55: the verifier, not the policy, has done the computing.
_UNEVALUATED = re.compile(r"\\(?:lim(?:sup|inf)?|sum|prod|i{1,3}nt|oint)(?![A-Za-z])")


def leaves_unevaluated(reference: str, answer: str) -> bool:
    r"""True when the answer's value (the last side of a chain: ``\sum_{k=1}^{10} k = 55`` answers 55) is a limit,
    sum, product or integral left to evaluate, and the reference has none: a question's expression given back,
    or any other, is not its value. A reference that is itself a sum or integral is compared as usual."""
    if not _UNEVALUATED.search(answer) or _UNEVALUATED.search(reference):
        return False
    sides = split_top_level(answer, "=")
    return bool(_UNEVALUATED.search(sides[-1] if sides else answer))


def is_question_text(question: str, completion: str) -> bool:
    """True when the completion is the question, or a part of it of 20 characters or more, given back."""
    said = single_spaced(completion).strip().lower()
    asked = single_spaced(question).strip().lower()
    return len(said) >= 20 and said in asked


_LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:\(?\d{1,2}[.)]|(?:step|part)\s+\d{1,2}\s*[:.)])[ \t]+")


def without_list_markers(text: str) -> str:
    """``text`` without the numbering at the start of its lines (``1.``, ``2)``, ``Step 3:``)."""
    return _LIST_MARKER.sub("", text)


# -- the rejections, in the order the grader applies them -------------------------------------------------------
# No final answer is this long: longer "answers" (a megabyte in a box) are not read, by math-verify or anything.
# 60,000 characters still holds a 50,000-digit number, which is compared by its size.
_MAX_READABLE_ANSWER = 60_000


@dataclass(frozen=True)
class Answered:
    """What a rejection looks at: the question, the reference's answer, the completion's text after any
    ``</think>``, the extraction, the extracted answer as written (``answer``) and as compared (``pred``: an
    option's letter set aside, ``(B) 5`` -> ``5``)."""

    question: str
    gold: str
    text: str
    extraction: Extraction | None
    answer: str | None
    pred: str | None


@dataclass(frozen=True)
class Rejection:
    """One family of non-answers: its name (its robustness-suite family), where it is documented, the score's
    reason, and ``check``, which returns the detail of the rejection, or None when the completion is not one."""

    name: str
    source: str
    reason: str
    check: Callable[[Answered], str | None]


def statement_key(statement: str) -> object:
    """What a final-answer statement says, for telling different answers apart: its value when numeric, else
    its spacing-free form (``\\$16,\\!386.20`` and ``16,\\!386.20`` are one answer)."""
    answer = normalize_answer(statement)
    answer = last_math_segment(answer, prose_around=True) or answer
    answer = answer.replace("\\$", "").replace("\\!", "").replace("\\%", "").replace("%", "").strip()
    value = number_of(answer)
    if value is not None and value.exact is not None:
        return value.exact
    return canonical_latex(answer)


def _looping(a: Answered) -> str | None:
    loop = ending_loop(a.text)
    answered_before = a.extraction is not None and loop is not None and a.extraction.end < len(a.text) - len(loop)
    return "the completion ends in a loop" if loop is not None and loop_voids_answer(loop, answered_before) else None


def _alternating(a: Answered) -> str | None:
    if a.extraction is None or not ends_mid_sentence(a.text):  # the cheap half of the test first
        return None
    stated = [statement_key(s) for s in answer_statements(a.text)]
    return "different answers, then cut off mid-sentence" if alternates_and_stops(stated, a.text) else None


def _overlong(a: Answered) -> str | None:
    long = a.answer is not None and len(a.answer) > _MAX_READABLE_ANSWER
    return f"a final answer of {len(a.answer or '')} characters" if long else None


def _code_or_gibberish(a: Answered) -> str | None:
    tail = a.extraction is not None and a.extraction.rule is Found.TAIL and a.answer is not None
    if tail and (looks_like_code(a.answer) or looks_like_garbage(a.answer)):
        return "code or gibberish, not an answer"
    return None


def _program_expression(a: Answered) -> str | None:
    return "a program expression, not a number" if a.answer is not None and is_program_expression(a.answer) else None


def _restated(a: Answered) -> str | None:
    restated = a.pred is not None and restates_question(a.question, a.gold, a.pred)
    return "the question's own expression, not the asked form" if restated else None


def _unevaluated(a: Answered) -> str | None:
    unevaluated = a.pred is not None and leaves_unevaluated(a.gold, a.pred)
    return "a limit, sum, product or integral left unevaluated, not a value" if unevaluated else None


# Whole completions that have not answered, whatever their answer: checked before anything is compared.
COMPLETION_REJECTIONS: tuple[Rejection, ...] = (
    Rejection("looping", "CompassVerifier (arXiv 2507.03219): the invalid class, repetition", REASON_INVALID_OUTPUT,
              _looping),
    Rejection("alternating", "CompassVerifier (arXiv 2507.03219): the invalid class, truncation",
              REASON_INVALID_OUTPUT, _alternating),
    Rejection("resource", "a megabyte in a box: no final answer is this long", REASON_INVALID_OUTPUT, _overlong),
)

# Also applied to what math-verify would read last in an unanchored tail (the grader's fallback).
UNEVALUATED = Rejection("unevaluated", "math-verify evaluates sums, products, limits and integrals (sympy's doit)",
                        REASON_WRONG_FORM, _unevaluated)

# Extracted answers that are not answers: checked once the answer is read, before the exact rules.
ANSWER_REJECTIONS: tuple[Rejection, ...] = (
    Rejection("code_or_gibberish", "Pitfalls of Rule- and Model-based Verifiers (arXiv 2505.22203)",
              REASON_INVALID_OUTPUT, _code_or_gibberish),
    Rejection("program_expression", "adversarial hold-out: a program expression followed by + 4",
              REASON_INVALID_OUTPUT, _program_expression),
    Rejection("restated", "the question's own expression for factor/expand/simplify (arXiv 2505.22203)",
              REASON_RESTATED, _restated),
    UNEVALUATED,
)


def first_rejection(rejections: tuple[Rejection, ...], answered: Answered) -> tuple[Rejection, str] | None:
    """The first rejection in ``rejections`` that applies, with its detail."""
    for rejection in rejections:
        detail = rejection.check(answered)
        if detail is not None:
            return rejection, detail
    return None
