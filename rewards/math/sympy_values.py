"""Values of sympy expressions, bounded: the exact or approximate value of a numeric tree without sympy computing
it, and whether ``evalf`` on a tree is safe to call. Both the symbolic step (:mod:`rewards.math.symbolic`) and
the identity stage (:mod:`rewards.math.identities`) stand on it.

sympy is imported on first use, never at import: this module is imported by the parent process too, which
scores most items without sympy.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from rewards.math.numeric import (
    Number,
    _add,
    _factorial,
    _mul,
    _power,
    _reciprocal,
    _Unsupported,
    approx_number,
    exact_number,
)

_MAX_NODES = 400
_MAX_LITERAL_BITS = 20_000
_MAX_EVALF_EXPONENT = 1_000
_MAX_EVALF_FACTORIAL = 1_000


def load_sympy():
    """sympy, imported on first use (a second to import)."""
    import sympy

    return sympy


def sympy_number(expr: Any) -> Number | None:
    """The value of a numeric sympy expression built from integers, rationals, floats, pi, e, sums, products,
    powers and factorials, or None for anything else (symbols, functions, relations, sets)."""
    try:
        return _value(expr, [0])
    except (_Unsupported, ZeroDivisionError, OverflowError, ValueError, RecursionError, TypeError):
        return None


def _value(expr: Any, count: list[int]) -> Number | None:
    sp = load_sympy()
    count[0] += 1
    if count[0] > _MAX_NODES:
        return None
    if isinstance(expr, sp.Integer):
        return exact_number(Fraction(int(expr)))
    if isinstance(expr, sp.Rational):
        return exact_number(Fraction(int(expr.p), int(expr.q)))
    if isinstance(expr, sp.Float):
        return approx_number(float(expr))
    if expr is sp.pi:
        return approx_number(math.pi)
    if expr is sp.E:
        return approx_number(math.e)
    if expr is sp.oo or expr is sp.zoo or expr is sp.nan:
        return None
    args = []
    for arg in getattr(expr, "args", ()):
        value = _value(arg, count)
        if value is None:
            return None
        args.append(value)
    if isinstance(expr, sp.Add):
        total = args[0]
        for a in args[1:]:
            total = _add(total, a)
        return total
    if isinstance(expr, sp.Mul):
        product = args[0]
        for a in args[1:]:
            product = _mul(product, a)
        return product
    if isinstance(expr, sp.Pow):
        base, exponent = args
        if exponent.exact is not None and exponent.exact < 0 and exponent.exact.denominator == 1:
            return _reciprocal(_power(base, exact_number(-exponent.exact)))
        return _power(base, exponent)
    if isinstance(expr, sp.factorial):
        return _factorial(args[0])
    return None


def evaluation_is_bounded(expr: Any) -> bool:
    """True when evaluating ``expr`` numerically cannot blow up: few nodes, small literals, small exponents and
    factorial arguments. Functions (sin, log) are allowed; their arguments are checked the same way."""
    sp = load_sympy()
    nodes = 0
    stack = [expr]
    while stack:
        node = stack.pop()
        nodes += 1
        if nodes > _MAX_NODES:
            return False
        if isinstance(node, sp.Integer) and int(node).bit_length() > _MAX_LITERAL_BITS:
            return False
        if isinstance(node, sp.Pow):
            exponent = node.args[1]
            if not exponent.is_Number or abs(float(exponent)) > _MAX_EVALF_EXPONENT:
                return False
        if isinstance(node, (sp.factorial, sp.gamma, sp.factorial2, sp.subfactorial)):
            arg = node.args[0]
            if not arg.is_Number or abs(float(arg)) > _MAX_EVALF_FACTORIAL:
                return False
        stack.extend(getattr(node, "args", ()))
    return True


