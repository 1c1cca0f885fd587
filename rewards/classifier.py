"""A Hugging Face sequence classifier with one logit, scored in length-bucketed batches.

Shared by the ``verifyrm`` reward, the ``cooper`` reward and ``harness train-rm``. Batches are planned by
token count, not item count: items are sorted by length and packed until ``max_tokens_per_batch`` (padded
size) is reached, so a batch of short completions is not padded to one long outlier. The model loads on
first use under a lock, and forward passes are serialised, so one instance is safe to share across threads.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.optional import require
from harness.core.precision import Precision, choose_precision
from rewards.base_models import model_location_problems, resolve_model


def plan_batches(lengths: Sequence[int], max_tokens: int, max_items: int) -> list[list[int]]:
    """Index batches over ``lengths``: sorted longest first, each batch's ``len * longest <= max_tokens``
    (a single item longer than the budget gets a batch of its own) and at most ``max_items`` items."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = lengths[current[0]] if current else lengths[i]
        if current and (len(current) + 1 > max_items or (len(current) + 1) * longest > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


@dataclass(frozen=True)
class ClassifierConfig:
    model: str
    device: str = "auto"  # auto: cuda when available, else cpu
    dtype: str = "auto"  # auto: bfloat16 on cuda, float32 on cpu; bfloat16 on cpu runs under autocast
    max_length: int = 0  # tokens; 0: the model's own limit
    max_tokens_per_batch: int = 8192
    max_batch_size: int = 64


class SequenceClassifier:
    """``logits(texts)`` -> one float per text, in input order."""

    def __init__(self, config: ClassifierConfig) -> None:
        self.config = config
        self._lock = threading.RLock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._torch: Any = None
        self.device = "cpu"
        self.precision: Precision | None = None

    # -- loading ------------------------------------------------------------------------------
    def preflight(self) -> list[str]:
        """What loading would lack, found without loading (:mod:`harness.core.readiness`)."""
        from harness.core.readiness import missing_packages

        return missing_packages(["torch", "transformers"], "a model-based reward") + model_location_problems(self.config.model)

    def load(self, *, num_labels_for_new_head: bool = False) -> None:
        """Load model and tokenizer (idempotent). ``num_labels_for_new_head`` lets an encoder without a
        classification head (such as MiniLM) get a fresh one-logit head, for training."""
        with self._lock:
            if self._model is not None:
                return
            torch = require("torch", "a model-based reward")
            transformers = require("transformers", "a model-based reward")
            path = resolve_model(self.config.model)
            self.device = self._pick_device(torch)
            self.precision = choose_precision(self.config.dtype, self.device, torch)
            # on a CPU the weights stay float32 and bfloat16 runs under autocast (training keeps float32 masters)
            dtype = self.precision.torch_dtype(torch) if self.device.startswith("cuda") else torch.float32
            try:
                tokenizer = transformers.AutoTokenizer.from_pretrained(path)
                model, loading = transformers.AutoModelForSequenceClassification.from_pretrained(
                    path, num_labels=1, dtype=dtype, output_loading_info=True
                )
            except OSError as exc:
                raise OSError(
                    f"could not load a sequence classifier from {self.config.model!r} ({path}): {exc}"
                ) from exc
            _draw_new_weights(model, set(loading.get("missing_keys") or ()), torch)
            if model.config.num_labels != 1:
                raise ValueError(f"{path} has {model.config.num_labels} labels; a VerifyRM needs exactly one logit")
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
            model.config.pad_token_id = tokenizer.pad_token_id
            model.to(self.device)
            model.eval()
            self._torch, self._tokenizer, self._model = torch, tokenizer, model

    def _pick_device(self, torch: Any) -> str:
        if self.config.device != "auto":
            return self.config.device
        return "cuda" if torch.cuda.is_available() else "cpu"

    @property
    def model(self) -> Any:
        self.load()
        return self._model

    @property
    def torch(self) -> Any:
        """The torch module the model runs on (loaded with it): for the optimizers of those who train it."""
        self.load()
        return self._torch

    @property
    def tokenizer(self) -> Any:
        self.load()
        return self._tokenizer

    @property
    def max_length(self) -> int:
        limit = self.config.max_length or getattr(self.tokenizer, "model_max_length", 0) or 4096
        position_limit = getattr(self.model.config, "max_position_embeddings", None) or limit
        return int(min(limit, position_limit, 1_000_000))

    # -- scoring ------------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        return self.tokenizer(list(texts), truncation=True, max_length=self.max_length)["input_ids"]

    def forward(self, input_ids: Sequence[Sequence[int]]) -> Any:
        """Logits (a 1-D tensor, with gradients if enabled) for one already-planned batch."""
        torch = self._torch
        padded = self.tokenizer.pad({"input_ids": [list(x) for x in input_ids]}, return_tensors="pt")
        padded = {k: v.to(self.device) for k, v in padded.items()}
        autocast = self.precision.bf16 and self.device == "cpu"
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            out = self.model(**padded)
        return out.logits.squeeze(-1).float()

    def logits(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        with self._lock:
            encoded = self.encode(texts)
            result = [0.0] * len(texts)
            plan = plan_batches([len(e) for e in encoded], self.config.max_tokens_per_batch, self.config.max_batch_size)
            with self._torch.inference_mode():
                for batch in plan:
                    values = self.forward([encoded[i] for i in batch]).tolist()
                    for i, v in zip(batch, values):
                        result[i] = float(v)
            return result

    def __getstate__(self) -> dict:
        return {"config": self.config}  # weights do not travel; the copy loads on first use

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["config"])


def _draw_new_weights(model: Any, missing: set[str], torch: Any) -> None:
    """Weights the checkpoint lacks (the one-logit head an encoder such as MiniLM gets for training) drawn from
    torch's global generator, as BERT initialises them: what transformers leaves there does not follow a seed, so
    the same seed trained a different reward model each time."""
    if not missing:
        return
    std = float(getattr(model.config, "initializer_range", 0.02))
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name in missing:
                if parameter.dim() > 1:
                    parameter.normal_(0.0, std)
                else:
                    parameter.zero_()
