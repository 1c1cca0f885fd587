"""What a completion says, without the tokenizer's control tokens: the one cleaning every entry point applies.

Trainers hand rewards decoded text as their tokenizer left it. OpenRLHF decodes with
``skip_special_tokens=False``, so a response ends in ``<|im_end|>`` (Qwen), ``<|eot_id|>`` (Llama 3), ``</s>``
(Llama 2, Mistral), ``<｜end▁of▁sentence｜>`` (DeepSeek) or ``<end_of_turn>`` (Gemma), often followed by padding
or the start of the next turn. Left in, ``$1596.<|im_end|>`` is no number and a right answer scores 0. The text
is cut at the first end-of-turn or end-of-text token (what follows was not said by the policy), and any other
control token is removed. Users add the tokens of their own tokenizer with ``extra_tokens``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Tokens that end a turn or the text: everything from the first of them on is not the completion.
END_TOKENS = (
    "<|im_end|>", "<|endoftext|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", "</s>", "<｜end▁of▁sentence｜>",
    "<|end▁of▁sentence|>", "<end_of_turn>", "<|end|>", "<eos>", "<|return|>", "<|im_start|>", "<|start_header_id|>",
    "<start_of_turn>", "<|user|>", "[PAD]", "<pad>", "<|pad|>", "<|finetune_right_pad_id|>",
)
# A turn opening that a completion may start with ("<|im_start|>assistant\n"): removed, not cut at.
_OPENING = re.compile(
    r"^(?:\s*(?:<\|im_start\|>|<\|start_header_id\|>|<start_of_turn>|<\|begin_of_text\|>|<s>|<bos>|"
    r"<｜begin▁of▁sentence｜>|<｜Assistant｜>|<\|assistant\|>)(?:\s*(?:assistant|model)\b)?(?:\s*<\|end_header_id\|>)?)+\s*"
)


def strip_control_tokens(completion: str, extra_tokens: Iterable[str] = ()) -> str:
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
