"""Experiment trackers: every step's numbers that the run store records, also sent to TensorBoard or W&B.

``--report-to tensorboard`` writes event files under ``OUTPUT/tensorboard`` (``torch.utils.tensorboard``, which
needs the ``tensorboard`` package); ``--report-to wandb`` logs to a W&B run whose files go under ``OUTPUT/wandb``,
offline unless a W&B key is configured (``WANDB_API_KEY``) or ``WANDB_MODE`` says otherwise: a machine without
network still gets a run folder that ``wandb sync`` uploads later. The trainer's own numbers (loss, KL, ...)
go to the same tracker through the trainer's own reporting (TRL's ``report_to``, OpenRLHF's logger flags); the
harness's numbers (training reward, the rule accuracy of the same rollouts, the hacking gap, the probes, Cooper's
pairs, held-out accuracy) go under ``harness/``, with the values and steps the store holds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from harness.core.optional import require

PREFIX = "harness/"


@runtime_checkable
class Tracker(Protocol):
    def log(self, step: int, values: Mapping[str, float]) -> None: ...

    def trainer_callback(self) -> Any:
        """transformers' own reporting callback for this tracker, writing to the same place: the trainer's
        numbers (loss, KL, lengths, ...) as transformers reports them."""

    def close(self) -> None: ...


class TensorBoardTracker:
    def __init__(self, folder: Path, run_name: str) -> None:
        require("tensorboard", "--report-to tensorboard")
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(folder / "tensorboard"))

    def trainer_callback(self) -> Any:
        from transformers.integrations import TensorBoardCallback

        return TensorBoardCallback(tb_writer=self.writer)

    def log(self, step: int, values: Mapping[str, float]) -> None:
        for name, value in values.items():
            self.writer.add_scalar(PREFIX + name, value, step)
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


class WandbTracker:
    def __init__(self, folder: Path, run_name: str) -> None:
        wandb = require("wandb", "--report-to wandb")
        mode = os.environ.get("WANDB_MODE") or ("online" if os.environ.get("WANDB_API_KEY") else "offline")
        (folder / "wandb").mkdir(parents=True, exist_ok=True)
        self.run: Any = wandb.init(project=os.environ.get("WANDB_PROJECT", "rl-reward-harness"), name=run_name,
                                   dir=str(folder / "wandb"), mode=mode, reinit="finish_previous")

    def trainer_callback(self) -> Any:
        from transformers.integrations import WandbCallback

        return WandbCallback()  # it logs into the run opened here (wandb.run)

    def log(self, step: int, values: Mapping[str, float]) -> None:
        self.run.log({PREFIX + name: value for name, value in values.items()}, step=step)

    def close(self) -> None:
        """Finish the run, then shut W&B's service down: ``finish()`` only tells the service the run is over,
        and the service writes the run file's last block when it closes the run, a moment later; shutting it
        down waits for that, so the run file is whole (``wandb sync`` or a reader sees every step) when this
        returns. A later run in the same process starts the service again."""
        import wandb

        self.run.finish()
        wandb.teardown()


TRACKERS: dict[str, Callable[[Path, str], Tracker]] = {"tensorboard": TensorBoardTracker, "wandb": WandbTracker}


# What each tracker imports: checked with the trainer's own needs before anything is loaded or written
TRACKER_MODULES: Mapping[str, tuple[str, ...]] = {"": (), "tensorboard": ("tensorboard",), "wandb": ("wandb",)}


def open_tracker(name: str, folder: Path, run_name: str) -> Tracker | None:
    """The tracker ``name`` names (none for ""), writing under ``folder``."""
    if not name:
        return None
    if name not in TRACKERS:
        raise ValueError(f"--report-to takes {' or '.join(TRACKERS)}, got {name!r}")
    return TRACKERS[name](Path(folder), run_name)
