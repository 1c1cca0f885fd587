"""Stands in for ``python -m openrlhf.cli.train_ppo_ray`` in the tests: it takes the same flags and replays a GRPO
run's reward traffic through OpenRLHF's own client code (no GPU, no Ray, no vLLM).

``preprocess_data`` builds each prompt from the prompt dataset with the policy's chat template, as OpenRLHF's
``PromptDataset`` does; ``SingleTurnAgentExecutor.execute`` tokenizes it, takes the "generated" response from a
stand-in engine (canned text ending in the tokenizer's end-of-sequence token, as vLLM returns it), decodes prompt
and response with ``skip_special_tokens=False`` and posts them to ``--reward.remote_url``, all samples of a
rollout batch at once. Steps and responses come from environment variables; what each rollout received is
written to ``HARNESS_REPLAY_OUT`` (jsonl).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from types import SimpleNamespace

from openrlhf.datasets.prompts_dataset import preprocess_data
from openrlhf.utils.agent import SingleTurnAgentExecutor
from transformers import AutoTokenizer


class CannedEngine:
    """vLLM's ``generate`` as the executor calls it: token ids in, one output with token ids and text out."""

    def __init__(self, tokenizer, text: str) -> None:
        self.tokenizer, self.text = tokenizer, text

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self.tokenizer(self.text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        out = SimpleNamespace(token_ids=ids, text=self.tokenizer.decode(ids), finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[out])


def response_for(label: str, sample: int, step: int) -> str:
    """Sample k of a prompt at a step: right for even k, wrong for odd k, in the answer forms policies use."""
    right = sample % 2 == 0
    try:
        value = float(label)
        answer = (f"{value:g}" if right else f"{value + 1:g}")
    except ValueError:
        answer = label if right else f"{label} + 1"
    forms = [f"Let me work it out step by step.\nThe answer is {answer}.", f"So the total is \\boxed{{{answer}}}.",
             f"Adding it all up gives {answer}.\n#### {answer}"]
    return forms[(sample + step) % len(forms)]


async def replay(args: argparse.Namespace, tokenizer, rows: list[dict], steps: int, out: str) -> None:
    executor = SingleTurnAgentExecutor(remote_rm_url=args.url)
    params = SimpleNamespace(max_tokens=args.max_new, logprobs=None)
    with open(out, "w", encoding="utf-8") as fh:
        for step in range(steps):
            batch = [rows[(step * args.batch + i) % len(rows)] for i in range(args.batch)]
            calls, meta = [], []
            for row in batch:
                prompt, label = preprocess_data(row, input_key="prompt", label_key="label",
                                                apply_chat_template=tokenizer.apply_chat_template)
                for k in range(args.n):
                    text = response_for(str(label), k, step)
                    calls.append(executor.execute(prompt, label, params, args.max_len, tokenizer, CannedEngine(tokenizer, text)))
                    meta.append({"step": step + 1, "label": label, "response": text})
            results = await asyncio.gather(*calls)
            for m, r in zip(meta, results):
                reward = r["reward"]
                fh.write(json.dumps({**m, "reward": reward[0] if isinstance(reward, list) else reward}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reward.remote_url", dest="url", required=True)
    parser.add_argument("--data.prompt_dataset", dest="data", required=True)
    parser.add_argument("--rollout.n_samples_per_prompt", dest="n", type=int, required=True)
    parser.add_argument("--rollout.batch_size", dest="batch", type=int, required=True)
    parser.add_argument("--rollout.max_new_tokens", dest="max_new", type=int, required=True)
    parser.add_argument("--data.max_len", dest="max_len", type=int, required=True)
    args, _ = parser.parse_known_args()  # the other OpenRLHF flags configure what this stand-in does not do
    tokenizer = AutoTokenizer.from_pretrained(os.environ["HARNESS_REPLAY_TOKENIZER"])
    rows = [json.loads(line) for line in open(args.data, encoding="utf-8") if line.strip()]
    asyncio.run(replay(args, tokenizer, rows, int(os.environ.get("HARNESS_REPLAY_STEPS", "3")),
                       os.environ["HARNESS_REPLAY_OUT"]))


if __name__ == "__main__":
    main()
