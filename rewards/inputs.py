"""Inputs as trainers send them: the one cleaning that every entry point applies before a reward sees them.

Completions. Trainers hand rewards decoded text as their tokenizer left it. OpenRLHF decodes with
``skip_special_tokens=False``, so a response ends in ``<|im_end|>`` (Qwen), ``<|eot_id|>`` (Llama 3), ``</s>``
(Llama 2, Mistral), ``<｜end▁of▁sentence｜>`` (DeepSeek) or ``<end_of_turn>`` (Gemma), often followed by padding
or the start of the next turn. Left in, ``$1596.<|im_end|>`` is no number and a right answer scores 0. The text
is cut at the first end-of-turn or end-of-text token (what follows was not said by the policy), and a leading
turn opening is removed. Users add the tokens of their own tokenizer with ``extra_tokens``.

Questions. A reward gets the question as the policy was asked it: the prompt's user turns, instruction included
(Cooper's released trainer passes the prompt's first message so). A reward model trained on bare problems and
scored on prompts reads a text it never saw: :func:`reward_item` is the one place such an item is made, for
training data, static checks and probes as for scoring during RL.

References. Datasets store answers as numbers: OpenRLHF passes a label ``60.0`` through as a float, verl's
ground truth may be a numpy integer, and ``str()`` makes ``"60.0"`` or ``"6e+01"``. A number becomes its plain
decimal text (``60``, ``0.5``, ``1234567``), so that it compares as the number it is.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from harness.core.items import Item

# Tokens that end a turn or the text: everything from the first of them on is not the completion.
END_TOKENS = (
    "<|im_end|>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "</s>", "<｜end▁of▁sentence｜>",
    "<|end▁of▁sentence|>", "<end_of_turn>", "<|end|>", "<eos>", "<|return|>", "<|im_start|>", "<|start_header_id|>",
    "<start_of_turn>", "<|user|>", "[PAD]", "<pad>", "<|pad|>", "<|finetune_right_pad_id|>",
    # GAOKAO-Bench's answer format ends the answer so ("【答案】D<eoa>"); its <eoe> ends the explanation and is kept
    "<eoa>",
)
# A turn opening that a completion may start with ("<|im_start|>assistant\n"): removed, not cut at.
_OPENING = re.compile(
    r"^(?:\s*(?:<\|im_start\|>|<\|start_header_id\|>|<start_of_turn>|<\|begin_of_text\|>|<s>|<bos>|"
    r"<｜begin▁of▁sentence｜>|<｜Assistant｜>|<\|assistant\|>)(?:\s*(?:assistant|model)\b)?(?:\s*<\|end_header_id\|>)?)+\s*"
)


def clean_completion(completion: str, extra_tokens: Iterable[str] = ()) -> str:
    """``completion`` without a leading turn opening, cut at its first end-of-turn or end-of-text token.
    ``extra_tokens`` (a tokenizer's own) are treated as end tokens."""
    extra = tuple(t for t in extra_tokens if t)
    if "<" not in completion and "[" not in completion and not extra:
        return completion
    text = _OPENING.sub("", completion, count=1)
    cut = len(text)
    for token in (*END_TOKENS, *extra):
        at = text.find(token, 0, cut)
        if at >= 0:
            cut = at
    return text[:cut]


def reference_text(label: object) -> str:
    """A reference answer as text: numbers (Python, numpy or numeric strings such as ``60.0`` and ``6e1``) as
    their plain decimal form, anything else as ``str()``."""
    if isinstance(label, bool):
        return str(label)
    if isinstance(label, numbers.Integral):
        return str(int(label))
    if isinstance(label, numbers.Real):
        return _plain_decimal(Decimal(repr(float(label))))
    text = str(label).strip()
    if len(text) <= _MAX_NUMERIC_CHARS and _NUMERIC_LABEL.fullmatch(text):
        try:
            return _plain_decimal(Decimal(text))
        except (ArithmeticError, ValueError):  # InvalidOperation, Overflow: the text is the reference as given
            return text
    return text


_MAX_NUMERIC_CHARS = 4000  # longer numbers are compared as the text they are (decimal's context would overflow)
_NUMERIC_LABEL = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d{1,4})?")


def _plain_decimal(value: Decimal) -> str:
    if not value.is_finite():
        return str(value)
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "+0") else text


def completion_text(completion: Any) -> str:
    """A completion as text: trainers pass text or, for chat datasets, a list of messages (TRL, slime)."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content", "") for m in completion if isinstance(m, dict))


def prompt_text(prompt: Any) -> str:
    """A prompt as the question's text: a string as it is, chat messages as their user turns."""
    if isinstance(prompt, str):
        return prompt
    return "\n".join(m.get("content", "") for m in prompt if isinstance(m, dict) and m.get("role") == "user")


def reward_item(prompt: Any, reference: Any, completion: Any, metadata: dict[str, Any] | None = None) -> Item:
    """The item a reward scores for one rollout: the question as the policy was asked it (:func:`prompt_text`),
    the reference as text (:func:`reference_text`) and the completion as the policy wrote it
    (:func:`clean_completion`). ``prompt_id`` (the question) groups a prompt's rollouts, as Cooper's negatives
    need."""
    question = prompt_text(prompt)
    return Item(question, reference_text(reference), clean_completion(completion_text(completion)),
                {"prompt_id": question, **(metadata or {})})
