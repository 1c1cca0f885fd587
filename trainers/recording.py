"""A training run's record, written the same way by every trainer: the TRL loop, the reward server's observer
(which records OpenRLHF, verl and any other client) and a new backend alike.

:class:`RunLog` takes a step's numbers once they are gathered and does what each trainer used to wire up by
hand: the hacking alarm on the training reward and the rule accuracy of the same rollouts, the step into the
run store, the same numbers to the experiment tracker (``--report-to``), the progress line. A backend that
gets it from here records what the others record and warns in the same words.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from harness.core.store import ProbeScore, RunStore
from rewards.contract import KeepsArtifacts, Reward
from trainers.hacking import HackingAlarm, alarm_message
from trainers.probe import Probe
from trainers.step_metrics import final_metrics
from trainers.trackers import Tracker

Progress = Callable[[int, int, dict[str, float]], None]
log = logging.getLogger("harness.train")


def _log_warning(message: str) -> None:
    log.warning("%s", message)


class RunLog:
    """One run's steps: the alarm, the store, the tracker and the progress line, for a run already begun in
    ``store`` as ``run_id``. ``total_steps`` is what the progress line counts towards (0: unknown)."""

    def __init__(self, store: RunStore, run_id: str, *, alarm_window: int, total_steps: int = 0,
                 tracker: Tracker | None = None, progress: Progress | None = None,
                 warn: Callable[[str], None] = _log_warning) -> None:
        self.store = store
        self.run_id = run_id
        self.alarm = HackingAlarm(window=alarm_window)
        self.total_steps = total_steps
        self.tracker = tracker
        self.progress = progress
        self.warn = warn
        self._began = time.perf_counter()

    def log(self, step: int, values: Mapping[str, float]) -> None:
        """Numbers measured beside the training steps (held-out accuracy, the probe at step 0): the store and
        the tracker, no alarm and no progress line."""
        self.store.log_step(self.run_id, step, dict(values))
        if self.tracker is not None:
            self.tracker.log(step, values)

    def step(self, step: int, values: dict[str, float]) -> bool:
        """A training step's numbers. Returns True when the hacking alarm fires at this step (it then adds
        ``hacking_alarm`` to the values and warns); a trainer told to stop on hacking stops there."""
        fired = False
        if "train_reward" in values and "rule_accuracy" in values:
            fired = self.alarm.observe(step, values["train_reward"], values["rule_accuracy"])
        if fired:
            values["hacking_alarm"] = 1.0
            self.warn(alarm_message(step, self.alarm.window))
        self.log(step, values)
        if self.progress is not None:
            self.progress(step, self.total_steps, values)
        return fired

    def probe(self, step: int, probe: Probe, values: Sequence[float]) -> None:
        """What the reward paid for each probe item at this step."""
        self.store.log_probe(self.run_id, step, [ProbeScore(i, row.category, row.label, value)
                                                 for i, (row, value) in enumerate(zip(probe.rows, values))])

    def artifacts(self, reward: Reward) -> None:
        """Every file a reward saved (Cooper's snapshots), by hash: the run names the weights it trained with."""
        if isinstance(reward, KeepsArtifacts):
            for artifact in reward.artifacts():
                self.store.log_artifact(self.run_id, artifact)

    def complete(self, n_items: int | None = None) -> None:
        """The run complete, its final metrics made from its stored steps."""
        self.store.complete(self.run_id, [], final_metrics(self.store.steps(self.run_id)),
                            time.perf_counter() - self._began, n_items=n_items)
