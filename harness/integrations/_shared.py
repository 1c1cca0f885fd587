"""One reward per process for the framework adapters, chosen by environment variables.

``HARNESS_REWARD_URL`` (a running ``harness serve``, e.g. ``http://127.0.0.1:8000``) wins; else
``HARNESS_REWARD`` (a reward spec, default ``rule``) is built in-process on first use. The frameworks import
these adapters as plain files and call them from worker threads, so the reward is built once under a lock, and
the server's client is one pooled :class:`~harness.core.server_client.ServerClient` per process (a new client
per call cost about 60 ms a call), with its failure policy.

Nothing a reward does reaches the trainer as an exception: :func:`score_items` returns one result per item, a
:class:`~rewards.contract.Score` (``Score.failed`` with the cause for an item that failed), whatever the
reward or the server raised (``BaseException`` subclasses such as math-verify's ``TimeoutException`` included;
only ``KeyboardInterrupt`` and ``SystemExit`` go on up). A server that refuses the token is not something the
reward did: :class:`~harness.core.server_client.ServerRefused` is raised at the first call.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence

from harness.core.server_client import ServerClient, ServerRefused, score_answer, score_request
from rewards.contract import REASON_CRASHED, Item, Score
from rewards.lazy import LazyReward
from rewards.sandbox import describe

log = logging.getLogger("harness.integrations")

LOCAL = LazyReward(lambda: os.environ.get("HARNESS_REWARD", "rule"))
_CLIENT_LOCK = threading.Lock()
_CLIENT: ServerClient | None = None
__all__ = ["LOCAL", "ServerRefused", "close_server_client", "score_items", "score_readable", "server_client"]


def server_client(url: str) -> ServerClient:
    """The process's client of the server at ``url`` (its ``/score``), created on first use; a new address
    (the environment changed) gets a new client."""
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is None or _CLIENT.url != f"{url}/score":
            if _CLIENT is not None:
                _CLIENT.close()
            _CLIENT = ServerClient(f"{url}/score")
        return _CLIENT


def close_server_client() -> None:
    global _CLIENT
    with _CLIENT_LOCK:
        if _CLIENT is not None:
            _CLIENT.close()
        _CLIENT = None


def score_items(items: Sequence[Item]) -> list[Score]:
    """One result per item, never an exception for what the reward or the server did (a refused token is not
    something they did: it raises :class:`ServerRefused`)."""
    if not items:
        return []
    url = os.environ.get("HARNESS_REWARD_URL", "").rstrip("/")
    if url:  # the client's policy: every failure is a failed score already, one per item
        return server_client(url).post(score_request(items), len(items), score_answer)
    try:
        return _local(items)
    except (KeyboardInterrupt, SystemExit):
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
