"""Metamorphic cases for the rule reward: generated references, and answers that change their value (never paid)
or keep it (always paid).

References: integers, fractions, surds, constants, huge and nested powers, factorials, expressions in a variable,
lists, tuples, sets and intervals. Value-changing answers: plus one, times two, a relative change of 10^{-k} for k
up to 40, negation, a tiny or a huge term added, an element dropped, changed or replaced by a repeat of another, a
bracket changed.
Value-keeping answers: the reference itself, a list or a set in another order, a list with a repeat (a bare list is
the set of its answers, as math-verify and the answer-equivalence fixtures read it).
Forms the rule reward once misread: answers in a JSON object's answer field (changed values, and values whose last
number is the reference's), non-analytic references with a breakpoint shifted past the points the numeric stage
draws (``|x+31|-31`` for ``|x+30|-30``, ``x`` for ``max(x, -50)``), and qualified families (``(3, m)`` for every
``m >= 2``) against another family, another range, the range's bound alone, or a completion cut off at it.
Seeded, so a failing case is found again by its index.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    family: str
    reference: str
    answer: str
    paid: bool  # what the reward must say
    completion: str = ""  # the whole completion where the answer is not given boxed (a JSON object)

    def text(self) -> str:
        return self.completion or f"The answer is $\\boxed{{{self.answer}}}$."


def _integer(rng: random.Random) -> str:
    return str(rng.choice([rng.randint(1, 99), rng.randint(100, 10**6), rng.randint(2, 9) * 10 ** rng.randint(3, 30)]))


def _fraction(rng: random.Random) -> str:
    q = rng.randint(2, 97)
    p = rng.choice([k for k in range(1, 3 * q) if k % q])
    return f"\\frac{{{p}}}{{{q}}}"


def _surd(rng: random.Random) -> str:
    n = rng.choice([2, 3, 5, 6, 7, 10, 11, 13])
    a = rng.randint(1, 9)
    return f"\\sqrt{{{n}}}" if a == 1 else f"{a}\\sqrt{{{n}}}"


def _constant(rng: random.Random) -> str:
    return rng.choice(["\\pi", "e", "\\pi^2", "2\\pi", "\\frac{\\pi}{4}", "e^{2}", "\\ln 2", "\\sqrt{2} + \\pi"])


def _power(rng: random.Random) -> str:
    return rng.choice([f"2^{{{rng.randint(60, 400)}}}", f"10^{{{rng.randint(20, 300)}}}", f"3^{{{rng.randint(40, 200)}}}",
                       "9^{9^{9}}", "2^{2^{20}}", "e^{e^{e^{3}}}", f"7^{{-{rng.randint(20, 90)}}}"])


def _factorial(rng: random.Random) -> str:
    return f"{rng.randint(5, 60)}!"


def _expression(rng: random.Random) -> str:
    return rng.choice(["x^2 + 1", "\\frac{1}{x}", "\\sin x", "e^{x}", "x^3 - 2x", "\\sqrt{x^2 + 1}", "\\ln(x + 2)",
                       "\\frac{x + 1}{x - 1}", "2x + 3", "\\cos x + x"])


SCALARS: dict[str, Callable[[random.Random], str]] = {
    "integer": _integer, "fraction": _fraction, "surd": _surd, "constant": _constant, "power": _power,
    "factorial": _factorial, "expression": _expression,
}
_ZERO_FREE = ("integer", "fraction", "surd", "constant", "power", "factorial")


def _changed_scalars(ref: str, rng: random.Random, kind: str) -> Iterator[tuple[str, str]]:
    """(family, answer) pairs whose value differs from ``ref``'s."""
    group = f"\\left({ref}\\right)"
    yield "plus_one", f"{ref} + 1"
    yield "times_two", f"2{group}"
    k = rng.randint(1, 40)
    yield "relative_change", f"{group}\\left(1 + 10^{{-{k}}}\\right)"
    yield "tiny_term", f"{ref} + 10^{{-{rng.randint(13, 60)}}}"
    yield "huge_term", f"{ref} + {rng.choice(['9^{9^{9^{9}}}', 'e^{e^{e^{10}}}', '10^{10^{10}}'])}"
    if kind in _ZERO_FREE or kind == "expression":
        yield "negation", f"-{group}"


def _numbers(rng: random.Random, n: int) -> list[str]:
    values: set[int] = set()
    while len(values) < n:
        values.add(rng.randint(-20, 40))
    return [str(v) for v in values]


def _collections(rng: random.Random) -> Iterator[Case]:
    elements = _numbers(rng, rng.randint(2, 5))
    body = ", ".join(elements)
    shuffled = elements[:]
    rng.shuffle(shuffled)
    i = rng.randrange(len(elements))
    dropped = [e for j, e in enumerate(elements) if j != i]
    repeated = elements + [elements[i]]
    bumped = elements[:i] + [str(int(elements[i]) + 1)] + elements[i + 1 :]
    if len(set(bumped)) < len(bumped):  # a bump onto another element: make it a new value
        bumped[i] = str(max(int(e) for e in elements) + 7)
    # a bare list: a multiset
    yield Case("list_reference", body, body, True)
    yield Case("list_order", body, ", ".join(shuffled), True)
    if len(dropped) >= 2:
        yield Case("list_dropped", body, ", ".join(dropped), False)
    yield Case("list_repeated", body, ", ".join(repeated), True)  # a list is the set of its answers
    if len(elements) >= 2:  # a repeat in place of another element: one missing
        yield Case("list_missing", body, ", ".join(elements[:-1] + [elements[0]]), False)
    yield Case("list_changed", body, ", ".join(bumped), False)
    # a tuple: ordered
    tup = f"({body})"
    yield Case("tuple_reference", tup, tup, True)
    if shuffled != elements:
        yield Case("tuple_order", tup, f"({', '.join(shuffled)})", False)
    yield Case("tuple_changed", tup, f"({', '.join(bumped)})", False)
    if len(dropped) >= 2:
        yield Case("tuple_dropped", tup, f"({', '.join(dropped)})", False)
    # a set: order and repeats ignored
    braced = f"\\{{{body}\\}}"
    yield Case("set_reference", braced, braced, True)
    yield Case("set_order", braced, f"\\{{{', '.join(shuffled)}\\}}", True)
    yield Case("set_changed", braced, f"\\{{{', '.join(bumped)}\\}}", False)
    if len(dropped) >= 2:
        yield Case("set_dropped", braced, f"\\{{{', '.join(dropped)}\\}}", False)
    # an interval: its ends and brackets
    a, b = sorted(rng.sample(range(-20, 40), 2))
    left, right = rng.choice("(["), rng.choice(")]")
    interval = f"{left}{a}, {b}{right}"
    yield Case("interval_reference", interval, interval, True)
    flipped = f"{'[' if left == '(' else '('}{a}, {b}{right}"
    yield Case("interval_bracket", interval, flipped, False)
    yield Case("interval_end", interval, f"{left}{a}, {b + 1}{right}", False)


def _json_field(rng: random.Random, value: str) -> str:
    """A completion that ends with ``value`` in an answer field, as models asked for JSON write it: the key, the
    quoting (JSON's own escapes or LaTeX's bare backslashes), a fence and a field before it vary."""
    key = rng.choice(["answer", "final_answer", "finalAnswer", "Answer"])
    quoted = value.replace("\\", "\\\\") if rng.random() < 0.5 else value
    body = f'{{"reasoning": "worked above", "{key}": "{quoted}"}}' if rng.random() < 0.5 else f'{{"{key}": "{quoted}"}}'
    return f"So the output is:\n```json\n{body}\n```" if rng.random() < 0.5 else f"Final output:\n{body}"


def _json_answers(rng: random.Random) -> Iterator[Case]:
    """JSON answer fields: the reference's value is paid, a changed value never, and least of all one whose last
    number is the reference (``2*pi + 4`` for ``4``: read as prose, the trailing number decided)."""
    kind = rng.choice(["integer", "fraction", "surd", "constant"])
    ref = SCALARS[kind](rng)
    yield Case("json_reference", ref, ref, True, _json_field(rng, ref))
    if kind == "integer":
        yield Case("json_bare_number", ref, ref, True, f'{{"answer": {ref}}}')
        yield Case("json_bare_changed", ref, str(int(ref) + 1), False, f'{{"answer": {int(ref) + 1}}}')
    for family, answer in (("json_term_before", f"2*pi + {ref}"), ("json_factor_before", f"3*sqrt(5) - {ref}"),
                           ("json_plus_one", f"{ref} + 1"), ("json_times_two", f"2\\left({ref}\\right)")):
        yield Case(family, ref, answer, False, _json_field(rng, answer))


def _piecewise(rng: random.Random) -> Iterator[Case]:
    """Non-analytic references whose shifted breakpoint lies outside the points the numeric stage draws (each
    variable over -4..4 and 1..9): the two agree at every point drawn and differ elsewhere. Never paid; an
    equal form across the breakpoint always is."""
    a = rng.randint(10, 90)
    yield Case("abs_shifted", f"|x+{a}|-{a}", f"|x+{a + 1}|-{a + 1}", False)
    yield Case("abs_reference", f"|x+{a}|-{a}", f"|{a}+x|-{a}", True)
    yield Case("max_dropped", f"\\max(x,-{a})", "x", False)
    yield Case("max_shifted", f"\\max(x,-{a})", f"\\max(x,-{a + 1})", False)
    yield Case("min_dropped", f"\\min(x,{a})", "x", False)
    yield Case("max_equal_form", f"\\max(x,{a})", f"\\frac{{x+{a}+|x-{a}|}}{{2}}", True)
    n = rng.randint(100, 999)
    yield Case("floor_dropped", f"\\left\\lfloor \\frac{{x^2}}{{{n}}} \\right\\rfloor", "0", False)
    yield Case("ceiling_shifted", f"\\left\\lceil \\frac{{x^2}}{{{n}}} \\right\\rceil", "1", False)


def _qualified(rng: random.Random) -> Iterator[Case]:
    """A family with its range (``(3, m) for every m >= 2``): the family is the answer, under any name for its
    variable and with or without the clause; another family, another range, or the range's bound alone, never."""
    k, b = rng.randint(1, 40), rng.randint(2, 30)
    var, other = rng.sample("mnkt", 2)
    clause = rng.choice(["\\text{ for every } <v> \\ge <b>", "\\text{ for all } <v> \\geq <b>",
                         "\\ \\text{for all integers}\\ <v> \\ge <b>"])

    def qualified(first: int, name: str, bound: int) -> str:
        return f"({first}, {name})" + clause.replace("<v>", name).replace("<b>", str(bound))

    ref = qualified(k, var, b)
    yield Case("qualified_reference", ref, ref, True)
    yield Case("qualified_renamed", ref, qualified(k, other, b), True)
    yield Case("qualified_core", ref, f"({k},\\,{var})", True)
    yield Case("qualified_changed", ref, qualified(k + 1, var, b), False)
    yield Case("qualified_range", ref, qualified(k, var, b + 1), False)
    yield Case("qualified_bound_alone", ref, str(b), False)
    yield Case("qualified_cut_off", ref, str(b), False, f"We try small cases. So it holds when ${var} = {b}")


def cases(seed: int = 0) -> Iterator[Case]:
    """An endless stream of cases; the first N are the same for the same seed."""
    rng = random.Random(seed)
    kinds = list(SCALARS)
    while True:
        draw = rng.random()
        if draw < 0.3:
            yield from _collections(rng)
            continue
        if draw < 0.45:
            yield from rng.choice((_json_answers, _piecewise, _qualified))(rng)
            continue
        kind = rng.choice(kinds)
        ref = SCALARS[kind](rng)
        yield Case(f"{kind}_reference", ref, ref, True)
        for family, answer in _changed_scalars(ref, rng, kind):
            yield Case(f"{kind}_{family}", ref, answer, False)
