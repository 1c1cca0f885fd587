"""The options of a multiple-choice question, read from its text.

An answer may name an option by its letter, by its letter and text (``(B) 5``), or by its text alone; a
reference may be the letter or the option's text. Reading the options lets the comparison accept each of these
for the same option and reject them for another (option letter followed by the option's text is a
false-negative form in TinyV's taxonomy, arXiv 2505.14625; VerifyBench, arXiv 2505.15801, scores multi-choice
answers by option).
"""

from __future__ import annotations

import re

# "(A) 4 (B) 6" inline, or one option a line: "A. 4", "A) 4", "A: 4"
_INLINE = re.compile(r"(?:^|[\s:;,])\(([A-J])\)\s*")
_LINED = re.compile(r"(?m)^[ \t]*\(?([A-J])[.):：]\s+")
_MAX_QUESTION = 20_000
# Inline options set out as a list ("- (A) 0\n- (B) 1"): the next item's marker is not the option's text.
_LIST_MARKER_AFTER = re.compile(r"\s*\n\s*(?:[-*•]|\d{1,2}[.)])?\s*$")


def question_options(question: str) -> dict[str, str]:
    """``{"A": "4", "B": "6", ...}`` when the question lists at least two options lettered from A in order."""
    if len(question) > _MAX_QUESTION:
        return {}
    for pattern in (_LINED, _INLINE):
        marks = list(pattern.finditer(question))
        letters = [m.group(1) for m in marks]
        start = letters.index("A") if "A" in letters else -1
        if start < 0:
            continue
        marks = marks[start:]
        run = []
        for k, m in enumerate(marks):
            if m.group(1) != chr(ord("A") + k):
                break
            run.append(m)
        if len(run) < 2:
            continue
        options = {}
        for k, m in enumerate(run):
            end = run[k + 1].start() if k + 1 < len(run) else len(question)
            text = question[m.end() : end]
            text = text.split("\n")[0] if pattern is _LINED else _LIST_MARKER_AFTER.sub("", text)
            options[m.group(1)] = text.strip().rstrip(".;,").strip()
        return options
    return {}


_LEADING_LETTER = re.compile(r"^\s*(?:\\text\s*\{\s*)?\(?([A-J])\)?(?:\s*\})?\s*(?:[.):：]|\\ |\s)\s*(.+)$", re.S)


def split_letter(answer: str) -> tuple[str, str] | None:
    """``(B) 12 apples`` -> (``B``, ``12 apples``): an option letter followed by text, else None."""
    m = _LEADING_LETTER.match(answer)
    if m is None or not m.group(2).strip():
        return None
    return m.group(1), m.group(2).strip().strip("$").strip()
