"""The ``remote`` reward: any reward served over OpenRLHF's remote-reward protocol, scored as if it ran here.

``remote:url=http://HOST:PORT/get_reward`` posts ``{"query": [...], "prompts": [...], "labels": [...]}`` as
OpenRLHF's ``--reward.remote_url`` client does (``query`` = prompt + response, ``labels`` = the reference) to
``harness serve``, OpenRLHF's ``serve_rm`` or anyone's server, and reads ``rewards`` back; ``batch_size`` samples a
request (OpenRLHF sends one), ``concurrency`` requests at once. A reward is correct at ``threshold`` or above,
unless the server says its verdict (``extra_logs.verdict``, as ``harness serve`` does).

The posting, the retries, the token (``token``, else ``HARNESS_SERVER_TOKEN``) and the failure policy are the one
client's (:mod:`harness.core.server_client`): what goes wrong costs only the items it touches and is never raised to
the caller, except a refused token, a setup error raised at the first call.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.core.server_client import ServerClient, openrlhf_answer, openrlhf_request, read_answer
from rewards.contract import ClosesOnExit, Item, Score


class ServedReward(ClosesOnExit):
    """A reward served elsewhere over OpenRLHF's protocol."""

    def __init__(self, url: str, timeout: float = 180.0, batch_size: int = 1, concurrency: int = 16,
                 threshold: float = 0.5, token: str = "") -> None:
        if batch_size < 1 or concurrency < 1 or timeout <= 0:
            raise ValueError("batch_size and concurrency must be at least 1 and timeout positive")
        self.server = ServerClient(url, token=token or None, timeout_s=timeout, connections=concurrency)
        self.url, self.timeout, self.batch_size, self.concurrency = url, timeout, batch_size, concurrency
        self.threshold = threshold
        self._read = openrlhf_answer(threshold)

    def score(self, items: Sequence[Item]) -> list[Score]:
        batches = [list(items[i : i + self.batch_size]) for i in range(0, len(items), self.batch_size)]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, max(1, len(batches)))) as pool:
            return [score for scores in pool.map(self._score_batch, batches) for score in scores]

    def _score_batch(self, items: list[Item]) -> list[Score]:
        return self.server.post(openrlhf_request(items), len(items), self._read)

    def scores_from(self, answer: Any, n: int) -> list[Score]:
        """The ``n`` scores a server's JSON answer gives; an answer that is not the protocol's (any shape a server
        can send) fails every item with the reason, and nothing is raised."""
        return read_answer(self._read, answer, n, self.url)

    def close(self) -> None:
        self.server.close()
