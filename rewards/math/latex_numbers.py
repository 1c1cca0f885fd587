"""Integer literals for latex2sympy without sympy's expression parser.

latex2sympy makes each number it reads with ``sympy.Number(text)``, which for a string runs sympy's whole
expression parser (tokenize, transform, evaluate): 0.18 ms a literal, about a tenth of a rule-reward worker's
parse time. For a string of ASCII digits that is ``Integer(int(text))``, which :func:`use_direct_integers` makes
directly; anything else (decimals, other digits, strings past Python's limit on int-from-string conversion) goes
the original way. The rule reward's worker initializer installs it, never an import.
"""

from __future__ import annotations

from typing import Any

_INSTALLED_MARK = "_direct_integers"
_MAX_DIGITS = 4000  # below Python's default limit on converting a string to an int (4,300 digits)


def use_direct_integers() -> None:
    """Make latex2sympy build integer literals directly in this process (idempotent)."""
    import sympy
    from latex2sympy2_extended.latex2sympy2 import _Latex2Sympy

    if getattr(_Latex2Sympy.parse_number, _INSTALLED_MARK, False):
        return
    parse_with_sympy = _Latex2Sympy.parse_number

    def parse_number(self: Any, text: str) -> Any:
        digits = text.replace(",", "")  # as latex2sympy reads "1,000"
        if digits.isascii() and digits.isdigit() and len(digits) <= _MAX_DIGITS:
            return sympy.Integer(int(digits))
        return parse_with_sympy(self, text)

    setattr(parse_number, _INSTALLED_MARK, True)
    _Latex2Sympy.parse_number = parse_number
