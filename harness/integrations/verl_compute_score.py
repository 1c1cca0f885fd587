"""verl ``compute_score`` adapter: ``custom_reward_function.path=<this file>``, ``name=compute_score``.

verl calls ``compute_score(data_source, solution_str, ground_truth, extra_info)`` per response; the reward is
the harness's (``HARNESS_REWARD``, default ``rule``, or a server at ``HARNESS_REWARD_URL``).
"""

from __future__ import annotations

from typing import Any

from harness.integrations._shared import score_items
from rewards.contract import Item


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict[str, Any] | None = None) -> float:
    question = str((extra_info or {}).get("question", ""))
    [score] = score_items([Item(question, str(ground_truth), solution_str, {"source": data_source})])
    return 0.0 if score.value is None else float(score.value)
