"""OpenRLHF 0.11.2's own rollout path, as the client-conformance tests drive it: ``preprocess_data``, then
``SingleTurnAgentExecutor.execute`` with a stand-in for vLLM's ``generate`` that returns a given response."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace


class Engine:
    """vLLM's ``generate`` as OpenRLHF's executor calls it, returning a given text and the end-of-sequence token."""

    def __init__(self, tokenizer, text):
        self.tokenizer, self.text = tokenizer, text

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self.tokenizer(self.text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        out = SimpleNamespace(token_ids=ids, text=self.tokenizer.decode(ids), finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def openrlhf_rollouts(executor, tokenizer, pairs, clients: int = 0):
    """OpenRLHF's own path for each (question, label, response): preprocess_data, then execute(); at most
    ``clients`` of them at once (0: all at once)."""
    from openrlhf.datasets.prompts_dataset import preprocess_data

    params = SimpleNamespace(max_tokens=512, logprobs=None)

    async def run():
        gate = asyncio.Semaphore(clients or len(pairs) or 1)

        async def one(question, label, response):
            row = {"prompt": [{"role": "user", "content": question}], "label": label}
            prompt, label = preprocess_data(row, input_key="prompt", label_key="label",
                                            apply_chat_template=tokenizer.apply_chat_template)
            async with gate:
                return await executor.execute(prompt, label, params, 4096, tokenizer, Engine(tokenizer, response))

        return await asyncio.gather(*(one(*pair) for pair in pairs))

    return asyncio.run(run())


def reward_of(output):
    reward = output["reward"]
    return reward[0] if isinstance(reward, list) else float(reward)
