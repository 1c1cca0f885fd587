"""Solution sets on the real line, read from interval notation or from inequalities, and compared as sets.

``(3, \\infty)`` and ``x > 3`` are the same answer; so are ``(-\\infty,-1)\\cup(1,\\infty)`` and
``x < -1 \\text{ or } x > 1``, and ``[-2, 2]``, ``-2 \\le x \\le 2`` and ``\\{x \\mid -2 \\le x \\le 2\\}``. Rule verifiers compare these forms as
different expressions (an interval against a relation) and reject right answers: one of the families of false
negatives in TinyV's taxonomy (arXiv 2505.14625, "interval and inequality notation"). Here both forms become a
list of intervals whose ends are :class:`~rewards.math.numeric.Number` values, compared end by end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewards.math.numeric import INFINITY, Number, evaluate, same_value

_OR = re.compile(r"\\text\s*\{\s*or\s*\}|\\(?:cup|lor|vee)\b|(?<![A-Za-z])or(?![A-Za-z])|(?<=[\])])\s*U\s*(?=[(\[])")
_AND = re.compile(r"\\text\s*\{\s*and\s*\}|\\(?:land|wedge)\b|(?<![A-Za-z])and(?![A-Za-z])")
_RELATION = re.compile(r"\\leqslant|\\geqslant|\\leq|\\geq|\\le|\\ge|\\lt|\\gt|<=|>=|<|>")
_STRICT = {"<": True, ">": True, "\\lt": True, "\\gt": True}
_LESS = {"<", "\\lt", "<=", "\\le", "\\leq", "\\leqslant"}
_VARIABLE = re.compile(r"[a-zA-Z]")
_INTERVAL = re.compile(r"([(\[])(.+),(.+)([)\]])")
_REALS = re.compile(r"\\mathbb\s*\{?\s*R\s*\}?|(?i:all\s+real\s+numbers)")
_MAX_CHARS = 400
# Set-builder notation, \{x \mid 2 < x \le 5\} (also with | , : or \colon, and x \in \mathbb{R} before the bar):
# the set its condition defines.
_SET_BUILDER = re.compile(
    r"\\\{\s*([a-zA-Z])\s*(?:\\in\s*\\mathbb\s*\{?\s*R\s*\}?\s*)?(?:\\mid|\||:|\\colon)\s*(.+?)\s*\\\}"
)


@dataclass(frozen=True)
class Interval:
    low: Number
    low_closed: bool
    high: Number
    high_closed: bool


def _clean(text: str) -> str:
    text = text.replace("\\left", "").replace("\\right", "").replace("$", "")
    text = re.sub(r"\\[,;:! ]|\\quad|\\qquad", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def _end(text: str) -> Number | None:
    text = text.strip()
    if text in ("-\\infty", "-\\infinity", "-∞"):
        return Number(None, float("-inf"), float("inf"), -1)
    if text in ("\\infty", "+\\infty", "∞"):
        return INFINITY
    return evaluate(text)


def _from_notation(piece: str) -> Interval | None:
    m = _INTERVAL.fullmatch(piece)
    if m is None or m.group(2).count(",") or m.group(3).count(","):
        return None
    low, high = _end(m.group(2)), _end(m.group(3))
    if low is None or high is None:
        return None
    return Interval(low, m.group(1) == "[", high, m.group(4) == "]")


def _from_relations(piece: str, variable: list[str]) -> Interval | None:
    parts = _RELATION.split(piece)
    ops = _RELATION.findall(piece)
    if len(parts) not in (2, 3):
        return None
    terms = [p.strip() for p in parts]
    names = [i for i, t in enumerate(terms) if _VARIABLE.fullmatch(t)]
    if len(names) != 1:
        return None
    name = terms[names[0]]
    if variable and variable[0] != name:
        return None
    variable[:] = [name]
    low, low_closed = Number(None, float("-inf"), float("inf"), -1), False
    high, high_closed = INFINITY, False
    at = names[0]
    for k, op in enumerate(ops):  # the relation between terms[k] and terms[k + 1]
        other_index = k if k + 1 == at else k + 1
        if at not in (k, k + 1):
            return None
        bound = _end(terms[other_index])
        if bound is None:
            return None
        closed = not _STRICT.get(op, False)
        less = op in _LESS
        # "bound < x" or "x > bound" make a lower end; "x < bound" or "bound > x" an upper end
        variable_on_left = at == k
        if less != variable_on_left:
            low, low_closed = bound, closed
        else:
            high, high_closed = bound, closed
    return Interval(low, low_closed, high, high_closed)


def interval_set(text: str) -> tuple[list[Interval], bool] | None:
    """(intervals, written as relations) for a union of intervals or of inequalities in one variable, else
    None. ``x > -2 \\text{ and } x < 2`` is read as the one interval it describes."""
    text = _clean(text)
    if not text or len(text) > _MAX_CHARS:
        return None
    if _REALS.fullmatch(text):
        return [Interval(Number(None, float("-inf"), float("inf"), -1), False, INFINITY, False)], False
    builder = _SET_BUILDER.fullmatch(text)
    variable: list[str] = []
    if builder is not None:  # the condition on the set's own variable
        variable, text = [builder.group(1)], builder.group(2)
    text = re.sub(r"^[a-zA-Z]\s*\\in\s*", "", text)
    out: list[Interval] = []
    relations = False
    for piece in _OR.split(text):
        piece = piece.strip().strip(",").strip()
        if not piece:
            return None
        found = _from_notation(piece)
        if found is None:
            halves = _AND.split(piece)
            bounds = [_from_relations(h.strip(), variable) for h in halves]
            if not bounds or any(b is None for b in bounds) or len(bounds) > 2:
                return None
            found = bounds[0] if len(bounds) == 1 else _intersect(bounds[0], bounds[1])  # type: ignore[arg-type]
            if found is None:
                return None
            relations = True
        out.append(found)
    return out, relations


def _intersect(a: Interval, b: Interval) -> Interval | None:
    low, low_closed = (a.low, a.low_closed) if a.low.approx >= b.low.approx else (b.low, b.low_closed)
    high, high_closed = (a.high, a.high_closed) if a.high.approx <= b.high.approx else (b.high, b.high_closed)
    return Interval(low, low_closed, high, high_closed)


def _same_end(a: Number, b: Number) -> bool | None:
    if a.log10 == float("inf") or b.log10 == float("inf"):
        return a.sign == b.sign and a.log10 == b.log10
    return same_value(a, b)


def same_set(gold: list[Interval], pred: list[Interval]) -> bool | None:
    """True/False when every end decides, None when an end is beyond the numeric comparison."""
    if len(gold) != len(pred):
        return False
    key = lambda iv: (iv.low.approx, iv.high.approx)  # noqa: E731
    undecided = False
    for g, p in zip(sorted(gold, key=key), sorted(pred, key=key)):
        for ge, pe in ((g.low, p.low), (g.high, p.high)):
            same = _same_end(ge, pe)
            if same is False:
                return False
            undecided |= same is None
        if (g.low_closed != p.low_closed and g.low.log10 != float("inf")) or (
            g.high_closed != p.high_closed and g.high.log10 != float("inf")
        ):
            return False
    return None if undecided else True
