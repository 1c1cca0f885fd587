"""Posting to a reward server: what is sent again, when, and what is not.

A 5xx or a dropped connection is the service, not the item: a Ray Serve replica that died under the request (its
proxy answers 500), a server restarting. The request is sent again after each of :data:`RETRY_DELAYS_S` before
its items fail. A 4xx is the request itself (bad input, a refused token) and is never sent again. Used by the
framework adapters (:mod:`harness.integrations`) and by the ``remote`` reward alike.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

log = logging.getLogger("harness.http")

RETRY_DELAYS_S: tuple[float, ...] = (0.5, 1.0, 2.0)


def worth_retrying(status: int | None) -> bool:
    """Whether a request is sent again: no answer (``None``, a transport error) or a 5xx."""
    return status is None or status >= 500


def post_with_retries(client: Any, url: str, content: bytes, delays: Sequence[float] | None = None) -> Any:
    """The ``httpx`` response to ``content`` posted as JSON, sent again after a transport error or a 5xx; the last
    attempt's transport error is raised, its 5xx returned."""
    import httpx

    for delay in (*(RETRY_DELAYS_S if delays is None else delays), None):
        try:
            response = client.post(url, content=content, headers={"content-type": "application/json"})
        except httpx.TransportError as exc:
            if delay is None:
                raise
            why = f"failed ({type(exc).__name__}: {exc})"
        else:
            if delay is None or not worth_retrying(response.status_code):
                return response
            why = f"answered {response.status_code}"
        log.info("the reward server at %s %s; sending again in %gs", url, why, delay)
        time.sleep(delay)
    raise AssertionError("unreachable")
