"""Where a stopped training run resumes: the last policy checkpoint that was written whole, with the state of a
reward that learns (:class:`rewards.contract.ResumesWithPolicy`) saved beside it.

A checkpoint is whole when the Trainer wrote its state file (written last) and, for a learning reward, the reward's
state folder (written after the checkpoint, by the trainer's ``on_save`` callback). A run stopped between the two
leaves a checkpoint that would resume the policy of one step with the reward model of another; it is set aside and
the run resumes from the one before.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from rewards.checkpoint import read_state
from rewards.contract import ResumesWithPolicy

REWARD_STATE = "reward_state"
TRAINER_STATE = "trainer_state.json"  # transformers' Trainer writes it last into a checkpoint folder
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def checkpoints(output: Path) -> list[Path]:
    """The output folder's ``checkpoint-N`` folders, newest (highest N) first."""
    found = [(int(m.group(1)), p) for p in Path(output).glob("checkpoint-*")
             if p.is_dir() and (m := _CHECKPOINT.match(p.name))]
    return [p for _, p in sorted(found, reverse=True)]


def is_whole(checkpoint: Path, reward: object) -> bool:
    if not (checkpoint / TRAINER_STATE).is_file():
        return False
    return not isinstance(reward, ResumesWithPolicy) or read_state(checkpoint / REWARD_STATE) is not None


def resume_point(output: Path, reward: object, warn: Callable[[str], None]) -> Path | None:
    """The checkpoint to resume from (None: start at step 0). Newer checkpoints that are not whole are removed,
    saying so, so that the Trainer neither picks them nor keeps them in its rotation; the reward's state is then
    loaded from the chosen checkpoint (or reset to its configured start)."""
    chosen = None
    for checkpoint in checkpoints(output):
        if is_whole(checkpoint, reward):
            chosen = checkpoint
            break
        warn(f"{checkpoint} was not written whole (the run stopped while saving it): removed; "
             "resuming from the checkpoint before it")
        shutil.rmtree(checkpoint)
    if isinstance(reward, ResumesWithPolicy):
        reward.load_state(chosen / REWARD_STATE if chosen is not None else None)
    return chosen


def save_reward_state(reward: object, checkpoint: Path) -> None:
    """The learning reward's state into a policy checkpoint the Trainer has just written."""
    if isinstance(reward, ResumesWithPolicy):
        reward.save_state(checkpoint / REWARD_STATE)
