"""OpenRLHF's remote-reward protocol (``--reward.remote_url http://HOST:PORT/get_reward``).

OpenRLHF 0.11 posts ``{"query": [...], "prompts": [...], "labels": [...]}`` (usually one sample per request,
many concurrently; 180 s timeout, 5 retries) and reads ``rewards`` from the answer; ``scores`` and
``extra_logs`` are logged, each ``extra_logs`` value through ``torch.tensor([value])``, so they must be numbers.
``query`` is the chat-templated prompt followed by the response, decoded with its special tokens, so the
completion is the query minus its prompt, cleaned by :func:`rewards.inputs.clean_completion`. ``label`` is
whatever the prompt dataset's label column holds: the reference answer as text or a number, or JSON
``{"reference": ..., "prompt_id": ...}`` (``answer`` is accepted for ``reference``).

The same response shape serves the HTTP route and the in-process ``reward_func``: a failed item gets reward 0,
``reward_failed`` 1 in ``extra_logs``, its cause in ``errors`` and its reason (``timeout``, ``crashed``,
``out_of_memory``) in ``failure_reasons`` (text, beside ``extra_logs``, which OpenRLHF would turn into tensors).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from rewards.contract import Item, Score, reward_value
from rewards.inputs import clean_completion, reference_text


class ProtocolError(ValueError):
    """The request does not follow the protocol; the message says what to fix (answered with HTTP 400)."""


def parse_label(label: Any) -> tuple[str, dict[str, Any]]:
    """(reference answer, extra metadata) from a label value.

    A label that opens with ``{`` and quotes a key is meant as JSON: if it does not parse, the request is refused
    with the parser's message, rather than the whole text being taken as the reference (every rollout of the
    prompt would then score 0 and nobody would know why). A brace without quotes is an answer, such as the set
    ``{1, 2}``."""
    if isinstance(label, (int, float)) and not isinstance(label, bool):
        return reference_text(label), {}
    if isinstance(label, dict):  # the documented object, sent as JSON rather than as a string of JSON
        return _from_object(label)
    if not isinstance(label, str):
        raise ProtocolError(f"a label must be the reference answer (text or a number) or an object such as "
                            f'{{"reference": "42", "prompt_id": "p1"}}, got {type(label).__name__}')
    text = label.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except RecursionError:
            raise ProtocolError(f"label {text[:40]!r}... is JSON nested too deep to read; send the reference "
                                "as plain text or a flat object") from None
        except json.JSONDecodeError as exc:
            if '"' not in text:
                return reference_text(label), {}
            raise ProtocolError(f"label {text[:80]!r} looks like JSON but does not parse ({exc}); send valid JSON "
                                'such as {"reference": "42"}, or the reference answer as plain text') from None
        if not isinstance(data, dict):
            raise ProtocolError(f"label {text[:80]!r} is JSON but not an object; send the reference as plain text")
        return _from_object(data)
    return reference_text(label), {}


def _from_object(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    reference = data.get("reference", data.get("answer"))
    if reference is None:
        raise ProtocolError('a label object needs a "reference" (or "answer") field')
    if isinstance(reference, bool) or not isinstance(reference, (str, int, float)):
        raise ProtocolError(f"a label's reference must be text or a number, got {type(reference).__name__} "
                            f"{str(reference)[:60]}; send the answer itself (several answers as one text, \"1, 2\")")
    meta = {k: v for k, v in data.items() if k not in ("reference", "answer")}
    return reference_text(reference), meta


def parse_items(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], stop_tokens: Iterable[str] = ()
) -> list[Item | ProtocolError]:
    """One item per sample, or the :class:`ProtocolError` that says what is wrong with that sample (its index
    named); lists of different lengths are an error of the whole call."""
    if not (len(queries) == len(prompts) == len(labels)):
        raise ProtocolError(
            f"query, prompts and labels must have the same length (got {len(queries)}, {len(prompts)}, {len(labels)})"
        )
    out: list[Item | ProtocolError] = []
    for i, (query, prompt, label) in enumerate(zip(queries, prompts, labels)):
        if not query.startswith(prompt):
            out.append(ProtocolError(f"query[{i}] does not start with prompts[{i}]; the query must be prompt + response"))
            continue
        try:
            reference, meta = parse_label(label)
        except ProtocolError as exc:
            out.append(ProtocolError(f"labels[{i}]: {exc}"))
            continue
        out.append(Item(prompt, reference, clean_completion(query[len(prompt) :], stop_tokens), meta))
    return out


def items_from_request(
    queries: Sequence[str], prompts: Sequence[str], labels: Sequence[Any], stop_tokens: Iterable[str] = ()
) -> list[Item]:
    """The request's items; the first bad sample refuses the whole request (the server answers 400)."""
    parsed = parse_items(queries, prompts, labels, stop_tokens)
    for p in parsed:
        if isinstance(p, ProtocolError):
            raise p
    return parsed  # type: ignore[return-value]


def response_body(results: Sequence[Score]) -> dict[str, Any]:
    """OpenRLHF's answer for one score per item (a failure scores 0, with ``reward_failed`` 1 and its cause)."""
    rewards, verdicts, failed, errors, reasons = [], [], [], [], []
    for r in results:
        ok = isinstance(r, Score) and not r.is_failure
        rewards.append(reward_value(r))
        verdicts.append(1.0 if ok and r.verdict else 0.0)
        failed.append(0.0 if ok else 1.0)
        errors.append(None if ok else f"{r.reason}: {r.detail}")
        reasons.append(None if ok else r.reason)
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {"verdict": verdicts, "reward_failed": failed},
        "errors": errors,
        "failure_reasons": reasons,  # typed: a client reads the reason here, never out of the message
    }
