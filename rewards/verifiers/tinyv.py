"""TinyV (uw-nsl/TinyV, arXiv 2505.14625): ``True`` or ``False``, and its add-on use beside a rule verifier.

Read from ``verl/verl/utils/reward_score/tinyv.py`` and ``tinyv_config.json`` (the RL reward) at commit
4a9d2c720c161e2ccc0e492cc59ed5f9c226ec5f. Each released model has its template and budget: TinyV-1.5B (the
false-negative template, 8 new tokens), TinyV-Qwen3-1.7B (the equivalence template, 8), and their ``-Think``
versions (the same templates, 512 new tokens, the verdict read after the thinking). The variant is chosen as
the released code chooses it, by the model's name (``variant=`` overrides; TinyV-Qwen3-1.7B otherwise). The
template is filled by successive ``str.replace`` of ``{{QUESTION}}``, ``{{GROUND_TRUTH_ANSWER}}`` and
``{{MODEL_ANSWER}}`` and sent as one user message, greedy.

The released reward gives the verifier the answer its rule verifier (PRIME's) extracted from the response; here
it is the rule reward's extraction (:func:`rewards.math.extraction.extract_final_answer`), or the response itself
where none is found. The verdict is read as released: the output stripped; for a thinking model, what follows
``Answer:`` or else ``</think>`` (neither: invalid); then ``true`` anywhere in it, lower-cased, is correct, else
``false`` is incorrect, else invalid. The released reward pays an invalid output 0; here it is an abstention.

``tinyv-addon`` is the released default setup (``addon``): the rule reward decides where it says correct, and
TinyV is asked only where it does not (a :func:`rewards.composite.cascade` with ``trust=correct``).
"""

from __future__ import annotations

from rewards.contract import Item
from rewards.math.extraction import extract_final_answer
from rewards.verifiers.protocol import ProtocolReward, Reading, Verdict, VerifierProtocol

SOURCE = ("uw-nsl/TinyV@4a9d2c720c161e2ccc0e492cc59ed5f9c226ec5f verl/verl/utils/reward_score/tinyv.py, "
          "tinyv_config.json")

# the released templates, which differ only in their first paragraph
_BODY = (
    '\n'
    '\n'
    '<question>{{QUESTION}}</question>\n'
    '\n'
    '<ground_truth_answer>{{GROUND_TRUTH_ANSWER}}</ground_truth_answer>\n'
    '\n'
    '<model_answer>{{MODEL_ANSWER}}</model_answer>\n'
    '\n'
    'Return "True" if the model\'s answer is correct, otherwise return "False".'
)

FALSE_NEGATIVE_TEMPLATE = (
    "You are an AI tasked with identifying false negatives in answer verification. A false negative occurs when a model's answer is essentially correct but is marked as incorrect due to minor discrepancies or formatting issues. Your job is to analyze the given question, ground truth answer, and model answer to determine if the model's answer is actually correct despite appearing different from the ground truth."
) + _BODY

EQUIVALENCE_TEMPLATE = (
    "You are an AI tasked with identifying if the model's answer is correct compared to the ground truth answer despite appearing different from the ground truth."
) + _BODY


def model_answer(completion: str) -> str:
    found = extract_final_answer(completion)
    return found.text if found is not None else completion


def _renderer(template: str):
    def render(item: Item) -> list[dict[str, str]]:
        text = (template.replace("{{QUESTION}}", item.question)
                .replace("{{GROUND_TRUTH_ANSWER}}", item.reference)
                .replace("{{MODEL_ANSWER}}", model_answer(item.completion)))
        return [{"role": "user", "content": text}]

    return render


def _reader(thinking: bool):
    def read(output: str) -> Reading:
        text = output.strip()
        if thinking:
            if "Answer:" in text:
                text = text.split("Answer:")[1].strip()
            elif "</think>" in text:
                text = text.split("</think>")[1].strip()
            else:
                return Reading(Verdict.UNPARSED, "unparsed")
        if "true" in text.lower():
            return Reading(Verdict.CORRECT, "true")
        if "false" in text.lower():
            return Reading(Verdict.INCORRECT, "false")
        return Reading(Verdict.UNPARSED, "unparsed")

    return read


VARIANTS = {
    "TinyV-Qwen3-1.7B": VerifierProtocol("TinyV-Qwen3-1.7B", SOURCE, _renderer(EQUIVALENCE_TEMPLATE), _reader(False), 8),
    "TinyV-1.5B": VerifierProtocol("TinyV-1.5B", SOURCE, _renderer(FALSE_NEGATIVE_TEMPLATE), _reader(False), 8),
    "TinyV-Qwen3-1.7B-Think": VerifierProtocol("TinyV-Qwen3-1.7B-Think", SOURCE, _renderer(EQUIVALENCE_TEMPLATE),
                                               _reader(True), 512),
    "TinyV-1.5B-Think": VerifierProtocol("TinyV-1.5B-Think", SOURCE, _renderer(FALSE_NEGATIVE_TEMPLATE),
                                         _reader(True), 512),
}


class TinyVReward(ProtocolReward):
    """TinyV's protocol on any generation backend; the variant follows the model's name unless given."""

    protocols = VARIANTS


def tinyv_addon(model: str, rule: str = "rule", backend: str = "transformers", base_url: str = "",
                variant: str = "") -> object:
    """The released ``addon`` setup: the rule reward first; TinyV only where the rule does not say correct."""
    from harness.core.spec import ComponentSpec
    from rewards.composite import cascade

    # a spec object, not joined text: a value with a comma or a colon (a path, a URL) is bracketed, never split
    then = ComponentSpec("tinyv", {k: v for k, v in (("model", model), ("backend", backend), ("base_url", base_url),
                                                     ("variant", variant)) if v})
    return cascade(first=rule, then=str(then), trust="correct")
