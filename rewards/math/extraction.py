"""Final-answer extraction from free-form completions: pure string code, linear in the input length.

Kept apart from comparison (:mod:`rewards.math.grader`) so that each can be tested on its own tables of
cases. Every function here must stay linear-time: completions come from policies under RL and may be a
megabyte of braces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from harness.core.answers import UNESCAPED_DOLLAR, box_spans
from rewards.math.numeric import split_top_level
from rewards.math.reading import LATEX_SPACE, canonical_latex, labelled_parts, reads_as_prose, unwrap_text


class Found(StrEnum):
    """Which rule found a final answer. A later stage trusts some more than others: math-verify reads a boxed
    answer as LaTeX, and a tail sentence may restate a number from the work."""

    BOXED = "boxed"
    GSM8K = "gsm8k"  # "#### 42"
    ANSWER_IS = "answer_is"  # "the answer is 42"
    TAIL = "tail"  # a short text after the thinking, or the whole completion, when nothing marks an answer
    BARE = "bare"  # a longer text that is one line of bare math
    JSON = "json"  # the value of an answer field of a JSON object: {"answer": "3/7"}
    OUTPUT = "output"  # the last output block of a tool-integrated solution, when no number is stated after it


@dataclass(frozen=True)
class Extraction:
    """An extracted final answer and the rule that found it (``boxed``, ``gsm8k``, ``answer_is``, ``tail``,
    ``bare``).

    ``alternatives`` holds another boxed answer offered beside it as a choice ("either \\boxed{3} or
    \\boxed{4}", see :func:`hedged_alternative`); a grader accepts the answer only if every alternative is right.
    """

    text: str
    rule: Found
    alternatives: tuple[str, ...] = ()
    end: int = -1  # where the answer ends in the text after thinking (-1: at its end)


# Words that offer the reader a choice between two boxed answers: "either \boxed{3} or \boxed{4}".
_HEDGE = re.compile(r"(?i)\b(?:or|either|maybe|perhaps|possibly)\b|/")
_HEDGE_GAP_CHARS = 40


def hedged_alternative(text: str) -> str | None:
    """The boxed answer offered as an alternative to the last one, or None.

    Only the last box counts, which defeats "\\boxed{4} \\boxed{5} \\boxed{6}"; but "either \\boxed{3} or
    \\boxed{4}" would still pay whenever the last guess is right (hedged outputs, arXiv 2505.22203). Two boxes
    joined by "or", "either", "maybe", "perhaps", "possibly" or "/" within a few words are alternatives.
    """
    spans = box_spans(text, 2)
    if len(spans) < 2:
        return None
    (last_start, _, last), (_, prev_end, prev) = spans
    gap = text[prev_end:last_start]
    if len(gap) > _HEDGE_GAP_CHARS or _HEDGE.search(gap) is None or not prev.strip():
        return None
    return None if canonical_latex(last) == canonical_latex(prev) else prev.strip()


_GSM8K = re.compile(r"####[ \t]*([^\n]+)")
# The anchor alone (it consumes nothing after it), so that every statement on a line is found, the last one
# included: "the answer is 19 ... no, the answer is 20" answers 20. The spaces are possessive: four runs in a row
# that could share one stretch of whitespace made "The answer is" and 400 spaces cost 13 s (the fourth power of
# the run); the spaces never decide where the anchor ends, the first character after them does.
# The lookahead on the first letter lets the engine skip the positions no alternative can start at.
# A qualifier in brackets may stand between the anchor and "is": "the answer (arabic numerals) is 18", as zero-shot
# chain-of-thought prompts end. Chinese answers are anchored by GAOKAO-Bench's 【答案】 and by 答案是 / 答案为 /
# 答案：, never by the bare word (这个答案不对 states nothing).
_ANSWER_IS = re.compile(
    r"(?i)(?=[ftca【答])(?:(?:final\s+answer|the\s+answer|correct\s+answer|answer)(?:\s*+\([^()\n]{1,40}\))?"
    r"(?:\s++is)?|【答案】|答案\s*+(?=[是为:：])[是为]?)\s*+(?:\*\*)?\s*+[:：]?\s*+(?:\*\*)?[ \t]*+(?=[^\s])"
)


def _answer_phrases(text: str, start: int = 0) -> list[tuple[int, int, str]]:
    """(start, end of line, text after the anchor) for each "the answer is ..." phrase from ``start`` on, in
    order."""
    found: list[tuple[int, int, str]] = []
    if "answer" not in text.casefold() and "答案" not in text:  # every phrase holds the word; casefold maps each
        return found  # letter the pattern's case-blind match takes for a letter of "answer" onto that letter
    for m in _ANSWER_IS.finditer(text, start):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        found.append((m.start(), line_end, text[m.end() : line_end]))
    return found
_OPENERS = {"\\[": "\\]", "$$": "$$", "$": "$", "\\(": "\\)"}
_SENTENCE_END = re.compile(
    r"(?<!\d)\.(?=\s|$)|\.(?=\s+[A-Z])|[?!](?=\s|$)|[。！？；]"
    r"|,\s+(?=(?:so|but|which|because|since|then|hence|thus|therefore|where|wait)\b)"
)


_ARITHMETIC = re.compile(r"\\cdot|\\times|\\frac|\\binom|[*+/^=(]|\d\s*-\s*\d")


def _is_factorial(s: str, at: int) -> bool:
    """Whether the "!" at ``s[at]`` is a factorial: written onto a number or a bracket, in an answer that is
    arithmetic (``3 \\cdot 4!``, ``\\frac{10!}{2}``). A lone ``24!`` stays an exclamation."""
    return s[at] == "!" and at > 0 and (s[at - 1].isdigit() or s[at - 1] in ")}") and \
        _ARITHMETIC.search(s[:at]) is not None


_MATH_SPANS = re.compile(r"(?<!\\)\$[^$]*(?<!\\)\$")


def _clean(answer: str) -> str:
    s = answer.strip()
    s = s.strip("*").strip()
    if s.startswith(("is ", "Is ")):
        s = s[3:]
    cut = _SENTENCE_END.search(s)
    while cut is not None and _is_factorial(s, cut.start()):  # "3 \cdot 4!": the "!" is part of the value
        cut = _SENTENCE_END.search(s, cut.end())
    if cut:
        s = s[: cut.start()]
    s = s.strip().strip("*").strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"), ('"', '"'), ("`", "`")):
        if s.startswith(left) and s.endswith(right) and len(s) >= len(left) + len(right):
            s = s[len(left) : len(s) - len(right)].strip()
    if s.count("$") == 1 and s.startswith("$"):  # an unclosed "$" is a currency sign: "$18"
        s = s[1:]
    delimiters = len(UNESCAPED_DOLLAR.findall(s))
    if delimiters >= 2 and delimiters % 2 == 0 and not re.search(r"[A-Za-z]", _MATH_SPANS.sub("", s)):
        s = UNESCAPED_DOLLAR.sub("", s).strip()  # an answer line of math pieces: "-$\\pi/4$", "$x=$ $5$"
    return s.rstrip(".;,").strip()


def after_thinking(completion: str) -> str:
    """The part after the last ``</think>``: reasoning models put their answer there."""
    cut = completion.rfind("</think>")
    return completion if cut < 0 else completion[cut + len("</think>") :]


def extract_final_answer(
    completion: str, *, short_answer_chars: int = 40, bare_answer_chars: int = 400
) -> Extraction | None:
    """The completion's final answer, or None when no anchored answer is found.

    Order: last ``\\boxed{}``; GSM8K's ``#### n``; the last "answer is ..." / "Answer: ..." phrase; a short
    text (at most ``short_answer_chars``) left after ``</think>`` or as the whole completion; a longer one
    (at most ``bare_answer_chars``) when it is one line of bare math (see :func:`bare_answer`).
    """
    text = after_thinking(completion)
    spans = box_spans(text, _MAX_CONJOINED)
    field = json_answer(text)
    if field is not None and (not spans or field.end > spans[0][1]):  # the format asked for, stated last
        return field
    if spans and spans[0][2].strip():
        stated_after = _final_answer_after(text, spans[0][1], spans[0][2])
        if stated_after is not None:
            return stated_after
        other = hedged_alternative(text)
        answer = spans[0][2].strip() if other else conjoined_boxes(text, spans)
        return Extraction(answer, Found.BOXED, (other,) if other else (), spans[0][1])
    gsm = None
    for gsm in _GSM8K.finditer(text):
        pass
    if gsm is not None:
        return Extraction(_clean(gsm.group(1)), Found.GSM8K, (), gsm.end())
    phrases = _answer_phrases(text)
    if phrases:
        stated = _phrase_answer(text, phrases[-1])
        if stated is not None:
            return stated
    output = last_output(text)
    if output is not None:
        return output
    tail = text.strip()
    if tail and len(tail) <= short_answer_chars:
        return Extraction(_clean(tail), Found.TAIL, (), len(text))
    if len(tail) <= bare_answer_chars and bare_answer(tail):
        return Extraction(_clean(tail), Found.BARE, (), len(text))
    return None


_OUTPUT_FENCE = "```output"
_MAX_OUTPUT_CHARS = 100


def last_output(text: str) -> Extraction | None:
    """The printed value of a tool-integrated solution (ToRA's format: a python block, then its result in an
    ```` ```output ```` block) when it is the solution's last word: one short line, with no number stated after the
    block ("Three trucks will be needed."; prose that names another number is the answer itself, read as such).
    A box or an answer phrase anywhere comes first (:func:`extract_final_answer`)."""
    at = text.rfind(_OUTPUT_FENCE)
    if at < 0:
        return None
    start = at + len(_OUTPUT_FENCE)
    close = text.find("```", start)
    if close < 0:
        return None
    value = text[start:close].strip()
    after = text[close + 3 :]
    if not value or "\n" in value or len(value) > _MAX_OUTPUT_CHARS or _DIGIT.search(after):
        return None
    return Extraction(value, Found.OUTPUT, (), close)


_DIGIT = re.compile(r"\d")


# A key that names an answer ("answer", "final_answer", "finalAnswer", "Answer") and what follows its colon. The
# key's own letters are bounded, so the pattern is linear; the value is read by _json_value, not by a pattern.
_ANSWER_KEY = re.compile(r'"(?i:[a-z_ ]{0,20}answer[a-z_ ]{0,20})"\s*:\s*')
_BARE_JSON_VALUE = re.compile(r"[^,}\]\n]+")
_MAX_JSON_VALUE = 2000


def json_answer(text: str) -> Extraction | None:
    """The value of the last answer field of a JSON object in ``text`` (``{"answer": "2*pi + 4"}``,
    ``{"final_answer": 12}``, in a code fence or not), or None. Models asked for JSON end so; read as prose, the
    field's last number would decide (``": "2*pi + 4"}`` against ``4``). A quoted value is the string it
    writes: JSON's escapes where the model used them (``"\\\\frac{3}{7}"``), else its backslashes as LaTeX
    (``"\\frac{3}{7}"``, where JSON would read a form feed); an array is its elements joined by commas; a bare
    value (a number, ``true``) is itself."""
    if '"' not in text or "answer" not in text.casefold():
        return None
    found = None
    for found in _ANSWER_KEY.finditer(text):
        pass
    if found is None:
        return None
    value = _json_value(text, found.end())
    if value is None:
        return None
    answer, end = value
    return Extraction(answer, Found.JSON, (), end) if answer else None


def _json_value(text: str, at: int) -> tuple[str, int] | None:
    """(the value that starts at ``text[at]``, where it ends), or None when nothing readable starts there."""
    head = text[at : at + 1]
    if head == '"':
        parsed = _json_string(text, at)
        return None if parsed is None else (parsed[0].strip(), parsed[1])
    if head == "[":
        items: list[str] = []
        i = at + 1
        while i < len(text) and len(items) < _MAX_CONJOINED:
            while i < len(text) and text[i] in " \t\n,":
                i += 1
            if text[i : i + 1] == "]":
                return ", ".join(items), i + 1
            item = _json_value(text, i)
            if item is None:
                return None
            items.append(item[0])
            i = item[1]
        return None
    bare = _BARE_JSON_VALUE.match(text, at, at + _MAX_JSON_VALUE)
    return None if bare is None else (bare.group(0).strip(), bare.end())


def _json_string(text: str, at: int) -> tuple[str, int] | None:
    """The JSON string literal at ``text[at]`` (a quote), unescaped, and where it ends."""
    i, end = at + 1, min(len(text), at + 1 + _MAX_JSON_VALUE)
    while i < end:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            raw = text[at + 1 : i]
            if "\\\\" in raw:  # the model escaped its backslashes: JSON's own reading
                raw = raw.replace("\\\\", "\\")
            return raw.replace('\\"', '"').replace("\\/", "/"), i + 1
        if c == "\n":
            return None
        i += 1
    return None


def _phrase_answer(text: str, phrase_at: tuple[int, int, str]) -> Extraction | None:
    """The answer a "the answer is ..." phrase states (``(start, end of line, text after the anchor)``), or None
    when nothing follows the anchor."""
    _, line_end, phrase = phrase_at
    cleaned = _clean(phrase)
    if cleaned.endswith((":", "：")) and not cleaned.endswith("\\:"):
        return None  # "【答案】\n首先，我们解这个方程组：": it announces a derivation, whose end is the answer
    start = line_end - len(phrase)
    found = phrase.find(cleaned) if cleaned else -1
    end = start + found + len(cleaned) if found >= 0 else line_end
    if cleaned in _OPENERS:  # "Answer: \[" with the math on the next lines
        closer = _OPENERS[cleaned]
        close = text.find(closer, line_end)
        if close > 0:
            cleaned = text[start + phrase.index(cleaned) + len(cleaned) : close].strip()
            end = close + len(closer)
    return Extraction(cleaned, Found.ANSWER_IS, (), end) if cleaned and cleaned not in _OPENERS else None


_FINAL_ANSWER = re.compile(r"(?i)final\s+answer")


def _final_answer_after(text: str, box_end: int, boxed: str) -> Extraction | None:
    """A final answer stated in words after the last box ("... = \\boxed{255} ... Final Answer: The final answer
    is $10,455$."): the boxes were intermediate results, and the statement that calls itself the final answer
    is the answer (Math-Verify's test_math_extraction_additional_cases). Only a "final answer" phrase, only one
    that states something with a digit or math in it ("the final answer is above" leaves the box), and only
    one that states another answer than the box (a restatement of the box keeps the box, its cleaner form)."""
    after = [p for p in _answer_phrases(text, box_end) if _FINAL_ANSWER.match(text, p[0])]
    if not after:
        return None
    stated = _phrase_answer(text, after[-1])
    if stated is None or not _MATH_SIGN.search(stated.text):
        return None
    same = canonical_latex(stated.text.rstrip(".;, ")) == canonical_latex(boxed.strip())
    return None if same else stated


_MATH_SIGN = re.compile(r"\d|\\[A-Za-z]+|[=^_]")


def bare_answer(text: str) -> bool:
    """True when ``text`` is one line of math and nothing else: a final answer given bare, with no box and no
    "the answer is" (TinyV's HardVerify-Math, arXiv 2505.14625: ``\\frac{e^2-1}{2} + \\frac{\\pi}{4} - \\frac{1}{3}``).
    Read from its end, such a text would be misread as its last term; it is read whole. A line with a word
    in it is prose, and a derivation spans lines or is a list of computations (``3 \\times 4 = 12, 12 + 5 = 17``,
    not ``p = 3, q = 5``): each keeps the unanchored reading of its end."""
    if "\n" in text or _MATH_SIGN.search(text) is None or reads_as_prose(text):
        return False
    listed = text.replace(";", ",")
    parts = split_top_level(listed)
    computations = parts is not None and len(parts) > 1 and any("=" in part for part in parts)
    return not computations or labelled_parts(listed) is not None


_MAX_CONJOINED = 8
# What may stand between boxes that together make one answer: "and", a comma, a semicolon or "&", with or
# without LaTeX spaces around it ("\boxed{(2, 2)} \quad \text{and} \quad \boxed{(6, 2)}").
_MAX_CONNECTIVE_CHARS = 60
_SPACES = rf"(?:\s|{LATEX_SPACE})*"
_CONNECTIVE = re.compile(rf"{_SPACES}(?:,|;|&|\\text\s*\{{\s*and\s*\}}|,?\s*and)?{_SPACES}", re.I)


def conjoined_boxes(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The final answer when it is spread over consecutive boxes joined by "and" or a comma ("the solutions are
    \\boxed{x = 1} and \\boxed{x = 2}", "\\boxed{(1, 2)}, \\boxed{(2, 1)}"): their contents joined by commas, to
    be compared whole. Boxes joined by "or" are alternatives (:func:`hedged_alternative`), and boxes with any
    other text between them are separate statements: then the last box alone is the answer. ``spans`` are the
    last boxes, last first (:func:`harness.core.answers.box_spans`)."""
    parts = [spans[0][2].strip()]
    for (start, _, _), (_, end, contents) in zip(spans, spans[1:]):
        between = text[end:start].replace("$", "").strip()
        if (end > start or len(between) > _MAX_CONNECTIVE_CHARS or not _CONNECTIVE.fullmatch(between)
                or not contents.strip()):  # nested, or apart (the length first: the pattern backtracks on spaces)
            break
        parts.append(contents.strip())
    return ", ".join(reversed(parts))


def answer_statements(text: str, limit: int = 8) -> list[str]:
    """The last ``limit`` final-answer statements of a text, in order: boxed answers, ``#### n`` and "the answer
    is ..." phrases. A completion that states different ones has changed its mind. A phrase or a ``####`` line
    whose answer is a box states that box, which is counted once, by its contents: "the answer is \\boxed{3}" is
    one statement of 3, not ``\\boxed{3}`` beside ``3`` (two keys for one value)."""
    found: list[tuple[int, str]] = [(start, contents.strip()) for start, _, contents in box_spans(text, limit)]
    found += [(m.start(), _clean(m.group(1))) for m in list(_GSM8K.finditer(text))[-limit:]]
    found += [(start, _clean(phrase)) for start, _, phrase in _answer_phrases(text)[-limit:]]
    return [answer for _, answer in sorted(found) if not box_spans(answer, 1)][-limit:]


_LETTER = re.compile(r"^\(?([A-Z])\)?(?:[.:)]|\s|$)")
_GOLD_LETTER = re.compile(r"\(?([A-Z])\)?\.?")
_GOLD_LETTER_WITH_TEXT = re.compile(r"(?:\(([A-Z])\)|([A-Z])[).:])\s+\S")
_LONE_LETTER = re.compile(r"(?<![A-Za-z'])\(?([A-Z])\)?(?![A-Za-z'])")


def choice_letter(answer: str, *, exact: bool) -> str | None:
    """The multiple-choice letter an answer names.

    ``exact=True`` (for references) accepts only a lone letter such as ``B``, ``(B)`` or ``B.``;
    ``exact=False`` (for completions) also accepts a letter followed by the option text, ``(B) 12 apples``.
    """
    s = unwrap_text(answer).strip().strip("*$ ").strip()
    if exact:
        m = _GOLD_LETTER.fullmatch(s) or _GOLD_LETTER_WITH_TEXT.match(s)
        return next(g for g in m.groups() if g) if m else None
    chosen = chosen_option(s)
    if chosen is not None:  # "Choice_C", "Option (B)": the option the completion says it picks
        return chosen
    m = _LETTER.match(s)
    if m:  # "(B) 12 apples", "(B) -3": the option's text may follow; "B+1", "B + 1", "B = 3": an expression
        return None if _operand_of(s[m.end(1):]) else m.group(1)
    # "one of A, B, C or D": letters listed together name the options, not a choice among them
    s = _ENUMERATION.sub(lambda m: " " * len(m.group(0)), s)
    for m in _LONE_LETTER.finditer(s[:200]):  # "for sure D, it can't be A or B": the first option named
        letter = m.group(1)
        if _in_expression(s, m.start(), m.end()):  # "B + 1", "2B", "B^2": a variable, not an option
            continue
        if letter not in ("I", "A") or m.group(0).startswith("("):  # a pronoun and an article, not options
            return letter
    return None


# The option a completion names as its pick, in the forms prompts ask for, at the very end of what it says:
# "Solution: Choice_B", "Choice B", "Option (B)", "so I pick Choice_C", "I choose D." A mention earlier ("option C
# is also correct, but ...") is reasoning about an option, not a pick.
_PICK = r"(?<![A-Za-z])(?i:choice|option|pick|choose|select)(?:\s*[_:]\s*|\s+)\(?([A-J])\)?(?![A-Za-z0-9/])"
_END = r"[\s.!*)\]}$]*\Z"
_CHOSEN = re.compile(_PICK + _END)
# The pick stated with its option's value, where a statement names it as the answer: "Solution: Choice_A (4)",
# "the correct solution is Choice_B: True, False.", or as a subject: "Choice_C of 25% is the solution." Two
# letters ("Choice_C/D") are no pick; a colon after an option mentioned in passing ("I rule out option C: it
# gives 7") is not a statement of the answer.
_CHOSEN_WITH_VALUE = (
    re.compile(r"(?:(?i:answer|solution)\s*(?:is|:)\s*|^\s*)" + _PICK + r"\s*(?:\([^()\n]{0,40}\)|:[^\n]{0,80})" + _END,
               re.M),
    re.compile(_PICK + r"(?:\s+of\s+[^\n]{0,40}?)?\s+is\s+(?:the\s+)?(?i:(?:correct|right|final|best)\s+)?"
               r"(?i:answer|solution|choice|option)" + _END),
)
# Option letters listed together: "A, B, C or D", "(A), (B) and (C)", "A/B", "A-D".
_ENUMERATION = re.compile(r"(?<![A-Za-z'])\(?[A-J]\)?(?:\s*(?:,\s*(?:or\s+|and\s+)?|or|and|/|-|to)\s*\(?[A-J]\)?)+"
                          r"(?![A-Za-z'])")


def chosen_option(text: str) -> str | None:
    """The option letter a text ends by naming as its pick ("... so I pick Choice_C", "Option (B)", "Solution:
    Choice_A (4)", "so Choice_D is the correct answer."), else None."""
    tail = text.rstrip()[-200:]
    for pattern in (_CHOSEN, *_CHOSEN_WITH_VALUE):
        m = pattern.search(tail)
        if m is not None:
            return m.group(1)
    return None


_OPERATORS = frozenset("+-*/^_=")


def _operand_of(after: str) -> bool:
    """Whether the text ``after`` a letter makes the letter an operand: an operator follows it, unless it is a
    sign set apart from the letter and written onto a number (``(B) -3``: the option's text is -3)."""
    rest = after.lstrip(").: ")
    if rest[:1] not in _OPERATORS:
        return False
    apart = len(rest) < len(after)
    return not (apart and rest[0] in "+-" and rest[1:2].isdigit())


_BEFORE_OPERAND = frozenset("+-*/^_{\\0123456789")
_AFTER_OPERAND = frozenset("+-*/^_={0123456789")


def _in_expression(s: str, start: int, end: int) -> bool:
    """Whether the letter at ``s[start:end]`` is an operand of an expression: an operator or a digit next to it,
    spaces aside. An option letter counts only as a standalone answer."""
    before, after = s[:start].rstrip(), s[end:].lstrip()
    return bool((before and before[-1] in _BEFORE_OPERAND) or (after and after[0] in _AFTER_OPERAND))
