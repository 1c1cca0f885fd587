"""A TRL reward function that scores through a running ``harness serve``: several TRL runs (or processes) share one
reward service, and a learning reward (Cooper) keeps one owner of its weights.

``RemoteReward(url)`` is an async callable, so TRL's ``GRPOTrainer`` runs it on its event loop concurrently with
its other async reward functions; it posts the batch to ``/score`` through the one client of
:mod:`harness.core.server_client` (run in a thread, so the loop is never held), with that client's retries and
failure policy. The reference comes from a dataset column (``reference`` by default; numbers compare as numbers).
What the server answers is the reward; an item it could not score (a timeout, a crash, a server not reached) and
an abstention are ``None``, which TRL leaves out of the step: never 0.0, which would train the policy on an outage.
A refused token raises :class:`~harness.core.server_client.ServerRefused` at the first call.

    from harness.integrations.trl_remote import RemoteReward
    trainer = GRPOTrainer(model=..., reward_funcs=[RemoteReward("http://127.0.0.1:8000")], ...)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from harness.core.server_client import ServerClient, score_answer, score_request
from rewards.contract import Item
from rewards.inputs import completion_text, prompt_text, reference_text

log = logging.getLogger("harness.integrations")


class RemoteReward:
    """An async TRL reward function over a ``harness serve`` at ``url`` (``/score``)."""

    def __init__(self, url: str, reference_column: str = "reference", token: str | None = None,
                 timeout_s: float | None = None) -> None:
        self.url = url.rstrip("/")
        self.reference_column = reference_column
        self.server = ServerClient(f"{self.url}/score", token=token, timeout_s=timeout_s)
        self.__name__ = "harness_remote_reward"  # TRL names its logged reward columns after this

    async def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        references = kwargs.get(self.reference_column)
        if references is None:
            raise ValueError(f"the dataset has no {self.reference_column!r} column for the reference answers (it has: "
                             f"{', '.join(sorted(k for k in kwargs if isinstance(kwargs[k], list)))}); "
                             "pass reference_column=")
        items = [Item(prompt_text(p), reference_text(r), completion_text(c))
                 for p, c, r in zip(prompts, completions, references)]
        scores = await asyncio.to_thread(self.server.post, score_request(items), len(items), score_answer)
        failed = [s for s in scores if s.is_failure]
        if failed:
            log.warning("harness reward server at %s could not score %d of %d samples (%s: %s); they are left out",
                        self.url, len(failed), len(scores), failed[0].reason, failed[0].detail[:200])
        return [None if s.is_failure else s.value for s in scores]

    async def aclose(self) -> None:
        await asyncio.to_thread(self.server.close)
