"""Qualified answers: a value with a clause that says over what it holds.

Olympiad references state families with their range: ``(3, m) \\text{ for every } m \\ge 2``,
``g(t) = k\\,t \\text{ for some constant } k \\in \\mathbb{R}``, ``(b,\\,3)\\ \\text{for all positive integers}\\ b``.
The clause is not the answer, and read as part of it, it misleads both ways: the reference's last number is the
clause's bound (``2``), which a completion cut off at "... holds when $a = 2" matched; and an answer that states the
family without the clause, or with the clause in other words and its variable renamed, did not match.

So both sides are split into what is qualified (the core, compared as the answer) and the qualifier. Qualifiers
are not compared as text (``for all x`` and ``for every integer m`` qualify the same answer), but where both state
a numeric bound on their variable (``m \\ge 2``), the bounds must be the same: a family over another range is
another answer. A variable each qualifier binds is the same variable under another name (``(3, n)`` for every
``n \\ge 2`` is ``(3, m)`` for every ``m \\ge 2``). A clause starts at ``for all``, ``for every``, ``for each``, ``for some``, ``for any``, ``where``,
``with`` or ``\\forall``, in text or bare, at the top level of the answer; a core of plain words (``arithmetic
sequence with ...``) is not split: there the words are the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from rewards.math.numeric import split_top_level
from rewards.math.reading import LATEX_SPACE, unwrap_text

_KEYWORD = r"(?:for\s+(?:all|every|each|some|any)|where|with)\b"
_CLAUSE = re.compile(
    rf"\\(?:text|textrm|mbox|mathrm)\s*\{{\s*{_KEYWORD}|(?<![A-Za-z\\]){_KEYWORD}|\\forall\b", re.IGNORECASE
)
_TRAILING = re.compile(rf"(?:\s|,|;|{LATEX_SPACE})+$")
_MATH = re.compile(r"[\d\\=(\[^_]|(?<![A-Za-z])[A-Za-z](?![A-Za-z])")
_OPERATORS = {"\\geq": ">=", "\\ge": ">=", "\\geqslant": ">=", ">=": ">=", "\\leq": "<=", "\\le": "<=",
              "\\leqslant": "<=", "<=": "<=", ">": ">", "<": "<", "\\gt": ">", "\\lt": "<"}
_BOUND = re.compile(r"(?<![A-Za-z\\])[A-Za-z]\s*(\\geqslant|\\leqslant|\\geq|\\leq|\\ge|\\le|\\gt|\\lt|>=|<=|>|<)"
                    r"\s*(-?\d{1,12}(?:\.\d{1,12})?)(?![\d.])")
_MAX_CHARS = 2000


@dataclass(frozen=True)
class Qualified:
    """An answer split at its qualifier: ``core`` is what is stated, ``qualifier`` the clause ("" when none)."""

    core: str
    qualifier: str = ""

    def bounds(self) -> frozenset[tuple[str, Fraction]]:
        """The numeric bounds the qualifier puts on its variable, whatever the variable's name: ``m \\ge 2`` is
        ``(">=", 2)``."""
        return frozenset((_OPERATORS[m.group(1)], Fraction(m.group(2))) for m in _BOUND.finditer(self.qualifier))


def _balanced(text: str) -> bool:
    return split_top_level(text) is not None and text.count("\\left") == text.count("\\right")


# A statement that opens with its quantifier: "\forall x > 0, 2^x \geq x^2", "for all n \ge 1: a_n > 0".
_LEADING_CLAUSE = re.compile(r"\s*(?:\\forall\b|(?:\\(?:text|textrm|mbox|mathrm)\s*\{\s*)?"
                             r"for\s+(?:all|every|each|any)\b)",
                             re.IGNORECASE)


def _first_top_level_break(text: str) -> int:
    """Where the first comma or colon outside brackets is, or -1."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c in ",:" and depth == 0:
            return i
    return -1


def split_qualifier(answer: str) -> Qualified:
    """``answer`` split at the first top-level qualifier clause (see the module docstring), or whole when it has
    none, when the clause is all there is, or when what comes before it is plain words. A statement that opens
    with its quantifier (``\\forall x > 0, 2^x \\geq x^2``) is its claim qualified by the quantifier's range: read
    whole, math-verify paid ``\\forall x > 0, 2^x \\geq x`` for it."""
    if len(answer) > _MAX_CHARS:
        return Qualified(answer)
    if _LEADING_CLAUSE.match(answer):
        cut = _first_top_level_break(answer)
        claim = answer[cut + 1 :].strip() if cut > 0 else ""
        if claim and _balanced(claim) and _balanced(answer[:cut]):
            return Qualified(claim, answer[:cut].strip())
    for m in _CLAUSE.finditer(answer):
        core = _TRAILING.sub("", answer[: m.start()]).strip()
        if not core or not _balanced(core):
            continue
        if _MATH.search(unwrap_text(core)) is None:  # "arithmetic sequence with ...": the words are the answer
            return Qualified(answer)
        return Qualified(core, answer[m.start() :].strip())
    return Qualified(answer)


_COMMAND_WITH_ARGUMENT = re.compile(r"\\[A-Za-z]+(?:\{[^{}]*\})?")
_LONE_LETTER = re.compile(r"(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])")


def _letters(text: str) -> set[str]:
    return set(_LONE_LETTER.findall(_COMMAND_WITH_ARGUMENT.sub(" ", unwrap_text(text))))


def bound_variables(answer: Qualified) -> set[str]:
    """The letters the qualifier binds: those it names (``m`` in ``for every m \\ge 2``, not the ``R`` of
    ``\\mathbb{R}``) that the core uses."""
    return _letters(answer.qualifier) & _letters(answer.core) if answer.qualifier else set()


def in_reference_names(gold: Qualified, pred: Qualified) -> str:
    """``pred``'s core with its bound variable renamed to the reference's, when each binds one and the
    reference's letter is free in the answer: ``(3, n)`` for every ``n \\ge 2`` is ``(3, m)`` for every
    ``m \\ge 2``."""
    gold_bound, pred_bound = bound_variables(gold), bound_variables(pred)
    if len(gold_bound) != 1 or len(pred_bound) != 1 or gold_bound == pred_bound:
        return pred.core
    [new], [old] = gold_bound, pred_bound
    if new in _letters(pred.core):
        return pred.core  # renaming would merge two variables
    return re.sub(rf"(?<![A-Za-z\\]){old}(?![A-Za-z])", new, pred.core)


def different_bounds(gold: Qualified, pred: Qualified) -> str | None:
    """Why the two qualifiers put different ranges on their families, or None: both state numeric bounds and
    the bounds differ (``m \\ge 2`` against ``n \\ge 3``)."""
    gold_bounds, pred_bounds = gold.bounds(), pred.bounds()
    if gold_bounds and pred_bounds and gold_bounds != pred_bounds:
        return f"the family is stated over another range ({pred.qualifier!r}, not {gold.qualifier!r})"
    return None
