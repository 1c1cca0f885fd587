"""The ``trl`` trainer: TRL's ``GRPOTrainer`` in-process, on a CPU or a GPU, with any registered reward.

The reference answer travels as the dataset column ``reference``; the registry reward becomes a TRL reward
function (:class:`~trainers.grpo.RewardBridge`), so a reward that learns (Cooper) updates after each scored
generation batch. Every logging step writes the training reward, the rule reward's accuracy on the same
rollouts, their agreement, response length, KL and Cooper's update metrics to the run store; the hacking alarm
watches the same numbers. Step 0 holds the held-out accuracy and the probe before any update; with a probe, every step also stores what the
reward paid for each probe item, and a reward that saves its weights (Cooper's snapshots) has each saved file
recorded by hash. Checkpoints go to ``OUTPUT/checkpoint-*`` every ``save_steps``, with a learning reward's state
inside them; a rerun with the same output resumes from the last one written whole (:mod:`trainers.resume`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.core.optional import require
from harness.core.precision import choose_precision
from harness.core.store import NewRun, RunKind, RunRecord, RunStore, content_hash
from rewards.contract import close_reward
from suites.math_data import load_problems
from trainers.grpo import GRPORunConfig, RewardBridge, StepRecords, option
from trainers.probe import Probe
from trainers.recording import Progress, RunLog
from trainers.resume import resume_point, save_reward_state
from trainers.trackers import Tracker, open_tracker


def heldout_accuracy(model: Any, tokenizer: Any, problems: list[Any], rule: Any, max_tokens: int, batch: int = 8) -> float:
    """Greedy accuracy of the policy being trained on held-out problems, by the rule reward."""
    import torch

    from rewards.contract import Item

    was_training = model.training
    model.eval()
    side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    texts = []
    try:
        for start in range(0, len(problems), batch):
            chunk = problems[start : start + batch]
            prompts = [tokenizer.apply_chat_template(p.messages(), tokenize=False, add_generation_prompt=True) for p in chunk]
            enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            with torch.inference_mode():
                out = model.generate(**enc, max_new_tokens=max_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
            texts += tokenizer.batch_decode(out[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)
    finally:
        tokenizer.padding_side = side
        model.train(was_training)
    scores = rule.score([Item(p.question, p.answer, t) for p, t in zip(problems, texts)])
    return sum(s.verdict is True for s in scores) / len(scores)


@dataclass(frozen=True)
class TRLRunConfig(GRPORunConfig):
    """GRPO with TRL in this process: the shared options, and what only an in-process trainer can do (see the
    policy every few steps, stop on the alarm, probe the reward between steps)."""

    stop_on_hack: bool = option(False, "Stop when the hacking alarm fires (keeping the checkpoint from before it).")
    eval_every: int = option(0, "Steps between held-out greedy accuracy checks of the policy (0: none).")
    eval_suite: str = option("gsm8k", "Held-out problems: gsm8k (its test split) or a jsonl.")
    eval_limit: int = option(50, "Held-out problems per check.")
    eval_max_tokens: int = option(256, "New tokens per held-out answer.")
    dtype: str = option("auto", "auto picks bfloat16 where this machine runs it faster than float32.")
    probe: str = option("", "A labelled suite spec (e.g. jsonl:data=probe.jsonl,category=kind): the reward's "
                            "accuracy, ranking of right over wrong and pay rate on the hole category, every step.")
    probe_limit: int = option(0, "Only the first N items of the probe (0: all).")
    probe_hole: str = option("hole", "The probe category whose pay rate is logged (rm_hole_pay).")
    probe_keyed: str = option("keyed_right", "The probe category of right answers opened like the hole items, "
                                             "ranked against them (rm_keyed_ranking).")
    hole_pattern: str = option("", "A regex: the share of rollouts matching it, and of those wrong, every step.")


class TRLTrainer:
    """GRPO with TRL in this process."""

    config_class = TRLRunConfig

    def __init__(self, config: TRLRunConfig, progress: Progress | None = None, warn: Callable[[str], None] = print) -> None:
        self.config = config
        self.progress = progress or (lambda step, total, values: None)
        self.warn = warn

    def _dataset(self, tokenizer: Any) -> Any:
        datasets = require("datasets", "GRPO training with TRL")
        cfg = self.config
        problems = load_problems(cfg.dataset, "train", cfg.limit or None)
        rows = []
        for p in problems:
            ids = tokenizer.apply_chat_template(p.messages(), tokenize=True, add_generation_prompt=True)
            if len(ids) <= cfg.max_prompt_length:  # longer prompts are left out, as OpenRLHF's max length does
                rows.append({"prompt": p.messages(), "reference": p.answer})
        if not rows:
            raise ValueError(f"no prompt of {cfg.dataset} fits in max_prompt_length={cfg.max_prompt_length}")
        return datasets.Dataset.from_list(rows)

    def _grpo_args(self, trl: Any, torch: Any) -> Any:
        """TRL's configuration for this run, built before the run is recorded: a bad option fails with nothing
        left behind in the store."""
        cfg = self.config
        cuda = torch.cuda.is_available()
        precision = choose_precision(cfg.dtype, "cuda" if cuda else "cpu", torch)
        return trl.GRPOConfig(
            output_dir=cfg.output, max_steps=cfg.max_steps, num_generations=cfg.num_generations,
            per_device_train_batch_size=cfg.num_generations * cfg.prompts_per_step,
            max_completion_length=cfg.max_completion_length, learning_rate=cfg.learning_rate,
            warmup_steps=cfg.warmup_steps, beta=cfg.beta, temperature=cfg.temperature, seed=cfg.seed,
            save_strategy="steps", save_steps=cfg.save_steps, save_total_limit=cfg.keep_checkpoints,
            logging_steps=1, report_to="none",
            use_cpu=not cuda, bf16=precision.bf16, disable_tqdm=True,
        )

    def _ready_reward(self) -> Any:
        """The reward, built and ready (weights loaded, a server answering) before a run exists: a reward that
        cannot start leaves nothing half-recorded."""
        from harness.core.readiness import ensure_ready
        from rewards import build_reward

        reward = build_reward(self.config.reward)
        try:
            ensure_ready([reward], f"training with {self.config.reward}")
        except BaseException:
            close_reward(reward)
            raise
        return reward

    def run(self, store: RunStore) -> RunRecord:
        from harness.core.optional import require_all
        from trainers.trackers import TRACKER_MODULES

        # every package the run needs, the tracker's included, in one message before anything is loaded or written
        require_all(("trl", "transformers", "torch", *TRACKER_MODULES.get(self.config.report_to, ())),
                    f"harness train --trainer trl{' --report-to ' + self.config.report_to if self.config.report_to else ''}")
        trl = require("trl", "the trl trainer")
        transformers = require("transformers", "the trl trainer")
        torch = require("torch", "the trl trainer")
        from harness.core.generation.hf import TransformersGenerator, resolve_causal_lm
        from harness.core.readiness import ensure_ready
        from harness.core.versions import package_versions

        cfg = self.config
        ensure_ready([TransformersGenerator(cfg.policy)], f"the policy {cfg.policy!r}")
        policy = resolve_causal_lm(cfg.policy)
        tokenizer = transformers.AutoTokenizer.from_pretrained(policy)
        dataset = self._dataset(tokenizer)
        args = self._grpo_args(trl, torch)
        reward = self._ready_reward()
        probe = Probe.from_spec(cfg.probe, cfg.probe_limit, cfg.probe_hole, cfg.probe_keyed)
        bridge = RewardBridge(reward, StepRecords(), probe=probe, hole_pattern=cfg.hole_pattern)
        heldout = load_problems(cfg.eval_suite, "test", cfg.eval_limit) if cfg.eval_every else []
        tracker: Tracker | None = None
        try:
            with store.recording(NewRun(
                kind=RunKind.TRAIN, reward=cfg.reward, suite=cfg.dataset, data_source=cfg.dataset,
                data_hash=content_hash(json.dumps(dataset.to_list(), sort_keys=True)), n_items=len(dataset),
                config=asdict(cfg), versions=package_versions(),
            )) as run_id:
                tracker = open_tracker(cfg.report_to, Path(cfg.output), run_id)
                run_log = RunLog(store, run_id, alarm_window=cfg.alarm_window, total_steps=cfg.max_steps,
                                 tracker=tracker, progress=self.progress, warn=self.warn)
                callback = type("StepCallback", (StepHooks, transformers.TrainerCallback), {})
                own = [tracker.trainer_callback()] if tracker is not None else []  # TRL's numbers, its own way
                trainer = trl.GRPOTrainer(model=policy, reward_funcs=[bridge], args=args, train_dataset=dataset,
                                          callbacks=[callback(cfg, run_log, bridge, heldout, tokenizer), *own])
                start = resume_point(Path(cfg.output), reward, self.warn)
                trainer.train(resume_from_checkpoint=str(start) if start is not None else None)
                trainer.save_model(str(Path(cfg.output) / "final"))
                run_log.complete()
        finally:
            if tracker is not None:
                tracker.close()
            bridge.rule.close()
            close_reward(reward)
        return store.get(run_id)


class StepHooks:
    """What the run does at TRL's step events, as a transformers ``TrainerCallback`` (the class is mixed with it
    when the trainer runs, so that importing this module needs no transformers): step 0 before any update, the
    learning reward's state beside each policy checkpoint, held-out accuracy every ``eval_every`` steps, and
    every logged step's numbers into the run's :class:`~trainers.recording.RunLog`, which runs the alarm."""

    def __init__(self, cfg: TRLRunConfig, run_log: RunLog, bridge: RewardBridge, heldout: list[Any],
                 tokenizer: Any) -> None:
        self.cfg = cfg
        self.run_log = run_log
        self.bridge = bridge
        self.heldout = heldout
        self.tokenizer = tokenizer

    def _heldout_accuracy(self, model: Any, processing_class: Any) -> float:
        return heldout_accuracy(model, processing_class or self.tokenizer, self.heldout, self.bridge.rule,
                                self.cfg.eval_max_tokens)

    def _record_probe(self, step: int) -> None:
        """The probe items' values behind this step's probe numbers, and the weights the reward saved."""
        bridge = self.bridge
        if bridge.probe is not None and bridge.probe_values is not None:
            self.run_log.probe(step, bridge.probe, bridge.probe_values)
            bridge.probe_values = None
        self.run_log.artifacts(bridge.reward)

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, processing_class: Any = None,
                       **kwargs: Any) -> None:
        """Step 0, before any update: the held-out accuracy and the probe a run starts from."""
        if state.global_step != 0:  # resumed: step 0 is stored already
            return
        values: dict[str, float] = {}
        if self.cfg.eval_every and model is not None:
            values["heldout_accuracy"] = self._heldout_accuracy(model, processing_class)
        if self.bridge.probe is not None:
            values.update(self.bridge.measure_probe())
        if values:
            self.run_log.log(0, values)
            self._record_probe(0)

    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None, processing_class: Any = None,
                    **kwargs: Any) -> None:
        if control.should_save:  # before the Trainer writes (and rotates) the policy checkpoint
            save_reward_state(self.bridge.reward, Path(self.cfg.output) / f"checkpoint-{state.global_step}")
        if self.cfg.eval_every and state.global_step % self.cfg.eval_every == 0 and model is not None:
            self.run_log.log(state.global_step, {"heldout_accuracy": self._heldout_accuracy(model, processing_class)})

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        if not logs or "loss" not in logs:
            return
        values = self.bridge.records.drain()
        for key, name in (("kl", "kl"), ("completions/mean_length", "response_tokens"), ("loss", "loss")):
            if key in logs:
                values[name] = float(logs[key])
        if self.run_log.step(state.global_step, values) and self.cfg.stop_on_hack:
            control.should_training_stop = True
            control.should_save = False  # keep the last checkpoint from before the alarm
        self._record_probe(state.global_step)
