"""VerifyRM scoring through vLLM: the offline pooling runner, or a vLLM server's ``/classify``.

Both return vLLM's classification probability, which for a one-label model is ``sigmoid(logit)``; the
logit is recovered from it so that these scorers share :class:`~rewards.classifier.SequenceClassifier`'s
``logits(texts)`` interface. Written against vLLM's API (``LLM(..., runner="pooling").classify``, and the
``POST /classify`` route of ``vllm serve``), and run on vLLM's CPU build in ``tox -e vllm``, where the scores
equal the transformers backend's on the same weights. On vLLM's CPU build ``gpu_memory_utilization`` is the
share of the machine's memory it reserves (vLLM's own reading of the option there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from harness.core.generation.vllm_engine import engine_options, start_engine, stop_engine
from harness.core.optional import require


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


class VLLMClassifier:
    """VerifyRM's logits from vLLM's offline pooling runner; ``close()`` stops its engine."""

    def __init__(self, model: str, gpu_memory_utilization: float = 0.5, max_model_len: int = 0, dtype: str = "auto",
                 kv_cache_memory_bytes: int = 0) -> None:
        self.model = model
        self.options = engine_options(gpu_memory_utilization, kv_cache_memory_bytes, max_model_len, dtype)
        self.max_length = max_model_len
        self._llm: Any = None

    def preflight(self) -> list[str]:
        from harness.core.readiness import missing_packages, model_problems

        return missing_packages(["vllm"], "verifyrm scoring with backend=vllm") + model_problems(self.model)

    def close(self) -> None:
        llm, self._llm = self._llm, None
        stop_engine(llm)

    def logits(self, texts: Sequence[str]) -> list[float]:
        if self._llm is None:
            self._llm = start_engine(self.model, "verifyrm scoring with backend=vllm", runner="pooling",
                                     **self.options)
        # cut as the transformers backend cuts (the same tokenizer, truncation on the right at the same length):
        # vLLM itself refuses an input longer than the model's context
        limit = self._llm.llm_engine.model_config.max_model_len
        cut = {"truncation": True, "max_length": min(self.max_length or limit, limit)}
        outputs = self._llm.classify(list(texts), use_tqdm=False, tokenization_kwargs=cut)
        return [_logit(float(out.outputs.probs[0])) for out in outputs]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_llm": None}


class VLLMServerClassifier:
    """``POST {server}/classify`` with ``{"model", "input": [texts]}``; answers ``data[i].probs``."""

    def __init__(self, server: str, model: str, timeout: float = 300.0) -> None:
        self.url = server.rstrip("/") + "/classify"
        self.model = model
        self.timeout = timeout

    def preflight(self) -> list[str]:
        from harness.core.readiness import missing_packages

        return missing_packages(["httpx"], "verifyrm scoring through a vLLM server")

    def logits(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        httpx = require("httpx", "verifyrm scoring through a vLLM server")
        response = httpx.post(self.url, json={"model": self.model, "input": list(texts)}, timeout=self.timeout)
        response.raise_for_status()
        data = sorted(response.json()["data"], key=lambda d: d["index"])
        if len(data) != len(texts):
            raise RuntimeError(f"{self.url} returned {len(data)} results for {len(texts)} inputs")
        return [_logit(float(d["probs"][0])) for d in data]
