"""One reward per process for the framework adapters, chosen by environment variables.

``HARNESS_REWARD_URL`` (a running ``harness serve``, e.g. ``http://127.0.0.1:8000``) wins; else
``HARNESS_REWARD`` (a reward spec, default ``rule``) is built in-process on first use. The frameworks import
these adapters as plain files and call them from worker threads, so the reward is built once under a lock.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rewards.contract import Item, Score
from rewards.lazy import LazyReward

LOCAL = LazyReward(lambda: os.environ.get("HARNESS_REWARD", "rule"))


def score_items(items: Sequence[Item]) -> list[Score]:
    url = os.environ.get("HARNESS_REWARD_URL", "").rstrip("/")
    if not url:
        return LOCAL.get().score(items)
    import httpx

    headers = {"Authorization": f"Bearer {os.environ['HARNESS_SERVER_TOKEN']}"} if os.environ.get("HARNESS_SERVER_TOKEN") else {}
    payload = {"items": [{"question": it.question, "reference": it.reference, "completion": it.completion,
                          "metadata": dict(it.metadata)} for it in items]}
    response = httpx.post(f"{url}/score", json=payload, headers=headers, timeout=180)
    response.raise_for_status()
    return [Score(s["value"], s["verdict"], s["reason"], s["answer"]) for s in response.json()["scores"]]
