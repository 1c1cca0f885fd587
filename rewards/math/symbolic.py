"""The symbolic step of grading: math-verify's parse and verify, with every numeric evaluation bounded.

Runs only in the rule reward's worker processes (it imports sympy, and math-verify's timeouts are
``signal.alarm``, which works only in a main thread). Two things here keep a hostile input from hanging or
crashing the worker before the pool's hard deadline has to kill it:

- a parsed prediction is valued by walking its sympy tree with the bounded arithmetic of
  :mod:`rewards.math.numeric` (exact rationals, sizes for towers): ``9^{9^{9^9}}`` is found to be astronomically
  larger than 4 by its logarithm, without sympy ever computing it;
- sympy's ``evalf`` is called only on trees whose every power, factorial and literal is small, and under
  math-verify's alarm, whose ``TimeoutException`` is caught here.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

from rewards.math.identities import changed_value, differ, same_function
from rewards.math.numeric import Number, approx_number
from rewards.math.sympy_values import evaluation_is_bounded, load_sympy, sympy_number

_UNDECIDED = object()  # what _under_alarm returns when math-verify's alarm fires or sympy cannot say
# What sympy raises on a parse it cannot evaluate or rebuild; the stages that meet it say nothing, the item goes on
_SYMPY_REFUSALS = (TypeError, ValueError, ArithmeticError, RecursionError, AttributeError, NotImplementedError)


def _with_unit(item: Any, unit: dict[Any, Any]) -> Any:
    """``item`` with ``i`` as the imaginary unit. An open interval whose ends become complex (``(3/2, 1 + 2i)``,
    read by the parser as an interval) is the pair it writes: sympy has no interval with complex ends. Left as
    it is when even that cannot be built."""
    sp = load_sympy()
    try:
        return item.xreplace(unit)
    except (TypeError, ValueError):
        pass
    try:
        pairs = item.replace(lambda e: isinstance(e, sp.Interval), lambda e: sp.Tuple(e.start, e.end))
        return pairs.xreplace(unit)
    except (TypeError, ValueError, AttributeError):
        return item


class SymbolicComparer:
    """math-verify's ``parse`` and ``verify`` with a bounded cache of parsed references, so each distinct
    reference is parsed once per process however many rollouts share it."""

    def __init__(self, *, timeout_s: int, float_rounding: int, numeric_precision: int, strict: bool,
                 cache_size: int) -> None:
        import math_verify  # sympy and ANTLR: a second to import, paid once per worker

        self._mv = math_verify
        self.timeout_s = timeout_s
        self.float_rounding = float_rounding
        self.numeric_precision = numeric_precision
        self.strict = strict
        self.cache_size = cache_size
        self._gold: OrderedDict[str, list[Any]] = OrderedDict()

    def parse(self, text: str) -> list[Any]:
        return self._mv.parse(text, parsing_timeout=self.timeout_s)

    def parse_gold(self, gold: str) -> list[Any]:
        cached = self._gold.get(gold)
        if cached is not None:
            self._gold.move_to_end(gold)
            return cached
        parsed = self.parse(gold)
        self._gold[gold] = parsed
        if len(self._gold) > self.cache_size:
            self._gold.popitem(last=False)
        return parsed

    def verify(self, gold_parsed: list[Any], pred_parsed: list[Any]) -> bool:
        return bool(
            self._mv.verify(
                gold_parsed, pred_parsed, float_rounding=self.float_rounding,
                numeric_precision=self.numeric_precision, strict=self.strict, timeout_seconds=self.timeout_s,
            )
        )

    def value(self, parsed: list[Any]) -> tuple[Number | None, bool]:
        """(the numeric value of a parsed prediction, whether it has free symbols). The value is computed by
        :func:`sympy_number`, else by ``evalf`` when that is bounded; None when neither can say."""
        if not parsed:
            return None, False
        sp = load_sympy()
        expr = parsed[0]
        if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
            return None, False
        if expr.free_symbols:
            return None, True
        number = sympy_number(expr)
        if number is not None or not evaluation_is_bounded(expr):
            return number, False
        try:
            result = self._under_alarm(expr.evalf, 30)
            if result is _UNDECIDED:
                return None, False
            if isinstance(result, sp.Float) and result._prec <= 1:
                # evalf found no significant digit: the value is zero to its working accuracy (tan(pi) prints as
                # -0.e-152). Read as a float it would be a tiny number of either sign, never equal to 0.
                return approx_number(0.0), False
            value = complex(result)
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return None, False
        if value.imag != 0 or not math.isfinite(value.real):
            return None, False
        return approx_number(value.real), False

    @staticmethod
    def with_imaginary_unit(parsed: list[Any]) -> list[Any]:
        """A parse with the symbol ``i`` replaced by sympy's imaginary unit (its text kept): math-verify's parser
        reads only a capital ``I`` so."""
        sp = load_sympy()
        out = []
        for item in parsed:
            if isinstance(item, sp.Basic):
                unit = {s: sp.I for s in item.free_symbols if isinstance(s, sp.Symbol) and s.name == "i"}
                if unit:
                    item = _with_unit(item, unit)
            out.append(item)
        return out

    def differ(self, gold_parsed: list[Any], pred_parsed: list[Any]) -> bool:
        """:func:`rewards.math.identities.differ` on the first parse of each, under math-verify's alarm (False
        when it fires). Only a parse of one expression and its text is judged: ``verify`` accepts any pair that
        matches, and equal texts (``\\text{odd}`` for ``odd``) match whatever their expressions."""
        if len(gold_parsed) != 2 or len(pred_parsed) != 2:
            return False
        gold_text, pred_text = gold_parsed[1], pred_parsed[1]
        if not isinstance(gold_text, str) or not isinstance(pred_text, str) or gold_text.strip() == pred_text.strip():
            return False
        return self._under_alarm(differ, gold_parsed[0], pred_parsed[0]) is True

    def same_function(self, gold_parsed: list[Any], pred_parsed: list[Any]) -> Any:
        """The identity stage (:mod:`rewards.math.identities`) on the first parse of each, under math-verify's alarm:
        an :class:`~rewards.math.identities.IdentityVerdict`, or None when it cannot say in time."""
        if not gold_parsed or not pred_parsed:
            return None
        verdict = self._under_alarm(same_function, gold_parsed[0], pred_parsed[0])
        return None if verdict is _UNDECIDED else verdict

    def changed_value(self, gold_parsed: list[Any], pred_parsed: list[Any]) -> bool:
        """:func:`rewards.math.identities.changed_value` on the first parse of each, under math-verify's alarm
        (False when it fires: math-verify's verdict stands)."""
        if not gold_parsed or not pred_parsed:
            return False
        return self._under_alarm(changed_value, gold_parsed[0], pred_parsed[0]) is True

    def _under_alarm(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` under math-verify's alarm, or ``_UNDECIDED`` when it fires (math-verify's
        ``TimeoutException`` is a BaseException: no ``except Exception`` around it would stop it) or when sympy
        refuses the expression (a ``ValueError`` rebuilding ``max(x, {4})`` with real variables)."""
        from math_verify.errors import TimeoutException
        from math_verify.utils import timeout

        try:
            return timeout(timeout_seconds=self.timeout_s)(fn)(*args)
        except TimeoutException:
            return _UNDECIDED
        except _SYMPY_REFUSALS:  # sympy will not build the expression (max(x, {4}): "not comparable"): cannot say
            return _UNDECIDED
