"""The trainer contract: what every training backend does, and the CLI relies on.

A backend declares its configuration, a subclass of :class:`~trainers.grpo.GRPORunConfig` holding the options
only it takes (``config_class``; ``harness train`` generates its options from these fields and refuses one the
chosen backend does not take). It is built from that config and keyword ``progress(step, total, values)`` and
``warn(message)`` callbacks, and :meth:`Trainer.run` trains, records the run in the store and returns it,
complete. A backend that can show what it would launch without launching it (OpenRLHF's checked command) also
implements :class:`DryRunnable`. Adding a trainer is one module and one registration in :data:`trainers.TRAINERS`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from harness.core.store import RunRecord, RunStore


@runtime_checkable
class Trainer(Protocol):
    config_class: type  # a GRPORunConfig subclass: the options this backend takes

    def run(self, store: RunStore) -> RunRecord: ...


@runtime_checkable
class DryRunnable(Protocol):
    def dry_run(self) -> str:
        """Prepare what the run needs (data files) and return the command it would launch, launching nothing."""
        ...


def train(trainer: Trainer, store: RunStore) -> RunRecord:
    """``trainer.run(store)``, holding it to the contract: a backend that returns anything but the stored run
    (a process handle, None) is a bug in the backend, reported by name rather than failing later."""
    if not isinstance(trainer, Trainer):
        raise TypeError(f"{type(trainer).__name__} is not a trainer: it has no run(store) method")
    record = trainer.run(store)
    if not isinstance(record, RunRecord):
        raise TypeError(f"trainer {type(trainer).__name__}.run returned {type(record).__name__}, not the stored run "
                        "(trainers.contract.Trainer)")
    return record
