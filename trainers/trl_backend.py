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
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness.core.optional import require
from harness.core.precision import choose_precision
from harness.core.store import NewRun, ProbeScore, RunKind, RunRecord, RunStore, content_hash
from rewards.contract import KeepsArtifacts, close_reward
from suites.math_data import load_problems
from trainers.grpo import GRPORunConfig, RewardBridge, StepRecords, option
from trainers.hacking import HackingAlarm
from trainers.probe import Probe
from trainers.resume import resume_point, save_reward_state
from trainers.trackers import Tracker, open_tracker
from trainers.step_metrics import final_metrics

Progress = Callable[[int, int, dict[str, float]], None]


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

    def run(self, store: RunStore) -> RunRecord:
        trl = require("trl", "the trl trainer")
        transformers = require("transformers", "the trl trainer")
        torch = require("torch", "the trl trainer")
        from harness.core.generation.hf import TransformersGenerator, resolve_causal_lm
        from harness.core.readiness import ensure_ready
        from harness.core.versions import package_versions
        from rewards import build_reward

        cfg = self.config
        ensure_ready([TransformersGenerator(cfg.policy)], f"the policy {cfg.policy!r}")
        policy = resolve_causal_lm(cfg.policy)
        tokenizer = transformers.AutoTokenizer.from_pretrained(policy)
        dataset = self._dataset(tokenizer)
        reward = build_reward(cfg.reward)
        try:
            ensure_ready([reward], f"training with {cfg.reward}")  # before a run exists: nothing half-recorded
        except BaseException:
            close_reward(reward)
            raise
        records = StepRecords()
        probe = Probe.from_spec(cfg.probe, cfg.probe_limit, cfg.probe_hole, cfg.probe_keyed)
        bridge = RewardBridge(reward, records, probe=probe, hole_pattern=cfg.hole_pattern)
        alarm = HackingAlarm(window=cfg.alarm_window)
        output = Path(cfg.output)
        heldout = load_problems(cfg.eval_suite, "test", cfg.eval_limit) if cfg.eval_every else []
        cuda = torch.cuda.is_available()
        precision = choose_precision(cfg.dtype, "cuda" if cuda else "cpu", torch)
        # built before the run is recorded: a bad option fails with nothing left behind in the store
        args = trl.GRPOConfig(
            output_dir=str(output), max_steps=cfg.max_steps, num_generations=cfg.num_generations,
            per_device_train_batch_size=cfg.num_generations * cfg.prompts_per_step,
            max_completion_length=cfg.max_completion_length, learning_rate=cfg.learning_rate,
            warmup_steps=cfg.warmup_steps, beta=cfg.beta, temperature=cfg.temperature, seed=cfg.seed,
            save_strategy="steps", save_steps=cfg.save_steps, save_total_limit=cfg.keep_checkpoints,
            logging_steps=1, report_to="none",
            use_cpu=not cuda, bf16=precision.bf16, disable_tqdm=True,
        )
        outer = self
        began = time.perf_counter()
        tracker: Tracker | None = None
        try:
            with store.recording(NewRun(
                kind=RunKind.TRAIN, reward=cfg.reward, suite=cfg.dataset, data_source=cfg.dataset,
                data_hash=content_hash(json.dumps(dataset.to_list(), sort_keys=True)), n_items=len(dataset),
                config=asdict(cfg),
                versions=package_versions(),
            )) as run_id:

                tracker = open_tracker(cfg.report_to, output, run_id)

                def log_step(step: int, values: dict[str, float]) -> None:
                    """A step's numbers into the store and, with --report-to, the tracker."""
                    store.log_step(run_id, step, values)
                    if tracker is not None:
                        tracker.log(step, values)

                def record_probe(step: int) -> None:
                    """The probe items' values behind this step's probe numbers, and weights the reward saved."""
                    if probe is not None and bridge.probe_values is not None:
                        store.log_probe(run_id, step, [ProbeScore(i, r.category, r.label, v) for i, (r, v)
                                                       in enumerate(zip(probe.rows, bridge.probe_values))])
                        bridge.probe_values = None
                    if isinstance(reward, KeepsArtifacts):
                        for artifact in reward.artifacts():
                            store.log_artifact(run_id, artifact)

                class Recorder(transformers.TrainerCallback):
                    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None,
                                       processing_class: Any = None, **kwargs: Any) -> None:
                        """Step 0, before any update: the held-out accuracy and the probe a run starts from."""
                        if state.global_step != 0:  # resumed: step 0 is stored already
                            return
                        values: dict[str, float] = {}
                        if cfg.eval_every and model is not None:
                            values["heldout_accuracy"] = heldout_accuracy(
                                model, processing_class or tokenizer, heldout, bridge.rule, cfg.eval_max_tokens)
                        if probe is not None:
                            values.update(bridge.measure_probe())
                        if values:
                            log_step(0, values)
                            record_probe(0)

                    def on_step_end(self, args: Any, state: Any, control: Any, model: Any = None,
                                    processing_class: Any = None, **kwargs: Any) -> None:
                        if control.should_save:  # before the Trainer writes (and rotates) the policy checkpoint
                            save_reward_state(reward, output / f"checkpoint-{state.global_step}")
                        if cfg.eval_every and state.global_step % cfg.eval_every == 0 and model is not None:
                            tok = processing_class or tokenizer
                            accuracy = heldout_accuracy(model, tok, heldout, bridge.rule, cfg.eval_max_tokens)
                            log_step(state.global_step, {"heldout_accuracy": accuracy})

                    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
                        if not logs or "loss" not in logs:
                            return
                        values = records.drain()
                        for key, name in (("kl", "kl"), ("completions/mean_length", "response_tokens"), ("loss", "loss")):
                            if key in logs:
                                values[name] = float(logs[key])
                        if "train_reward" in values and "rule_accuracy" in values:
                            if alarm.observe(state.global_step, values["train_reward"], values["rule_accuracy"]):
                                values["hacking_alarm"] = 1.0
                                outer.warn(
                                    f"reward-hacking alarm at step {state.global_step}: the training reward rose "
                                    f"while the rule accuracy of the same rollouts fell over the last {alarm.window} steps"
                                )
                                if cfg.stop_on_hack:
                                    control.should_training_stop = True
                                    control.should_save = False  # keep the last checkpoint from before the alarm
                        log_step(state.global_step, values)
                        record_probe(state.global_step)
                        outer.progress(state.global_step, cfg.max_steps, values)

                own = [tracker.trainer_callback()] if tracker is not None else []  # TRL's numbers, its own way
                trainer = trl.GRPOTrainer(model=policy, reward_funcs=[bridge], args=args, train_dataset=dataset,
                                          callbacks=[Recorder(), *own])
                start = resume_point(output, reward, outer.warn)
                trainer.train(resume_from_checkpoint=str(start) if start is not None else None)
                trainer.save_model(str(output / "final"))
                store.complete(run_id, [], final_metrics(store.steps(run_id)), time.perf_counter() - began)
        finally:
            if tracker is not None:
                tracker.close()
            bridge.rule.close()
            close_reward(reward)
        return store.get(run_id)
