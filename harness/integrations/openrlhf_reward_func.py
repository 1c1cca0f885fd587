"""OpenRLHF ``reward_func`` module: pass this file's path to ``--reward.remote_url``.

OpenRLHF calls ``reward_func(queries, prompts, labels, **kwargs)`` from worker threads and reads ``rewards``,
``scores`` and ``extra_logs`` from the returned dict. The reward is the harness's (``HARNESS_REWARD``, default
``rule``), in-process, or a running ``harness serve`` when ``HARNESS_REWARD_URL`` is set::

    HARNESS_REWARD=rule python -m openrlhf.cli.train_ppo_ray ... \\
        --reward.remote_url $(python -c "import harness.integrations.openrlhf_reward_func as m; print(m.__file__)")
"""

from __future__ import annotations

from typing import Any

from harness.integrations._shared import score_items
from harness.server.openrlhf import items_from_request


def reward_func(queries: list[str], prompts: list[str], labels: list[Any], **kwargs: Any) -> dict[str, Any]:
    import torch

    scores = score_items(items_from_request(queries, prompts, labels))
    rewards = torch.tensor([0.0 if s.value is None else s.value for s in scores], dtype=torch.float)
    verdicts = torch.tensor([1.0 if s.verdict else 0.0 for s in scores])
    return {"rewards": rewards, "scores": rewards, "extra_logs": {"verdict": verdicts}}
