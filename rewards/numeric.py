"""Exact-enough values of simple numeric LaTeX answers, without the LaTeX parser.

Most math answers are numbers written with ``\\frac``, ``\\sqrt``, ``\\pi``, powers and arithmetic. Parsing
them through ANTLR into sympy is most of a rule verifier's cost; evaluating them with floats here decides
clear cases in microseconds. Anything outside this small grammar, or ambiguous in LaTeX (``2^10``,
``3\\frac{1}{2}`` as a mixed number, degrees, percentages), returns None and goes to math-verify.
"""

from __future__ import annotations

import math
import re

_TOKEN = re.compile(
    r"\s+|\\[,;:! ]|\\left|\\right|\\displaystyle"  # skipped
    r"|(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<cmd>\\[dt]?frac|\\sqrt|\\pi|\\infty|\\cdot|\\times|\\div)"
    r"|(?P<op>[-+*/^(){}\[\]!])"
)
_MAX_TOKENS = 200
_MAX_EXPONENT = 1000.0


class _Unsupported(Exception):
    pass


def _tokenize(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _Unsupported(text[pos:])
        pos = m.end()
        kind = m.lastgroup
        if kind is None:
            continue
        value = m.group(kind)
        if kind == "cmd":
            value = {"\\dfrac": "\\frac", "\\tfrac": "\\frac", "\\cdot": "*", "\\times": "*", "\\div": "/"}.get(value, value)
        tokens.append(value)
        if len(tokens) > _MAX_TOKENS:
            raise _Unsupported("too long")
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise _Unsupported(f"expected {expected}")
        self.i += 1
        return tok

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok in ("*", "/"):
                self.take()
                rhs = self.unary()
                value = value * rhs if tok == "*" else value / rhs
            elif tok in ("\\frac", "\\sqrt", "\\pi", "(", "{"):
                prev = self.tokens[self.i - 1]
                if tok == "\\frac" and _is_number(prev):
                    raise _Unsupported("mixed number")  # 3\frac{1}{2} means 3.5 to people, 1.5 to sympy
                value = value * self.power()
            else:
                return value

    def unary(self) -> float:
        if self.peek() in ("+", "-"):
            sign = -1.0 if self.take() == "-" else 1.0
            return sign * self.unary()
        return self.power()

    def power(self) -> float:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        if _is_number(self.peek() or "") and len(self.peek() or "") > 1:
            raise _Unsupported("2^10 is ambiguous without braces")
        exponent = self.unary() if self.peek() in ("+", "-") else self.power()
        if abs(exponent) > _MAX_EXPONENT or math.isinf(exponent):
            # 5^{5^{5^5}}: astronomically large, which is all a comparison with a finite answer needs.
            if abs(base) > 1 and exponent > 0:
                return math.inf
            raise _Unsupported("exponent too large")
        try:
            return math.pow(base, exponent)
        except OverflowError:
            return math.inf

    def group(self) -> float:
        if self.peek() == "{":
            self.take("{")
            value = self.expr()
            self.take("}")
            return value
        tok = self.take()
        if not _is_number(tok) or len(tok) > 1:  # \sqrt23 is sqrt(2)*3: not worth reading here
            raise _Unsupported("unbraced argument")
        return float(tok)

    def atom(self) -> float:
        value = self.primary()
        if self.peek() == "!":
            self.take("!")
            if self.peek() == "!":
                raise _Unsupported("double factorial")
            if value < 0 or value != int(value):
                raise _Unsupported("factorial of a non-integer")
            value = math.inf if value > 170 else float(math.factorial(int(value)))
        return value

    def primary(self) -> float:
        tok = self.take()
        if _is_number(tok):
            return float(tok)
        if tok == "\\pi":
            return math.pi
        if tok == "\\infty":
            return math.inf
        if tok in ("(", "{"):
            value = self.expr()
            self.take(")" if tok == "(" else "}")
            return value
        if tok == "\\frac":
            if self.peek() != "{" and _is_number(self.peek() or "") and len(self.peek() or "") == 2:
                digits = self.take()  # \frac12
                return float(digits[0]) / float(digits[1])
            return self.group() / self.group()
        if tok == "\\sqrt":
            index = 2.0
            if self.peek() == "[":
                self.take("[")
                index = self.expr()
                self.take("]")
            radicand = self.group()
            if radicand < 0:
                raise _Unsupported("complex")
            return radicand ** (1.0 / index)
        raise _Unsupported(tok)


def _is_number(tok: str) -> bool:
    return bool(tok) and (tok[0].isdigit() or tok[0] == ".")


def numeric_value(latex: str) -> float | None:
    """The value of a simple numeric LaTeX expression, or None when it is not one (or is ambiguous).

    Values too large for a float (power towers, huge factorials, 50,000-digit literals) come back as
    ``inf``: unequal to any finite answer, which decides them without sympy."""
    if len(latex) > 500:
        return None
    try:
        parser = _Parser(_tokenize(latex.strip().strip("$")))
        if not parser.tokens:
            return None
        value = parser.expr()
        if parser.peek() is not None:
            return None
    except (_Unsupported, ZeroDivisionError, OverflowError, ValueError):
        return None
    return None if math.isnan(value) else value


_BRACKETS = {"(": ")", "[": "]"}


def numeric_tuple(latex: str) -> tuple[str, list[float], str] | None:
    """``(a, b)`` or ``[a, b)`` with simple numeric elements: (opening bracket, values, closing bracket).

    Tuples, points and intervals share this form; callers compare bracket kinds and values in order, which is
    right for all three. Elements may be ``\\infty``; anything nested returns None.
    """
    s = latex.strip().strip("$").strip()
    s = s.replace("\\left", "").replace("\\right", "").strip()
    if len(s) < 5 or len(s) > 300 or s[0] not in _BRACKETS or s[-1] not in (")", "]"):
        return None
    inner = s[1:-1]
    if any(ch in inner for ch in "()[]") or ("{" in inner and "\\frac" not in inner and "\\sqrt" not in inner):
        return None
    parts = _split_top_level(inner)
    if parts is None or len(parts) < 2:
        return None
    values = [numeric_value(p) for p in parts]
    if any(v is None for v in values):
        return None
    return s[0], [v for v in values if v is not None], s[-1]


def _split_top_level(text: str) -> list[str] | None:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
            if depth < 0:
                return None
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        return None
    parts.append(text[start:])
    return parts
