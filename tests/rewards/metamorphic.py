"""Metamorphic cases for the rule reward: generated references, and answers that change their value (never paid)
or keep it (always paid).

References: integers, fractions, surds, constants, huge and nested powers, factorials, expressions in a variable,
lists, tuples, sets and intervals. Value-changing answers: plus one, times two, a relative change of 10^{-k} for k
up to 40, negation, a tiny or a huge term added, an element dropped, changed or replaced by a repeat of another, a
bracket changed.
Value-keeping answers: the reference itself, a list or a set in another order, a list with a repeat (a bare list is
the set of its answers, as math-verify and the answer-equivalence fixtures read it). Seeded, so a
failing case is found again by its index.
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


def cases(seed: int = 0) -> Iterator[Case]:
    """An endless stream of cases; the first N are the same for the same seed."""
    rng = random.Random(seed)
    kinds = list(SCALARS)
    while True:
        if rng.random() < 0.3:
            yield from _collections(rng)
            continue
        kind = rng.choice(kinds)
        ref = SCALARS[kind](rng)
        yield Case(f"{kind}_reference", ref, ref, True)
        for family, answer in _changed_scalars(ref, rng, kind):
            yield Case(f"{kind}_{family}", ref, answer, False)
