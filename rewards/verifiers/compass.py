"""CompassVerifier (open-compass/CompassVerifier, arXiv 2508.03686): A correct, B incorrect, C invalid.

Read from ``src/prompts.py`` (``CV_PROMPT``, ``CV_COT_PROMPT``) and ``src/cv_eval.ipynb`` (``process_judgment``) at
commit 2d7cba6df0b21f9c6121786ac1e5770c68473598. The prompt is one user message, the template filled by
``str.format`` with the question, the reference (``gold_answer``) and the whole response (``llm_response``);
greedy, up to 2,048 new tokens. Two variants: ``direct`` (the model answers with one letter; the 3B, 7B and 32B
models' default) and ``cot`` (analysis first, then ``Final Judgment: \\boxed{A} - CORRECT``).

The verdict is read as the released ``process_judgment`` reads it: the last ``boxed{A-C}``; else the whole output
if it is exactly ``A``, ``B`` or ``C``; else, after the last ``Final Judgment:``, the last ``(A``-``(C``, else the last
capital A, B or C anywhere. That last fallback is the released one, quirks included: an output ``CORRECT`` reads
as ``C``. ``C`` (the response is incomplete, repetitive or a refusal) is a judgment that the response is not a
correct answer: it pays 0, as in the released evaluation, with reason ``invalid_response``. An output with no
letter at all is an abstention.
"""

from __future__ import annotations

import re

from rewards.contract import Item
from rewards.verifiers.protocol import ProtocolReward, Reading, Verdict, VerifierProtocol

SOURCE = "open-compass/CompassVerifier@2d7cba6df0b21f9c6121786ac1e5770c68473598 src/prompts.py, src/cv_eval.ipynb"

DIRECT_PROMPT = (
    '\n'
    'Please as a grading expert, judge whether the final answers given by the candidates below are consistent with the standard answers, that is, whether the candidates answered correctly. \n'
    'Here are some evaluation criteria:\n'
    "1. Please refer to the given standard answer. You don't need to re-generate the answer to the question because the standard answer has been given. You only need to judge whether the candidate's answer is consistent with the standard answer according to the form of the question. THE STANDARD ANSWER IS ALWAYS CORRECT AND THE QUESTION IS PERFECTLY VALID. NEVER QUESTION THEM.\n"
    '2. ONLY compare the FINAL ANSWER - COMPLETELY IGNORE any potential errors in the REASONING PROCESSES.\n'
    "3. Some answers may be expressed in different ways, such as some answers may be a mathematical expression, some answers may be a textual description, as long as the meaning expressed is the same. Before making a judgment, please understand the question and the standard answer first, and then judge whether the candidate's answer is correct.\n"
    '4. Some answers may consist of multiple items, such as multiple-choice questions, multiple-select questions, fill-in-the-blank questions, etc. Regardless of the question type, the final answer will be considered correct as long as it matches the standard answer, regardless of whether the reasoning process is correct. For multiple-select questions and multi-blank fill-in-the-blank questions, all corresponding options or blanks must be answered correctly and match the standard answer exactly to be deemed correct.\n'
    "5. If the prediction is given with \\boxed{{}}, please ignore the \\boxed{{}} and only judge whether the candidate's answer is consistent with the standard answer.\n"
    "6. If the candidate's answer is invalid (e.g., incomplete (cut off mid-response), lots of unnormal repetitive content, or irrelevant to the question, saying it can't answer the question because some irresistible factors, like ethical issues, no enough information, etc.), select option C (INVALID).Please judge whether the following answers are consistent with the standard answer based on the above criteria. Grade the predicted answer of this new question as one of:\n"
    'A: CORRECT \n'
    'B: INCORRECT\n'
    'C: INVALID\n'
    'Just return the letters "A", "B", or "C", with no text around it.\n'
    "Here is your task. Simply reply with either CORRECT, INCORRECT, or INVALID. Don't apologize or correct yourself if there was a mistake; we are just trying to grade the answer.\n"
    '<Original Question Begin>:\n'
    '{question}\n'
    '<Original Question End>\n'
    '<Standard Answer Begin>:\n'
    '{gold_answer}\n'
    '<Standard Answer End>\n'
    "<Candidate's Answer Begin>: \n"
    '{llm_response}\n'
    "<Candidate's Answer End>\n"
    "Judging the correctness of the candidate's answer:\n"
)

COT_PROMPT = (
    "As a grading expert, your task is to determine whether the candidate's final answer matches the provided standard answer. Follow these evaluation guidelines precisely:\n"
    '\n'
    'Evaluation Protocol:\n'
    '1. Reference Standard:\n'
    '   - The standard answer is definitive and always correct\n'
    '   - The question is perfectly valid - never question them\n'
    '   - Do not regenerate answers; only compare with the given standard\n'
    '\n'
    '2. Comparison Method:\n'
    "   - Carefully analyze the question's requirements and the standard answer's structure\n"
    '     * Determine whether the question expects exact matching of the entire standard answer or allows partial matching of its components.\n'
    "     * This determination must be made based on the question's phrasing and the nature of the standard answer.\n"
    "   - Compare ONLY the candidate's final answer (ignore all reasoning/explanation errors)\n"
    '   - Disregard any differences in formatting or presentation style\n'
    '   - For mathematical expressions: calculate step by step whether the two formulas are equivalent\n'
    '   - For multiple-choice questions: compare only the final choice and corresponding option content\n'
    '\n'
    '3. Multi-part Answers:\n'
    '   - For questions requiring multiple responses (e.g., multi-select):\n'
    '   - All parts must match the standard answer exactly. \n'
    '   - Compare each sub-answer step by step. Partial matches are considered incorrect.\n'
    '\n'
    '4. Validity Check:\n'
    '   - Reject answers that are:\n'
    '     * Incomplete (cut off mid-sentence in the final sentence, lacking a complete response) → Label as INCOMPLETE\n'
    '     * Repetitive (repetition of words or phrases in a loop) → Label as REPETITIVE\n'
    '     * Explicit refusals (e.g., directly return "I cannot answer/provide/access ...") → Label as REFUSAL\n'
    '   - For invalid answers, specify the type in the judgment (e.g., \\boxed{{C}} - INCOMPLETE).\n'
    '\n'
    'Grading Scale:\n'
    '\\boxed{{A}} - CORRECT: \n'
    '   - Answer matches standard exactly (including equivalent expressions)\n'
    '   - For numerical answers: consider as equivalent if values match when rounded appropriately\n'
    '   - Semantically equivalent responses\n'
    '\n'
    '\\boxed{{B}} - INCORRECT:\n'
    '   - Any deviation from standard answer\n'
    '   - Partial matches for multi-part questions\n'
    '\n'
    '\\boxed{{C}} - INCOMPLETE/REPETITIVE/REFUSAL:\n'
    '   - Fails validity criteria above (must specify: INCOMPLETE/REPETITIVE/REFUSAL)\n'
    '\n'
    'Execution Steps and Output Formats:\n'
    '\n'
    'Analysis step by step: [\n'
    "Thoroughly evaluate the candidate's answer including:\n"
    '(1) First check if the answer is INCOMPLETE (cut off mid-sentence), REPETITIVE (looping repetition), or a REFUSAL (explicit denial) - if so, immediately classify as \\boxed{{C}} with the corresponding type.\n'
    "(2) Analyze the question's core requirements and the standard answer's structure, for example:\n"
    '- Strict requirements: Identify mandatory constraints (e.g., simplification, answer order, multi-part completeness)\n'
    '- Tolerant allowances: Ignore non-critical deviations (e.g., missing option labels in MCQs, equivalent but unformatted expressions)\n'
    '- Required answer type, precision level, etc.\n'
    "(3) Perform a detailed comparison between the candidate's final answer and the standard answer, for example:\n"
    '- Content equivalence\n'
    '- Permitted variations in numerical precision\n'
    '- Allowed expression formats]\n'
    'Final Judgment: \\boxed{{A/B/C}} - <CORRECT/INCORRECT/INCOMPLETE/REPETITIVE/REFUSAL>\n'
    '\n'
    'Here is your task.\n'
    '<Original Question Begin>\n'
    '{question}\n'
    '<Original Question End>\n'
    '\n'
    '<Standard Answer Begin>\n'
    '{gold_answer}\n'
    '<Standard Answer End>\n'
    '\n'
    "<Candidate's Answer Begin>\n"
    '{llm_response}\n'
    "<Candidate's Answer End>\n"
    '\n'
    'Analysis step by step and Final Judgment:\n'
)

_BOXED = re.compile(r"boxed{([A-C])}")
_PARENTHESISED = re.compile(r"\(([A-C])\)*")
_LETTER = re.compile(r"([A-C])")
_READINGS = {
    "A": Reading(Verdict.CORRECT, "correct"),
    "B": Reading(Verdict.INCORRECT, "incorrect"),
    "C": Reading(Verdict.INCORRECT, "invalid_response"),
}


def letter(output: str) -> str:
    """The released ``process_judgment``: the letter A, B or C the output gives, or "" when it gives none."""
    boxed = _BOXED.findall(output)
    if boxed:
        return boxed[-1]
    if output in ("A", "B", "C"):
        return output
    final = output.split("Final Judgment:")[-1]
    for pattern in (_PARENTHESISED, _LETTER):
        found = pattern.findall(final)
        if found:
            return found[-1]
    return ""


def read(output: str) -> Reading:
    return _READINGS.get(letter(output), Reading(Verdict.UNPARSED, "unparsed"))


def _renderer(template: str):
    def render(item: Item) -> list[dict[str, str]]:
        text = template.format(question=item.question, gold_answer=item.reference, llm_response=item.completion)
        return [{"role": "user", "content": text}]

    return render


DIRECT = VerifierProtocol("direct", SOURCE, _renderer(DIRECT_PROMPT), read, max_tokens=2048)
COT = VerifierProtocol("cot", SOURCE, _renderer(COT_PROMPT), read, max_tokens=2048)


class CompassVerifierReward(ProtocolReward):
    """CompassVerifier's protocol (``variant=direct`` or ``cot``) on any generation backend."""

    protocols = {"direct": DIRECT, "cot": COT}
