"""Supervised fine-tuning with TRL's ``SFTTrainer``: the warm-up that puts a policy in the regime RL works in.

GRPO learns only from groups that hold both right and wrong rollouts; a policy that is almost never right (or
always) gives it nothing. A short supervised warm-up on worked solutions in the task's answer format brings a
small policy to a useful share of right samples. The data is a jsonl of ``question`` and ``solution`` (and
optionally ``answer``); each becomes a conversation whose prompt is exactly the one GRPO and the held-out checks
use (:meth:`suites.math_data.Problem.messages`) and whose completion is the solution, with the loss on the
completion only. The run is stored (kind ``sft``) with the loss of every logging step; the model is saved to
``OUTPUT/final``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.core.optional import require
from harness.core.precision import choose_precision
from harness.core.store import Metric, NewRun, RunKind, RunRecord, RunStore, content_hash
from suites.loading import DataError, resolve_data_path
from suites.math_data import Problem
from trainers.grpo import option

Progress = Callable[[int, int, dict[str, float]], None]


@dataclass(frozen=True)
class SFTRunConfig:
    """The warm-up's options; ``harness sft`` generates its command-line options from these fields."""

    data: str = field(metadata={"help": "jsonl of question and solution (the worked answer to imitate)."})
    output: str = field(metadata={"help": "Output folder; the model goes to OUTPUT/final."})
    policy: str = option("smollm2-135m", "A folder, a hub id, or smollm2-135m.")
    epochs: float = option(1.0, "Passes over the data.")
    max_steps: int = option(-1, "Optimizer steps; overrides epochs when positive.")
    learning_rate: float = option(5e-5, "Learning rate.")
    batch_size: int = option(8, "Examples per optimizer step.")
    max_length: int = option(256, "Tokens per example (prompt and solution).")
    warmup_steps: float = option(0, "Warm-up steps, or a fraction of all steps when below 1.")
    seed: int = option(0, "Seed of the data order and initialisation.")
    dtype: str = option("auto", "auto picks bfloat16 where this machine runs it faster than float32.")

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.max_length < 8:
            raise ValueError("batch_size must be at least 1 and max_length at least 8")


def sft_rows(path: str) -> list[dict[str, Any]]:
    """Prompt-completion conversations from a jsonl of question/solution records."""
    resolved = resolve_data_path(path)
    rows = []
    for lineno, line in enumerate(resolved.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one object") from None
        if "question" not in record or "solution" not in record:
            raise DataError(f"{path}:{lineno}: needs question and solution fields (has {', '.join(sorted(record))})")
        rows.append({
            "prompt": Problem(str(record["question"]), str(record.get("answer", ""))).messages(),
            "completion": [{"role": "assistant", "content": str(record["solution"])}],
        })
    if not rows:
        raise DataError(f"{path}: no records")
    return rows


class SFTRun:
    """One supervised fine-tuning run, stored."""

    def __init__(self, config: SFTRunConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.progress = progress or (lambda step, total, values: None)

    def run(self, store: RunStore) -> RunRecord:
        trl = require("trl", "supervised fine-tuning")
        transformers = require("transformers", "supervised fine-tuning")
        torch = require("torch", "supervised fine-tuning")
        datasets = require("datasets", "supervised fine-tuning")
        from harness.core.generation.hf import resolve_causal_lm
        from harness.core.versions import package_versions

        cfg = self.config
        rows = sft_rows(cfg.data)
        policy = resolve_causal_lm(cfg.policy)
        cuda = torch.cuda.is_available()
        precision = choose_precision(cfg.dtype, "cuda" if cuda else "cpu", torch)
        # built before the run is recorded: a bad option fails with nothing left behind in the store
        args = trl.SFTConfig(
            output_dir=str(Path(cfg.output)), num_train_epochs=cfg.epochs, max_steps=cfg.max_steps,
            per_device_train_batch_size=cfg.batch_size, learning_rate=cfg.learning_rate, warmup_steps=cfg.warmup_steps,
            max_length=cfg.max_length, seed=cfg.seed, logging_steps=1, save_strategy="no", report_to="none",
            use_cpu=not cuda, bf16=precision.bf16, disable_tqdm=True,
        )
        outer = self
        began = time.perf_counter()
        with store.recording(NewRun(
            kind=RunKind.SFT, reward="", suite=cfg.data, data_source=str(resolve_data_path(cfg.data)),
            data_hash=content_hash(resolve_data_path(cfg.data).read_bytes()),
            n_items=len(rows), config=asdict(cfg), versions=package_versions(),
        )) as run_id:

            class Recorder(transformers.TrainerCallback):
                def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
                    if logs and "loss" in logs:
                        values = {"loss": float(logs["loss"])}
                        store.log_step(run_id, state.global_step, values)
                        outer.progress(state.global_step, state.max_steps, values)

            trainer = trl.SFTTrainer(model=policy, args=args, train_dataset=datasets.Dataset.from_list(rows),
                                     callbacks=[Recorder()])
            trainer.train()
            trainer.save_model(str(Path(cfg.output) / "final"))
            steps = store.steps(run_id)
            losses = [v["loss"] for _, v in sorted(steps.items()) if v.get("loss") is not None]
            metrics = [
                Metric("first_loss", losses[0] if losses else None, False, len(steps), "training"),
                Metric("final_loss", losses[-1] if losses else None, False, len(steps), "training"),
                Metric("steps", float(len(steps)), None, len(steps), "training"),
            ]
            store.complete(run_id, [], metrics, time.perf_counter() - began)
        return store.get(run_id)
