"""GRPO runs with any registered reward: the configuration, the reward bridge, and per-step records.

Defaults follow Cooper's released run where it states them: 16 rollouts per prompt, policy learning rate 1e-6
with 20 warm-up steps, KL coefficient 0.001, prompts and responses up to 512 tokens, GSM8K train. A run's
configuration comes from defaults, then a config file, then the command line (each overriding the last).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from rewards.contract import Item, LearnsFromFeedback, Reward, reward_value
from rewards.inputs import clean_completion, reference_text
from rewards.rule import RuleReward
from trainers.probe import Probe
from trainers.step_metrics import step_values, update_values


@dataclass(frozen=True)
class GRPORunConfig:
    reward: str
    trainer: str = "trl"
    policy: str = "smollm2-135m"
    dataset: str = "gsm8k"
    output: str = "runs/grpo"
    max_steps: int = 100
    num_generations: int = 16
    prompts_per_step: int = 1
    learning_rate: float = 1e-6
    warmup_steps: int = 20
    beta: float = 0.001
    max_prompt_length: int = 512
    max_completion_length: int = 512
    temperature: float = 1.0
    seed: int = 0
    save_steps: int = 50
    limit: int = 0
    alarm_window: int = 10
    stop_on_hack: bool = False
    eval_every: int = 0  # steps between held-out evaluations of the policy; 0: none
    eval_suite: str = "gsm8k"
    eval_limit: int = 50
    eval_max_tokens: int = 256
    launcher: str = ""  # openrlhf: the command that runs train_ppo_ray (default: python -m openrlhf.cli.train_ppo_ray)
    dtype: str = "auto"  # trl: auto picks bfloat16 where this machine runs it faster (harness.core.precision)
    probe: str = ""  # a labelled suite spec (e.g. jsonl:data=probe.jsonl): what the reward pays on it every step
    probe_limit: int = 0
    probe_hole: str = "hole"  # the probe category whose pay rate is logged (rm_hole_pay)
    hole_pattern: str = ""  # a regex: the share of rollouts matching it (and of those wrong) is logged every step

    @classmethod
    def merged(cls, file_values: Mapping[str, Any], cli_values: Mapping[str, Any]) -> GRPORunConfig:
        """Defaults < config file < command line; unknown keys in the file are an error naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(file_values) - known)
        if unknown:
            raise ValueError(f"unknown key(s) in the config file: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        values = {**file_values, **{k: v for k, v in cli_values.items() if v is not None}}
        if "reward" not in values:
            raise ValueError("a training run needs a reward: --reward SPEC or reward: in the config file")
        return cls(**values)


def load_config_file(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a config file is a mapping of option names to values")
    return data


def completion_text(completion: Any) -> str:
    """TRL passes completions as text or, for chat datasets, as a list of messages."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content", "") for m in completion if isinstance(m, dict))


def prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return "\n".join(m.get("content", "") for m in prompt if isinstance(m, dict) and m.get("role") == "user")


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
        self.probe = probe
        self.hole = re.compile(hole_pattern) if hole_pattern else None
        self.__name__ = "harness_reward"

    def items(self, prompts: Sequence[Any], completions: Sequence[Any], references: Sequence[Any]) -> list[Item]:
        return [
            Item(prompt_text(p), reference_text(r), clean_completion(completion_text(c)), {"prompt_id": prompt_text(p)})
            for p, c, r in zip(prompts, completions, references)
        ]

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
            values.update(self.probe.measure(self.reward.score(self.probe.items)))
        self.records.add(values)
        return [reward_value(s, abstention=None) for s in scores]  # TRL leaves out a sample the reward could not judge
