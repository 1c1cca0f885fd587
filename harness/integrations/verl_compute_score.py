"""verl ``compute_score`` adapters: ``custom_reward_function.path=<this file>``.

- ``name=compute_score``: one response per call, as verl's naive reward manager and its reward loop call it
  (``compute_score(data_source, solution_str, ground_truth, extra_info)``).
- ``name=compute_score_batch`` with ``reward_model.reward_manager=batch``: the whole batch in one call
  (``compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos)``), one HTTP request when the
  reward is served.

The reward is the harness's (``HARNESS_REWARD``, default ``rule``, or a server at ``HARNESS_REWARD_URL``). The
ground truth may be a number (a parquet column of floats); it compares as the number it is. A question in
``extra_info["question"]`` is passed on. Nothing is raised for what the reward does: a failed item scores 0.0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.integrations._shared import score_items
from rewards.contract import Item, reward_value
from rewards.inputs import clean_completion, reference_text


def _item(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any) -> Item:
    info = extra_info if isinstance(extra_info, dict) else {}
    return Item(str(info.get("question", "")), reference_text(ground_truth), clean_completion(str(solution_str)),
                {"source": str(data_source)})


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> float:
    [result] = score_items([_item(data_source, solution_str, ground_truth, extra_info)])
    return reward_value(result)


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> list[float]:
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    items = [_item(d, s, g, e) for d, s, g, e in zip(data_sources, solution_strs, ground_truths, infos)]
    return [reward_value(r) for r in score_items(items)]
