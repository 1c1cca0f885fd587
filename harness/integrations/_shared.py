"""One reward per process for the framework adapters, chosen by environment variables.

``HARNESS_REWARD_URL`` (a running ``harness serve``, e.g. ``http://127.0.0.1:8000``) wins; else
``HARNESS_REWARD`` (a reward spec, default ``rule``) is built in-process on first use. The frameworks import
these adapters as plain files and call them from worker threads, so the reward is built once under a lock, and
the HTTP client is one pooled client per process (a new client per call cost about 60 ms a call).

Nothing a reward does reaches the trainer as an exception: :func:`score_items` returns one result per item, a
:class:`~rewards.contract.Score` (``Score.failed`` with the cause for an item that failed), whatever the
reward or the server raised (``BaseException`` subclasses such as math-verify's ``TimeoutException`` included;
only ``KeyboardInterrupt`` and ``SystemExit`` go on up).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from harness.core.http import post_with_retries
from rewards.contract import REASON_CRASHED, Item, Score
from rewards.lazy import LazyReward
from rewards.sandbox import describe

log = logging.getLogger("harness.integrations")

LOCAL = LazyReward(lambda: os.environ.get("HARNESS_REWARD", "rule"))
_CLIENT_LOCK = threading.Lock()
_CLIENT: Any = None
TIMEOUT_S = 180.0  # OpenRLHF's own client timeout; the server answers within its own deadline, well before it


def http_client() -> Any:
    """The process's pooled ``httpx.Client`` (thread-safe), created on first use."""
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None:
            import httpx

            token = os.environ.get("HARNESS_SERVER_TOKEN")
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            _CLIENT = httpx.Client(headers=headers, timeout=TIMEOUT_S,
                                   limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))
        return _CLIENT


def close_http_client() -> None:
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is not None:
            _CLIENT.close()
        _CLIENT = None


class ServerRefused(PermissionError):
    """The reward server refused the adapter's credentials: a setup error the trainer must see at its first call,
    not a reward of 0 for every item."""


def score_items(items: Sequence[Item]) -> list[Score]:
    """One result per item, never an exception for what the reward or the server did (a refused token is not
    something they did: it raises :class:`ServerRefused`)."""
    if not items:
        return []
    try:
        url = os.environ.get("HARNESS_REWARD_URL", "").rstrip("/")
        return _remote(url, items) if url else _local(items)
    except (KeyboardInterrupt, SystemExit, ServerRefused):
        raise
    except BaseException as exc:  # noqa: BLE001 - a failed call is a failed result for each of its items
        if len(items) > 1:  # isolate: one bad item must not cost its batch-mates their rewards
            return [r for it in items for r in score_items([it])]
        log.warning("the reward failed on an item: %s", describe(exc))
        return [Score.failed(REASON_CRASHED, describe(exc))]


def score_readable(items: Sequence[Item | Exception]) -> list[Score]:
    """:func:`score_items` for a batch in which some samples could not be read as items (their exception in their
    place): those score as failures with the reason, the rest are scored together."""
    scored = iter(score_items([it for it in items if isinstance(it, Item)]))
    return [next(scored) if isinstance(it, Item) else Score.failed(REASON_CRASHED, f"bad input: {it}") for it in items]


def _local(items: Sequence[Item]) -> list[Score]:
    from rewards.contract import check_scores

    reward = LOCAL.get()
    return list(check_scores(items, reward.score(items), type(reward).__name__))


def _remote(url: str, items: Sequence[Item]) -> list[Score]:
    payload = {"items": [{"question": it.question, "reference": it.reference, "completion": it.completion,
                          "metadata": dict(it.metadata)} for it in items]}
    # ASCII-escaped JSON: a lone surrogate in a completion is sent as the server would score it in-process
    response = post_with_retries(http_client(), f"{url}/score", json.dumps(payload, ensure_ascii=True).encode("ascii"))
    if response.status_code == 401:
        raise ServerRefused(f"the reward server at {url} refused this adapter's token ({response.json().get('detail')}); "
                            "set HARNESS_SERVER_TOKEN to the token the server was started with")
    response.raise_for_status()
    out: list[Score] = []
    for s in response.json()["scores"]:
        if s.get("error"):
            out.append(Score.failed(s["reason"], s.get("detail", "")))
        else:
            out.append(Score(s["value"], s["verdict"], s["reason"], s["answer"], s.get("detail", "")))
    return out

