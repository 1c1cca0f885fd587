"""Build the prediction-automaton snapshot that the rule reward's workers load (``rewards/math/dfa/snapshot.py``).

A fresh process installs the workers' two-stage prediction, parses a corpus of answers with math-verify's
``parse`` as a worker does, and writes ANTLR's automaton as it then stands. ANTLR's automaton depends on the
token types of what it has parsed, not on their text, so the corpus is made here, from a fixed seed: answers of
the shapes that math answers take (numbers, fractions, radicals, polynomials, functions, equations, inequalities,
intervals, sets, tuples, lists, matrices, units and words, sums, limits and integrals), none of them taken from a
data set. Rebuild it when latex2sympy or the ANTLR runtime changes: the workers ignore a snapshot whose grammar
key does not match, and a test fails until it is rebuilt.

    python tools/build_dfa_snapshot.py [--answers 4000] [--seed 0] [--out rewards/math/dfa/latex_dfa.marshal]
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_VARIABLES = ["x", "y", "z", "a", "b", "c", "n", "k", "t", "r", "m", "p", "A", "B", "P", "Q"]
_GREEK = ["\\pi", "\\alpha", "\\theta", "\\beta", "\\lambda", "\\omega", "\\phi"]
_FUNCTIONS = ["\\sin", "\\cos", "\\tan", "\\cot", "\\sec", "\\csc", "\\ln", "\\log", "\\exp", "\\arcsin",
              "\\arccos", "\\arctan", "\\sinh", "\\cosh"]
_RELATIONS = ["=", "<", ">", "\\le", "\\ge", "\\leq", "\\geq", "\\neq", "\\ne", "\\approx"]
_PRODUCTS = [" \\cdot ", " \\times ", "", " ", "*"]
_UNITS = ["cm", "m", "km", "dollars", "degrees", "units", "square units", "inches", "hours", "minutes", "ways",
          "students", "meters per second", "cm^2", "m^3"]
_WORDS = ["yes", "no", "even", "odd", "none", "Alice", "Bob", "the first", "infinitely many", "A and B",
          "red", "blue", "impossible", "True", "False"]
_FRACTIONS = ["\\frac", "\\dfrac", "\\tfrac"]
_STYLES = ["\\mathrm", "\\mathbf", "\\operatorname"]
_DX = ["x", "t"]
_UNIT_SPACES = [" ", "\\ ", "\\,"]
_LIMITS = ["0", "\\infty", "1"]
_SPACES = ["", " ", "\\,", "\\;", "\\ ", "\\quad ", "~"]


class _Answers:
    """Random answers of math's usual shapes; ``depth`` bounds the nesting."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, options: list) -> object:
        return self.rng.choice(options)

    def number(self) -> str:
        r = self.rng.random()
        if r < 0.45:
            return str(self.rng.choice([0, 1, 2, 3, 4, 5, 7, 9, 10, 12, 15, 24, 36, 100, 120, 2024, 360, 1000]))
        if r < 0.6:
            return f"{self.rng.randint(0, 99)}.{self.rng.randint(0, 999)}"
        if r < 0.7:
            return f"{self.rng.randint(1, 9)},{self.rng.randint(100, 999)}"
        if r < 0.75:
            return f"{self.rng.randint(1, 9)},\\!{self.rng.randint(100, 999)}"
        if r < 0.85:
            return f"-{self.rng.randint(1, 50)}"
        if r < 0.9:
            return f"{self.rng.randint(1, 9)}e{self.rng.choice(['-', ''])}{self.rng.randint(1, 9)}"
        return str(self.rng.randint(10_000, 9_999_999))

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return self.number()
        if r < 0.65:
            return str(self.pick(_VARIABLES))
        if r < 0.72:
            return str(self.pick(_GREEK))
        if r < 0.78:
            return f"{self.pick(_VARIABLES)}_{self.pick(['n', '1', '2', '{10}', '{n+1}', 'k', '0'])}"
        if r < 0.82:
            return "e"
        if r < 0.85:
            return "\\infty"
        if r < 0.9:
            return f"{self.pick(['f', 'g', 'h', 'P'])}({self.pick(['x', '2', '-1', 'x+1', 'n', '0'])})"
        return f"{self.rng.randint(2, 9)}{self.pick(_VARIABLES)}"

    def expression(self, depth: int = 2) -> str:
        if depth <= 0 or self.rng.random() < 0.25:
            return self.atom()
        return _SHAPES[self.rng.randrange(len(_SHAPES))](self, depth - 1)

    # -- the shapes of an expression, each from sub-expressions of depth ``d`` -----------------------------------
    def _plus(self, d: int) -> str:
        return f"{self.expression(d)} + {self.expression(d)}"

    def _minus(self, d: int) -> str:
        return f"{self.expression(d)} - {self.expression(d)}"

    def _product(self, d: int) -> str:
        return f"{self.expression(d)}{self.pick(_PRODUCTS)}{self.expression(d)}"

    def _fraction(self, d: int) -> str:
        return f"{self.pick(_FRACTIONS)}{{{self.expression(d)}}}{{{self.expression(d)}}}"

    def _power(self, d: int) -> str:
        return f"{self.atom()}^{self.pick(['2', '3', '{2}', '{-1}', '{n}', '{' + self.expression(d) + '}'])}"

    def _root(self, d: int) -> str:
        index = self.pick(["", "", "[3]", "[n]"])
        return f"{self.pick(['', '', '2', '3', '-'])}\\sqrt{index}{{{self.expression(d)}}}"

    def _parentheses(self, d: int) -> str:
        return f"({self.expression(d)})"

    def _left_right(self, d: int) -> str:
        return f"\\left({self.expression(d)}\\right)"

    def _function(self, d: int) -> str:
        fn = self.pick(_FUNCTIONS)
        power = self.pick(["", "", "^2", "^{-1}"])
        argument = self.pick([f"({self.expression(d)})", f" {self.atom()}", f"\\left({self.expression(d)}\\right)",
                              f"{{{self.expression(d)}}}"])
        return f"{fn}{power}{argument}"

    def _logarithm(self, d: int) -> str:
        return f"\\log_{{{self.pick(['2', '3', '10', 'a', 'b'])}}} {self.atom()}"

    def _exponential(self, d: int) -> str:
        return f"e^{{{self.expression(d)}}}"

    def _signed(self, d: int) -> str:
        return f"{self.pick(['-', '+'])}{self.expression(d)}"

    def _absolute(self, d: int) -> str:
        return f"|{self.expression(d)}|" if self.rng.random() < 0.5 else f"\\left|{self.expression(d)}\\right|"

    def _counting(self, d: int) -> str:
        return f"{self.atom()}!" if self.rng.random() < 0.5 else f"\\binom{{{self.atom()}}}{{{self.atom()}}}"

    def _plus_minus(self, d: int) -> str:
        return f"{self.expression(d)} \\pm {self.expression(d)}"

    def _slash(self, d: int) -> str:
        return f"{self.atom()}/{self.atom()}"

    def _degrees(self, d: int) -> str:
        return f"{self.expression(d)}^\\circ" if self.rng.random() < 0.5 else f"{self.number()}^{{\\circ}}"

    def _percent(self, d: int) -> str:
        return f"{self.number()}\\%"

    def _styled(self, d: int) -> str:
        return f"{self.pick(_STYLES)}{{{self.pick(_VARIABLES)}}}"

    def _spaced(self, d: int) -> str:
        return f"{self.expression(d)}{self.pick(_SPACES)}{self.expression(d)}"

    def _operator(self, d: int) -> str:
        k = self.pick(["k", "n", "i"])
        return self.pick([f"\\sum_{{{k}=1}}^{{{self.atom()}}} {self.expression(d)}",
                          f"\\int_{{{self.atom()}}}^{{{self.atom()}}} {self.expression(d)} \\, d{self.pick(_DX)}",
                          f"\\lim_{{{self.pick(['x', 'n'])} \\to {self.pick(_LIMITS)}}} {self.expression(d)}",
                          f"\\prod_{{{k}=1}}^{{n}} {self.expression(d)}"])

    def _scientific(self, d: int) -> str:
        return f"{self.expression(d)}{self.pick(['', ' '])}\\cdot{self.pick(['', ' '])}10^{{{self.rng.randint(-9, 9)}}}"

    def polynomial(self) -> str:
        """Terms of one or two variables with coefficients and powers, as answers write them."""
        names = [self.pick(_VARIABLES)] + ([self.pick(_VARIABLES)] if self.rng.random() < 0.3 else [])
        terms = []
        for _ in range(self.rng.randint(2, 6)):
            coefficient = self.pick(["", "", "2", "3", "12", "21", "-", "\\frac{1}{2}", "\\frac{3}{4}", "0.5"])
            power = self.pick(["", "^2", "^3", "^5", "^{10}", "^{n}", "^{-1}"])
            terms.append(f"{coefficient}{self.pick(names)}{power}" if self.rng.random() < 0.85 else self.number())
        out = terms[0]
        for term in terms[1:]:
            out += self.pick([" + ", " - ", "+", "-"]) + term
        return out

    def call(self) -> str:
        """A function applied as answers write it: with or without a space, parentheses or braces."""
        argument = self.pick([self.expression(1), f"\\frac{{{self.atom()}}}{{{self.atom()}}}", self.atom()])
        space = self.pick(["", " "])
        name = self.pick(_FUNCTIONS)
        return self.pick([f"{name}{space}({argument})", f"{name} {argument}",
                          f"{name}{space}\\left({argument}\\right)"])

    def answer(self) -> str:
        shape = self.rng.randrange(20)
        e = self.expression
        if shape >= 16:
            chain = [self.pick([self.polynomial(), self.call(), e(1)]) for _ in range(self.rng.randint(1, 3))]
            return " = ".join(chain)
        if shape <= 5:
            return e(self.rng.choice([1, 2, 2, 3]))
        if shape == 6:
            return f"{self.pick(_VARIABLES)} {self.pick(_RELATIONS)} {e(2)}"
        if shape == 7:
            return f"{e(2)} {self.pick(_RELATIONS)} {e(2)}"
        if shape == 8:
            low, high = self.pick(["(", "[", "\\left(", "\\left["]), self.pick([")", "]", "\\right)", "\\right]"])
            first = self.pick([e(1), "-\\infty"])
            last = self.pick([e(1), "\\infty"])
            interval = f"{low}{first}, {last}{high}"
            return interval if self.rng.random() < 0.7 else f"{interval} \\cup {low}{e(1)}, {e(1)}{high}"
        if shape == 9:
            return f"\\{{{', '.join(e(1) for _ in range(self.rng.randint(1, 4)))}\\}}"
        if shape == 10:
            return f"({', '.join(e(1) for _ in range(self.rng.randint(2, 3)))})"
        if shape == 11:
            return ", ".join(e(1) for _ in range(self.rng.randint(2, 4)))
        if shape == 12:
            kind = self.pick(["pmatrix", "bmatrix"])
            rows = " \\\\ ".join(" & ".join(e(1) for _ in range(2)) for _ in range(self.rng.randint(1, 3)))
            return f"\\begin{{{kind}}} {rows} \\end{{{kind}}}"
        if shape == 13:
            return f"{e(1)}{self.pick(_UNIT_SPACES)}\\text{{{self.pick(['', ' '])}{self.pick(_UNITS)}}}"
        if shape == 14:
            return self.pick([f"\\text{{{self.pick(_WORDS)}}}", str(self.pick(_WORDS)),
                              f"{e(1)} {self.pick(_WORDS)}"])
        return ", ".join(f"{self.pick(_VARIABLES)} = {e(1)}" for _ in range(self.rng.randint(2, 3)))


_SHAPES = (_Answers._plus, _Answers._minus, _Answers._product, _Answers._fraction, _Answers._power, _Answers._root,
           _Answers._parentheses, _Answers._left_right, _Answers._function, _Answers._logarithm,
           _Answers._exponential, _Answers._signed, _Answers._absolute, _Answers._counting, _Answers._plus_minus,
           _Answers._slash, _Answers._degrees, _Answers._percent, _Answers._styled, _Answers._spaced,
           _Answers._operator, _Answers._scientific)


def generated_answers(count: int, seed: int = 0) -> list[str]:
    """``count`` distinct answers drawn from :class:`_Answers` with ``seed``."""
    answers = _Answers(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        out[answers.answer()] = None
    return list(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from math_verify import parse

    from rewards.math.dfa import snapshot as dfa_snapshot
    from rewards.math.prediction import use_two_stage_prediction

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    dfa_snapshot.pin_hashes()  # before the first parse: every state is filed under its hash
    use_two_stage_prediction()
    started = time.perf_counter()
    for k, answer in enumerate(generated_answers(args.answers, args.seed)):
        wrapped = f"\\boxed{{{answer}}}" if k % 2 else f"${answer}$"
        try:
            parse(wrapped, parsing_timeout=5)
        except Exception:  # noqa: BLE001 - a corpus answer that math-verify cannot read still taught ANTLR
            pass
    data = dfa_snapshot.take(dfa_snapshot.parser_class())
    out = args.out or dfa_snapshot.SNAPSHOT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(f"{args.answers} answers parsed in {time.perf_counter() - started:.1f} s; {len(data):,} bytes to {out}")


if __name__ == "__main__":
    main()
