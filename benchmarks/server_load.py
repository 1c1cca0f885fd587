"""Load on the reward server: many concurrent single-item OpenRLHF-style requests. Dynamic batching against
batch-of-one serving, or (``--compare replicas``) one process against 1 and 2 Ray Serve replicas. Loopback only,
a fixed number of requests, a time limit, every mode measured in the same run.

    python benchmarks/server_load.py --reward verifyrm:model=runs/verifyrm-minilm [--clients 64] [--requests 640]
    python benchmarks/server_load.py --reward rule --compare replicas --clients 32 --requests 2000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import httpx

from harness.core import serving as process
from harness.core.serving import free_port
from suites import build_suite

MODES = {
    "batching": {"dynamic batching (<=64, 10 ms)": ["--max-batch", "64", "--max-wait-ms", "10"],
                 "batch of one": ["--max-batch", "1", "--max-wait-ms", "0"]},
    "replicas": {"one process": [], "1 Ray Serve replica": ["--replicas", "1"],
                 "2 Ray Serve replicas": ["--replicas", "2"]},
}


@contextmanager
def serving(reward: str, port: int, options: Sequence[str]) -> Iterator[subprocess.Popen]:
    """A ``harness serve`` process with these options, healthy on entry and stopped on exit."""
    with process.serving(reward, port, options) as proc:
        yield proc


def request_bodies(n: int) -> list[dict]:
    rows = build_suite("mathcheck-gsm").load().rows
    bodies = []
    for i in range(n):
        item = rows[i % len(rows)].item
        prompt = f"<|im_start|>user\n{item.question}<|im_end|>\n<|im_start|>assistant\n"
        bodies.append({"query": [prompt + item.completion], "prompts": [prompt], "labels": [item.reference]})
    return bodies


async def drive(url: str, bodies: list[dict], clients: int, time_limit: float) -> dict:
    latencies: list[float] = []
    errors = 0
    answered = 0
    next_index = 0
    stop_at = time.monotonic() + time_limit

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal next_index, errors, answered
        while next_index < len(bodies) and time.monotonic() < stop_at:
            body = bodies[next_index]
            next_index += 1
            began = time.perf_counter()
            try:
                response = await client.post(url, json=body, timeout=180)
                if response.status_code == 200 and len(response.json()["rewards"]) == 1:
                    answered += 1
                    latencies.append(time.perf_counter() - began)
                else:
                    errors += 1
            except httpx.HTTPError:
                errors += 1

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    began = time.perf_counter()
    async with httpx.AsyncClient(limits=limits) as client:
        await asyncio.gather(*(worker(client) for _ in range(clients)))
    seconds = time.perf_counter() - began
    latencies.sort()
    return {
        "sent": next_index, "answered": answered, "errors": errors, "lost": next_index - answered - errors,
        "seconds": seconds, "items_per_s": answered / seconds,
        "p50": statistics.median(latencies) if latencies else None,
        "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] if latencies else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reward", required=True)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--requests", type=int, default=640)
    parser.add_argument("--time-limit", type=float, default=600)
    parser.add_argument("--compare", choices=sorted(MODES), default="batching")
    args = parser.parse_args()
    os.environ.setdefault("HARNESS_DATA_ROOT", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
    bodies = request_bodies(args.requests)
    results = {}
    for name, options in MODES[args.compare].items():
        port = free_port()
        with serving(args.reward, port, options):
            asyncio.run(drive(f"http://127.0.0.1:{port}/get_reward", bodies[: args.clients], args.clients, 60))  # warm
            results[name] = asyncio.run(drive(f"http://127.0.0.1:{port}/get_reward", bodies, args.clients, args.time_limit))
            results[name]["mean_batch"] = httpx.get(f"http://127.0.0.1:{port}/metrics").json()["mean_batch_size"]
    print(f"reward {args.reward}; {args.clients} concurrent clients, {args.requests} single-item requests, loopback")
    print(f"{'mode':<34}{'items/s':>9}{'p50 s':>8}{'p99 s':>8}{'mean batch':>11}{'errors':>8}{'lost':>6}")
    for name, r in results.items():
        print(f"{name:<34}{r['items_per_s']:>9.1f}{r['p50']:>8.3f}{r['p99']:>8.3f}{r['mean_batch']:>11.1f}"
              f"{r['errors']:>8}{r['lost']:>6}")
    first, *others = results.values()
    for name, r in list(results.items())[1:]:
        print(f"throughput of {name} against the first: {r['items_per_s'] / first['items_per_s']:.2f}x")


if __name__ == "__main__":
    main()
