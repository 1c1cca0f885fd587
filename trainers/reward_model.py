"""Training a VerifyRM: binary cross-entropy on labelled (question, reference, completion) triples.

Defaults follow Cooper's released training script: learning rate 2e-5, weight decay 0.01, 3 epochs, linear
decay, gradients clipped at 1.0. The output folder is a ``save_pretrained`` checkpoint (tokenizer included)
plus ``verifyrm.json`` (the input format), loadable as ``verifyrm:model=FOLDER``. A checkpoint with the
optimizer state is written atomically every ``save_every`` steps and at each epoch's end; a rerun with the
same output folder resumes from it. Validation metrics are stored as a run.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from harness.core.optional import require
from harness.core.store import ItemRow, Metric, NewRun, RunKind, RunRecord, RunStore, content_hash
from rewards.checkpoint import load_optimizer_states, read_state, write_checkpoint
from rewards.classifier import ClassifierConfig, SequenceClassifier
from rewards.contract import Score
from rewards.verifyrm import VerifyRMFormat, scores_from_logits
from suites.contract import LabelledItem
from suites.metrics import verifier_metrics
from trainers.grpo import option
from trainers.rm_data import QUESTION_FORMS, split_by_question, write_jsonl
from trainers.trackers import Tracker, open_tracker

CHECKPOINT = "checkpoint"
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class RMTrainConfig:
    """What ``harness train-rm`` trains with; its command-line options are generated from these fields (the input
    format's too: ``--max-chars`` and the rest)."""

    base: str = option(MISSING, "Base model: a folder, a hub id, or minilm-l6 (packaged, offline).")
    output: Path = option(MISSING, "Folder for the trained model.")
    epochs: int = option(3, "Passes over the training rows.")
    learning_rate: float = field(default=2e-5, metadata={"help": "AdamW learning rate.", "aliases": ("--lr",)})
    weight_decay: float = option(0.01, "AdamW weight decay.")
    batch_size: int = option(16, "Rows per optimizer step.")
    grad_clip: float = option(1.0, "Gradient norm clip.")
    val_fraction: float = option(0.2, "Share of questions held out for validation.")
    seed: int = option(0, "Seed of the split, the shuffling and the new head.")
    max_length: int = option(512, "Tokens per input.")
    dtype: str = option("auto", "auto, float32 or bfloat16.")
    save_every: int = option(200, "Optimizer steps between checkpoints (training resumes from the last).")
    report_to: str = option("", "Also send each epoch's training loss and validation numbers to this tracker: "
                                "tensorboard (OUTPUT/tensorboard) or wandb (offline without a key).")
    questions: str = option("given", "given: each question as the data gives it; policy: as a GRPO policy is asked "
                                     "it (the problem and the trainers' instruction), the text the model then scores.")
    format: VerifyRMFormat = field(default_factory=VerifyRMFormat)

    def __post_init__(self) -> None:
        problems = [f"{name} must be at least {low}, got {value}" for name, value, low in (
            ("epochs", self.epochs, 1), ("batch_size", self.batch_size, 1), ("max_length", self.max_length, 16),
            ("save_every", self.save_every, 1)) if value < low]
        if not 0.0 < self.val_fraction < 1.0:
            problems.append(f"val_fraction must be between 0 and 1, got {self.val_fraction}")
        if self.report_to not in ("", "tensorboard", "wandb"):
            problems.append(f"report_to must be tensorboard or wandb, got {self.report_to!r}")
        if self.questions not in QUESTION_FORMS:
            problems.append(f"questions must be {' or '.join(QUESTION_FORMS)}, got {self.questions!r}")
        if self.dtype not in ("auto", "float32", "bfloat16"):
            problems.append(f"dtype must be auto, float32 or bfloat16, got {self.dtype!r}")
        if problems:
            raise ValueError("; ".join(problems))

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> RMTrainConfig:
        """The config from command-line options (None: not given, the field's default stands), the format's
        fields included."""
        given = {k: v for k, v in options.items() if v is not None}
        format_names = {f.name for f in fields(VerifyRMFormat)}
        text_format = VerifyRMFormat(**{k: given.pop(k) for k in list(given) if k in format_names})
        return cls(**given, format=text_format)


def _summary(metrics: Sequence[Metric]) -> dict[str, float]:
    """The validation figures kept in the training history."""
    wanted = ("accuracy", "precision", "recall", "f1")
    return {f"val_{m.name}": m.value for m in metrics if m.name in wanted and m.value is not None}


def _batches(lengths: Sequence[int], batch_size: int, rng: random.Random) -> list[list[int]]:
    """Shuffled batches of similar length: shuffle, sort within windows of 50 batches, shuffle the batches."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * 50
    batches = []
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lambda i: lengths[i])
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


class VerifyRMTrainer:
    def __init__(self, config: RMTrainConfig, progress: Progress | None = None) -> None:
        self.config = config
        self.progress = progress or (lambda phase, done, total: None)
        self.output = Path(config.output)
        self.checkpoint_dir = self.output / CHECKPOINT

    # -- checkpoints --------------------------------------------------------------------------
    def inputs(self, rows: Sequence[LabelledItem]) -> list[LabelledItem]:
        """The rows as the model is trained on them: each question as ``questions`` says."""
        return QUESTION_FORMS[self.config.questions](rows)

    def _state(self) -> dict[str, Any] | None:
        return read_state(self.checkpoint_dir)

    def _save_checkpoint(self, clf: SequenceClassifier, optimizer: Any, scheduler: Any, state: dict) -> None:
        write_checkpoint(
            self.checkpoint_dir, clf, {"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, state
        )

    # -- training -----------------------------------------------------------------------------
    def train(self, rows: Sequence[LabelledItem], store: RunStore | None = None, source: str = "") -> RunRecord | None:
        cfg = self.config
        train_rows, val_rows = split_by_question(self.inputs(rows), cfg.val_fraction, cfg.seed)
        self.output.mkdir(parents=True, exist_ok=True)
        write_jsonl(val_rows, self.output / "heldout.jsonl")
        write_jsonl(train_rows, self.output / "train.jsonl")

        state = self._state()
        start_model = str(self.checkpoint_dir) if state else cfg.base
        clf = SequenceClassifier(ClassifierConfig(start_model, dtype=cfg.dtype, max_length=cfg.max_length))
        # seeded before the model loads: an encoder without a classification head gets a new one, drawn at random;
        # seeded after, the same seed gave a different model every time
        require("torch", "training a reward model").manual_seed(cfg.seed)
        clf.load()
        torch = clf.torch
        encoded = clf.encode(cfg.format.render_items([r.item for r in train_rows]))
        labels = [1.0 if r.label else 0.0 for r in train_rows]
        steps_per_epoch = -(-len(encoded) // cfg.batch_size)
        total_steps = steps_per_epoch * cfg.epochs

        optimizer = torch.optim.AdamW(clf.model.parameters(), lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1.0 - s / max(1, total_steps)))
        if state:
            saved = load_optimizer_states(self.checkpoint_dir, torch)
            optimizer.load_state_dict(saved["optimizer"])
            scheduler.load_state_dict(saved["scheduler"])
        step = state["step"] if state else 0
        history: list[dict[str, float]] = list(state["history"]) if state else []
        began = time.perf_counter()

        tracker = open_tracker(cfg.report_to, self.output, self.output.name)
        try:
            validation = self._epochs(clf, encoded, labels, val_rows, optimizer, scheduler, step, history, tracker)
        finally:
            if tracker is not None:
                tracker.close()
        return self._finish(clf, val_rows, validation, history, store, source, time.perf_counter() - began)

    def _epochs(self, clf: SequenceClassifier, encoded: list[Any], labels: list[float],
                val_rows: Sequence[LabelledItem], optimizer: Any, scheduler: Any, step: int,
                history: list[dict[str, float]], tracker: Tracker | None) -> tuple[list[Metric], list[Score]] | None:
        """The epochs not done yet; each ends with a validation, a checkpoint and the tracker's numbers."""
        cfg = self.config
        torch = clf.torch
        loss_fn = torch.nn.BCEWithLogitsLoss()
        steps_per_epoch = -(-len(encoded) // cfg.batch_size)
        validation: tuple[list[Metric], list[Score]] | None = None  # of the model as it ends training
        for epoch in range(step // steps_per_epoch, cfg.epochs):
            batches = _batches([len(e) for e in encoded], cfg.batch_size, random.Random(cfg.seed * 1000 + epoch))
            clf.model.train()
            running = 0.0
            for b, batch in enumerate(batches):
                if epoch * steps_per_epoch + b < step:
                    continue  # done before the resume
                logits = clf.forward([encoded[i] for i in batch])
                target = torch.tensor([labels[i] for i in batch], device=logits.device)
                loss = loss_fn(logits, target)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(clf.model.parameters(), cfg.grad_clip)
                optimizer.step()
                scheduler.step()
                step += 1
                running += loss.item()
                self.progress(f"epoch {epoch + 1}/{cfg.epochs}", b + 1, len(batches))
                if cfg.save_every and step % cfg.save_every == 0:
                    self._save_checkpoint(clf, optimizer, scheduler, {"step": step, "history": history})
            clf.model.eval()
            validation = self._validate(clf, val_rows)
            history.append({"epoch": epoch + 1, "train_loss": running / max(1, len(batches)), **_summary(validation[0])})
            self._save_checkpoint(clf, optimizer, scheduler, {"step": step, "history": history})
            if tracker is not None:
                tracker.log(epoch + 1, {k: v for k, v in history[-1].items() if k != "epoch" and v is not None})
        return validation

    def _finish(self, clf: SequenceClassifier, val_rows: Sequence[LabelledItem],
                validation: tuple[list[Metric], list[Score]] | None, history: list[dict[str, float]],
                store: RunStore | None, source: str, wall: float) -> RunRecord | None:
        """The trained model saved, and the run stored (validated now if every epoch was done before a resume)."""
        cfg = self.config
        clf.model.eval()
        clf.model.save_pretrained(self.output)
        clf.tokenizer.save_pretrained(self.output)
        cfg.format.save(self.output)
        (self.output / "training.json").write_text(
            json.dumps({"config": {**asdict(cfg), "output": str(cfg.output)}, "history": history}, indent=2, default=str)
        )
        if store is None:
            return None
        if validation is None:  # every epoch was done before this resume
            validation = self._validate(clf, val_rows)
        return self._store_run(store, val_rows, validation, history, source, wall)

    def _validate(self, clf: SequenceClassifier, rows: Sequence[LabelledItem]) -> tuple[list[Metric], list[Score]]:
        scores = scores_from_logits(clf.logits(self.config.format.render_items([r.item for r in rows])), 0.5)
        return verifier_metrics([r.label for r in rows], scores, [r.category for r in rows]), scores

    def _store_run(
        self, store: RunStore, val_rows: Sequence[LabelledItem], validation: tuple[list[Metric], list[Score]],
        history: list, source: str, wall: float,
    ) -> RunRecord:
        from harness.core.versions import package_versions

        metrics, scores = validation
        with store.recording(
            NewRun(
                kind=RunKind.RM_TRAIN,
                reward=f"verifyrm:model={self.output}",
                suite=f"heldout:{source}",
                data_source=str(self.output / "heldout.jsonl"),
                data_hash=content_hash((self.output / "heldout.jsonl").read_bytes()),
                n_items=len(val_rows),
                config={**asdict(self.config), "output": str(self.config.output), "history": history},
                versions=package_versions(),
            )
        ) as run_id:
            items = [
                ItemRow(i, None, r.category, r.label, s.value, s.verdict, s.reason, None, None)
                for i, (r, s) in enumerate(zip(val_rows, scores))
            ]
            rows = [Metric(m.name, m.value, m.higher_is_better, m.n, m.group) for m in metrics]
            rows.append(Metric("train_loss", history[-1]["train_loss"], False, len(val_rows), "training"))
            store.complete(run_id, items, rows, wall)
        return store.get(run_id)
