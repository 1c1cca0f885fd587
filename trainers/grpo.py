"""GRPO runs with any registered reward: the configuration, the reward bridge, and per-step records.

Defaults follow Cooper's released run where it states them: 16 rollouts per prompt, policy learning rate 1e-6
with 20 warm-up steps, KL coefficient 0.001, prompts and responses up to 512 tokens, GSM8K train. A run's
configuration comes from defaults, then a config file, then the command line (each overriding the last).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from rewards.contract import ChecksWithRule, Item, LearnsFromFeedback, Reward, reward_value
from rewards.inputs import reward_item
from rewards.rule import RuleReward
from trainers.probe import Probe
from trainers.step_metrics import step_values, update_values


def option(default: Any, help: str) -> Any:
    """A config field with the help text its generated command-line option shows."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class GRPORunConfig:
    """What every GRPO backend takes. A backend's own options live in its subclass (``Trainer.config_class``);
    the ``harness train`` options are generated from these fields, and a backend refuses a field it does not have."""

    reward: str = option("", "Reward spec: rule, verifyrm:model=..., cooper:...")
    trainer: str = option("trl", "Trainer backend (harness ls trainers).")
    policy: str = option("smollm2-135m", "Policy model: a folder, a hub id, or smollm2-135m.")
    dataset: str = option("gsm8k", "gsm8k or a jsonl of question/answer.")
    output: str = option("runs/grpo", "Output folder (checkpoints, final model).")
    max_steps: int = option(100, "Optimizer steps.")
    num_generations: int = option(16, "Rollouts per prompt (Cooper: 16).")
    prompts_per_step: int = option(1, "Prompts per step.")
    learning_rate: float = option(1e-6, "Policy learning rate (Cooper: 1e-6).")
    warmup_steps: int = option(20, "Learning-rate warm-up steps (Cooper: 20).")
    beta: float = option(0.001, "KL coefficient (Cooper: 0.001).")
    max_prompt_length: int = option(512, "Longest prompt, tokens; longer prompts are left out.")
    max_completion_length: int = option(512, "Longest response, tokens.")
    temperature: float = option(1.0, "Sampling temperature of the rollouts.")
    seed: int = option(0, "Seed of the policy's sampling and training.")
    save_steps: int = option(50, "Steps between checkpoints.")
    keep_checkpoints: int = option(1, "Checkpoints kept (the newest; an older one goes once a newer is whole). "
                                      "A 135M policy's checkpoint with its optimizer state is 1.6 GB.")
    limit: int = option(0, "Use only the first N training problems (0: all).")
    alarm_window: int = option(10, "Steps the hacking alarm looks back over.")
    report_to: Literal["", "tensorboard", "wandb"] = option(
        "", "Also send every step's numbers to this tracker (OUTPUT/tensorboard, or W&B: offline without a key).")

    def __post_init__(self) -> None:
        problems = [f"{name} must be at least 1, got {getattr(self, name)}" for name in (
            "max_steps", "num_generations", "prompts_per_step", "save_steps", "keep_checkpoints")
            if getattr(self, name) < 1]
        if self.report_to not in ("", "tensorboard", "wandb"):
            problems.append(f"report_to must be tensorboard or wandb, got {self.report_to!r}")
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def merged(cls, file_values: Mapping[str, Any], cli_values: Mapping[str, Any]) -> GRPORunConfig:
        """Defaults < config file < command line. A key this backend does not take, from either, is an error
        naming it (and the trainers that do take it), never silently ignored."""
        known = {f.name for f in fields(cls)}
        given = {**file_values, **{k: v for k, v in cli_values.items() if v is not None}}
        unknown = sorted(set(given) - known)
        if unknown:
            trainer = given.get("trainer", "trl")
            raise ValueError(f"trainer {trainer!r} does not take {', '.join(unknown)} (it takes: "
                             f"{', '.join(sorted(known))}); drop the option or choose a trainer that takes it")
        if not given.get("reward"):
            raise ValueError("a training run needs a reward: --reward SPEC or reward: in the config file")
        return cls(**given)


def load_config_file(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a config file is a mapping of option names to values")
    return data


class StepRecords:
    """Per-step values gathered from reward calls (thread-safe), drained by the trainer's logging hook."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[dict[str, float]] = []

    def add(self, values: dict[str, float]) -> None:
        with self._lock:
            self._pending.append(values)

    def drain(self) -> dict[str, float]:
        """The mean of each value over the calls since the last drain."""
        with self._lock:
            pending, self._pending = self._pending, []
        out: dict[str, float] = {}
        for key in {k for p in pending for k in p}:
            vals = [p[key] for p in pending if key in p]
            out[key] = sum(vals) / len(vals)
        return out


class RewardBridge:
    """A registry reward as a trainer reward function.

    Called with prompts, completions and the dataset columns (``reference``); scores with the reward, measures
    the rule reward's accuracy on the same rollouts (and, with ``hole_pattern``, the share of rollouts that match
    it and of those that are wrong), and, for a reward that learns (Cooper), updates it from
    this scored batch before the next batch is scored. With a labelled ``probe``, what the reward pays on it is
    recorded after the update (:mod:`trainers.probe`: accuracy, ranking, the hole's pay rate).
    """

    def __init__(self, reward: Reward, records: StepRecords, rule: RuleReward | None = None,
                 probe: Probe | None = None, hole_pattern: str = "") -> None:
        self.reward = reward
        self.records = records
        self.rule = rule or RuleReward(workers=2)
        if isinstance(reward, ChecksWithRule):  # Cooper checks the same rollouts: with this one, each is checked once
            reward.use_rule(self.rule)
        self.probe = probe
        self.hole = re.compile(hole_pattern) if hole_pattern else None
        self.probe_values: list[float] | None = None
        self.__name__ = "harness_reward"

    def measure_probe(self) -> dict[str, float]:
        """The probe's numbers for the reward as it is now; its per-item values wait in :attr:`probe_values`
        until the trainer stores them with the step."""
        assert self.probe is not None
        scores = self.reward.score(self.probe.items)
        self.probe_values = self.probe.values(scores)
        return self.probe.measure(scores)

    def items(self, prompts: Sequence[Any], completions: Sequence[Any], references: Sequence[Any]) -> list[Item]:
        return [reward_item(p, r, c) for p, c, r in zip(prompts, completions, references)]

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], reference: Sequence[str], **_: Any) -> list[float]:
        items = self.items(prompts, completions, reference)
        scores = self.reward.score(items)
        rule = [s.verdict is True for s in self.rule.score(items)]
        values = step_values(items, scores, rule)
        if self.hole is not None:  # how much of what the policy writes is the hole's pattern, and wrong
            hits = [self.hole.search(it.completion) is not None for it in items]
            values["hole_share"] = sum(hits) / len(items)
            values["hole_wrong_share"] = sum(h and not r for h, r in zip(hits, rule)) / len(items)
        if isinstance(self.reward, LearnsFromFeedback):
            values.update(update_values(self.reward.learn(items, scores)))
        if self.probe is not None:  # after the update: constant for a static reward, moving for one that learns
            values.update(self.measure_probe())
        self.records.add(values)
        return [reward_value(s, abstention=None) for s in scores]  # TRL leaves out a sample the reward could not judge
