"""Training runs observed from the reward server: any trainer that asks the server for rewards (OpenRLHF, verl, a
script) gets the same per-step record in the run store as a ``trl`` run.

The server hands every scored batch to :meth:`TrainingObserver.observe` after the rewards are on their way back;
a background thread groups the rollouts into training steps (``items_per_step`` of them, or a ``POST /step``),
computes the rule reward's accuracy on the same rollouts (never on the response path), writes
:func:`trainers.step_metrics.step_values` and the learning reward's update metrics per step, and runs the same
hacking alarm. A run the observer began (``harness serve --record NAME``) is completed when the server stops.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.store import NewRun, RunKind, RunStore
from rewards.contract import Item, Score, close_reward
from rewards.sandbox import describe
from trainers.recording import RunLog
from trainers.step_metrics import step_values, update_values

log = logging.getLogger("harness.server")

_STEP = object()  # a step boundary in the queue
_STOP = object()


@dataclass(frozen=True)
class Recording:
    """Where served rollouts are recorded: an existing run (``run_id``), or a new one named ``name``."""

    store_path: str
    run_id: str = ""
    name: str = ""
    items_per_step: int = 0
    alarm_window: int = 10


class TrainingObserver:
    def __init__(self, recording: Recording, reward_spec: str, rule: Any = None) -> None:
        if not (recording.run_id or recording.name):
            raise ValueError("a recording needs a run id or a name")
        self.store = RunStore(recording.store_path)
        self.owns_run = not recording.run_id
        if self.owns_run:
            from harness.core.versions import package_versions

            self.run_id = self.store.begin(NewRun(
                kind=RunKind.TRAIN, reward=reward_spec, suite=recording.name, data_source="reward server",
                data_hash="", n_items=0, config={"recorded_by": "harness serve", "items_per_step": recording.items_per_step},
                versions=package_versions(),
            ))
        else:
            self.run_id = self.store.resolve(recording.run_id)
        self.items_per_step = recording.items_per_step
        self.run_log = RunLog(self.store, self.run_id, alarm_window=recording.alarm_window)
        self._rule = rule  # the rule reward that judges the rollouts; built on the worker thread when None
        self._queue: queue.Queue = queue.Queue()
        self._items: list[Item] = []
        self._scores: list[Score | None] = []
        self._update: dict[str, float] = {}
        self.step = 0
        self.rollouts = 0
        self._thread = threading.Thread(target=self._work, name="training-observer", daemon=True)
        self._thread.start()

    # -- called by the server -----------------------------------------------------------------------
    def observe(self, items: Sequence[Item], results: Sequence[Any]) -> None:
        """A scored batch; ``results`` are scores, or failures (recorded as the 0 the trainer received)."""
        self._queue.put((list(items), [None if r.is_failure else r for r in results]))

    def updated(self, metrics: dict[str, float]) -> None:
        """The learning reward's update at this step boundary."""
        if metrics:
            self._queue.put(("update", dict(metrics)))

    def close_step(self) -> None:
        self._queue.put(_STEP)

    def close(self, timeout: float = 60.0) -> None:
        """Write the last partial step; complete the run if this observer began it."""
        self._queue.put(_STOP)
        self._thread.join(timeout)
        if self.owns_run:
            self.run_log.complete(n_items=self.rollouts)
        if self._rule is not None:
            close_reward(self._rule)

    # -- the background thread -----------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            entry = self._queue.get()
            try:
                if entry is _STOP:
                    self._write_step()
                    return
                if entry is _STEP:
                    self._write_step()
                elif entry[0] == "update":
                    self._update.update(update_values(entry[1]))
                else:
                    items, scores = entry
                    self.rollouts += len(items)
                    self._items += items
                    self._scores += scores
                    while self.items_per_step and len(self._items) >= self.items_per_step:
                        self._write_step(self.items_per_step)
            except Exception as exc:  # noqa: BLE001 - recording must never take the server down
                log.error("recording the training step failed: %s", describe(exc))

    def _write_step(self, size: int | None = None) -> None:
        size = len(self._items) if size is None else size
        items, scores = self._items[:size], self._scores[:size]
        self._items, self._scores = self._items[size:], self._scores[size:]
        if not items:
            return
        if self._rule is None:
            from rewards.rule import RuleReward

            self._rule = RuleReward(workers=1)
        rule = [s.verdict is True for s in self._rule.score(items)]
        self.step += 1
        values = {**step_values(items, scores, rule), **self._update}
        self._update = {}
        self.run_log.step(self.step, values)  # the alarm warns through the harness.train logger
