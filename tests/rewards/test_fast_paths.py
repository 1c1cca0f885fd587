"""The grader's fast paths find exactly what the plain formulation they replace finds.

Each fast path (a substring gate before a case-blind pattern, ``str.split`` for a whitespace regex, a pattern
rewritten with fewer alternatives) is checked against the plain formulation, kept here, on generated text made
of the pieces that decide them: the words in every case, the letters that case-blind matching takes for ASCII
ones (long s, dotless i, the Kelvin sign), every kind of whitespace, markdown and LaTeX around them.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from rewards.math.extraction import _answer_phrases
from rewards.math.quantities import fixed_unit
from rewards.math.rejection import single_spaced

PIECES = ["answer", "ANSWER", "Answer", "anſwer", "final", "Final", "the", "THE", "correct", "is", "IS", "**", ":",
          "：", "radian", "radians", "RADIANS", "radıan", "measure", "degree", "degrees", "DEGREE", "\\circ", "\\CIRC",
          "\\cırc", "°", "in", "K", "k", "\u212a", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\x1c", "\r\n", "7", "-",
          "(", "}", "$", "."]
TEXT = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=40).map("".join)

_PLAIN_ANSWER_IS = re.compile(
    r"(?i)(?:final\s+answer|the\s+answer|correct\s+answer|answer)(?:\s++is)?\s*+(?:\*\*)?\s*+[:：]?\s*+(?:\*\*)?[ \t]*+"
    r"(?=[^\s])"
)
_PLAIN_RADIANS = re.compile(r"(?i)\bin radians\b|\bradian measure\b|\bradians\b")
_PLAIN_DEGREES = re.compile(r"(?i)\bin degrees\b|\bdegree measure\b|\bdegrees\b|\\circ|°")


def plain_answer_phrases(text: str, start: int = 0) -> list[tuple[int, int, str]]:
    found = []
    for m in _PLAIN_ANSWER_IS.finditer(text, start):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        found.append((m.start(), line_end, text[m.end() : line_end]))
    return found


def plain_fixed_unit(question: str) -> str | None:
    radians, degrees = bool(_PLAIN_RADIANS.search(question)), bool(_PLAIN_DEGREES.search(question))
    return None if radians == degrees else ("radians" if radians else "degrees")


@settings(max_examples=1500, deadline=None)
@given(TEXT, st.integers(min_value=0, max_value=20))
def test_answer_phrases_are_the_plain_patterns(text, start):
    assert _answer_phrases(text, start) == plain_answer_phrases(text, start)


@settings(max_examples=1500, deadline=None)
@given(TEXT)
def test_the_fixed_unit_is_the_plain_patterns(question):
    assert fixed_unit(question) == plain_fixed_unit(question)


@settings(max_examples=1500, deadline=None)
@given(TEXT)
def test_single_spacing_is_the_whitespace_regex(text):
    assert single_spaced(text) == re.sub(r"\s+", " ", text)


def test_the_letters_case_blind_matching_takes_are_kept():
    """The cases a gate on ``str.lower`` would have lost: the pattern reads them, so the gate must let them by."""
    assert _answer_phrases("The anſwer is 7") == plain_answer_phrases("The anſwer is 7") != []
    assert fixed_unit("Give the angle in RADIANS.") == "radians"
    assert fixed_unit("Give the angle in radıans.") == plain_fixed_unit("Give the angle in radıans.") == "radians"
    assert fixed_unit("An angle of 30\\cırc.") == plain_fixed_unit("An angle of 30\\cırc.") == "degrees"
