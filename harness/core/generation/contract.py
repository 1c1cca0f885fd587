"""The generation contract shared by every backend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Union, runtime_checkable

# A raw text prompt, or chat messages ({"role": ..., "content": ...}) that the backend templates.
Prompt = Union[str, Sequence[Mapping[str, str]]]


@dataclass(frozen=True)
class SamplingParams:
    n: int = 1
    temperature: float = 0.0  # 0: greedy
    top_p: float = 1.0
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    top_logprobs: int = 0  # >0: return that many alternatives (token -> logprob) at each generated position
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.n < 1 or self.max_tokens < 1:
            raise ValueError("n and max_tokens must be positive")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperature must be >= 0 and top_p in (0, 1]")


@dataclass(frozen=True)
class Completion:
    text: str
    finish_reason: str = ""  # "stop", "length", ...
    top_logprobs: list[dict[str, float]] = field(default_factory=list)  # one dict per generated token
    tokens: list[str] = field(default_factory=list)  # the generated tokens' text, when logprobs were asked for


@runtime_checkable
class Generator(Protocol):
    """``generate(prompts, params)`` -> for each prompt, ``params.n`` completions."""

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]: ...


def is_chat(prompt: Prompt) -> bool:
    return not isinstance(prompt, str)
