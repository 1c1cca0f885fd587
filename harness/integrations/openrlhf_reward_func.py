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

from harness.integrations._shared import score_readable
from harness.server.openrlhf import ProtocolError, parse_items, response_body


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **kwargs: Any) -> dict[str, Any]:
    import torch

    try:
        parsed = parse_items(queries, prompts, labels)  # one unreadable sample costs only its own reward
    except ProtocolError as exc:  # lists of different lengths: the trainer's bug, said plainly
        raise ValueError(f"reward_func: {exc}") from None
    body = response_body(score_readable(parsed))
    rewards = torch.tensor(body["rewards"], dtype=torch.float)
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {k: torch.tensor(v, dtype=torch.float) for k, v in body["extra_logs"].items()},
        "errors": body["errors"],
    }
