"""A reward-hacking alarm: the training reward keeps rising while the rule reward's accuracy on the very same
rollouts falls.

The rule reward is the ground truth a hacked reward drifts from (Cooper's static-VerifyRM runs: training
reward near 1 while accuracy collapses). Over a sliding window of steps, the alarm fires when the
least-squares slope of the training reward is above ``min_rise`` per step and the slope of the rule accuracy is
below ``-min_fall`` per step.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


def alarm_message(step: int, window: int) -> str:
    """The one warning every trainer prints when the alarm fires."""
    return (f"reward-hacking alarm at step {step}: the training reward rose while the rule accuracy of the same "
            f"rollouts fell over the last {window} steps")


def slope(values: list[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    num = sum((i - mean_x) * (v - mean_y) for i, v in enumerate(values))
    den = sum((i - mean_x) ** 2 for i in range(n))
    return num / den


@dataclass
class HackingAlarm:
    window: int = 10
    min_rise: float = 0.005
    min_fall: float = 0.005
    fired_at: int | None = None

    def __post_init__(self) -> None:
        self._reward: deque[float] = deque(maxlen=self.window)
        self._accuracy: deque[float] = deque(maxlen=self.window)

    def observe(self, step: int, training_reward: float, rule_accuracy: float) -> bool:
        """Record one step; True the first time the alarm condition holds."""
        self._reward.append(training_reward)
        self._accuracy.append(rule_accuracy)
        if self.fired_at is not None or len(self._reward) < self.window:
            return False
        if slope(list(self._reward)) > self.min_rise and slope(list(self._accuracy)) < -self.min_fall:
            self.fired_at = step
            return True
        return False
