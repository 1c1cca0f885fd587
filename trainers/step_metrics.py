"""What every training run records per step, whichever trainer ran it: one definition for TRL in-process and for
runs observed by the reward server (OpenRLHF, verl).

Per step: the training reward the trainer received, the rule reward's accuracy on the same rollouts, their
agreement, the within-group margin (right minus wrong rollouts of a prompt, by the rule), the response length, and a learning reward's update metrics (``rm_*``). At the end: the last step's
reward and accuracy, the step at which the hacking alarm fired, the number of steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.core.store import Metric
from rewards.contract import Item, Score, reward_value


def step_values(items: Sequence[Item], scores: Sequence[Score | None], rule_correct: Sequence[bool]) -> dict[str, float]:
    """The per-step values of a batch of rollouts (``scores`` None where the reward failed on an item)."""
    n = len(items)
    if n == 0:
        return {}
    rewards = [reward_value(s) or 0.0 for s in scores]
    verdicts = [s is not None and s.verdict is True for s in scores]
    out = {
        "train_reward": sum(rewards) / n,
        "rule_accuracy": sum(rule_correct) / n,
        "agreement": sum(a == b for a, b in zip(verdicts, rule_correct)) / n,
        "response_chars": sum(len(it.completion) for it in items) / n,
    }
    margins = group_margins(items, rewards, rule_correct)
    if margins:
        out["reward_margin"] = sum(margins) / len(margins)
        out["margin_groups"] = float(len(margins))
    return out


def group_margins(items: Sequence[Item], rewards: Sequence[float], rule_correct: Sequence[bool]) -> list[float]:
    """Per prompt with rollouts the rule calls right and wrong: the mean reward of the right minus that of the
    wrong. GRPO learns from differences within a prompt's group only, so this, not the mean reward, is what a
    reward tells the policy; a reward that pays everything alike has margins of 0 whatever its mean."""
    groups: dict[str, tuple[list[float], list[float]]] = {}
    for item, reward, right in zip(items, rewards, rule_correct):
        key = str(item.metadata.get("prompt_id", item.question))
        groups.setdefault(key, ([], []))[0 if right else 1].append(reward)
    return [sum(r) / len(r) - sum(w) / len(w) for r, w in groups.values() if r and w]


def update_values(metrics: Mapping[str, float]) -> dict[str, float]:
    """A learning reward's update metrics under the ``rm_`` prefix."""
    return {f"rm_{k}": float(v) for k, v in metrics.items()}


def _last(steps: Mapping[int, Mapping[str, float | None]], key: str) -> float | None:
    logged = [k for k, v in steps.items() if v.get(key) is not None]
    return steps[max(logged)][key] if logged else None


def _mean(steps: Mapping[int, Mapping[str, float | None]], key: str) -> float | None:
    values = [v[key] for v in steps.values() if v.get(key) is not None]
    return sum(values) / len(values) if values else None


def _peak(steps: Mapping[int, Mapping[str, float | None]], key: str) -> float | None:
    values = [v[key] for v in steps.values() if v.get(key) is not None]
    return max(values) if values else None


def final_metrics(steps: Mapping[int, Mapping[str, float | None]]) -> list[Metric]:
    """The run-level metrics of a training run, from its stored steps: the last training reward, rule accuracy,
    held-out accuracy, probe accuracy, probe ranking and hole pay rate logged, the hole pay rate's peak, the
    alarm's step, the mean valid pairs per update (Cooper)."""
    fired = [k for k, v in steps.items() if v.get("hacking_alarm")]
    n = sum(1 for k in steps if k > 0)  # step 0 holds what was measured before training
    return [
        Metric("final_train_reward", _last(steps, "train_reward"), True, n, "training"),
        Metric("final_rule_accuracy", _last(steps, "rule_accuracy"), True, n, "training"),
        Metric("final_heldout_accuracy", _last(steps, "heldout_accuracy"), True, n, "training"),
        Metric("final_rm_probe_accuracy", _last(steps, "rm_probe_accuracy"), True, n, "training"),
        Metric("final_rm_probe_ranking", _last(steps, "rm_probe_ranking"), True, n, "training"),
        Metric("final_rm_hole_pay", _last(steps, "rm_hole_pay"), True, n, "training"),
        Metric("peak_rm_hole_pay", _peak(steps, "rm_hole_pay"), True, n, "training"),
        Metric("mean_valid_pairs", _mean(steps, "rm_valid_pairs"), True, n, "training"),
        Metric("hacking_alarm_step", float(min(fired)) if fired else None, None, n, "training"),
        Metric("steps", float(n), None, n, "training"),
    ]
