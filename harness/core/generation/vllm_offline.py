"""The ``vllm`` backend: offline ``vllm.LLM``, for judge models and policy sampling at scale.

Written against vLLM's public API (``LLM.generate`` / ``LLM.chat`` with ``SamplingParams``), and run on vLLM's CPU
build in ``tox -e vllm``: greedy generation equals the transformers backend's, token for token, on the same
weights. vLLM starts its engine in spawned processes, so a script that uses this backend needs an
``if __name__ == "__main__":`` guard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.core.generation.contract import Completion, Prompt, SamplingParams, is_chat
from harness.core.generation.vllm_engine import engine_options, start_engine, stop_engine
from harness.core.optional import require


class VLLMGenerator:
    """Generation with an in-process ``vllm.LLM``; ``close()`` stops its engine (:mod:`.vllm_engine`)."""

    def __init__(self, model: str, tensor_parallel_size: int = 1, gpu_memory_utilization: float = 0.85,
                 max_model_len: int = 0, dtype: str = "auto", kv_cache_memory_bytes: int = 0) -> None:
        self.model = model
        self.options = {"tensor_parallel_size": tensor_parallel_size,
                        **engine_options(gpu_memory_utilization, kv_cache_memory_bytes, max_model_len, dtype)}
        self._llm: Any = None

    def preflight(self) -> list[str]:
        from harness.core.readiness import missing_packages, model_problems

        return missing_packages(["vllm"], "the vllm generation backend") + model_problems(self.model)

    @property
    def llm(self) -> Any:
        if self._llm is None:
            self._llm = start_engine(self.model, "the vllm generation backend", **self.options)
        return self._llm

    def close(self) -> None:
        llm, self._llm = self._llm, None
        stop_engine(llm)

    def _params(self, params: SamplingParams) -> Any:
        vllm = require("vllm", "the vllm generation backend")
        return vllm.SamplingParams(
            n=params.n, temperature=params.temperature, top_p=params.top_p, max_tokens=params.max_tokens,
            stop=list(params.stop) or None, logprobs=params.top_logprobs or None, seed=params.seed,
        )

    def generate(self, prompts: Sequence[Prompt], params: SamplingParams) -> list[list[Completion]]:
        sampling = self._params(params)
        chats = [i for i, p in enumerate(prompts) if is_chat(p)]
        texts = [i for i, p in enumerate(prompts) if not is_chat(p)]
        results: dict[int, Any] = {}
        if texts:
            for i, out in zip(texts, self.llm.generate([prompts[i] for i in texts], sampling, use_tqdm=False)):
                results[i] = out
        if chats:
            for i, out in zip(chats, self.llm.chat([list(prompts[i]) for i in chats], sampling, use_tqdm=False)):
                results[i] = out
        return [[_completion(o) for o in results[i].outputs] for i in range(len(prompts))]

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_llm": None}


def _completion(output: Any) -> Completion:
    logprobs, tokens = [], []
    for token_id, position in zip(output.token_ids, output.logprobs or []):
        logprobs.append({lp.decoded_token: lp.logprob for lp in position.values()})
        tokens.append(position[token_id].decoded_token if token_id in position else "")
    return Completion(output.text, output.finish_reason or "", logprobs, tokens)
