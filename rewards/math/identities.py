"""The identity stage of grading: two expressions math-verify did not match, compared as real functions.

math-verify proves ``sin(2x) = 2 sin x cos x`` but not ``sec^2 x - tan^2 x = 1`` nor
``acosh x = ln(x + sqrt(x^2 - 1))``: its simplification is not told that the variables are real, and it does not
rewrite hyperbolic and trigonometric functions into exponentials. This stage runs in the rule reward's worker
processes, after math-verify has said no, on two parsed expressions (never relations, sets or matrices), and
answers True, False or None (cannot say).

The domain policy: every variable is real. ``sqrt(x^2)`` is ``|x|``, never ``x``; two expressions are the same
answer when they are defined (real and finite) at the same points and equal there. An identity is accepted on one
of two grounds, named in the score's detail:

- **proved**: after rewriting every function into exponentials, sympy's ``simplify`` of the difference, with the
  variables declared real, is 0;
- **numeric**: at every one of 12 points drawn from a fixed random sequence (each variable over -4..4 and 1..9,
  so that ``x >= 1`` domains are reached), evaluated to 50 digits, the two agree within a relative 1e-40 wherever
  either is defined, at least 6 points are defined for both, and neither is defined where the other is not; and
  no part of the answer (a literal, a sum, a function's value, at two of the points) lies within 1e-12 of an
  integer without being one. Two different analytic expressions agree at 6 random reals only on a set of measure
  zero; an answer that differs from the reference by a small constant (``x + 10^{-12}`` for ``x``) or a rounding
  (``3.14159265358979 x`` for ``pi x``) is rejected by the tolerance, and one that hides a difference below it
  (``x + 10^{-60}``, ``x tanh(100)``, ``x + e^{-1000x^2}``) has a part within 1e-12 of an integer.

Decimals are read as the rationals they write (``0.5*(4.0t^2 - 1.0)/t`` is ``(4t^2 - 1)/(2t)`` exactly), so the
tolerance only has to cover evaluation error, which sympy's evalf keeps below it.

A numeric disagreement is a proof of difference and is checked first (it is also the cheap path for the wrong
answers that reach this stage). Sizes are bounded before anything is evaluated
(:func:`rewards.math.symbolic.evaluation_is_bounded`), and the caller runs the stage under math-verify's alarm.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from rewards.math.symbolic import evaluation_is_bounded

_POINTS = 12
_MIN_DEFINED = 6
_DIGITS = 50
_RELATIVE_TOLERANCE = 1e-40
# A part of the answer this close to an integer is how a difference hides below the tolerance: tanh(100) for 1,
# 1 + 10^{-60}, e^{-1000 x^2} for 0. An answer with such a part is not accepted on numbers alone.
_NEAR_INTEGER = 1e-12
_SCANNED_POINTS = 2
_MAX_PLAIN = 10**6
_MAX_SYMBOLS = 4
# The ranges each variable is drawn from, alternately: both signs, and x >= 1 (acosh, sqrt(x - 1), log(x - 1)).
_RANGES = ((-4.0, 4.0), (1.0, 9.0))


@dataclass(frozen=True)
class IdentityVerdict:
    equal: bool
    ground: str  # "proved", "numeric", or what showed them different


def _sympy():
    import sympy

    return sympy


def comparable(expr: Any) -> bool:
    """An expression this stage may compare: a sympy scalar expression, bounded in size, in few variables."""
    sp = _sympy()
    return (isinstance(expr, sp.Expr) and not isinstance(expr, sp.MatrixBase) and evaluation_is_bounded(expr)
            and len(expr.free_symbols) <= _MAX_SYMBOLS and not expr.has(sp.Integral, sp.Derivative, sp.Limit, sp.Sum))


def _as_real(gold: Any, pred: Any) -> tuple[Any, Any, list[Any]]:
    """Both expressions with each variable replaced by a real variable of the same name (the domain policy) and
    each decimal by the rational it writes (sympy keeps 15 significant digits of a parsed decimal)."""
    sp = _sympy()
    names = sorted({s.name for s in gold.free_symbols | pred.free_symbols})
    real = {name: sp.Symbol(name, real=True) for name in names}

    def exact(expr: Any) -> Any:
        swap: dict[Any, Any] = {s: real[s.name] for s in expr.free_symbols}
        swap.update({f: sp.Rational(str(f)) for f in expr.atoms(sp.Float)})
        return expr.xreplace(swap)

    return exact(gold), exact(pred), [real[n] for n in names]


def _real_value(expr: Any, point: dict[Any, Any]) -> complex | None:
    """The value at ``point`` to 30 digits, None where undefined (division by zero, a pole, not finite)."""
    sp = _sympy()
    try:
        value = expr.xreplace(point).evalf(_DIGITS) if point else expr.evalf(_DIGITS)
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_number:
            return None
        return complex(value)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None


def _is_real(value: complex | None) -> bool:
    return value is not None and abs(value.imag) <= _RELATIVE_TOLERANCE * max(1.0, abs(value.real))


def _points(symbols: list[Any]) -> list[dict[Any, Any]]:
    sp = _sympy()
    rng = random.Random(20250805)  # fixed: the same answer gets the same verdict on every run and worker
    points = []
    for i in range(_POINTS):
        low, high = _RANGES[i % len(_RANGES)]
        points.append({s: sp.Float(rng.uniform(low, high), _DIGITS) for s in symbols})
    return points


def numeric_check(
    gold: Any, pred: Any, symbols: list[Any], limit: int = _POINTS
) -> tuple[IdentityVerdict | None, list[dict[Any, Any]]]:
    """Agreement at random real points (the rule in the module docstring), and the points where both are
    defined; the verdict is None when too few points are defined for both to say either way. ``limit`` checks
    only the first points (a quick look for a difference: then its True means nothing)."""
    points = _points(symbols)[:limit] if symbols else [{}]
    defined: list[dict[Any, Any]] = []
    for point in points:
        g, p = _real_value(gold, point), _real_value(pred, point)
        g_real, p_real = _is_real(g), _is_real(p)
        if g_real != p_real:
            return IdentityVerdict(False, "defined at different points"), defined
        if not g_real:
            continue
        assert g is not None and p is not None
        if abs(g.real - p.real) > _RELATIVE_TOLERANCE * max(1.0, abs(g.real), abs(p.real)):
            return IdentityVerdict(False, "different values"), defined
        defined.append(point)
    enough = len(defined) >= (_MIN_DEFINED if symbols else 1)
    return (IdentityVerdict(True, "numeric") if enough else None), defined


def _near_integer(value: complex | None) -> bool:
    """Within 1e-12 of an integer, exactly equal included (a value past 50 digits of 1 prints as 1)."""
    if not _is_real(value):
        return False
    assert value is not None
    return abs(value.real - round(value.real)) <= _NEAR_INTEGER * max(1.0, abs(value.real))


def _plain_constant(node: Any, gold: Any) -> bool:
    sp = _sympy()
    if isinstance(node, sp.Integer) or node in (sp.pi, sp.E):
        return True
    if isinstance(node, sp.Rational):
        return abs(node.p) <= _MAX_PLAIN and node.q <= _MAX_PLAIN
    return gold.has(node)


def hides_a_perturbation(gold: Any, pred: Any, points: list[dict[Any, Any]]) -> bool:
    """The numeric ground's last rule: True when a part of ``pred`` could hide a difference below the tolerance.
    A constant part must be an integer, a rational of at most six-digit terms, pi, e, or a part of the reference
    (not tanh(100), not 10^{-60}); a part in the variables must not take an integer value at the first two
    defined points (not e^{-1000x^2}, which is 0 there to 50 digits, nor tanh(100x)). An identity whose parts
    are integer-valued (sec^2 x - tan^2 x) is left to the proof."""
    sp = _sympy()
    for node in sp.preorder_traversal(pred):
        if isinstance(node, sp.Symbol):
            continue
        if not node.free_symbols:
            if not _plain_constant(node, gold):
                return True
        elif any(_near_integer(_real_value(node, point)) for point in points[:_SCANNED_POINTS]):
            return True
    return False


def proved_equal(gold: Any, pred: Any) -> bool:
    """sympy's ``simplify`` of the difference, every function rewritten into exponentials, is 0."""
    sp = _sympy()
    difference = (gold - pred).rewrite(sp.exp)
    return sp.simplify(difference) == 0


_QUICK_POINTS = 2


def differ(gold: Any, pred: Any) -> bool:
    """True when two expressions in variables take different values at one of the first two points: they are not
    the same function over the reals, nor over the complex numbers that math-verify's symbols range over, so no
    simplification can make their difference 0. Checked before math-verify's ``verify``, which spends most of its
    time on such wrong answers trying to simplify a difference that is not 0. Left to math-verify: constants and
    decimals (it accepts a constant within its rounding, which 50 digits would not), and expressions in different
    variables (it reads the symbol ``odd`` and the product ``o d d`` as one answer)."""
    if not (comparable(gold) and comparable(pred)) or not gold.free_symbols:
        return False
    if {s.name for s in gold.free_symbols} != {s.name for s in pred.free_symbols}:
        return False
    sp = _sympy()
    if gold.atoms(sp.Float) or pred.atoms(sp.Float):
        return False
    gold, pred, symbols = _as_real(gold, pred)
    verdict, _ = numeric_check(gold, pred, symbols, limit=_QUICK_POINTS)
    return verdict is not None and not verdict.equal


def same_function(gold: Any, pred: Any) -> IdentityVerdict | None:
    """Whether ``pred`` is the same real function as ``gold`` (see the module docstring); None when this stage
    cannot compare them (not scalar expressions, too large, too many variables, or too few defined points)."""
    if not (comparable(gold) and comparable(pred)):
        return None
    gold, pred, symbols = _as_real(gold, pred)
    verdict, defined = numeric_check(gold, pred, symbols)
    if verdict is None or not verdict.equal:
        return verdict
    try:
        if proved_equal(gold, pred):
            return IdentityVerdict(True, "proved")
    except (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError, NotImplementedError):
        pass
    return None if hides_a_perturbation(gold, pred, defined) else verdict
