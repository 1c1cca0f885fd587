"""The ``openai`` backend: any OpenAI-compatible server (``vllm serve``, SGLang, llama.cpp, hosted APIs).

Chat prompts go to ``/v1/chat/completions``, raw prompts to ``/v1/completions``. ``base_url`` and ``api_key``
come from the options or from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``; an empty ``model`` asks the server
for its first model. Requests run concurrently, up to ``max_concurrency``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.core.generation.contract import Completion, Prompt, SamplingParams, is_chat
from harness.core.optional import require


class OpenAIGenerator:
    """Generation through an OpenAI-compatible HTTP API."""

    def __init__(
        self, model: str = "", base_url: str = "", api_key: str = "", max_concurrency: int = 8, timeout: float = 300.0
    ) -> None:
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL", "")
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY", "") or "none"
        if not self.base_url:
            raise ValueError("the openai backend needs base_url=... or OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1)")
        self.max_concurrency = max_concurrency
        self.timeout = timeout
        self._client: Any = None

    def preflight(self) -> list[str]:
        from harness.core.readiness import missing_packages

        return missing_packages(["openai"], "the openai generation backend")

    @property
    def client(self) -> Any:
        if self._client is None:
            openai = require("openai", "the openai generation backend")
            self._client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key, timeout=self.timeout, max_retries=3)
        return self._client

    def model_name(self) -> str:
        if not self.model:
            models = self.client.models.list().data
            if not models:
                raise RuntimeError(f"{self.base_url} serves no models")
            self.model = models[0].id
        return self.model

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        model = self.model_name()
        with ThreadPoolExecutor(max_workers=max(1, self.max_concurrency)) as pool:
            return list(pool.map(lambda p: self._one(model, p, params), prompts))

    def _one(self, model: str, prompt: Prompt, params: SamplingParams) -> list[Completion]:
        common: dict[str, Any] = dict(
            model=model, n=params.n, temperature=params.temperature, top_p=params.top_p,
            max_tokens=params.max_tokens, stop=list(params.stop) or None,
        )
        if params.seed is not None:
            common["seed"] = params.seed
        if is_chat(prompt):
            if params.top_logprobs:
                common.update(logprobs=True, top_logprobs=params.top_logprobs)
            response = self.client.chat.completions.create(messages=list(prompt), **common)
            return [
                Completion(c.message.content or "", c.finish_reason or "", _chat_logprobs(c.logprobs),
                           [t.token for t in (c.logprobs.content or [])] if c.logprobs else [])
                for c in response.choices
            ]
        if params.top_logprobs:
            common["logprobs"] = params.top_logprobs
        response = self.client.completions.create(prompt=prompt, **common)
        return [
            Completion(c.text, c.finish_reason or "", _text_logprobs(c.logprobs),
                       list(c.logprobs.tokens or []) if c.logprobs else [])
            for c in response.choices
        ]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_client": None}


def _chat_logprobs(logprobs: Any) -> list[dict[str, float]]:
    if not logprobs or not logprobs.content:
        return []
    return [{alt.token: alt.logprob for alt in (tok.top_logprobs or [])} or {tok.token: tok.logprob} for tok in logprobs.content]


def _text_logprobs(logprobs: Any) -> list[dict[str, float]]:
    if not logprobs or not logprobs.top_logprobs:
        return []
    return [dict(alts or {}) for alts in logprobs.top_logprobs]
