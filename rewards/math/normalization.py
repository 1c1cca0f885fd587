"""Rewriting an extracted answer into the LaTeX the comparison reads: notations that mean the same number.

Each rewrite closes a published family of false negatives, the answers that rule verifiers reject although
they are right (TinyV, arXiv 2505.14625, its taxonomy and HardVerify-Math; math-verify issues on unicode and
plain-text input):

- unicode superscripts and subscripts (``x²``, ``2¹⁰``, ``a₁``) and full-width digits and signs (``１２３４``);
- unicode math signs (``√3``, ``π``, ``∞``, ``×``, ``−``, ``≤``, ``°``);
- plain-text functions (``sqrt(3)/2``, ``4pi``, ``cbrt(8)``);
- a number wrapped in text (``\\text{13}``, ``\\textbf{13}``), or after a currency sign (``\\$1596``);
- spaces between a command and its argument (``\\text {square inches}``, ``\\frac {1}{2}``), and runs of spaces;
- a column (or row) vector for the same tuple (``\\begin{pmatrix}1\\\\2\\end{pmatrix}`` = ``(1, 2)``).

Look-alike letters and digits of other scripts (Cyrillic ``С``, Arabic-Indic ``١٢``, circled ``⑤``) are left as
they are: they are not the answer's characters, and a verifier must not read them as such. Every function here
is linear in its input.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rewards.math.numeric import split_top_level

_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", "0123456789+-=()ni"))
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", "0123456789+-=()"))
_SUPERSCRIPT_RUN = re.compile(f"[{''.join(_SUPERSCRIPTS)}]+")
_SUBSCRIPT_RUN = re.compile(f"[{''.join(_SUBSCRIPTS)}]+")
_SYMBOLS = {
    "π": "\\pi ", "∞": "\\infty ", "×": "\\times ", "·": "\\cdot ", "⋅": "\\cdot ", "÷": "\\div ", "−": "-",
    "–": "-", "≤": "\\le ", "≥": "\\ge ", "≠": "\\ne ", "°": "^\\circ", "∪": "\\cup ", "∩": "\\cap ",
    "\u3000": " ", "±": "\\pm ", "∀": "\\forall ", "∃": "\\exists ",
}
_SQRT_SIGN = re.compile(r"√\s*(\(|\{|\d+(?:\.\d+)?|[A-Za-z]|\\pi)")
_FULL_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}


# HTML as references scraped from web pages write math: superscripts and subscripts as tags, signs as entities.
_HTML_SCRIPT = re.compile(r"<(sup|sub)>(.*?)</\1>", re.I | re.S)
_HTML_ENTITY = re.compile(r"&(?:[A-Za-z]{2,8}|#\d{2,5}|#x[0-9A-Fa-f]{2,4});")


def html_to_latex(text: str) -> str:
    """``2<sup>x</sup>≥x<sup>2</sup>`` as ``2^{x}≥x^{2}`` and ``x &gt; 0`` as ``x > 0``: markup read as what it
    writes. Read away, ``x<sup>2</sup>`` became ``x`` and a reference's exponent was lost (an answer with ``x``
    for ``x^2`` was paid). Text without tags or entities is returned as it is."""
    if "<" not in text and "&" not in text:
        return text
    from html import unescape

    text = _HTML_SCRIPT.sub(lambda m: ("^{" if m.group(1).lower() == "sup" else "_{") + m.group(2) + "}", text)
    return _HTML_ENTITY.sub(lambda m: unescape(m.group(0)), text)


def unicode_to_latex(text: str) -> str:
    """Full-width ASCII to ASCII, superscript and subscript runs to ``^{...}`` / ``_{...}``, math signs to
    their LaTeX commands."""
    if text.isascii():
        return text
    text = text.translate(_FULL_WIDTH)
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^{" + "".join(_SUPERSCRIPTS[c] for c in m.group(0)) + "}", text)
    text = _SUBSCRIPT_RUN.sub(lambda m: "_{" + "".join(_SUBSCRIPTS[c] for c in m.group(0)) + "}", text)
    text = _SQRT_SIGN.sub(_sqrt_sign, text)
    for sign, latex in _SYMBOLS.items():
        if sign in text:
            text = text.replace(sign, latex)
    return text


def _sqrt_sign(m: re.Match[str]) -> str:
    arg = m.group(1)
    if arg in "({":  # √(x+1): the parenthesised group becomes the argument (plain_functions balances it)
        return "sqrt" + arg
    return "\\sqrt{" + arg + "}"


# sqrt(...), cbrt(...) with a balanced argument; pi and the elementary functions written as words.
_PLAIN_ROOT = re.compile(r"(?<![A-Za-z\\])(sqrt|cbrt)\s*(?=[({])")
_PLAIN_PI = re.compile(r"(?<![A-Za-z\\])pi(?![A-Za-z])")
_PLAIN_FUNCTION = re.compile(
    r"(?<![A-Za-z\\])(arcsin|arccos|arctan|arcsec|arccsc|arccot|asinh|acosh|atanh|asin|acos|atan|sinh|cosh|tanh|coth"
    r"|ln|log|sin|cos|tan|sec|csc|cot|exp)(?=\s*(?:\^\s*(?:\d|\{\d+\})\s*)?\()"  # sin(x), sin^2(x)
)
# the C and Python names of the inverses
_PROGRAM_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arsinh", "acosh": "arcosh",
                  "atanh": "artanh"}
_PLAIN_ABS = re.compile(r"(?<![A-Za-z\\])abs\s*(?=\()")


def plain_functions(text: str) -> str:
    """``sqrt(3)/2`` -> ``\\sqrt{3}/2``, ``4pi`` -> ``4\\pi``, ``cbrt(8)`` -> ``\\sqrt[3]{8}``, ``ln(2)`` -> ``\\ln(2)``,
    ``arccos(1/2)`` and ``acos(1/2)`` -> ``\\arccos(1/2)``, ``asinh(x)`` -> ``\\arsinh(x)``, ``sec(x)`` -> ``\\sec(x)``,
    ``sin^2(x)`` -> ``\\sin^2(x)``, ``abs(x - 1)`` -> ``\\left|x - 1\\right|``."""
    if "sqrt" not in text and "cbrt" not in text and "pi" not in text and "(" not in text:
        return text
    text = _balanced_calls(text, _PLAIN_ROOT, lambda name, inner: ("\\sqrt{" if name == "sqrt" else "\\sqrt[3]{")
                           + inner + "}")
    text = _balanced_calls(text, _PLAIN_ABS, lambda name, inner: "\\left|" + inner + "\\right|")
    text = _PLAIN_PI.sub(r"\\pi ", text)
    return _PLAIN_FUNCTION.sub(lambda m: "\\" + _PROGRAM_NAMES.get(m.group(1), m.group(1)), text)


def _balanced_calls(text: str, pattern: re.Pattern[str], write: Callable[[str, str], str]) -> str:
    """Each call ``name(...)`` that ``pattern`` finds, with a balanced argument, rewritten by ``write(name, inner)``
    (the argument's own plain functions rewritten first)."""
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(text):
        if m.start() < pos:
            continue
        open_at = m.end()
        close = _matching(text, open_at)
        if close is None:
            continue
        out.append(text[pos : m.start()])
        out.append(write(m.group(0).strip(), plain_functions(text[open_at + 1 : close])))
        pos = close + 1
    return "".join(out) + text[pos:]


def _matching(text: str, open_at: int) -> int | None:
    pairs = {"(": ")", "{": "}"}
    opener = text[open_at]
    closer = pairs[opener]
    depth = 0
    for i in range(open_at, min(len(text), open_at + 2000)):
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
            if depth == 0:
                return i
    return None


_TEXT_NUMBER = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textit|mbox)\s*\{\s*([-+]?[\d.,]+)\s*\}")


def unwrap_text_numbers(text: str) -> str:
    """``\\text{13}`` -> ``13``: a number set in text is the number."""
    return _TEXT_NUMBER.sub(r"\1", text) if "\\" in text else text


_MATRIX = re.compile(r"\\begin\{([pbBvV]?matrix|array)\}(?:\{[^{}]*\})?(.*?)\\end\{\1\}", re.S)


def vector_to_tuple(text: str) -> str:
    """A single-column or single-row ``pmatrix``/``bmatrix`` -> ``(a, b, c)``; real matrices are left alone.
    (``vmatrix`` is a determinant, not a vector, and is not rewritten.)"""
    if "\\begin" not in text:
        return text

    def rewrite(m: re.Match[str]) -> str:
        if m.group(1) in ("vmatrix", "Vmatrix"):
            return m.group(0)
        rows = [r.strip() for r in re.split(r"\\\\(?:\[[^\]]*\])?", m.group(2)) if r.strip()]
        cells = [[c.strip() for c in r.split("&")] for r in rows]
        if len(cells) > 1 and all(len(r) == 1 for r in cells):
            return "(" + ", ".join(r[0] for r in cells) + ")"
        if len(cells) == 1 and len(cells[0]) > 1:
            return "(" + ", ".join(cells[0]) + ")"
        return m.group(0)

    whole = _MATRIX.fullmatch(text.strip())
    return rewrite(whole) if whole else text


_CURRENCY = re.compile(r"\\\$\s*(?=[-+]?\.?\d)|(?<![\w$])[€£¥](?=\s*\d)")


def drop_currency(text: str) -> str:
    """``\\$1596`` -> ``1596``: an escaped dollar sign (or a euro, pound, yen sign) before a number is its unit."""
    return _CURRENCY.sub("", text) if ("\\$" in text or not text.isascii()) else text


# Possessive: a command followed by spaces and no brace gives the spaces back at once, never letter by letter.
_COMMAND_SPACE = re.compile(r"(\\[A-Za-z]++)\s++(?=\{)")


def tight_commands(text: str) -> str:
    """``\\text {square inches}`` -> ``\\text{square inches}``: TeX skips the spaces after a command's name, so
    they are not part of the answer; math-verify's rules for units and text look for the command and its brace
    together, and left ``8\\sqrt{3} \\text { square inches}`` unequal to ``8\\sqrt{3}`` (a ProcessBench reference)."""
    return _COMMAND_SPACE.sub(r"\1", text) if "\\" in text else text


_WHITESPACE_RUN = re.compile(r"\s{2,}")


def single_spaces(text: str) -> str:
    """Each run of whitespace as one space, or one newline if it holds one: spacing is not part of an answer, and
    a long run is what makes a pattern that tries every position of it slow (a unit's ``\\s*`` before its sign
    tried from every one of 20,000 spaces cost 20 s, in the calling process, where no deadline applies)."""
    return _WHITESPACE_RUN.sub(lambda m: "\n" if "\n" in m.group() else " ", text)


_PLUS_MINUS = re.compile(r"\\(pm|mp)(?![A-Za-z])")
_PARENTHESISED = re.compile(r"\s*(?:\\left\s*)?\((.*?)(?:\\right\s*)?\)\s*", re.S)
_MAX_ELEMENTS = 16


def tuples_with_plus_minus(answer: str) -> str:
    """``(2,5), (\\frac{3}{2}, 1 \\pm 2i)`` -> ``(2,5), (\\frac{3}{2}, 1 + 2i), (\\frac{3}{2}, 1 - 2i)``: a tuple
    with one ``\\pm`` in it stands for two tuples (math-verify reads it as one tuple of three elements). A tuple
    with several is left as it is: whether their signs go together is not written."""
    if "\\pm" not in answer and "\\mp" not in answer:
        return answer
    parts = split_top_level(answer)
    if parts is None or len(parts) > _MAX_ELEMENTS:
        return answer
    out: list[str] = []
    for part in parts:
        m = _PARENTHESISED.fullmatch(part)
        inner = split_top_level(m.group(1)) if m else None
        if m is None or inner is None or len(inner) < 2 or len(_PLUS_MINUS.findall(m.group(1))) != 1:
            out.append(part.strip())
            continue
        for plus, minus in (("+", "-"), ("-", "+")):
            out.append(_PLUS_MINUS.sub(lambda s: plus if s.group(1) == "pm" else minus, part).strip())
    return ", ".join(out) if len(out) > len(parts) else answer


# An answer that opens with an equals sign ("= 1 - \csc\theta\cot\theta", the end of a chain of equalities): what
# it states is what follows the sign. Left in, math-verify read "= 1 - ..." as 1 and paid the reference 1.
_LEADING_EQUALS = re.compile(r"\s*=\s*(?!=)")
# the same inside prose: a math span that opens with the sign ("the expression $= 1 - x$")
_SPAN_OPENING_EQUALS = re.compile(r"(\$\$?|\\\(|\\\[)\s*=\s*(?![=$])")


def after_leading_equals(answer: str) -> str:
    """``answer`` without a leading ``=`` (``= 1 - x`` is ``1 - x``), and each math span of it without one
    (``the expression $= 1 - x$``); anything else unchanged."""
    m = _LEADING_EQUALS.match(answer)
    if m and m.end() < len(answer):
        answer = answer[m.end():]
    if "=" not in answer:
        return answer

    def opening(m: re.Match[str]) -> str:  # a "$" after an odd number of "$" closes a span: left as it is
        dollars = len(re.findall(r"(?<!\\)\$", answer[: m.start()]))
        return m.group(1) if not m.group(1).startswith("$") or dollars % 2 == 0 else m.group(0)

    return _SPAN_OPENING_EQUALS.sub(opening, answer)


_SIDE_BY_SIDE_TUPLES = re.compile(r"\s*+(?:\((?=[^()]*,)[^()]++\)\s*+){2,20}")  # possessive: one pass


def tuples_side_by_side(answer: str) -> str:
    """``(2, 3)(2, 7)`` -> ``(2, 3), (2, 7)``: pairs written one after another without a comma are a list of pairs
    (as solutions of a system are listed), not a product of vectors."""
    if ")(" not in answer.replace(" ", "") or len(answer) > 2000 or _SIDE_BY_SIDE_TUPLES.fullmatch(answer) is None:
        return answer
    return re.sub(r"\)\s*\(", "), (", answer.strip())


# Functions stated in prose, as functional-equation answers are: "All solutions are the zero function and
# f(x) = x + 1", "the identity function", "f(x) = x or f(x) = -x".
_DEFINED = r"([A-Za-z])\s*\(\s*([a-z])\s*\)\s*=\s*([^,;=]+?)"
_FUNCTION_PIECE = re.compile(rf"(?i:(?:the\s+)?(zero|identity)\s+function)"
                             rf"|{_DEFINED}(?=\s*(?:,|;|\.(?!\d)|\band\b|\bor\b|$))")
_FUNCTION_PROSE = re.compile(r"(?i)\s*(?:all|the|only|solutions?|functions?|are|is|and|or|namely|given|by|[,;:.])\s*")
_NAMED_FUNCTIONS = {"zero": "0", "identity": "{x}"}


def functions_in_prose(answer: str) -> str:
    """``All solutions are the zero function and f(x) = x + 1`` -> ``f(x) = 0, f(x) = x + 1``: functions stated in
    prose, each definition or named function (the zero function, the identity) joined into the list of them, in
    the letters the answer uses (``f`` and ``x`` where it names none). Anything else comes back as it is: an answer
    is rewritten only when nothing but these words is left around its functions."""
    if len(answer) > 500 or "function" not in answer.lower() and " and " not in answer and " or " not in answer:
        return answer
    pieces = list(_FUNCTION_PIECE.finditer(answer))
    if not pieces or (len(pieces) == 1 and pieces[0].group(1) is None):
        return answer
    rest, last = [], 0
    for m in pieces:
        rest.append(answer[last : m.start()])
        last = m.end()
    rest.append(answer[last:])
    if any(_FUNCTION_PROSE.sub("", part) for part in rest):
        return answer
    defined = [m for m in pieces if m.group(1) is None]
    name, variable = (defined[0].group(2), defined[0].group(3)) if defined else ("f", "x")
    out = []
    for m in pieces:
        if m.group(1) is not None:
            out.append(f"{name}({variable}) = {_NAMED_FUNCTIONS[m.group(1).lower()].format(x=variable)}")
        else:
            out.append(f"{m.group(2)}({m.group(3)}) = {m.group(4).strip()}")
    return ", ".join(out)


def normalize_answer(answer: str) -> str:
    """All of the rewrites above, in order; an answer that needs none comes back unchanged."""
    text = plain_functions(unicode_to_latex(html_to_latex(drop_currency(tight_commands(single_spaces(
        after_leading_equals(answer)))))))
    return functions_in_prose(tuples_with_plus_minus(tuples_side_by_side(vector_to_tuple(
        unwrap_text_numbers(text)).strip())))


# A function defined by a formula in one variable: "g(x) = 3x - 1", "f(t)=t^2+1".
_DEFINITION = re.compile(r"\s*([A-Za-z])\s*\(\s*([A-Za-z])\s*\)\s*=\s*(.+)", re.S)
# y given explicitly by a formula without y in it: the graph of a function of one variable.
_GRAPH = re.compile(r"\s*y\s*=\s*(?!=)((?:(?![=<>]|\\[lg]e|(?<![A-Za-z\\])y(?![A-Za-z])).)+)", re.S)


def in_reference_variable(reference: str, answer: str) -> str:
    """``answer`` with its function's variable renamed to the reference's when both define the same function by
    a formula (``g(t) = 3t - 1`` for ``g(x) = 3x - 1`` becomes ``g(x) = 3x - 1``): the name of a bound variable is
    not part of the answer. Only a lone letter is renamed, never one inside a command (``\\sqrt``, ``\\tan``) or
    a word; an answer that already uses the reference's letter elsewhere is left as it is (renaming would
    merge two variables). A function's graph ``y = 2x + 3`` against ``f(x) = 2x + 3`` (either way round) is
    written in the reference's form, as its bare formula already compares (MARIO_EVAL's is_equiv tests)."""
    gold, pred = _DEFINITION.fullmatch(reference), _DEFINITION.fullmatch(answer)
    if gold is not None and pred is None:  # y = 2x + 3 for f(x) = 2x + 3: the function's graph, named otherwise
        graph = _GRAPH.fullmatch(answer)
        return answer if graph is None else f"{gold.group(1)}({gold.group(2)}) = {graph.group(1)}"
    if gold is None and pred is not None:  # and f(x) = 2x + 3 for y = 2x + 3
        graph = _GRAPH.fullmatch(reference)
        return answer if graph is None else f"y = {pred.group(3)}"
    if gold is None or pred is None or gold.group(1) != pred.group(1) or gold.group(2) == pred.group(2):
        return answer
    old, new = pred.group(2), gold.group(2)
    lone = re.compile(rf"(?<![A-Za-z\\]){old}(?![A-Za-z])")
    if re.search(rf"(?<![A-Za-z\\]){new}(?![A-Za-z])", pred.group(3)):
        return answer
    return f"{pred.group(1)}({new}) = {lone.sub(new, pred.group(3))}"


_BARE_LOG = re.compile(r"\\log(?![A-Za-z_])")  # \log without a base: \log_2 and \log_{10} name theirs
_LN = re.compile(r"\\ln(?![A-Za-z])")


def natural_log_as_written(reference: str, answer: str) -> tuple[str, str]:
    """The reference and the answer with a bare ``\\log`` read as ``\\ln`` where the other side writes ``\\ln``
    and neither side writes both: ``\\log \\frac{4}{3}`` for ``\\ln \\frac{4}{3}``, as analysis and olympiad
    solutions use ``\\log`` for the natural logarithm (math-verify reads a bare ``\\log`` as base 10, and refused
    it). A side that writes both means two functions; a ``\\log`` with a base is never renamed."""
    if "\\l" not in reference or "\\l" not in answer:
        return reference, answer
    gold_log, gold_ln = _BARE_LOG.search(reference), _LN.search(reference)
    log, ln = _BARE_LOG.search(answer), _LN.search(answer)
    if log and not ln and gold_ln and not gold_log:
        return reference, _BARE_LOG.sub(r"\\ln", answer)
    if gold_log and not gold_ln and ln and not log:
        return _BARE_LOG.sub(r"\\ln", reference), answer
    return reference, answer


# A constant of integration written last: "+ C", "+ c", "+ K", "+ C_1", "+ \\text{C}", "+ \\mathcal{C}".
_VARIABLE = re.compile(r"(?<![A-Za-z])[a-z](?![A-Za-z])")  # x, t, u: what an antiderivative is a function of
_INTEGRATION_CONSTANT = re.compile(r"\s*\+\s*(?:\\(?:text|mathrm|mathcal)\s*\{\s*([CcK])\s*\}"
                                   r"|([CcK])(?:_\{?\d\}?)?)\s*$")


def without_integration_constant(reference: str, answer: str) -> tuple[str, str]:
    """The reference and the answer without a constant of integration that only one side writes, last and
    added (``x^2 - x^3/3 + C`` for ``-\\frac{x^3}{3} + x^2``): an antiderivative stated with its constant is the one
    without it. Only where both sides are functions of a variable (a lower-case letter: ``A + B + C`` against
    ``A + B`` is a sum of three) and the constant's letter appears nowhere else on either side (``Cx + C``). Two
    antiderivatives that differ by another constant are not matched here."""
    found = _INTEGRATION_CONSTANT.search(answer), _INTEGRATION_CONSTANT.search(reference)
    if (found[0] is None) == (found[1] is None):
        return reference, answer
    m = found[0] or found[1]
    assert m is not None
    letter = m.group(1) or m.group(2)
    stripped = (answer if found[0] is None else answer[: m.start()],
                reference if found[1] is None else reference[: m.start()])
    if not stripped[0].strip() or not stripped[1].strip():
        return reference, answer
    bare = [_LATEX_COMMAND.sub(" ", side) for side in stripped]
    if any(letter in side or not _VARIABLE.search(side) for side in bare):
        return reference, answer  # the letter used elsewhere, or no function of a variable: not a constant added
    return stripped[1], stripped[0]


_COMPLEX_QUESTION = re.compile(r"(?i)\bcomplex\b|\bimaginary\b|\bi\s*\^\s*\{?\s*2\s*\}?\s*=\s*-\s*1")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_LETTER = re.compile(r"[A-Za-z]")
# i as an index or a variable, not a number: a subscript, a bound of a sum or product, i = 1, a power of i (a
# complex number is written with its powers of i worked out)
_INDEX = re.compile(r"_\s*\{?\s*i\b|\\(?:sum|prod)|(?<![A-Za-z])i\s*(?:=|\^)")


def imaginary_unit(question: str, reference: str) -> bool:
    """Whether the letter ``i`` is the imaginary unit in this item's answers: when the question speaks of complex
    or imaginary numbers (or says i^2 = -1), or when ``i`` is the reference's only letter, to the first power and
    no index (``1+2i``, ``3i, -3i``, ``\\frac{i}{5}``; not ``a_i``, ``\\sum_{i=1}^n i`` or ``i^2 + 1``). Then
    ``i(2-i)`` is ``1+2i`` (MARIO_EVAL's is_equiv tests); otherwise ``i`` is a variable like any other letter."""
    if _COMPLEX_QUESTION.search(question):
        return True
    letters = set(_LETTER.findall(_LATEX_COMMAND.sub(" ", reference)))
    return letters == {"i"} and _INDEX.search(reference) is None
