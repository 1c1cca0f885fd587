"""A published verifier's protocol as a declared object, and the one reward that runs any of them.

A protocol says what its released code does: the prompt it renders from a question, a reference and a response
(raw text or chat messages, exactly as released), how it reads a verdict from the verifier's output, and the
output budget the released code grants. The reward (:class:`ProtocolReward`) sends the rendered prompts to a
generation backend (``transformers``, ``vllm``, ``openai``) and turns each parsed verdict into a score:

- ``Verdict.CORRECT`` pays 1 and ``Verdict.INCORRECT`` pays 0, with the verifier's own label as the reason;
- ``Verdict.UNPARSED`` (an output in no form the released parser reads) is an abstention: ``value=None``, reason
  ``unparsed``. Where the released code pays 0 for an unreadable output, we abstain instead, so that an
  abstention rate can be reported and a consumer decides (:func:`rewards.contract.reward_value`); it is never 1.

The response is cut to ``max_completion_chars`` (first quarter, last three quarters) before rendering, as the
``judge`` reward does: a megabyte response must not overflow the verifier's context. That is ours; the released
code sends the response whole (General-Verifier decodes only its last 1,024 tokens).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from harness.core.generation import Prompt, SamplingParams
from rewards.contract import Item, Score
from rewards.judge import RunsOnGenerator, judge_generator, shorten

REASON_UNPARSED = "unparsed"


class Verdict(enum.Enum):
    CORRECT = "correct"
    INCORRECT = "incorrect"
    UNPARSED = "unparsed"


@dataclass(frozen=True)
class Reading:
    """A parsed output: the verdict, and the label the verifier gave in its own words (its ``reason``)."""

    verdict: Verdict
    label: str


@dataclass(frozen=True)
class VerifierProtocol:
    """One published verifier: its released prompt and parser, and its released generation settings."""

    name: str
    source: str  # repository, commit and file the prompt and the parser were read from
    render: Callable[[Item], Prompt]
    read: Callable[[str], Reading]
    max_tokens: int
    temperature: float = 0.0

    def score(self, output: str) -> Score:
        reading = self.read(output)
        detail = output[-200:]
        if reading.verdict is Verdict.CORRECT:
            return Score(1.0, True, reading.label, detail=detail)
        if reading.verdict is Verdict.INCORRECT:
            return Score(0.0, False, reading.label, detail=detail)
        return Score(None, None, REASON_UNPARSED, detail=detail)


class ProtocolReward(RunsOnGenerator):
    """A published verifier on any generation backend. Each registered subclass declares ``protocols``, its
    released variants by name (the first is the default); ``variant`` picks one, and when it is not given, the
    variant whose name the model's name ends with, as released code picks a template by the served model."""

    protocols: ClassVar[Mapping[str, VerifierProtocol]]

    def __init__(
        self,
        model: str,
        variant: str = "",
        backend: str = "transformers",
        base_url: str = "",
        api_key: str = "",
        max_tokens: int = 0,
        temperature: float = -1.0,
        batch_size: int = 8,
        max_completion_chars: int = 8000,
        dtype: str = "",
        gpu_memory_utilization: float = 0.0,
        max_model_len: int = 0,
        kv_cache_memory_bytes: int = 0,
    ) -> None:
        # max_tokens 0 and temperature -1: the released settings; dtype, gpu_memory_utilization, max_model_len and
        # kv_cache_memory_bytes as for ``judge``
        self.protocol = self.choose(variant, model)
        self.generator: Any = judge_generator(model, backend, base_url, api_key, batch_size, dtype,
                                              gpu_memory_utilization, max_model_len, kv_cache_memory_bytes)
        self.max_completion_chars = max_completion_chars
        self.params = SamplingParams(max_tokens=max_tokens or self.protocol.max_tokens,
                                     temperature=self.protocol.temperature if temperature < 0 else temperature)

    @classmethod
    def choose(cls, variant: str, model: str) -> VerifierProtocol:
        if variant:
            if variant not in cls.protocols:
                raise ValueError(f"variant {variant!r} is not one of {', '.join(cls.protocols)}")
            return cls.protocols[variant]
        name = model.rstrip("/").lower()
        by_name = [p for key, p in cls.protocols.items() if name.endswith(key.lower())]
        return max(by_name, key=lambda p: len(p.name)) if by_name else next(iter(cls.protocols.values()))

    def prompts(self, items: Sequence[Item]) -> list[Prompt]:
        return [self.protocol.render(Item(it.question, it.reference, shorten(it.completion, self.max_completion_chars),
                                          it.metadata)) for it in items]

    def score(self, items: Sequence[Item]) -> list[Score]:
        outputs = self.generator.generate(self.prompts(items), self.params)
        return [self.protocol.score(out[0].text) for out in outputs]
