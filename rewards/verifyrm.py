"""The ``verifyrm`` reward: Cooper's reference-based reward model (a one-logit sequence classifier).

The model reads ``<question>…</question>\\n<reference_answer>…</reference_answer>\\n<completion>…</completion>``
with no chat template; reference and completion longer than ``max_chars`` are cut to their first
``head_chars`` and last ``tail_chars`` characters, as Cooper's released code does (1,500 → 500 + 1,000).
The reward is ``sigmoid(logit)``; the verdict is ``reward >= threshold``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from rewards.classifier import ClassifierConfig, SequenceClassifier
from rewards.classifier_vllm import VLLMClassifier, VLLMServerClassifier
from rewards.contract import ClosesOnExit, Item, Score, close_reward

SETTINGS_FILE = "verifyrm.json"


@dataclass(frozen=True)
class VerifyRMFormat:
    """How an item becomes the model's input text. Saved beside a trained model (``verifyrm.json``) so that
    scoring reads items exactly as training did."""

    max_chars: int = field(default=1500, metadata={"help": "Longer references and completions are cut..."})
    head_chars: int = field(default=500, metadata={"help": "...to their first head-chars..."})
    tail_chars: int = field(default=1000, metadata={"help": "...and last tail-chars characters."})

    def shorten(self, text: str) -> str:
        if len(text) <= self.max_chars:
            return text
        return text[: self.head_chars] + text[len(text) - self.tail_chars :]

    def render(self, question: str, reference: str, completion: str) -> str:
        return (
            f"<question>{question}</question>\n"
            f"<reference_answer>{self.shorten(reference)}</reference_answer>\n"
            f"<completion>{self.shorten(completion)}</completion>"
        )

    def render_items(self, items: Sequence[Item]) -> list[str]:
        """``render`` for each item."""
        return [self.render(it.question, it.reference, it.completion) for it in items]

    def save(self, folder: Path) -> None:
        (folder / SETTINGS_FILE).write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def for_model(cls, model: str) -> VerifyRMFormat:
        """The format saved with ``model`` (a local folder), else Cooper's defaults."""
        path = Path(model).expanduser() / SETTINGS_FILE
        if path.is_file():
            return cls(**json.loads(path.read_text()))
        return cls()


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def scores_from_logits(logits: Sequence[float], threshold: float) -> list[Score]:
    """The reward of a one-logit reward model: ``sigmoid(logit)``, correct at ``>= threshold``."""
    values = [sigmoid(x) for x in logits]
    return [Score(v, v >= threshold, "model") for v in values]


class VerifyRMReward(ClosesOnExit):
    """Reference-based reward model: sigmoid of a sequence classifier's logit over question, reference and
    completion. ``model`` is a local checkpoint folder or a hub id of any one-logit
    ``AutoModelForSequenceClassification`` (Cooper's VerifyRM is Qwen2.5-Math-1.5B-Instruct with a score head).
    """

    def __init__(
        self,
        model: str,
        threshold: float = 0.5,
        backend: Literal["transformers", "vllm"] = "transformers",
        server: str = "",
        device: str = "auto",
        dtype: str = "auto",
        max_length: int = 0,
        max_tokens_per_batch: int = 8192,
        max_batch_size: int = 64,
        gpu_memory_utilization: float = 0.5,
        kv_cache_memory_bytes: int = 0,
    ) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        self.threshold = threshold
        self.format = VerifyRMFormat.for_model(model)
        self.classifier: Any
        if server:  # a running `vllm serve MODEL` (its /classify route); model names the served model
            self.classifier = VLLMServerClassifier(server, model)
        elif backend == "vllm":
            # vLLM takes float32/bfloat16/float16 or auto; "auto" keeps the checkpoint's own
            self.classifier = VLLMClassifier(model, gpu_memory_utilization, max_length, dtype, kv_cache_memory_bytes)
        else:
            self.classifier = SequenceClassifier(
                ClassifierConfig(model, device, dtype, max_length, max_tokens_per_batch, max_batch_size)
            )

    def preflight(self) -> list[str]:
        return self.classifier.preflight()

    def close(self) -> None:
        """Stop the classifier's engine where it holds one (the vllm backend's process and shared memory)."""
        close_reward(self.classifier)

    def texts(self, items: Sequence[Item]) -> list[str]:
        return self.format.render_items(items)

    def logits(self, items: Sequence[Item]) -> list[float]:
        return self.classifier.logits(self.texts(items))

    def score(self, items: Sequence[Item]) -> list[Score]:
        return scores_from_logits(self.logits(items), self.threshold)
