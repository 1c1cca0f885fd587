"""General-Verifier (TIGER-AI-Lab/General-Reasoner, arXiv 2505.14652): ``Final Decision: Yes`` or ``No``.

Read from ``verifier.py`` at commit 007e44cb1e6a624845616dd5c1c7e044e5bfd3cd. The released worker first takes the
student's answer out of the response: the contents of the last ``\\boxed{...}`` (braces nested two deep), else
the text after the last of the phrases "Final Answer:", "Final Answer is:", "The answer is:", "Answer:",
"Solution:", "The solution is:" (any case) up to the end of its line, with a trailing stop word removed;
an empty or missing answer becomes "No Answer". The prompt is raw text (no chat template), ``User: ... Assistant:``,
filled by ``str.format``; greedy, up to 2,048 new tokens.

The released reward pays when the output contains ``Final Decision: Yes`` and then subtracts 0.05 per token of
length difference between the answer and the reference (at most 0.5), and 0.5 more when no answer was found:
shaping of its own RL run, left out here, where the score is the verdict. An output with ``Final Decision: Yes``
is correct (as released); one with only ``Final Decision: No`` is incorrect; one with neither, which the released
reward pays 0, is an abstention.
"""

from __future__ import annotations

import re

from rewards.contract import Item
from rewards.verifiers.protocol import ProtocolReward, Reading, Verdict, VerifierProtocol

SOURCE = "TIGER-AI-Lab/General-Reasoner@007e44cb1e6a624845616dd5c1c7e044e5bfd3cd verifier.py"

PROMPT = (
    'User: ### Question: {question}\n'
    '\n'
    '### Ground Truth Answer: {ground_truth}\n'
    '\n'
    '### Student Answer: {student_answer}\n'
    '\n'
    "For the above question, please verify if the student's answer is equivalent to the ground truth answer.\n"
    "Do not solve the question by yourself; just check if the student's answer is equivalent to the ground truth answer.\n"
    'If the student\'s answer is correct, output "Final Decision: Yes". If the student\'s answer is incorrect, output "Final Decision: No". Assistant:'
)

PASS, FAIL = "Final Decision: Yes", "Final Decision: No"
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
_PHRASES = ("Final Answer:", "Final Answer is:", "The answer is:", "Answer:", "Solution:", "The solution is:")
_PHRASE_ANSWERS = [re.compile(re.escape(p) + r"\s*((?:[^<]|<[^<])*?)\n", re.IGNORECASE) for p in _PHRASES]
_STOP_WORDS = ("</s>", "<|im_end|>", "<|endoftext|>")


def student_answer(response: str) -> str | None:
    """The released extraction: the last boxed answer, else the last answer phrase's line, else None."""
    boxed = list(_BOXED.finditer(response))
    if boxed and boxed[-1].group(1):
        return boxed[-1].group(1)
    last, position = None, -1
    for pattern in _PHRASE_ANSWERS:
        for match in pattern.finditer(response):
            if match.start() > position:
                position, last = match.start(), match.group(1).strip()
    for stop in _STOP_WORDS:
        if last and last.endswith(stop):
            last = last[: -len(stop)].strip()
    return last


def read(output: str) -> Reading:
    if PASS in output:
        return Reading(Verdict.CORRECT, "correct")
    if FAIL in output:
        return Reading(Verdict.INCORRECT, "incorrect")
    return Reading(Verdict.UNPARSED, "unparsed")


def render(item: Item) -> str:
    answer = student_answer(item.completion) or "No Answer"
    return PROMPT.format(question=item.question, ground_truth=item.reference, student_answer=answer)


GENERAL_VERIFIER = VerifierProtocol("general-verifier", SOURCE, render, read, max_tokens=2048)


class GeneralVerifierReward(ProtocolReward):
    """General-Verifier's protocol on any generation backend."""

    protocols = {"general-verifier": GENERAL_VERIFIER}
