"""OpenRLHF's remote-reward protocol (``--reward.remote_url http://HOST:PORT/get_reward``).

OpenRLHF 0.11 posts ``{"query": [...], "prompts": [...], "labels": [...]}`` (usually one sample per request,
many concurrently; 180 s timeout, 5 retries) and reads ``rewards`` from the answer; ``scores`` and
``extra_logs`` are logged. ``query`` is the chat-templated prompt followed by the response, so the completion
is the query minus its prompt. ``label`` is whatever the prompt dataset's label column holds: the reference
answer as plain text, or JSON ``{"reference": ..., "prompt_id": ...}`` (``answer`` is accepted for
``reference``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from rewards.contract import Item


class ProtocolError(ValueError):
    """The request does not follow the protocol; the message says what to fix (answered with HTTP 400)."""


def parse_label(label: Any) -> tuple[str, dict[str, Any]]:
    """(reference answer, extra metadata) from a label value."""
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return str(label), {}
    if not isinstance(label, str):
        raise ProtocolError(f"a label must be a string (the reference answer, or JSON), got {type(label).__name__}")
    text = label.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return label, {}
        reference = data.get("reference", data.get("answer"))
        if reference is None:
            raise ProtocolError('a JSON label needs a "reference" (or "answer") field')
        meta = {k: v for k, v in data.items() if k not in ("reference", "answer")}
        return str(reference), meta
    return label, {}


def items_from_request(queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any]) -> list[Item]:
    if not (len(queries) == len(prompts) == len(labels)):
        raise ProtocolError(
            f"query, prompts and labels must have the same length (got {len(queries)}, {len(prompts)}, {len(labels)})"
        )
    items = []
    for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels)):
        if not query.startswith(prompt):
            raise ProtocolError(f"query[{i}] does not start with prompts[{i}]; the query must be prompt + response")
        reference, meta = parse_label(label)
        items.append(Item(prompt, reference, query[len(prompt) :], meta))
    return items
