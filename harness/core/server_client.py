"""One client for reward servers: what it posts, what it sends again, its token, and what the answers mean.

The ``remote`` reward (OpenRLHF's protocol, to ``harness serve``, OpenRLHF's ``serve_rm`` or anyone's server) and
every framework adapter (:mod:`harness.integrations`, to ``harness serve``'s ``/score``) post through
:class:`ServerClient`, under one failure policy:

- a refused token (401 or 403) is a setup error, not a reward: :class:`ServerRefused` (a ``PermissionError``) is
  raised at the first call, saying which token to set;
- a dropped connection or a 5xx is the service, not the items (a Ray Serve replica that died under the request, a
  server restarting): the request is sent again after each of :data:`RETRY_DELAYS_S`, then each of its items fails
  (``crashed``, with the cause);
- no answer within the timeout: each item fails (``timeout``);
- another 4xx is the request itself (bad input): never sent again; each item fails with the server's message;
- an answer that is not the protocol's (not JSON, a list too short, a string where a list belongs): each item fails,
  the answer quoted;
- an item the server failed: that item fails with the server's own reason, read from a typed field (``reason`` in
  ``/score``'s answers, ``failure_reasons`` beside OpenRLHF's ``errors``), never parsed out of a message; its
  batch-mates keep their rewards.

A failed item is :meth:`Score.failed <harness.core.items.Score.failed>`: a score whose 0 is not a verdict, which a
caller that can abstain passes on as an abstention (TRL's ``None``), never as 0.0 or 1.0. Nothing but
:class:`ServerRefused` is raised. One pooled, thread-safe ``httpx.Client`` per :class:`ServerClient`; an async
caller runs :meth:`ServerClient.post` in a thread (a second, async copy of the retry loop is how the policies
drifted apart).
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.core.items import FAILURE_REASONS, REASON_CRASHED, REASON_TIMEOUT, Item, Score

log = logging.getLogger("harness.http")

RETRY_DELAYS_S: tuple[float, ...] = (0.5, 1.0, 2.0)
TOKEN_ENV = "HARNESS_SERVER_TOKEN"
TIMEOUT_S = 180.0  # OpenRLHF's own client timeout; the server answers within its own deadline, well before it

# How an answer is read: (the answer's JSON, the number of items) -> one score per item, or MalformedAnswer.
Reader = Callable[[Any, int], list[Score]]


class ServerRefused(PermissionError):
    """The reward server refused the token: a setup error the caller must see at its first call."""


class MalformedAnswer(ValueError):
    """An answer that is not the protocol's; the message says what is wrong with it."""


def worth_retrying(status: int | None) -> bool:
    """Whether a request is sent again: no answer (``None``, a transport error) or a 5xx."""
    return status is None or status >= 500


class ServerClient:
    """Posts to one server address under the failure policy of the module docstring. ``token`` (else
    ``HARNESS_SERVER_TOKEN``) is sent as a bearer token; ``timeout_s`` defaults to :data:`TIMEOUT_S`."""

    def __init__(self, url: str, *, token: str | None = None, timeout_s: float | None = None,
                 connections: int = 64) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"the server's address must be http(s), such as http://127.0.0.1:8000 (got {url!r})")
        timeout_s = TIMEOUT_S if timeout_s is None else timeout_s
        if timeout_s <= 0 or connections < 1:
            raise ValueError("the timeout must be positive and connections at least 1")
        self.url = url
        self.token = token if token is not None else os.environ.get(TOKEN_ENV, "")
        self.timeout_s = timeout_s
        self.connections = connections
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import httpx

                headers = {"content-type": "application/json"}
                if self.token:
                    headers["Authorization"] = f"Bearer {self.token}"
                self._client = httpx.Client(headers=headers, timeout=self.timeout_s, limits=httpx.Limits(
                    max_connections=self.connections, max_keepalive_connections=self.connections))
            return self._client

    def post(self, body: Mapping[str, Any], n: int, read: Reader) -> list[Score]:
        """The ``n`` scores the server's answer to ``body`` gives, read by ``read``; a failure of the service or
        of the answer fails the items it touches. Raises only :class:`ServerRefused`."""
        import httpx

        content = json.dumps(body, ensure_ascii=True).encode("ascii")  # a lone surrogate is sent as text, escaped
        try:
            response = self._send(content)
        except httpx.TimeoutException as exc:
            return [Score.failed(REASON_TIMEOUT, f"{self.url} did not answer within {self.timeout_s:g}s ({exc})")] * n
        except httpx.TransportError as exc:
            return [Score.failed(REASON_CRASHED, f"{self.url}: {type(exc).__name__}: {exc}")] * n
        if response.status_code in (401, 403):
            raise ServerRefused(f"the reward server at {self.url} refused the token ({response.status_code}: "
                                f"{response.text[:200]}); set {TOKEN_ENV} (or token=) to the token the server was "
                                "started with")
        if response.status_code >= 400:
            return [Score.failed(REASON_CRASHED, f"{self.url} answered {response.status_code}: "
                                                 f"{response.text[:300]}")] * n
        try:
            answer = response.json()
        except ValueError as exc:
            return [Score.failed(REASON_CRASHED, f"{self.url} answered what is not the protocol's answer (not "
                                                 f"JSON: {exc}): {response.text[:200]!r}")] * n
        return read_answer(read, answer, n, self.url)

    def _send(self, content: bytes) -> Any:
        """The response, sent again after a transport error or a 5xx; the last attempt's transport error is
        raised, its 5xx returned."""
        import httpx

        for delay in (*RETRY_DELAYS_S, None):
            try:
                response = self.client.post(self.url, content=content)
            except httpx.TransportError as exc:
                if delay is None:
                    raise
                why = f"failed ({type(exc).__name__}: {exc})"
            else:
                if delay is None or not worth_retrying(response.status_code):
                    return response
                why = f"answered {response.status_code}"
            log.info("the reward server at %s %s; sending again in %gs", self.url, why, delay)
            time.sleep(delay)
        raise AssertionError("unreachable")

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
            self._client = None


def read_answer(read: Reader, answer: Any, n: int, url: str) -> list[Score]:
    """``read(answer, n)``, or every item failed with the reason when the answer is not the protocol's (any JSON a
    server can send: nothing is raised)."""
    try:
        scores = read(answer, n)
    except MalformedAnswer as exc:
        return [Score.failed(REASON_CRASHED, f"{url} answered what is not the protocol's answer ({exc}): "
                                             f"{json.dumps(answer, default=str)[:200]}")] * n
    if len(scores) != n:  # a reader's own bug must not shift every later item's reward
        raise AssertionError(f"{read.__name__} read {len(scores)} scores for {n} items")
    return scores


def _failure(reason: Any, detail: str) -> Score:
    """A failed item with the server's typed reason, ``crashed`` for one that is not a failure reason."""
    typed = isinstance(reason, str) and reason in FAILURE_REASONS
    return Score.failed(reason if typed else REASON_CRASHED, f"the server failed this item: {detail}")


def _per_item(values: Any, n: int, name: str) -> list[Any] | None:
    """A per-item list of the answer (one entry per item, or absent); MalformedAnswer for anything else."""
    if values is None:
        return None
    if not isinstance(values, list) or len(values) != n:
        raise MalformedAnswer(f"'{name}' must be a list of {n} entries, one per item")
    return values


def _unit(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MalformedAnswer(f"{where} is {value!r}, not a finite number")
    if not 0.0 <= value <= 1.0:
        raise MalformedAnswer(f"{where} is {value!r}, outside [0, 1]")
    return float(value)


# -- harness serve's /score -------------------------------------------------------------------------------------
def score_request(items: Sequence[Item]) -> dict[str, Any]:
    """``/score``'s request for ``items``."""
    return {"items": [{"question": it.question, "reference": it.reference, "completion": it.completion,
                       "metadata": dict(it.metadata)} for it in items]}


def score_answer(answer: Any, n: int) -> list[Score]:
    """The scores of ``/score``'s answer: ``{"scores": [{"value", "verdict", "reason", "answer", "detail",
    "error"}, ...]}``, a failed item marked by ``error`` with its typed ``reason``."""
    if not isinstance(answer, dict):
        raise MalformedAnswer(f"the answer is a {type(answer).__name__}, not an object")
    scores = _per_item(answer.get("scores"), n, "scores")
    if scores is None:
        raise MalformedAnswer("it has no 'scores'")
    out = []
    for i, s in enumerate(scores):
        if not isinstance(s, dict):
            raise MalformedAnswer(f"scores[{i}] is a {type(s).__name__}, not an object")
        detail = s.get("detail") if isinstance(s.get("detail"), str) else ""
        if s.get("error"):
            out.append(_failure(s.get("reason"), detail or str(s["error"])))
            continue
        value, verdict, reason = s.get("value"), s.get("verdict"), s.get("reason")
        if not isinstance(reason, str) or not (verdict is None or isinstance(verdict, bool)):
            raise MalformedAnswer(f"scores[{i}] needs a reason (text) and a verdict (true, false or null)")
        if (value is None) != (verdict is None):
            raise MalformedAnswer(f"scores[{i}] abstains by half: value and verdict are null together")
        answer_text = s.get("answer") if isinstance(s.get("answer"), str) else None
        out.append(Score(None if value is None else _unit(value, f"scores[{i}].value"), verdict, reason,
                         answer_text, detail))
    return out


# -- OpenRLHF's remote-reward protocol --------------------------------------------------------------------------
def openrlhf_request(items: Sequence[Item]) -> dict[str, Any]:
    """OpenRLHF's request, as its ``--reward.remote_url`` client sends it (``query`` = prompt + response,
    ``labels`` = the reference)."""
    return {"query": [it.question + it.completion for it in items], "prompts": [it.question for it in items],
            "labels": [it.reference for it in items]}


def openrlhf_answer(threshold: float) -> Reader:
    """A reader of OpenRLHF's answer (``rewards``, and where the server says them, ``extra_logs.verdict``,
    ``extra_logs.reward_failed``, ``errors`` and ``failure_reasons``): a reward is correct at ``threshold`` or
    above unless the server sends its verdict."""

    def read(answer: Any, n: int) -> list[Score]:
        if not isinstance(answer, dict):
            raise MalformedAnswer(f"the answer is a {type(answer).__name__}, not an object")
        rewards = answer.get("rewards")
        if not isinstance(rewards, list) or len(rewards) != n:
            raise MalformedAnswer(f"'rewards' must be a list of {n} numbers")
        extra = answer.get("extra_logs") or {}
        if not isinstance(extra, dict):
            raise MalformedAnswer(f"'extra_logs' must be an object, not a {type(extra).__name__}")
        failed = _per_item(extra.get("reward_failed"), n, "extra_logs.reward_failed") or [None] * n
        verdicts = _per_item(extra.get("verdict"), n, "extra_logs.verdict")
        errors = _per_item(answer.get("errors"), n, "errors") or [None] * n
        reasons = _per_item(answer.get("failure_reasons"), n, "failure_reasons") or [None] * n
        out = []
        for i, value in enumerate(rewards):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise MalformedAnswer(f"rewards[{i}] is {value!r}, not a finite number")
            if errors[i] or failed[i] or reasons[i]:
                out.append(_failure(reasons[i], str(errors[i] or "reward_failed")))
                continue
            value = _unit(value, f"rewards[{i}]")
            verdict = bool(verdicts[i]) if verdicts is not None else value >= threshold
            out.append(Score(value, verdict, "remote"))
        return out

    read.__name__ = "openrlhf_answer"
    return read
