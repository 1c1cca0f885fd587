"""A TRL reward function that scores through a running ``harness serve``: several TRL runs (or processes) share one
reward service, and a learning reward (Cooper) keeps one owner of its weights.

``RemoteReward(url)`` is an async callable, so TRL's ``GRPOTrainer`` runs it on its event loop concurrently with
its other async reward functions. It posts the batch to ``/score`` with one pooled ``httpx.AsyncClient`` per event
loop, in ASCII-escaped JSON (a lone surrogate in a completion is scored as in-process). The reference comes from a
dataset column (``reference`` by default; numbers compare as numbers). What the server answers is the reward: a
failed item (timeout, crash) is 0.0, an abstention None (TRL leaves it out). A refused token raises at the first call
(:class:`~harness.integrations._shared.ServerRefused`); a 5xx or a dropped connection is sent again, as the other
adapters do (a Ray Serve replica that died), and a server still not reached scores the batch 0.0 with a warning, so
a training step is never lost to a network error.

    from harness.integrations.trl_remote import RemoteReward
    trainer = GRPOTrainer(model=..., reward_funcs=[RemoteReward("http://127.0.0.1:8000")], ...)
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Sequence
from typing import Any

from harness.core.http import RETRY_DELAYS_S, worth_retrying
from harness.integrations._shared import TIMEOUT_S, ServerRefused
from rewards.inputs import completion_text, prompt_text, reference_text

log = logging.getLogger("harness.integrations")


class RemoteReward:
    """An async TRL reward function over a ``harness serve`` at ``url`` (``/score``)."""

    def __init__(self, url: str, reference_column: str = "reference", token: str | None = None,
                 timeout_s: float = TIMEOUT_S) -> None:
        self.url = url.rstrip("/")
        self.reference_column = reference_column
        self.token = token if token is not None else os.environ.get("HARNESS_SERVER_TOKEN", "")
        self.timeout_s = timeout_s
        self.__name__ = "harness_remote_reward"  # TRL names its logged reward columns after this
        self._clients: dict[int, Any] = {}  # one pooled client per event loop (TRL's runs on a thread of its own)

    def _client(self) -> Any:
        import httpx

        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            headers = {"content-type": "application/json"}
            if self.token:
                headers["Authorization"] = f"Bearer {self.token}"
            self._clients[loop] = httpx.AsyncClient(headers=headers, timeout=self.timeout_s,
                                                    limits=httpx.Limits(max_connections=64))
        return self._clients[loop]

    async def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        references = kwargs.get(self.reference_column)
        if references is None:
            raise ValueError(f"the dataset has no {self.reference_column!r} column for the reference answers (it has: "
                             f"{', '.join(sorted(k for k in kwargs if isinstance(kwargs[k], list)))}); "
                             "pass reference_column=")
        items = [{"question": prompt_text(p), "reference": reference_text(r), "completion": completion_text(c)}
                 for p, c, r in zip(prompts, completions, references)]
        try:
            response = await self._post(json.dumps({"items": items}, ensure_ascii=True))
        except Exception as exc:  # noqa: BLE001 - unreachable server: this batch scores 0, the run goes on
            log.warning("harness reward server at %s not reached (%s: %s); this batch scores 0.0",
                        self.url, type(exc).__name__, exc)
            return [0.0] * len(items)
        if response.status_code == 401:
            raise ServerRefused(f"the reward server at {self.url} refused this reward function's token; set "
                                "HARNESS_SERVER_TOKEN (or token=) to the token the server was started with")
        if response.status_code != 200:
            log.warning("harness reward server answered %d (%s); this batch scores 0.0",
                        response.status_code, response.text[:200])
            return [0.0] * len(items)
        return [0.0 if s.get("error") else s["value"] for s in response.json()["scores"]]

    async def _post(self, content: str) -> Any:
        """POST to /score, sent again after a 5xx or a dropped connection (the adapters' retry policy)."""
        import httpx

        for delay in (*RETRY_DELAYS_S, None):
            try:
                response = await self._client().post(f"{self.url}/score", content=content)
            except httpx.TransportError:
                if delay is None:
                    raise
            else:
                if delay is None or not worth_retrying(response.status_code):
                    return response
            await asyncio.sleep(delay)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()
