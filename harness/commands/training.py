"""Training: reward models, GRPO with any reward, and the supervised warm-up."""

from __future__ import annotations

from typing import Any

import click

from harness.commands.common import (
    emit,
    friendly,
    options_from_fields,
    progress,
    run_store,
    store_option,
)
from harness.core.optional import require_all
from harness.report import (
    Table,
    category_table,
    metrics_table,
    run_summary,
)


def _rm_fields() -> list[tuple[str, list[Any]]]:
    """``train-rm``'s options: the reward-model trainer's config fields, the input format's in place of ``format``."""
    from dataclasses import fields

    from rewards.verifyrm import VerifyRMFormat
    from trainers.reward_model import RMTrainConfig

    return [("train-rm", [f for f in fields(RMTrainConfig) if f.name != "format"] + list(fields(VerifyRMFormat)))]


@click.command("train-rm")
@click.option("--data", "files", multiple=True, help="jsonl/parquet with question, reference_answer, completion, label.")
@click.option("--suite", "suites", multiple=True, help="A verifier suite to train on (its default data); repeatable.")
@click.option("--limit", type=click.IntRange(min=2), default=None, help="Train on a random sample of N rows.")
@options_from_fields(_rm_fields())
@store_option
@click.pass_context
@friendly
def train_rm_command(ctx: click.Context, files: tuple[str, ...], suites: tuple[str, ...], limit: int | None,
                     **options: Any) -> None:
    """Train a VerifyRM (binary cross-entropy); resumes from OUTPUT/checkpoint when present. The options after
    --limit are the trainer's config fields."""
    require_all(("torch", "transformers"), "harness train-rm")  # before any import that needs them
    from transformers.utils import logging as hf_logging

    from trainers.reward_model import RMTrainConfig, VerifyRMTrainer
    from trainers.rm_data import load_training_rows

    missing = [f"--{name.replace('_', '-')}" for name in ("base", "output") if options.get(name) is None]
    if missing:
        raise click.UsageError(f"train-rm needs {' and '.join(missing)}")
    try:
        config = RMTrainConfig.from_options(options)
    except (TypeError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    hf_logging.disable_progress_bar()  # our own progress bar covers training; theirs would interleave
    rows = load_training_rows(files, suites, limit, config.seed)
    with progress("train-rm", "steps") as update:
        trainer = VerifyRMTrainer(config, progress=lambda phase, done, total: update(done, total, f"train-rm: {phase}"))
        run = trainer.train(rows, run_store(ctx), source="+".join([*files, *suites]))
    click.echo(f"model saved to {config.output}; validation run {run.id}", err=True)
    emit([category_table([run], "Held-out accuracy by source (%)"), metrics_table(run)], "table")


def _trainer_fields() -> list[tuple[str, list[Any]]]:
    """Each registered trainer's config fields, for the generated ``train`` options."""
    from dataclasses import fields

    from trainers import TRAINERS

    return [(name, list(fields(TRAINERS.get(name).config_class))) for name in TRAINERS.names()]


@click.command("train")
@click.option("--config", "config_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="YAML file with the same keys; the command line overrides it.")
@options_from_fields(_trainer_fields())
@click.option("--dry-run", is_flag=True, help="openrlhf: write the prompt data and print the checked command.")
@store_option
@click.pass_context
@friendly
def train_command(ctx: click.Context, config_file: str | None, dry_run: bool, **options: object) -> None:
    """GRPO with any registered reward; every step's metrics go to the run store. The options are those of the
    trainers' configs (a trainer refuses one it does not take)."""
    from trainers import TRAINERS
    from trainers.grpo import load_config_file

    file_values = load_config_file(config_file)
    name = options.get("trainer") or file_values.get("trainer") or "trl"
    backend = TRAINERS.get(str(name))
    try:
        config = backend.config_class.merged(file_values, {**options, "trainer": name})
    except (TypeError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None

    from harness.core.progress import ProgressLog

    lines = ProgressLog(f"train ({config.trainer}, {config.reward})", "steps")

    def show(step: int, total: int, values: dict) -> None:
        keys = ("train_reward", "rule_accuracy", "agreement", "kl")
        click.echo(f"step {step}/{total} " + " ".join(f"{k}={values[k]:.3f}" for k in keys if k in values), err=True)
        lines.update(step, total)

    from trainers.contract import DryRunnable, train

    chosen = backend(config, progress=show, warn=lambda msg: click.secho(f"WARNING: {msg}", fg="yellow", err=True))
    if dry_run:
        if not isinstance(chosen, DryRunnable):
            raise click.UsageError(f"trainer {config.trainer!r} has no dry run; drop --dry-run")
        click.echo(chosen.dry_run())
        return
    run = train(chosen, run_store(ctx))
    emit([Table("Run", ["field", "value"], [list(p) for p in run_summary(run)]), metrics_table(run)], "table")


def _sft_fields() -> list[tuple[str, list[Any]]]:
    from dataclasses import fields

    from trainers.sft import SFTRunConfig

    return [("sft", list(fields(SFTRunConfig)))]


@click.command("sft")
@options_from_fields(_sft_fields())
@store_option
@click.pass_context
@friendly
def sft_command(ctx: click.Context, **options: Any) -> None:
    """Supervised warm-up of a policy with TRL's SFTTrainer (prompts as GRPO sees them); the run is stored."""
    from harness.core.progress import ProgressLog
    from trainers.sft import SFTRun, SFTRunConfig

    lines = ProgressLog("sft", "steps")

    def show(step: int, total: int, values: dict) -> None:
        click.echo(f"step {step}/{total} loss={values['loss']:.4f}", err=True)
        lines.update(step, total)

    missing = [f"--{k.replace('_', '-')}" for k in ("data", "output") if not options.get(k)]
    if missing:
        raise click.UsageError(f"sft needs {' and '.join(missing)}")
    try:
        config = SFTRunConfig(**{k: v for k, v in options.items() if v is not None})
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    run = SFTRun(config, progress=show).run(run_store(ctx))
    emit([Table("Run", ["field", "value"], [list(p) for p in run_summary(run)]), metrics_table(run)], "table")
