"""Fault drills for the reward server, on loopback:

1. kill -9 the server while a Cooper update is running, restart it on the same checkpoint folder, and check
   that it resumes from the last complete checkpoint (readable, step counted on) with nothing corrupt;
2. a hung rule verification: the other requests sent meanwhile are answered before it.

    python benchmarks/server_faults.py --model runs/verifyrm-minilm
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from benchmarks.server_load import serving
from harness.core.serving import free_port


def body(pairs: list[tuple[str, str, str]]) -> dict:
    prompts = [f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n" for q, _, _ in pairs]
    return {"query": [p + c for p, (_, _, c) in zip(prompts, pairs)], "prompts": prompts, "labels": [r for _, r, _ in pairs]}


def step_batch(k: int) -> dict:
    pairs = []
    for i in range(4):
        q, a = f"What is {k} + {i}?", str(k + i)
        pairs += [(q, a, f"{k} + {i} = {k + i}. \\boxed{{{k + i}}}"), (q, a, f"{k} + {i} = {k + i + 1}. \\boxed{{{k + i + 1}}}")]
    return body(pairs)


def wait_updates(url: str, n: int, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stats = httpx.get(f"{url}/metrics", timeout=10).json()
        if stats["reward_updates"] >= n:
            return stats
        time.sleep(0.05)
    raise TimeoutError(f"fewer than {n} updates after {timeout}s")


def cooper_kill_drill(model: str) -> None:
    ckpt = Path(tempfile.mkdtemp()) / "cooper"
    spec = f"cooper:model={model},negatives=perturb,checkpoint_dir={ckpt},checkpoint_every=1"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with serving(spec, port, 64, 5.0, ["--items-per-step", "8"]) as proc:
        for k in range(2):
            httpx.post(f"{url}/get_reward", json=step_batch(k), timeout=120).raise_for_status()
            wait_updates(url, k + 1)
        before = json.loads((ckpt / "state.json").read_text())
        httpx.post(f"{url}/get_reward", json=step_batch(9), timeout=120).raise_for_status()
        time.sleep(0.02)  # the third update is now under way
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    after_kill = json.loads((ckpt / "state.json").read_text())
    files = sorted(p.name for p in ckpt.iterdir())
    with serving(spec, port, 64, 5.0, ["--items-per-step", "8"]):
        rewards = httpx.post(f"{url}/get_reward", json=step_batch(20), timeout=120).json()["rewards"]
        stats = wait_updates(url, 1)
    print("cooper kill -9 during an update:")
    print(f"  checkpoint before the kill: step {before['step']}; after the kill: step {after_kill['step']} "
          f"(state.json readable, files: {', '.join(files)})")
    print(f"  restarted server scored {len(rewards)} items; its next update is step {stats['last_update']['step']:.0f}"
          f" (counted on from the checkpoint), loss {stats['last_update']['loss']:.4f}")


def hung_rule_drill() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    finished: list[tuple[str, float]] = []

    def post(name: str, label: str, completion: str) -> None:
        httpx.post(f"{url}/get_reward", json=body([("q", label, completion)]), timeout=60).raise_for_status()
        finished.append((name, time.perf_counter() - began))

    with serving("rule:timeout=5", port, 64, 5.0):
        began = time.perf_counter()
        with ThreadPoolExecutor(16) as pool:
            pool.submit(post, "slow", "x+1", "\\boxed{(10^{8})! + x}")
            time.sleep(0.2)
            for i in range(15):
                pool.submit(post, f"fast{i}", str(i), f"\\boxed{{{i}}}")
    slow = dict(finished)["slow"]
    fast = [t for n, t in finished if n != "slow"]
    print("hung rule verification:")
    print(f"  the slow item answered after {slow:.2f}s; 15 other requests answered after "
          f"{min(fast):.2f}-{max(fast):.2f}s, {sum(t < slow for t in fast)} of them before the slow one")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True, help="a VerifyRM checkpoint folder (e.g. from harness train-rm)")
    args = parser.parse_args()
    os.environ.setdefault("HARNESS_DATA_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    cooper_kill_drill(args.model)
    hung_rule_drill()


if __name__ == "__main__":
    main()
