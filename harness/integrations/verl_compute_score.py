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

from harness.integrations._shared import log, score_readable
from rewards.contract import Item, reward_value
from rewards.inputs import clean_completion, reference_text


def _item(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any) -> Item:
    info = extra_info if isinstance(extra_info, dict) else {}
    return Item(str(info.get("question", "")), reference_text(ground_truth), clean_completion(str(solution_str)),
                {"source": str(data_source)})


def _scores(rows: Sequence[tuple[Any, Any, Any, Any]]) -> list[float]:
    """Rewards for (data_source, solution, ground_truth, extra_info) rows; a row that is not an item (a ground
    truth of the wrong type) scores 0.0 with a warning, and its batch-mates their own rewards."""
    items: list[Item | Exception] = []
    for row in rows:
        try:
            items.append(_item(*row))
        except Exception as exc:  # noqa: BLE001 - an input the reward cannot read is a 0, not a crash
            log.warning("verl compute_score: cannot read this row as an item (%s: %s); it scores 0.0",
                        type(exc).__name__, exc)
            items.append(exc)
    return [reward_value(s) for s in score_readable(items)]


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None,
                  **kwargs: Any) -> float:
    [value] = _scores([(data_source, solution_str, ground_truth, extra_info)])
    return value


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> list[float]:
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    return _scores(list(zip(data_sources, solution_strs, ground_truths, infos)))
