"""Progress of long model work as log lines at a steady interval: step or items done, rate, time left.

A terminal progress bar says nothing in a job's log file, and a first epoch that takes half an hour with no line
written looks like a hang. :class:`ProgressLog` writes ``train-rm: 120/600 steps (0.8/s, about 10 min left)``
to the ``harness`` logger at most every ``interval_s`` seconds, and once at the end. The command line shows
these lines when standard error is not a terminal, and a bar when it is.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

log = logging.getLogger("harness")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 600:
        return f"{seconds / 60:.1f} min"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class ProgressLog:
    def __init__(self, label: str, unit: str = "items", interval_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic, emit: Callable[[str], None] | None = None) -> None:
        self.label, self.unit, self.interval_s = label, unit, interval_s
        self.clock = clock
        self.emit = emit or log.info
        self.began = clock()
        self.last = self.began
        self.done = 0
        self.total: int | None = None
        self._lock = threading.Lock()  # update() and the heartbeat's thread emit alike

    def line(self, done: int, total: int | None) -> str:
        elapsed = max(1e-9, self.clock() - self.began)
        rate = done / elapsed
        text = f"{self.label}: {done}/{total if total else '?'} {self.unit} ({rate:.2f}/s"
        if total and rate > 0 and done < total:
            text += f", about {_duration((total - done) / rate)} left"
        elif done and total and done >= total:
            text += f", {_duration(elapsed)} in all"
        return text + ")"

    def update(self, done: int, total: int | None = None, label: str | None = None) -> None:
        """Record progress; a line goes out when ``interval_s`` has passed since the last, and at the end."""
        if label is not None and label != self.label:
            self.label, self.began, self.last = label, self.clock(), self.clock()
        with self._lock:
            self.done, self.total = done, total
            now = self.clock()
            if now - self.last >= self.interval_s or (total is not None and done >= total):
                self.last = now
                self.emit(self.line(done, total))

    def tick(self) -> None:
        """A line with the progress so far when none has gone out for ``interval_s``: the work is alive even
        while one step (a batch of a judge's generations, a model's first load) takes longer than that."""
        with self._lock:
            now = self.clock()
            if now - self.last >= self.interval_s:
                self.last = now
                self.emit(self.line(self.done, self.total))

    @contextmanager
    def heartbeat(self, every_s: float | None = None) -> Iterator[ProgressLog]:
        """Within the block, :meth:`tick` runs every ``every_s`` seconds (``interval_s``) on a thread of its own,
        so the first line goes out within ``interval_s`` of the start whatever the work does."""
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.interval_s if every_s is None else every_s):
                self.tick()

        thread = threading.Thread(target=beat, name=f"progress-{self.label}", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join()
