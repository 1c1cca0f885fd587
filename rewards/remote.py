"""The ``remote`` reward: any reward served over OpenRLHF's remote-reward protocol, scored as if it ran here.

``remote:url=http://HOST:PORT/get_reward`` posts ``{"query": [...], "prompts": [...], "labels": [...]}`` as
OpenRLHF's ``--reward.remote_url`` client does (``query`` = prompt + response, ``labels`` = the reference) to
``harness serve``, OpenRLHF's ``serve_rm`` or anyone's server, and reads ``rewards`` back; ``batch_size`` samples a
request (OpenRLHF sends one), ``concurrency`` requests at once. A reward is correct at ``threshold`` or above,
unless the server says its verdict (``extra_logs.verdict``, as ``harness serve`` does).

What can go wrong costs only the items it touches, and never raises to the caller:

- no answer within ``timeout`` seconds: the request's items fail with reason ``timeout``;
- a dropped connection or a 5xx: sent again after each of the pauses of :mod:`harness.core.http`, then the items
  fail (``crashed``, with the cause);
- a 4xx (bad input): not sent again; the items fail with the server's message;
- an answer that is not JSON, or has no list of ``rewards`` of numbers, one per sample: the items fail, the
  answer quoted;
- an item the server itself failed (``errors[i]`` or ``extra_logs.reward_failed[i]``, as ``harness serve``
  answers): that item fails with the server's cause; its batch-mates keep their rewards.

A server that refuses the token (401 or 403; ``token``, else ``HARNESS_SERVER_TOKEN``) is a setup error, not a
reward of 0 for every item: it raises :class:`PermissionError` at the first call.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.core.http import post_with_retries
from harness.core.items import FAILURE_REASONS
from rewards.contract import REASON_CRASHED, REASON_TIMEOUT, ClosesOnExit, Item, Score


class ServedReward(ClosesOnExit):
    """A reward served elsewhere over OpenRLHF's protocol."""

    def __init__(self, url: str, timeout: float = 180.0, batch_size: int = 1, concurrency: int = 16,
                 threshold: float = 0.5, token: str = "") -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"url must be the server's http(s) address, such as http://127.0.0.1:8000/get_reward "
                             f"(got {url!r})")
        if batch_size < 1 or concurrency < 1 or timeout <= 0:
            raise ValueError("batch_size and concurrency must be at least 1 and timeout positive")
        self.url, self.timeout, self.batch_size, self.concurrency = url, timeout, batch_size, concurrency
        self.threshold = threshold
        self.token = token or os.environ.get("HARNESS_SERVER_TOKEN", "")
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
            self._client = httpx.Client(headers=headers, timeout=self.timeout, limits=httpx.Limits(
                max_connections=self.concurrency, max_keepalive_connections=self.concurrency))
        return self._client

    def score(self, items: Sequence[Item]) -> list[Score]:
        batches = [list(items[i : i + self.batch_size]) for i in range(0, len(items), self.batch_size)]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, max(1, len(batches)))) as pool:
            return [score for scores in pool.map(self._score_batch, batches) for score in scores]

    def _score_batch(self, items: list[Item]) -> list[Score]:
        import httpx

        body = {"query": [it.question + it.completion for it in items], "prompts": [it.question for it in items],
                "labels": [it.reference for it in items]}
        try:
            response = post_with_retries(self.client, self.url, json.dumps(body, ensure_ascii=True).encode("ascii"))
        except httpx.TimeoutException as exc:
            return [Score.failed(REASON_TIMEOUT, f"{self.url} did not answer within {self.timeout:g}s ({exc})")] * len(items)
        except httpx.TransportError as exc:
            return [Score.failed(REASON_CRASHED, f"{self.url}: {type(exc).__name__}: {exc}")] * len(items)
        if response.status_code in (401, 403):
            raise PermissionError(f"the reward server at {self.url} refused the token ({response.status_code}: "
                                  f"{response.text[:200]}); set token= or HARNESS_SERVER_TOKEN to the server's token")
        if response.status_code >= 400:
            return [Score.failed(REASON_CRASHED, f"{self.url} answered {response.status_code}: "
                                                 f"{response.text[:300]}")] * len(items)
        try:
            answer = response.json()
        except ValueError as exc:
            return [Score.failed(REASON_CRASHED, f"{self.url} answered what is not the protocol's answer (not "
                                                 f"JSON: {exc}): "
                                                 f"{response.text[:200]!r}")] * len(items)
        return self.scores_from(answer, len(items))

    def scores_from(self, answer: Any, n: int) -> list[Score]:
        """The ``n`` scores a server's JSON answer gives; an answer that is not the protocol's (any shape a server
        can send) fails every item with the reason, and nothing is raised."""
        try:
            return self._read(answer, n)
        except ValueError as exc:
            return [Score.failed(REASON_CRASHED, f"{self.url} answered what is not the protocol's answer ({exc}): "
                                                 f"{json.dumps(answer, default=str)[:200]}")] * n

    def _read(self, answer: Any, n: int) -> list[Score]:
        """Scores from an answer; a ValueError, saying what is wrong, when it is not the protocol's answer."""
        if not isinstance(answer, dict):
            raise ValueError(f"the answer is a {type(answer).__name__}, not an object")
        rewards = answer.get("rewards")
        if not isinstance(rewards, list) or len(rewards) != n:
            raise ValueError(f"'rewards' must be a list of {n} numbers")
        extra = answer.get("extra_logs") or {}
        if not isinstance(extra, dict):
            raise ValueError(f"'extra_logs' must be an object, not a {type(extra).__name__}")
        failed = _per_item(extra.get("reward_failed"), n, "extra_logs.reward_failed")
        verdicts = _per_item(extra.get("verdict"), n, "extra_logs.verdict")
        errors = _per_item(answer.get("errors"), n, "errors") or [None] * n
        out = []
        for i, value in enumerate(rewards):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"rewards[{i}] is {value!r}, not a finite number")
            if errors[i] or (failed is not None and failed[i]):
                cause = str(errors[i] or "reward_failed")
                reason = cause.split(":")[0] if cause.split(":")[0] in FAILURE_REASONS else REASON_CRASHED
                out.append(Score.failed(reason, f"the server failed this item: {cause}"))
                continue
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"rewards[{i}] is {value!r}, outside [0, 1]")
            verdict = bool(verdicts[i]) if verdicts is not None else value >= self.threshold
            out.append(Score(float(value), verdict, "remote"))
        return out

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _per_item(values: Any, n: int, name: str) -> list[Any] | None:
    """A per-item list of the answer (one entry per item, or absent); a ValueError for anything else."""
    if values is None:
        return None
    if not isinstance(values, list) or len(values) != n:
        raise ValueError(f"'{name}' must be a list of {n} entries, one per item")
    return values
