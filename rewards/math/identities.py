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

The numeric ground's argument holds for analytic expressions only. ``|x+31|-31`` and ``|x+30|-30``, ``x`` and
``max(x, -50)``, ``0`` and ``floor(x^2/100)`` agree at every point drawn and differ elsewhere: an expression with a
non-analytic part (``Abs``, ``floor``, ``ceiling``, ``Max``, ``Min``, ``sign``, ``Mod``, ``frac``, ``Heaviside``,
``Piecewise``, ``re``, ``im``, ``arg``) is accepted only on the proof, or on a third ground:

- **piecewise**: in one variable, every non-analytic part is ``Abs``, ``sign``, ``Heaviside``, ``Max``, ``Min`` or
  ``Piecewise`` of analytic arguments, whose breakpoints (the real zeros of the arguments, of the differences of
  the arguments of ``Max`` and ``Min``, of the two sides of each condition) are at most 8 and found exactly by
  sympy; the two sides agree at each breakpoint and at 3 points drawn inside every piece between them (and beyond
  the outer ones), where both are analytic. The detail names the breakpoints. ``floor``, ``ceiling``, ``Mod`` and
  ``frac`` have infinitely many breakpoints: proof only.

A point where either side is not a finite real number is never evidence of equality: a value sympy computes but a
float cannot hold (``e^{e^{e^{10}}}``) differs from any value a float holds, and a point where both are that large
is passed over (too few points left, and the stage cannot say).

Decimals are read as the rationals they write (``0.5*(4.0t^2 - 1.0)/t`` is ``(4t^2 - 1)/(2t)`` exactly), so the
tolerance only has to cover evaluation error, which sympy's evalf keeps below it.

A numeric disagreement is a proof of difference and is checked first (it is also the cheap path for the wrong
answers that reach this stage). Sizes are bounded before anything is evaluated
(:func:`rewards.math.sympy_values.evaluation_is_bounded`), and the caller runs the stage under math-verify's alarm.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from rewards.math.sympy_values import evaluation_is_bounded, load_sympy

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


def comparable(expr: Any) -> bool:
    """An expression this stage may compare: a sympy scalar expression, bounded in size, in few variables."""
    sp = load_sympy()
    return (isinstance(expr, sp.Expr) and not isinstance(expr, sp.MatrixBase) and evaluation_is_bounded(expr)
            and len(expr.free_symbols) <= _MAX_SYMBOLS and not expr.has(sp.Integral, sp.Derivative, sp.Limit, sp.Sum))


def _as_real(gold: Any, pred: Any) -> tuple[Any, Any, list[Any]]:
    """Both expressions with each variable replaced by a real variable of the same name (the domain policy) and
    each decimal by the rational it writes (sympy keeps 15 significant digits of a parsed decimal)."""
    sp = load_sympy()
    names = sorted({s.name for s in gold.free_symbols | pred.free_symbols})
    real = {name: sp.Symbol(name, real=True) for name in names}

    def exact(expr: Any) -> Any:
        swap: dict[Any, Any] = {s: real[s.name] for s in expr.free_symbols}
        swap.update({f: sp.Rational(str(f)) for f in expr.atoms(sp.Float)})
        return expr.xreplace(swap)

    return exact(gold), exact(pred), [real[n] for n in names]


def _real_value(expr: Any, point: dict[Any, Any]) -> complex | None:
    """The value at ``point`` to 30 digits, None where undefined (division by zero, a pole, not finite)."""
    sp = load_sympy()
    try:
        value = expr.xreplace(point).evalf(_DIGITS) if point else expr.evalf(_DIGITS)
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or not value.is_number:
            return None
        return complex(value)
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return None


def _too_large(value: complex | None) -> bool:
    """A value sympy computed but a float cannot hold (``e^{e^{e^{10}}}``): it is finite, so it is defined, but
    nothing can be read from comparing it."""
    return value is not None and not (math.isfinite(value.real) and math.isfinite(value.imag))


def _is_real(value: complex | None) -> bool:
    """Real and representable: the only values a comparison may count as agreement."""
    return (value is not None and not _too_large(value)
            and abs(value.imag) <= _RELATIVE_TOLERANCE * max(1.0, abs(value.real)))


def _points(symbols: list[Any]) -> list[dict[Any, Any]]:
    sp = load_sympy()
    rng = random.Random(20250805)  # fixed: the same answer gets the same verdict on every run and worker
    points = []
    for i in range(_POINTS):
        low, high = _RANGES[i % len(_RANGES)]
        points.append({s: sp.Float(rng.uniform(low, high), _DIGITS) for s in symbols})
    return points


def numeric_check(
    gold: Any, pred: Any, symbols: list[Any], limit: int = _POINTS, points: list[dict[Any, Any]] | None = None
) -> tuple[IdentityVerdict | None, list[dict[Any, Any]]]:
    """Agreement at random real points (the rule in the module docstring), or at ``points`` where given, and the
    points where both are defined; the verdict is None when too few points are defined for both to say either
    way. ``limit`` checks only the first points (a quick look for a difference: then its True means nothing)."""
    if points is None:
        points = _points(symbols)[:limit] if symbols else [{}]
    defined: list[dict[Any, Any]] = []
    for point in points:
        g, p = _real_value(gold, point), _real_value(pred, point)
        g_large, p_large = _too_large(g), _too_large(p)
        if g_large or p_large:  # never evidence of equality (the family of values too large to evaluate)
            if g_large != p_large and None not in (g, p):  # one beyond any float, the other within: not equal
                return IdentityVerdict(False, "a value too large to compare against one that is not"), defined
            continue
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
    sp = load_sympy()
    if isinstance(node, sp.Integer) or node in (sp.pi, sp.E):
        return True
    if isinstance(node, sp.Rational):
        return abs(node.p) <= _MAX_PLAIN and node.q <= _MAX_PLAIN
    return gold.has(node)


def hides_a_perturbation(gold: Any, pred: Any, points: list[dict[Any, Any]]) -> bool:
    """The numeric ground's last rule: True when a part of ``pred`` could hide a difference below the tolerance.
    A constant part must be an integer, a rational of at most six-digit terms, pi, e, or a part of the reference
    (not tanh(100), not 10^{-60}); a part in the variables must not take an integer value at the first two
    defined points (not e^{-1000x^2}, which is 0 there to 50 digits, nor tanh(100x)); a part with a non-analytic
    function in it (``(x + |x|)/2``) is judged by its analytic parts. An identity whose parts are integer-valued (sec^2 x - tan^2 x) is
    left to the proof."""
    sp = load_sympy()
    for node in sp.preorder_traversal(pred):
        if isinstance(node, sp.Symbol) or not analytic(node):
            continue  # (x + |x|)/2 is 0 wherever x < 0 by definition, not by a hidden term; its analytic parts count
        if not node.free_symbols:
            if not _plain_constant(node, gold):
                return True
        elif any(_near_integer(_real_value(node, point)) for point in points[:_SCANNED_POINTS]):
            return True
    return False


def proved_equal(gold: Any, pred: Any) -> bool:
    """sympy's ``simplify`` of the difference, every function rewritten into exponentials, is 0."""
    sp = load_sympy()
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
    sp = load_sympy()
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
    if not (analytic(gold) and analytic(pred)):  # agreement at random points proves nothing here
        verdict = piecewise_check(gold, pred, symbols)
        if verdict is None or not verdict.equal:
            return verdict
    return None if hides_a_perturbation(gold, pred, defined) else verdict


def _non_analytic_types() -> tuple[type, ...]:
    sp = load_sympy()
    return (sp.Abs, sp.floor, sp.ceiling, sp.Max, sp.Min, sp.sign, sp.Mod, sp.frac, sp.Heaviside, sp.Piecewise,
            sp.re, sp.im, sp.arg)


def analytic(expr: Any) -> bool:
    """No part of ``expr`` is one of the non-analytic functions of the module docstring."""
    return not expr.has(*_non_analytic_types())


_MAX_BREAKPOINTS = 8
_PER_PIECE = 3


def breakpoints(expr: Any, symbol: Any) -> list[Any] | None:
    """The real points where a non-analytic part of ``expr`` (in the one variable ``symbol``) may break, sorted,
    or None when they cannot all be found: a part with infinitely many (``floor``, ``Mod``), an argument that is
    itself not analytic, more than 8, or a zero sympy cannot state exactly."""
    sp = load_sympy()
    zeros_of: list[Any] = []
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, _non_analytic_types()):
            continue
        if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)):
            args = [node.args[0]]
        elif isinstance(node, (sp.Max, sp.Min)):
            args = [a - b for i, a in enumerate(node.args) for b in node.args[i + 1 :]]
        elif isinstance(node, sp.Piecewise):
            conditions = [c for _, c in node.args if c not in (sp.true, sp.false)]
            if not all(isinstance(c, sp.core.relational.Relational) for c in conditions):
                return None
            args = [c.lhs - c.rhs for c in conditions] + [e for e, _ in node.args]
        else:
            return None
        if not all(analytic(a) for a in args):
            return None
        zeros_of.extend(a for a in args if a.has(symbol))
    points: set[Any] = set()
    for arg in zeros_of:
        zeros = sp.solveset(arg, symbol, domain=sp.S.Reals)
        if not isinstance(zeros, sp.FiniteSet):
            return None
        points.update(zeros)
        if len(points) > _MAX_BREAKPOINTS or not all(z.is_real and z.is_number for z in points):
            return None
    return sorted(points, key=float)


def piecewise_check(gold: Any, pred: Any, symbols: list[Any]) -> IdentityVerdict | None:
    """The piecewise ground of the module docstring: agreement at every breakpoint of either side and at points
    inside every piece; None when the breakpoints cannot all be found (then only a proof could say)."""
    sp = load_sympy()
    if len(symbols) != 1:
        return None
    [symbol] = symbols
    try:
        found = [breakpoints(side, symbol) for side in (gold, pred)]
    except (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError, NotImplementedError):
        return None
    if found[0] is None or found[1] is None:
        return None
    edges = sorted(set(found[0]) | set(found[1]), key=float)
    floats = [float(z) for z in edges]
    rng = random.Random(20250805)  # fixed, as _points: the same answer gets the same verdict everywhere
    points = [{symbol: z} for z in edges]
    per_piece = _PER_PIECE if edges else _MIN_DEFINED
    for low, high in zip([None, *floats], [*floats, None]):
        for _ in range(per_piece):
            u = rng.uniform(0.05, 0.95)
            if low is None and high is None:
                x = rng.uniform(-4.0, 4.0)
            elif low is None:
                x = high - 1.0 - 10.0 * u
            elif high is None:
                x = low + 1.0 + 10.0 * u
            else:
                x = low + (high - low) * u
            points.append({symbol: sp.Float(x, _DIGITS)})
    verdict, _ = numeric_check(gold, pred, symbols, points=points)
    if verdict is None or not verdict.equal:
        return verdict
    named = ", ".join(str(z) for z in edges) or "none"
    return IdentityVerdict(True, f"piecewise: equal at the breakpoints ({named}) and inside every piece")


def changed_value(gold: Any, pred: Any) -> bool:
    """True when ``pred`` is not ``gold``'s value although math-verify said they match: math-verify compares
    numbers at 15 digits, so ``\\pi^2 + 10^{-30}`` matches ``\\pi^2`` and ``\\frac{1}{x} + 10^{-40}`` matches
    ``\\frac{1}{x}``. With no decimal on either side (a decimal is its own rounding, and math-verify's tolerance
    is the policy for it), equal means equal: a difference within math-verify's reach (at most 1e-6 relative) that
    is not 0 is a changed value, whether it is exact (a nonzero rational), evaluates above the stage's tolerance,
    or could hide below it (:func:`hides_a_perturbation`) where sympy cannot prove it 0. A larger difference means
    math-verify matched the two by a rule of its own (a percentage and its number, a name and a constant): its
    verdict stands. Tuples and intervals are compared element by element in order, sets element by element in
    any order, ``x = value`` by its value. False when this cannot say (the caller keeps math-verify's verdict)."""
    sp = load_sympy()
    containers = (sp.Tuple, sp.FiniteSet, sp.Interval, sp.Eq)
    if isinstance(gold, containers) or isinstance(pred, containers):
        return _changed_parts(gold, pred)
    if not (isinstance(gold, sp.Expr) and isinstance(pred, sp.Expr)) or isinstance(gold, sp.MatrixBase) \
            or isinstance(pred, sp.MatrixBase):
        return False
    if gold.atoms(sp.Float) or pred.atoms(sp.Float):
        return False
    gold, pred = (e.doit() if e.has(sp.UnevaluatedExpr) else e for e in (gold, pred))  # 28\% is 28 (1/100), held
    if {s.name for s in gold.free_symbols} != {s.name for s in pred.free_symbols}:
        return False  # math-verify matched other variables or a name by text: not a value it rounded
    difference = gold - pred
    if difference.is_Rational:  # exact numbers: a nonzero difference within math-verify's reach is a change
        return difference != 0 and _within_reach(gold, pred, {})
    if not (comparable(gold) and comparable(pred)):
        return False
    gold, pred, symbols = _as_real(gold, pred)
    difference = sp.expand(gold - pred)  # a parse keeps forms unevaluated: sin(30 pi / 180) is 1/2 only now
    if difference == 0:
        return False
    if difference.is_Rational:
        return _within_reach(gold, pred, {})
    verdict, defined = numeric_check(gold, pred, symbols)
    if verdict is not None and not verdict.equal:
        points = _points(symbols) if symbols else [{}]
        return all(_within_reach(gold, pred, point) for point in points)
    try:
        if proved_equal(gold, pred):
            return False
    except (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError, NotImplementedError):
        pass
    return hides_a_perturbation(gold, pred, defined) or hides_a_perturbation(pred, gold, defined)


_REACH = 1e-6  # math-verify's numeric match: 15 digits, or 6 after rounding; past this it matched by another rule


def _within_reach(gold: Any, pred: Any, point: dict[Any, Any]) -> bool:
    """At ``point``, the two differ by at most 1e-6 relative (or one of them is not a finite real there)."""
    g, p = _real_value(gold, point), _real_value(pred, point)
    if not (_is_real(g) and _is_real(p)):
        return True
    assert g is not None and p is not None
    return abs(g.real - p.real) <= _REACH * max(1.0, abs(g.real), abs(p.real))


def _changed_parts(gold: Any, pred: Any) -> bool:
    sp = load_sympy()
    if type(gold) is not type(pred):
        return False
    if isinstance(gold, sp.Interval):
        return gold.left_open != pred.left_open or gold.right_open != pred.right_open or \
            changed_value(gold.start, pred.start) or changed_value(gold.end, pred.end)
    if isinstance(gold, sp.Eq):  # "x = value": the value; rearranged equations are math-verify's to match
        return gold.lhs == pred.lhs and isinstance(gold.lhs, sp.Symbol) and changed_value(gold.rhs, pred.rhs)
    gold_parts, pred_parts = list(gold.args), list(pred.args)
    if len(gold_parts) != len(pred_parts):
        return False
    if isinstance(gold, sp.Tuple):
        return any(changed_value(g, p) for g, p in zip(gold_parts, pred_parts))
    unpaired = list(gold_parts)  # a set: each element of the answer must be one of the reference's, unchanged
    for p in pred_parts:
        match = next((g for g in unpaired if not changed_value(g, p) and _plausibly_same(g, p)), None)
        if match is None:
            return True
        unpaired.remove(match)
    return False


def _plausibly_same(gold: Any, pred: Any) -> bool:
    """Two set elements that may be the same value (checked by numbers where both are numbers): pairing a set's
    elements needs the equal one, not merely one that :func:`changed_value` cannot tell apart."""
    sp = load_sympy()
    if gold == pred:
        return True
    if isinstance(gold, sp.Expr) and isinstance(pred, sp.Expr) and not (gold.free_symbols or pred.free_symbols):
        g, p = _real_value(gold, {}), _real_value(pred, {})
        if _is_real(g) and _is_real(p):
            assert g is not None and p is not None
            return abs(g.real - p.real) <= 1e-6 * max(1.0, abs(g.real), abs(p.real))  # math-verify's own pairing
    return True
