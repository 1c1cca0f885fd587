"""Reading a reference written as prose for the answer it states.

A reference is usually a value (``18``, ``\\frac{1}{2}``, ``(3, m) \\text{ for every } m \\ge 2``). Some are
sentences: olympiad and proof-style sets state the answer in words (``the maximum number of distinct $4$-tuples is
eight``, ``Show that the solution is $n = 18$``, ``Yes, P(2) is composite.``), and worked solutions end with it.
Handed whole to math-verify, such a sentence is read for the first number it parses, which is often not the answer
(the ``4`` of ``$4$-tuples``, the ``3`` of ``the multiples of $3$``): answers 4 and 3 were paid.

So a reference that is a sentence is read for what it states: an answer phrase (``the answer is ...``), a verdict
given with its reason (``Yes, ...``), or a value after the sentence's last ``is``/``are``/``was``/``equals``/``=``
at its end (a number, a number in words, one formula, with or without unit words). A sentence that only lists
values or puts units after them (``19, 46, and 82``, ``35 cm, 4``) is a value as it is, and so is one formula in
words that qualify it (``all integers $n \\ge 3$``). A sentence with numbers that states none of these has no single
value to compare with: :func:`stated_answer` says None and the grader abstains, never a match on a number taken out
of it.
"""

from __future__ import annotations

import re

from rewards.math.extraction import Found, extract_final_answer
from rewards.math.reading import (
    MATH_SEGMENT,
    NUMBER_IN_WORDS,
    number_in_words,
    plain_number,
    reads_as_prose,
    unwrap_text,
)

_MAX_CHARS = 5000
_PROSE_WORD = r"[A-Za-z]*[a-z][A-Za-z]*"  # two letters or more, one of them lower case: "AB" and "CD" are names
# Two words side by side: a sentence, not a product of variables (``xy + yz``) or a name in a formula.
_SENTENCE = re.compile(rf"(?<![A-Za-z\\])(?=[A-Za-z]{{2}}){_PROSE_WORD}\s+(?=[A-Za-z]{{2}}){_PROSE_WORD}(?![A-Za-z])")
_COMMANDS_AND_TEXT = re.compile(r"\\(?:text|mathrm|textbf|operatorname|mbox)\s*\{[^{}]*\}|\\[A-Za-z]+")
_VERDICT_WITH_REASON = re.compile(r"(?i)\s*(yes|no|true|false)\s*[,.;:!]\s*(?!(?:yes|no|true|false)\b)\S")
# The last statement of a value: a verb or an equals sign, then the value to the end of the sentence.
# An "=" is a statement's verb after words ("Total volume = ..."), not in a formula's name (``f(x) = x + 1``).
_COPULA = re.compile(r"(?i)(?<![A-Za-z])(?:is|are|was|were|equals|equal\s+to)(?![A-Za-z])"
                     r"|(?:(?<=[A-Za-z]{2})|(?<=[A-Za-z]{2}\s))=")
_UNIT_WORDS = r"(?:\s+[A-Za-z]{2,}(?:\^\{?\d\}?)?){1,3}"  # "cubic meters", "kgs", "cm^2"
# A unit written onto a number ("1,000.99m^{2}", "12cm"): the common ones only, so that 2x stays an expression.
_SHORT_UNIT = re.compile(r"(?<=\d)\s*(?:cm|mm|km|kg|mg|ml|mL|ft|yd|mi|lb|oz|hr|min|sec|m|g|s|L)(?:\^\{?[23]\}?)?$")
_WITH_UNITS = re.compile(rf"(.+?)({_UNIT_WORDS})\s*")
_DIGIT = re.compile(r"\d")
_ALL_TEXT = re.compile(r"\s*\\(?:text|textbf|textrm|mbox)\s*\{([^{}]*)\}\s*")
_STATES_ANSWER = re.compile(r"(?i)answer\s*(?:\([^()\n]{0,40}\)\s*)?(?:is\b|[:：])|【答案】|答案\s*[是为:：]")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\n")
_LIST_BREAK = re.compile(r"(?i),\s*(?:and|or)\s+|,|\s+(?:and|or)\s+")


def _masked(text: str) -> str:
    """``text`` with its math segments, LaTeX commands and ``\\text{}`` blanked (same length): the prose."""
    out = list(text)
    for m in MATH_SEGMENT.finditer(text):
        out[m.start() : m.end()] = " " * (m.end() - m.start())
    masked = "".join(out)
    return _COMMANDS_AND_TEXT.sub(lambda m: " " * (m.end() - m.start()), masked)


def is_sentence(text: str) -> bool:
    """Whether ``text`` has two words side by side outside its math: ``the roots are``, ``cubic meters``."""
    return _SENTENCE.search(_masked(text)) is not None


def single_value(text: str) -> str | None:
    """``text`` as one value, or None: a number (``4696.80``, ``1 mole``), a number in words (``eight``), one
    formula with nothing around it but unit words (``$n = 18$``, ``(46/3)\\pi cubic meters``), or bare math."""
    text = text.strip().rstrip(".!").strip()
    if not text or len(text) > 200:
        return None
    number = plain_number(text) or plain_number(_SHORT_UNIT.sub("", text))
    if number is not None:  # "1 mole", "1,000.99m^{2}": the number without its unit
        return number
    words = NUMBER_IN_WORDS.match(text)
    if words is not None and (words.end() == len(text) or re.fullmatch(_UNIT_WORDS, text[words.end() :])):
        return str(number_in_words(words.group(0)))
    segments = list(MATH_SEGMENT.finditer(text))
    if len(segments) == 1:
        outside = (text[: segments[0].start()] + " " + text[segments[0].end() :]).strip()
        if not outside or (not text[: segments[0].start()].strip() and re.fullmatch(_UNIT_WORDS, " " + outside)):
            return next(g for g in segments[0].groups() if g is not None).strip()
        return None
    if segments or "$" in text:
        return None
    if not reads_as_prose(text):
        return text
    m = _WITH_UNITS.fullmatch(text)
    return m.group(1).strip() if m is not None and not reads_as_prose(m.group(1)) else None


def _stated_value(text: str) -> str | None:
    """The value after the last ``is``/``are``/``was``/``equals``/``=`` of ``text``'s last sentence (outside its
    math), when what follows it to the end is one value."""
    sentence = _SENTENCES.split(text.strip())[-1]  # a worked solution's "$" for money pair across sentences
    last = None
    for last in _COPULA.finditer(_masked(sentence)):
        pass
    return None if last is None else single_value(sentence[last.end() :])


def _listed_values(text: str) -> bool:
    """Values joined by commas, "and" or "or", each a value with or without unit words: ``19, 46, and 82``."""
    pieces = [p for p in _LIST_BREAK.split(text) if p.strip()]
    return bool(pieces) and all(single_value(p) is not None for p in pieces)


def stated_answer(reference: str) -> str | None:
    """The answer a reference states: the reference itself unless it is a sentence (two words side by side outside
    its math) with a number in it or a verdict at its start; then what the sentence states (see the module), or
    None when it has numbers but states no single value."""
    if len(reference) > _MAX_CHARS:
        return reference
    wrapped = _ALL_TEXT.fullmatch(reference)
    if wrapped is not None:  # \text{Yes, it is} and \text{the largest is 8}: the sentence is what is set as text
        inner = stated_answer(wrapped.group(1))
        return reference if inner == wrapped.group(1) else inner
    if not is_sentence(reference):
        return reference
    verdict = _VERDICT_WITH_REASON.match(unwrap_text(reference))
    if verdict is not None:
        return verdict.group(1)
    if not _DIGIT.search(reference) and NUMBER_IN_WORDS.search(reference) is None:
        return reference  # words only: the words rules read it
    phrase = extract_final_answer(reference, short_answer_chars=0, bare_answer_chars=0)
    if phrase is not None and phrase.rule is Found.ANSWER_IS and _STATES_ANSWER.search(reference):
        return phrase.text
    stated = _stated_value(reference)
    if stated is not None:
        return stated
    if _listed_values(reference):
        return reference
    segments = list(MATH_SEGMENT.finditer(reference))
    if len(segments) == 1 and not _DIGIT.search(_masked(reference)):
        formula = next(g for g in segments[0].groups() if g is not None)
        if plain_number(formula) is None:  # "all integers $n \ge 3$": the formula in words that qualify it
            return reference
    if not _DIGIT.search(reference):
        return reference  # a number in words that is not stated as the value: the words rules read it
    return None
