"""Final answers inside solutions: the contents of ``\\boxed{}`` and GSM8K's ``#### n``. Pure string code, linear in
the input, shared by the suites that read benchmark files, the trainers that read training references and the
rule reward that grades against them, so that a reference is read the same way everywhere.
"""

from __future__ import annotations

import re

_BOX_COMMANDS = ("\\boxed", "\\fbox")
# How many trailing \boxed occurrences are tried when the last one is unbalanced; bounded to stay linear.
MAX_BOX_TRIES = 4


def match_braces(text: str, open_at: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``open_at``, or None when unbalanced."""
    depth = 0
    i = open_at
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:  # skip escaped characters such as \{ and \}
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def box_spans(text: str, limit: int) -> list[tuple[int, int, str]]:
    """(start, end, contents) of the last ``limit`` ``\\boxed``/``\\fbox`` commands with an argument, last first."""
    found: list[tuple[int, int, str]] = []
    end = len(text)
    tries = 0
    while tries < limit:
        start = max(text.rfind(cmd, 0, end) for cmd in _BOX_COMMANDS)
        if start < 0:
            break
        tries += 1
        j = start + (6 if text.startswith("\\boxed", start) else 5)
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and text[j] == "{":
            close = match_braces(text, j)
            if close is not None:
                found.append((start, close + 1, text[j + 1 : close]))
        elif j < len(text):  # "\boxed 5": the argument is the next token
            token = re.match(r"[^\s$.,;]+", text[j : j + 200])
            if token:
                found.append((start, j + token.end(), token.group(0)))
        end = start
    return found


def boxed_answers(text: str, limit: int = MAX_BOX_TRIES) -> list[str]:
    """Contents of the last ``limit`` balanced ``\\boxed{...}`` / ``\\fbox{...}``, last first."""
    return [contents for _, _, contents in box_spans(text, limit)]


_GSM8K = re.compile(r"####[ \t]*([^\n]*)")


def gsm8k_final(text: str) -> str | None:
    """The answer after GSM8K's last ``####`` (its line, thousands separators removed), or None."""
    last = None
    for last in _GSM8K.finditer(text):
        pass
    return None if last is None else last.group(1).strip().replace(",", "")


UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$")  # a math delimiter or a price, not an escaped dollar sign
_ONE_MATH_SPAN = re.compile(r"\$\$([^$]+)\$\$|\$([^$]+)\$|\\\((.+)\\\)|\\\[(.+)\\\]", re.S)
_LINE_END_COMMANDS = ("\\noindent", "\\\\")


def clean_reference(text: str) -> str:
    """A benchmark's reference without the typesetting around it: a line-end command (``\\noindent``, ``\\\\``), a
    full stop (``10.``, ``B.``, ``\\frac{40}{243}$.``), a stray closing ``$``, and the math delimiters of a reference
    that is one formula (``$2^{1009}$``). Every reward that scores a suite sees the same clean reference: the rule
    reward reads past such tails, a judge, ``mathverify`` or a reward model would not. An ellipsis stays
    (``1, 2, 3, \\ldots`` and ``...`` are part of the answer)."""
    s = text.strip()
    while True:  # each step shortens the text: at most its length in rounds ("$x^4+1.$ \\" takes three)
        before = s
        for tail in _LINE_END_COMMANDS:
            if s.endswith(tail):
                s = s[: -len(tail)].rstrip()
        if s.endswith(".") and not s.endswith(".."):
            s = s[:-1].rstrip()
        if s.endswith("$") and len(UNESCAPED_DOLLAR.findall(s)) % 2 == 1:
            s = s[:-1].rstrip()
        whole = _ONE_MATH_SPAN.fullmatch(s)
        if whole is not None:
            s = next(g for g in whole.groups() if g is not None).strip()
        if s == before:
            return s
