"""Values of simple numeric LaTeX answers, without the LaTeX parser: exact where they can be, sized where not.

Most math answers are numbers written with ``\\frac``, ``\\sqrt``, ``\\pi``, powers and arithmetic. Parsing them
through ANTLR into sympy is most of a rule verifier's cost; evaluating them here decides clear cases in
microseconds. Each value is a :class:`Number`:

- exact (a :class:`~fractions.Fraction`) when it is rational and small enough to hold (integers, decimals,
  fractions, integer powers, factorials): exact values compare exactly, so ``2^{64}`` and
  ``18446744073709551617`` differ, as they do;
- otherwise a float approximation (``\\sqrt{2}``, ``\\pi``) with a flag when cancellation made it unreliable;
- always the base-10 logarithm of its size, so that towers of powers, huge factorials and 50,000-digit literals
  are compared by size (``5^{5^{5^5}}`` is not 4) without computing them. Work is bounded by construction:
  nothing here builds a number of more than :data:`MAX_EXACT_BITS` bits.

Anything outside this small grammar, or ambiguous in LaTeX (``2^10``, ``3\\frac{1}{2}`` as a mixed number,
degrees, percentages), returns None and goes to math-verify.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

_TOKEN = re.compile(
    r"\s+|\\[,;:! ]|\\left|\\right|\\displaystyle"  # skipped
    r"|(?P<num>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d{1,3}(?![\w.]))?)"  # 3.2e-3: e-notation, read exactly
    r"|(?P<cmd>\\[dt]?frac|\\sqrt|\\pi|\\infty|\\cdot|\\times|\\div)"
    r"|(?P<op>[-+*/^(){}\[\]!])"
)
_MAX_TOKENS = 200
MAX_EXACT_BITS = 40_000  # about 12,000 digits: larger values keep only their size
_LN10 = math.log(10)
_LOG10_2 = math.log10(2)
_FLOAT_MAX_LOG10 = 307.0


class _Unsupported(Exception):
    pass


@dataclass(frozen=True)
class Number:
    """A real value: ``exact`` when known exactly, ``approx`` as a float (±inf past the float range), ``log10``
    of its absolute value (-inf for zero, inf when even that is too large), ``sign`` in {-1, 0, 1}.
    ``unreliable`` marks a float that lost its digits to cancellation (``\\sqrt{10^{20}+1} - 10^{10}``)."""

    exact: Fraction | None
    approx: float
    log10: float
    sign: int
    unreliable: bool = False

    @property
    def is_huge(self) -> bool:
        """Too large for a float: only its size is known, unless it is exact."""
        return self.log10 > _FLOAT_MAX_LOG10

    @property
    def is_finite(self) -> bool:
        return math.isfinite(self.log10) or self.sign == 0


def _bits(value: Fraction) -> int:
    return value.numerator.bit_length() + value.denominator.bit_length()


def _int_log10(n: int) -> float:
    """log10 of a positive integer of any size, to float precision."""
    shift = max(0, n.bit_length() - 60)
    return math.log10(n >> shift) + shift * _LOG10_2


def exact_number(value: Fraction) -> Number:
    if value == 0:
        return Number(value, 0.0, -math.inf, 0)
    sign = 1 if value > 0 else -1
    log10 = _int_log10(abs(value.numerator)) - _int_log10(value.denominator)
    if abs(log10) < 300:
        approx = float(value)
        return Number(value, approx, math.log10(abs(approx)), sign)
    return Number(value, sign * math.inf if log10 > 0 else 0.0, log10, sign)


def approx_number(value: float, unreliable: bool = False) -> Number:
    if math.isnan(value):
        raise _Unsupported("nan")
    if value == 0:
        return Number(None, 0.0, -math.inf, 0, unreliable)
    return Number(None, value, math.log10(abs(value)), 1 if value > 0 else -1, unreliable)


def sized_number(log10: float, sign: int) -> Number:
    """A value known only by its size (past the float range)."""
    if log10 <= _FLOAT_MAX_LOG10:
        return approx_number(sign * 10.0**log10)
    return Number(None, sign * math.inf, log10, sign)


INFINITY = Number(None, math.inf, math.inf, 1)


def _add(a: Number, b: Number, subtract: bool = False) -> Number:
    if subtract:
        b = _negate(b)
    if a.exact is not None and b.exact is not None:
        total = a.exact + b.exact
        if _bits(total) <= MAX_EXACT_BITS:
            return exact_number(total)
    if a.is_huge or b.is_huge:  # sizes add up exactly enough; equal sizes of opposite signs cancel
        big, small = (a, b) if a.log10 >= b.log10 else (b, a)
        if not math.isfinite(big.log10):
            if small.sign == big.sign or math.isfinite(small.log10):
                return big
            raise _Unsupported("infinity minus infinity")
        ratio = 10.0 ** (small.log10 - big.log10) if small.sign else 0.0
        if small.sign and small.sign != big.sign:
            if ratio > 0.5:
                raise _Unsupported("cancellation between huge values")
            ratio = -ratio
        return sized_number(big.log10 + math.log10(1.0 + ratio), big.sign)
    total = a.approx + b.approx
    scale = max(abs(a.approx), abs(b.approx))
    small = min(abs(a.approx), abs(b.approx))
    absorbed = 0 < small < _ABSORBED * scale  # pi^2 + 10^{-13}: the term is gone from the float
    unreliable = _lossy(a, b) or absorbed or (scale > 0 and abs(total) < 1e-8 * scale)
    return approx_number(total, unreliable)


_FLOAT_BITS = 53
_ABSORBED = 1e-11  # a term or factor this close to nothing (or to 1) is lost in a float and in same_value's 1e-12


def _wide(a: Number) -> bool:
    """An exact value a float cannot carry: more digits in its numerator or denominator than a float holds
    (``10^{-30}``, ``1 + 10^{-30}``). Combined with an irrational value, it is lost in the float."""
    return a.exact is not None and max(a.exact.numerator.bit_length(), a.exact.denominator.bit_length()) > _FLOAT_BITS


def _near_unit(a: Number) -> bool:
    """A factor within 1e-11 of 1 or -1 without being it: what a relative change hides in."""
    return a.sign != 0 and abs(abs(a.approx) - 1.0) < _ABSORBED and not (a.exact is not None and abs(a.exact) == 1)


def _lossy(*operands: Number) -> bool:
    """Whether an inexact result of these operands may differ from the value they write by more than its float
    shows: an operand already unreliable, or an exact one a float cannot carry. Two such values that agree as
    floats are not known to be equal (:func:`same_value` then leaves them undecided)."""
    return any(o.unreliable or _wide(o) for o in operands)


def _negate(a: Number) -> Number:
    if a.exact is not None:
        return exact_number(-a.exact)
    return Number(None, -a.approx, a.log10, -a.sign, a.unreliable)


def _mul(a: Number, b: Number) -> Number:
    if a.sign == 0 or b.sign == 0:
        return exact_number(Fraction(0)) if (a.exact is not None and b.exact is not None) else approx_number(0.0)
    if a.exact is not None and b.exact is not None and _bits(a.exact) + _bits(b.exact) <= MAX_EXACT_BITS:
        return exact_number(a.exact * b.exact)
    log10 = a.log10 + b.log10
    if log10 > _FLOAT_MAX_LOG10 or a.is_huge or b.is_huge:
        return sized_number(log10, a.sign * b.sign)
    if log10 < -_FLOAT_MAX_LOG10:  # a nonzero product under the float range: not zero, and not known
        return approx_number(0.0, unreliable=True)
    return approx_number(a.approx * b.approx, _lossy(a, b) or _near_unit(a) or _near_unit(b))


def _reciprocal(a: Number) -> Number:
    if a.sign == 0:
        raise ZeroDivisionError
    if a.exact is not None:
        return exact_number(1 / a.exact)
    if a.is_huge:
        return sized_number(-a.log10, a.sign)
    return approx_number(1.0 / a.approx, a.unreliable)


def _power(base: Number, exponent: Number) -> Number:
    if exponent.exact is not None and exponent.exact.denominator == 1:
        n = exponent.exact.numerator
        if base.exact is not None:
            if base.exact == 0:
                if n < 0:
                    raise ZeroDivisionError
                return exact_number(Fraction(int(n == 0)))
            if abs(base.exact) == 1:
                return exact_number(base.exact ** (n % 2) if base.exact < 0 else Fraction(1))
            if abs(n) * _bits(base.exact) <= MAX_EXACT_BITS:
                return exact_number(base.exact**n)
        sign = base.sign if n % 2 else abs(base.sign)
    else:
        if base.sign < 0:
            raise _Unsupported("a negative base to a non-integer power")
        sign = base.sign
    if base.sign == 0:
        if exponent.sign <= 0:
            raise _Unsupported("0 to a non-positive power")
        return approx_number(0.0)
    if exponent.is_huge or not math.isfinite(exponent.approx):
        # 5^{5^{5^5}}: the size is all a comparison with a finite answer needs
        if base.log10 > 0 and exponent.sign > 0:
            return Number(None, sign * math.inf, math.inf, sign)
        if base.log10 < 0 and exponent.sign > 0:
            return approx_number(0.0, unreliable=True)  # under the float range, not zero
        raise _Unsupported("a huge exponent of a base near 1")
    log10 = base.log10 * exponent.approx
    if math.isinf(log10) or log10 > _FLOAT_MAX_LOG10:
        return sized_number(log10, sign)
    if log10 < -_FLOAT_MAX_LOG10:
        return approx_number(0.0, unreliable=True)  # under the float range, not zero
    return approx_number(sign * 10.0**log10, _lossy(base, exponent) or _near_unit(base))


def _factorial(a: Number) -> Number:
    if a.exact is None or a.exact.denominator != 1 or a.exact < 0:
        if a.is_huge and a.sign > 0:
            return Number(None, math.inf, math.inf, 1)
        raise _Unsupported("factorial of a non-integer")
    n = a.exact.numerator
    if n <= 3000:  # 3000! has 9,131 digits, about 30,000 bits
        return exact_number(Fraction(math.factorial(n)))
    return sized_number(math.lgamma(n + 1) / _LN10, 1)


def _root(radicand: Number, index: Number) -> Number:
    if radicand.sign < 0:
        raise _Unsupported("complex")
    if index.exact is not None and index.exact.denominator == 1 and index.exact > 0 and radicand.exact is not None:
        k = index.exact.numerator
        num, den = radicand.exact.numerator, radicand.exact.denominator
        rn, rd = _int_root(num, k), _int_root(den, k)
        if rn is not None and rd is not None:
            return exact_number(Fraction(rn, rd))
    if index.sign <= 0:
        raise _Unsupported("root index")
    return _power(radicand, _reciprocal(index))


def _int_root(n: int, k: int) -> int | None:
    """The exact integer k-th root of n, or None."""
    if n < 0 or k > 64 or n.bit_length() > 4096:
        return None
    r = round(n ** (1.0 / k)) if n.bit_length() < 1000 else int(math.isqrt(n)) if k == 2 else None
    if r is None:
        return None
    for cand in (r - 1, r, r + 1):
        if cand >= 0 and cand**k == n:
            return cand
    return None


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

    def expr(self) -> Number:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = _add(value, self.term()) if self.take() == "+" else _add(value, self.term(), subtract=True)
        return value

    def term(self) -> Number:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok in ("*", "/"):
                self.take()
                rhs = self.unary()
                value = _mul(value, rhs) if tok == "*" else _mul(value, _reciprocal(rhs))
            elif tok in ("\\frac", "\\sqrt", "\\pi", "(", "{"):
                prev = self.tokens[self.i - 1]
                if tok == "\\frac" and _is_number(prev):
                    raise _Unsupported("mixed number")  # 3\frac{1}{2} means 3.5 to people, 1.5 to sympy
                value = _mul(value, self.power())
            else:
                return value

    def unary(self) -> Number:
        if self.peek() in ("+", "-"):
            negative = self.take() == "-"
            value = self.unary()
            return _negate(value) if negative else value
        return self.power()

    def power(self) -> Number:
        base = self.atom()
        if self.peek() != "^":
            return base
        self.take()
        if _is_number(self.peek() or "") and len(self.peek() or "") > 1:
            raise _Unsupported("2^10 is ambiguous without braces")
        exponent = self.unary() if self.peek() in ("+", "-") else self.power()
        return _power(base, exponent)

    def group(self) -> Number:
        if self.peek() == "{":
            self.take("{")
            value = self.expr()
            self.take("}")
            return value
        tok = self.take()
        if not _is_number(tok) or len(tok) > 1:  # \sqrt23 is sqrt(2)*3: not worth reading here
            raise _Unsupported("unbraced argument")
        return _literal(tok)

    def atom(self) -> Number:
        value = self.primary()
        if self.peek() == "!":
            self.take("!")
            if self.peek() == "!":
                raise _Unsupported("double factorial")
            value = _factorial(value)
        return value

    def primary(self) -> Number:
        tok = self.take()
        if _is_number(tok):
            return _literal(tok)
        if tok == "\\pi":
            return approx_number(math.pi)
        if tok == "\\infty":
            return INFINITY
        if tok in ("(", "{"):
            value = self.expr()
            self.take(")" if tok == "(" else "}")
            return value
        if tok == "\\frac":
            if self.peek() != "{" and _is_number(self.peek() or "") and len(self.peek() or "") == 2:
                digits = self.take()  # \frac12
                return exact_number(Fraction(int(digits[0]), int(digits[1])))
            return _mul(self.group(), _reciprocal(self.group()))
        if tok == "\\sqrt":
            index = exact_number(Fraction(2))
            if self.peek() == "[":
                self.take("[")
                index = self.expr()
                self.take("]")
            return _root(self.group(), index)
        raise _Unsupported(tok)


def _literal(tok: str) -> Number:
    if len(tok) > 12_000:  # too many digits to hold exactly: its size is its digit count
        whole = tok.split(".")[0].lstrip("0")
        if not whole:
            raise _Unsupported("a long fraction of a unit")
        return sized_number(math.log10(int(whole[:15])) + len(whole) - min(15, len(whole)), 1)
    return exact_number(Fraction(Decimal(tok)))


def _is_number(tok: str) -> bool:
    return bool(tok) and (tok[0].isdigit() or tok[0] == ".")


_MAX_CHARS = 60_000
_MAX_DEPTH = 64  # brackets inside brackets: the parser recurses about six frames a level
_OPENING, _CLOSING = frozenset("{(["), frozenset("})]")


def _too_deep(tokens: list[str]) -> bool:
    depth = 0
    for tok in tokens:
        depth += tok in _OPENING
        depth -= tok in _CLOSING
        if depth > _MAX_DEPTH:
            return True
    return False


def evaluate(latex: str) -> Number | None:
    """The value of a simple numeric LaTeX expression, or None when it is not one (or is ambiguous, or nested
    deeper than any answer is: ``{{{...{1}...}}}`` a thousand deep is not read, it would exhaust the stack)."""
    if len(latex) > _MAX_CHARS:
        return None
    try:
        parser = _Parser(_tokenize(latex.strip().strip("$")))
        if not parser.tokens or _too_deep(parser.tokens):
            return None
        value = parser.expr()
        if parser.peek() is not None:
            return None
    except (_Unsupported, ZeroDivisionError, OverflowError, ValueError, RecursionError):
        return None
    return value


def numeric_value(latex: str) -> float | None:
    """The float value of a simple numeric LaTeX expression (``inf`` past the float range), or None."""
    value = evaluate(latex)
    return None if value is None else value.approx


def same_value(gold: Number, pred: Number) -> bool | None:
    r"""True or False when the values decide it, None when they cannot (then math-verify decides).

    Exact values compare exactly. Floats (irrational forms) are equal within 1e-12 relative and different past
    it, unless one is unreliable (cancellation, or a term or factor a float cannot carry: ``\pi^2 + 10^{-30}``),
    which decides nothing. Values known only by size differ when their sizes do; two of
    the same size are left undecided."""
    if gold.exact is not None and pred.exact is not None:
        return gold.exact == pred.exact
    if gold.unreliable or pred.unreliable:  # a float that may hide a difference shows neither equality nor its sign
        return None
    if gold.sign != pred.sign:
        return False
    if gold.sign == 0:
        return True
    if gold.is_huge or pred.is_huge or not math.isfinite(gold.approx) or not math.isfinite(pred.approx):
        if math.isinf(gold.log10) and math.isinf(pred.log10):
            return None  # two towers past any size estimate: leave to the symbolic comparison
        if abs(gold.log10 - pred.log10) > 1e-9 * max(1.0, abs(gold.log10)):
            return False
        return None
    gap = abs(gold.approx - pred.approx)
    scale = max(abs(gold.approx), abs(pred.approx))
    return gap <= 1e-12 * scale


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


_BRACKETS = {"(": ")", "[": "]"}


def numeric_tuple(latex: str) -> tuple[str, list[Number], str] | None:
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
    parts = split_top_level(inner)
    if parts is None or len(parts) < 2:
        return None
    values = [evaluate(p) for p in parts]
    if any(v is None for v in values):
        return None
    return s[0], [v for v in values if v is not None], s[-1]


def split_top_level(text: str, separator: str = ",") -> list[str] | None:
    """``text`` split at ``separator`` outside brackets and braces, or None when they are unbalanced."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
            if depth < 0:
                return None
        elif ch == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        return None
    parts.append(text[start:])
    return parts
