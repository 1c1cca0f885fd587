"""xVerify (IAAR-Shanghai/xVerify, arXiv 2504.10481): ``Correct`` or ``Incorrect``.

Read from the released package, ``src/xVerify/prompts/judge_prompt.py`` (``PROMPT``), ``src/xVerify/model.py``
(the request) and ``src/xVerify/eval.py`` (``stat_results``, how a judgment is counted) at commit
5e3606ac82dfacde5120bbf6db295979bad10e1a. The prompt is the template filled by ``str.format`` with the question,
the whole response (``output``) and the reference (``answer``), sent as one user message (the package's API path;
its local path wraps the same text in a fixed per-model chat string). The package's defaults: temperature 0.1,
up to 2,048 new tokens.

The verdict is read as ``stat_results`` counts it: the output, stripped and lower-cased, is exactly ``correct``
or ``incorrect``; anything else is not a valid judgment (the package counts it as invalid), an abstention here.
"""

from __future__ import annotations

from rewards.contract import Item
from rewards.verifiers.protocol import ProtocolReward, Reading, Verdict, VerifierProtocol

SOURCE = ("IAAR-Shanghai/xVerify@5e3606ac82dfacde5120bbf6db295979bad10e1a src/xVerify/prompts/judge_prompt.py, "
          "src/xVerify/model.py, src/xVerify/eval.py")

PROMPT = (
    'You are a diligent and precise assistant tasked with evaluating the correctness of responses. You will receive a question, an output sentence, and the correct answer. Your task is to determine if the output sentence accurately answers the question based on the provided correct answer. Respond with either [Correct] or [Incorrect].\n'
    '-\n'
    'Special considerations:\n'
    '\n'
    '1. **Multiple Answers**: If the output contains multiple answers, evaluate whether later answers modify or correct earlier ones. In such cases, compare the final answer with the correct answer. If the final answer is unclear or incorrect, respond with [Incorrect].\n'
    '\n'
    '2. **Mathematical Problems**: If the formats differ but the answers are mathematically equivalent, respond with [Correct].\n'
    '\n'
    "3. **Explicit Options**: If the question provides explicit candidate answers, the output will be considered correct if it clearly indicates the correct option's code or the correct option's content.\n"
    '\n'
    '4. **No Explicit Options**: If the question does not provide explicit options, the output must align with the correct answer in content and meaning to be considered [Correct].\n'
    '-\n'
    '\n'
    'Question: """{question}"""\n'
    '\n'
    'Output sentence: """{output}"""\n'
    '\n'
    'Correct answer: {answer}\n'
    '\n'
    'Judgement:\n'
)

_READINGS = {"correct": Reading(Verdict.CORRECT, "correct"), "incorrect": Reading(Verdict.INCORRECT, "incorrect")}


def read(output: str) -> Reading:
    return _READINGS.get(output.strip().lower(), Reading(Verdict.UNPARSED, "unparsed"))


def render(item: Item) -> list[dict[str, str]]:
    return [{"role": "user", "content": PROMPT.format(question=item.question, output=item.completion,
                                                     answer=item.reference)}]


XVERIFY = VerifierProtocol("xverify", SOURCE, render, read, max_tokens=2048, temperature=0.1)


class XVerifyReward(ProtocolReward):
    """xVerify's protocol on any generation backend."""

    protocols = {"xverify": XVERIFY}
