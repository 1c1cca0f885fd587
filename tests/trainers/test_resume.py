"""Which checkpoint a stopped run resumes from: the newest written whole, a learning reward's state included."""

import json

from trainers.resume import REWARD_STATE, TRAINER_STATE, checkpoints, resume_point


class Learning:
    """A reward that declares :class:`rewards.contract.ResumesWithPolicy`; records what it was told to load."""

    def __init__(self):
        self.loaded = "never"

    def save_state(self, folder):
        folder.mkdir(parents=True)
        (folder / "state.json").write_text(json.dumps({"step": 1}))

    def load_state(self, folder):
        self.loaded = folder


def checkpoint(output, step, trainer=True, reward=True):
    folder = output / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    if trainer:
        (folder / TRAINER_STATE).write_text("{}")
    if reward:
        Learning().save_state(folder / REWARD_STATE)
    return folder


def test_newest_whole_checkpoint_wins_and_broken_newer_ones_are_removed(tmp_path):
    whole = checkpoint(tmp_path, 5)
    checkpoint(tmp_path, 10, reward=False)  # stopped after the policy, before the reward
    checkpoint(tmp_path, 15, trainer=False)  # stopped while the Trainer wrote it
    (tmp_path / "checkpoint-x").mkdir()
    warnings, reward = [], Learning()
    assert resume_point(tmp_path, reward, warnings.append) == whole
    assert reward.loaded == whole / REWARD_STATE
    assert checkpoints(tmp_path) == [whole] and len(warnings) == 2 and "not written whole" in warnings[0]


def test_numeric_order_and_a_reward_that_does_not_learn(tmp_path):
    for step in (9, 10, 100):
        checkpoint(tmp_path, step, reward=False)
    assert [p.name for p in checkpoints(tmp_path)] == ["checkpoint-100", "checkpoint-10", "checkpoint-9"]
    assert resume_point(tmp_path, object(), lambda m: None) == tmp_path / "checkpoint-100"


def test_no_checkpoint_starts_the_reward_over(tmp_path):
    reward = Learning()
    assert resume_point(tmp_path, reward, lambda m: None) is None and reward.loaded is None
