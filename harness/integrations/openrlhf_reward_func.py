"""OpenRLHF ``reward_func`` module: pass this file's path to ``--reward.remote_url``.

OpenRLHF calls ``reward_func(queries, prompts, labels)`` from worker threads (one query per call) and reads
``rewards``, ``scores`` and ``extra_logs`` from the returned dict. The reward is the harness's
(``HARNESS_REWARD``, default ``rule``), in-process, or a running ``harness serve`` when ``HARNESS_REWARD_URL`` is
set::

    HARNESS_REWARD=rule python -m openrlhf.cli.train_ppo_ray ... \\
        --reward.remote_url $(python -c "import harness.integrations.openrlhf_reward_func as m; print(m.__file__)")

OpenRLHF catches only ``Exception`` around this call, so nothing is let out: an item the reward fails on gets
reward 0 and ``reward_failed`` 1, with the cause in ``errors``, exactly as the server answers it.
"""

from __future__ import annotations

from typing import Any

from harness.integrations._shared import score_items
from harness.server.openrlhf import ProtocolError, items_from_request, response_body
from rewards.contract import REASON_CRASHED, Item, Score


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **kwargs: Any) -> dict[str, Any]:
    import torch

    if not (len(queries) == len(prompts) == len(labels)):  # a malformed call is the trainer's bug: say so plainly
        raise ValueError(f"reward_func: queries, prompts and labels differ in length "
                         f"({len(queries)}, {len(prompts)}, {len(labels)})")
    items: list[Item | None] = []
    refused: dict[int, str] = {}
    for i, call in enumerate(zip(queries, prompts, labels)):
        try:
            [item] = items_from_request(*([part] for part in call))
            items.append(item)
        except ProtocolError as exc:  # one unreadable label costs only its own reward
            items.append(None)
            refused[i] = str(exc).replace("labels[0]", f"labels[{i}]").replace("query[0]", f"query[{i}]")
    scored = iter(score_items([it for it in items if it is not None]))
    results = [next(scored) if it is not None else Score.failed(REASON_CRASHED, f"bad input: {refused[i]}")
               for i, it in enumerate(items)]
    body = response_body(results)
    rewards = torch.tensor(body["rewards"], dtype=torch.float)
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {k: torch.tensor(v, dtype=torch.float) for k, v in body["extra_logs"].items()},
        "errors": body["errors"],
    }
