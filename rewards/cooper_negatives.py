"""Where Cooper's negative examples come from.

Cooper pairs a rule-verified correct rollout (the positive) with an incorrect one made from it. Three
sources, chosen by the ``negatives`` option so their effect can be compared:
- ``assistant`` (the paper's): an assistant LLM rewrites the positive with a wrong step and a wrong final
  answer, of similar length and plausible-looking;
- ``perturb``: the positive with its final answer replaced by a wrong value;
- ``group``: an incorrect rollout (by the rule reward) of the same prompt.
Every negative is kept only if the rule reward says it is incorrect.
"""

from __future__ import annotations

import re
from fractions import Fraction

from harness.core.answers import boxed_answers
from rewards.math.reading import rational_value

# The released code's request, worded anew: a completely wrong, misleading solution that still looks like one.
REWRITE_SYSTEM = """You write wrong solutions to math problems, for training a verifier. Given a problem and a correct
solution, write a solution that:
1. reasons wrongly throughout, with plausible-sounding but false steps;
2. reaches a wrong final answer;
3. is about as long as the correct solution;
4. looks like a genuine attempt at the problem;
5. keeps the correct solution's format (if it puts its answer in \\boxed{}, so does yours)."""
REWRITE_TEMPLATE = """Problem:
{question}

Correct solution:
{solution}

Reply with the wrong solution only: its working and its answer, nothing else."""


def rewrite_messages(question: str, solution: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": REWRITE_SYSTEM},
        {"role": "user", "content": REWRITE_TEMPLATE.format(question=question, solution=solution)},
    ]


def _wrong_value(answer: str) -> str | None:
    value = rational_value(answer)
    if value is not None:
        wrong = value + 1 if value.denominator == 1 else value * 2 + Fraction(1, 2)
        return str(wrong.numerator) if wrong.denominator == 1 else f"\\frac{{{wrong.numerator}}}{{{wrong.denominator}}}"
    letter = re.fullmatch(r"\(?([A-D])\)?", answer.strip())
    if letter:
        return "ABCD"[("ABCD".index(letter.group(1)) + 1) % 4]
    if answer.strip():
        return f"{answer.strip()} + 1"
    return None


def perturb_final_answer(completion: str) -> str | None:
    """``completion`` with its last boxed answer (else its GSM8K ``#### n``) replaced by a wrong value."""
    boxed = boxed_answers(completion, limit=1)
    if boxed:
        answer = boxed[0]
        start = completion.rfind("{" + answer + "}")
        wrong = _wrong_value(answer)
        if start < 0 or wrong is None:
            return None
        return completion[: start + 1] + wrong + completion[start + 1 + len(answer) :]
    hashes = completion.rfind("####")
    if hashes >= 0:
        answer = completion[hashes + 4 :].strip().splitlines()[0] if completion[hashes + 4 :].strip() else ""
        wrong = _wrong_value(answer)
        return None if wrong is None else completion[:hashes] + "#### " + wrong
    return None
