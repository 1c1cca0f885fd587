"""The ``harness`` command. Each command parses options and calls one library function; no logic lives here."""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from harness import __version__
from harness.core.optional import MissingDependencyError
from harness.core.plugins import ENV as _PLUGINS_ENV
from harness.core.plugins import PluginError, load_plugins, plugins_from_env
from harness.core.registry import RegistryError
from harness.core.spec import SpecError
from harness.core.store import RunStore, StoreError
from harness.plots import NothingToPlot
from harness.published import PublishedDataError, load_published
from harness.report import (
    FORMATS,
    Table,
    category_table,
    compare_table,
    metrics_table,
    render_text,
    run_summary,
    runs_table,
    to_rich,
)
from harness.tables import PUBLISHED_MODES, RUN_KINDS, RUN_SUITES, TABLES, paper_table, render_latex
from suites.loading import DataError

_USER_ERRORS = (SpecError, RegistryError, DataError, StoreError, MissingDependencyError, PublishedDataError, NothingToPlot,
                PluginError)


def _friendly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the library's user-facing errors into one clean message and exit code 1, without a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except _USER_ERRORS as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _console(stderr: bool = False):
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:  # rich exits with status 1 here; the command group ends with 0
            raise BrokenPipeError

    return _Console(stderr=stderr, soft_wrap=False)


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at the time of the record (test runners swap it)."""

    @property
    def stream(self):  # type: ignore[override]
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def _configure_logging() -> None:
    """The ``harness`` logger to stderr: progress lines and choices at INFO when stderr is not a terminal (a job's
    log), warnings only when it is (a bar shows progress there)."""
    logger = logging.getLogger("harness")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(logging.WARNING if sys.stderr.isatty() else logging.INFO)


@contextmanager
def _progress(label: str, unit: str = "items") -> Iterator[Callable[..., None]]:
    """``update(done, total=None, phase=None)``: a bar on a terminal, and progress lines in the log at a steady
    interval (:class:`harness.core.progress.ProgressLog`), which show when stderr is not a terminal."""
    from harness.core.progress import ProgressLog

    lines = ProgressLog(label, unit)
    if not sys.stderr.isatty():
        yield lambda done, total=None, phase=None: lines.update(done, total, phase)
        return
    with _progress_bar() as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int | None = None, phase: str | None = None) -> None:
            bar.update(task, completed=done, total=total, description=phase or label)
            lines.update(done, total, phase)

        yield update


def _progress_bar(label: str = "{task.description}"):
    """A transient progress bar on stderr, so tables and JSON on stdout stay clean."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=_console(stderr=True), transient=True)


def _emit(tables: list[Table], fmt: str) -> None:
    if fmt == "table":
        from rich.text import Text

        console = _console()
        for table in tables:
            shown = to_rich(table, console.width)
            console.print(shown, soft_wrap=isinstance(shown, Text))
    elif fmt == "json":  # one parseable document, whatever the number of tables
        click.echo(json.dumps([json.loads(render_text(table, fmt)) for table in tables], indent=2))
    else:
        click.echo("\n\n".join(render_text(table, fmt).rstrip("\n") for table in tables))


class _Commands(click.Group):
    """The command group; a reader that stops reading (``harness runs | head``) ends the command quietly, with
    status 0, as other Unix tools do, instead of click's status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _silence_stdout()
            ctx.exit(0)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not raise a second time on the closed pipe."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test runner's buffer)
        pass
    finally:
        os.close(devnull)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
@click.option(
    "--store",
    "store_path",
    envvar="HARNESS_STORE",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite run store (default: runs.sqlite in the user data directory; env HARNESS_STORE).",
)
@click.option("--plugin", "plugins", multiple=True, metavar="FILE_OR_MODULE",
              help=f"Import your own code first (a .py file or a module), so that rewards and suites it registers by "
                   f"decorator can be named; repeatable (env {_PLUGINS_ENV}, separated like PATH).")
@click.pass_context
def main(ctx: click.Context, store_path: str | None, plugins: tuple[str, ...]) -> None:
    """Evaluate and serve rewards for RL of LLMs on reasoning."""
    _configure_logging()
    ctx.obj = {"store_path": store_path}
    try:
        load_plugins([*plugins_from_env(), *plugins])
    except PluginError as exc:
        raise click.ClickException(str(exc)) from None


def _plugin_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--plugin`` on a subcommand too (``harness eval --plugin F`` as well as ``harness --plugin F eval``): the
    code is imported as the option is read, before the command's body names any reward or suite."""

    def load(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
        try:
            load_plugins(value)
        except PluginError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None

    return click.option("--plugin", multiple=True, metavar="FILE_OR_MODULE", expose_value=False, callback=load,
                        help="Import your own code first (as the group option --plugin).")(command)


def _store_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--store`` (and ``--plugin``) on a subcommand too (``harness eval --store X`` as well as
    ``harness --store X eval``)."""

    def remember(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.ensure_object(dict)["store_path"] = value

    command = _plugin_option(command)
    return click.option("--store", type=click.Path(dir_okay=False), default=None, expose_value=False,
                        callback=remember, help="SQLite run store (as the group option --store).")(command)


def _store(ctx: click.Context) -> RunStore:
    return RunStore(ctx.obj["store_path"])


@main.command("ls")
@click.argument("kind", type=click.Choice(["rewards", "suites", "trainers", "generators", "all"]), default="all")
@_plugin_option
def ls_command(kind: str) -> None:
    """List registered rewards, suites, trainers and generation backends (plugins included) without importing them."""
    from harness.catalog import catalog

    for title, entries in catalog(kind):
        rows = [[e.name, e.summary, e.origin] for e in entries] or [["(none registered)", "", ""]]
        _emit([Table(title, ["name", "summary", "origin"], rows)], "table")


@main.command("validate")
@click.option("--reward", "reward_spec", help="Reward spec to check, e.g. rule or rule:timeout=5.")
@click.option("--suite", "suite_spec", help="Suite spec to check; its data is loaded and counted.")
@click.option("--data", default=None, help="Local data file or folder for the suite.")
@_friendly
@_plugin_option
def validate_command(reward_spec: str | None, suite_spec: str | None, data: str | None) -> None:
    """Check specs and data without scoring anything."""
    from harness.catalog import validate

    if not reward_spec and not suite_spec:
        raise click.UsageError("give --reward and/or --suite to validate")
    for line in validate(reward_spec, suite_spec, data):
        click.echo(line)


@main.command("eval")
@click.option("--reward", "reward_spec", required=True, help="Reward spec: rule, or NAME:key=value,...")
@click.option("--suite", "suite_spec", required=True, help="Suite spec: sample, verifybench-hard, jsonl:...")
@click.option("--data", default=None, help="Local jsonl file or folder instead of the suite's default source.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Score only the first N items.")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def eval_command(
    ctx: click.Context, reward_spec: str, suite_spec: str, data: str | None, limit: int | None, batch_size: int, fmt: str
) -> None:
    """Score a reward on a suite, store the run, and print its metrics."""
    from harness.evaluate import EvalRequest, evaluate_reward

    request = EvalRequest(reward_spec, suite_spec, data, limit, batch_size)
    with _progress("eval: scoring") as update:
        run = evaluate_reward(request, _store(ctx), progress=update)
    if fmt == "table":
        click.echo("  ".join(f"{k}: {v}" for k, v in run_summary(run)[:6]), err=True)
    _emit([category_table([run]), metrics_table(run)], fmt)


@main.command("probe-hacking")
@click.option("--reward", "reward_spec", required=True, help="Reward spec, e.g. verifyrm:model=runs/verifyrm-minilm.")
@click.option("--limit", type=click.IntRange(min=1), default=60, show_default=True,
              help="Real correct completions to mutate (from MathCheck-GSM).")
@click.option("--threshold", type=float, default=0.5, show_default=True, help="A score at or above it is paid.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def probe_hacking_command(ctx: click.Context, reward_spec: str, limit: int, threshold: float, fmt: str) -> None:
    """Before any training: how much a reward pays for wrong outputs, per family, and which families it can be
    exploited by (the robustness suite's must-reject families and mutated real answers)."""
    from harness.hacking_probe import hacking_table, probe_hacking

    with _progress("probe-hacking: scoring") as update:
        runs, rows = probe_hacking(reward_spec, _store(ctx), limit=limit, threshold=threshold, progress=update)
    click.echo("runs: " + ", ".join(r.id for r in runs), err=True)
    _emit([hacking_table(reward_spec, rows, threshold)], fmt)


@main.command("runs")
@click.option("--suite", default=None, help="Only runs of this suite spec.")
@click.option("--reward", default=None, help="Only runs of this reward spec.")
@click.option("--status", default=None, type=click.Choice(["running", "complete", "failed", "interrupted"]))
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def runs_command(ctx: click.Context, suite: str | None, reward: str | None, status: str | None, limit: int, fmt: str) -> None:
    """List stored runs, newest first.

    The default store is one file for all of this user's harness processes, so runs made anywhere can be compared;
    ``latest`` means the newest run in it, whichever process made it. Give a project its own store with --store or
    HARNESS_STORE."""
    store = _store(ctx)
    click.echo(f"store: {store.path} (shared by every harness process that does not set --store or HARNESS_STORE; "
               "'latest' is the newest run in it)", err=True)
    _emit([runs_table(store.runs(suite=suite, reward=reward, status=status, limit=limit))], fmt)


@main.command("show")
@click.argument("run_ref")
@click.option("--items", "show_items", is_flag=True, help="Also list every item's score and reason.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def show_command(ctx: click.Context, run_ref: str, show_items: bool, fmt: str) -> None:
    """Show one run (an id, a unique id prefix, or 'latest')."""
    store = _store(ctx)
    run = store.get(run_ref)
    tables = [Table("Run", ["field", "value"], [list(p) for p in run_summary(run)])]
    if run.metrics:
        tables += [category_table([run]), metrics_table(run)]
    if show_items:
        rows = [
            [i.idx, i.uid, i.category, i.label, i.value, i.verdict, i.reason, (i.answer or "")[:60], i.latency_s]
            for i in store.items(run.id)
        ]
        headers = ["idx", "uid", "category", "label", "score", "verdict", "reason", "answer", "latency_s"]
        tables.append(Table("Items", headers, rows))
    _emit(tables, fmt)


@main.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def compare_command(ctx: click.Context, run_a: str, run_b: str, fmt: str) -> None:
    """Compare the metrics of two runs."""
    store = _store(ctx)
    a, b = store.get(run_a), store.get(run_b)
    compared = compare_table(a, b)
    for warning in compared.notes:  # the table's notes say why the runs may not compare: on stderr too
        click.secho(f"WARNING: {warning}", fg="yellow", err=True)
    _emit([category_table([a, b]), compared], fmt)


@main.command("train-rm")
@click.option("--base", required=True, help="Base model: a folder, a hub id, or minilm-l6 (packaged, offline).")
@click.option("--output", required=True, type=click.Path(file_okay=False), help="Folder for the trained model.")
@click.option("--data", "files", multiple=True, help="jsonl/parquet with question, reference_answer, completion, label.")
@click.option("--suite", "suites", multiple=True, help="A verifier suite to train on (its default data); repeatable.")
@click.option("--limit", type=click.IntRange(min=2), default=None, help="Train on a random sample of N rows.")
@click.option("--epochs", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--lr", "learning_rate", type=float, default=2e-5, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=16, show_default=True)
@click.option("--val-fraction", type=float, default=0.2, show_default=True, help="Share of questions held out.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-length", type=click.IntRange(min=16), default=512, show_default=True, help="Tokens per input.")
@click.option("--max-chars", type=int, default=1500, show_default=True, help="Longer references/completions are cut...")
@click.option("--head-chars", type=int, default=500, show_default=True, help="...to their first head-chars...")
@click.option("--tail-chars", type=int, default=1000, show_default=True, help="...and last tail-chars characters.")
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16"]), default="auto", show_default=True)
@_store_option
@click.pass_context
@_friendly
def train_rm_command(ctx: click.Context, base: str, output: str, files: tuple[str, ...], suites: tuple[str, ...],
                     limit: int | None, epochs: int, learning_rate: float, batch_size: int, val_fraction: float,
                     seed: int, max_length: int, max_chars: int, head_chars: int, tail_chars: int, dtype: str) -> None:
    """Train a VerifyRM (binary cross-entropy); resumes from OUTPUT/checkpoint when present."""
    from pathlib import Path

    from transformers.utils import logging as hf_logging

    from rewards.verifyrm import VerifyRMFormat
    from trainers.reward_model import RMTrainConfig, VerifyRMTrainer
    from trainers.rm_data import load_training_rows

    hf_logging.disable_progress_bar()  # our own progress bar covers training; theirs would interleave
    rows = load_training_rows(files, suites, limit, seed)
    config = RMTrainConfig(
        base=base, output=Path(output), epochs=epochs, learning_rate=learning_rate, batch_size=batch_size,
        val_fraction=val_fraction, seed=seed, max_length=max_length, dtype=dtype,
        format=VerifyRMFormat(max_chars, head_chars, tail_chars),
    )
    with _progress("train-rm", "steps") as update:
        trainer = VerifyRMTrainer(config, progress=lambda phase, done, total: update(done, total, f"train-rm: {phase}"))
        run = trainer.train(rows, _store(ctx), source="+".join([*files, *suites]))
    click.echo(f"model saved to {output}; validation run {run.id}", err=True)
    _emit([category_table([run], "Held-out accuracy by source (%)"), metrics_table(run)], "table")


@main.command("label")
@click.option("--judge", "judge_spec", required=True, help="Judge reward spec, e.g. judge:model=smollm2-135m.")
@click.option("--rule", "rule_spec", default="rule", show_default=True, help="Rule reward spec.")
@click.option("--input", "input_file", default=None, help="jsonl/parquet with question, reference_answer, completion.")
@click.option("--suite", "suite_spec", default=None, help="Or a verifier suite; its labels only grade the report.")
@click.option("--data", default=None, help="Local data for --suite.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Label only the first N triples.")
@click.option("--output", required=True, type=click.Path(dir_okay=False), help="Labelled jsonl to write.")
@_friendly
@_plugin_option
def label_command(judge_spec: str, rule_spec: str, input_file: str | None, suite_spec: str | None, data: str | None,
                  limit: int | None, output: str) -> None:
    """Hybrid labelling: keep the triples where the rule reward and the judge agree."""
    from pathlib import Path

    from harness.labelling import hybrid_label, load_triples, write_labelled
    from rewards import build_reward
    from rewards.contract import close_reward

    triples = load_triples(input_file, suite_spec, data, limit)
    rule, judge = build_reward(rule_spec), build_reward(judge_spec)
    try:
        with _progress("label: rule and judge") as update:
            kept, report = hybrid_label(triples, rule, judge, progress=update)
    finally:
        for reward in (rule, judge):
            close_reward(reward)
    report_path = write_labelled(kept, report, Path(output))
    rows = [[k, v] for k, v in {**report.__dict__, "agreement": report.agreement}.items()]
    _emit([Table(f"Hybrid labelling -> {output} (report: {report_path})", ["", "value"], rows)], "table")


@main.command("serve")
@click.option("--reward", "reward_spec", required=True, help="Reward spec to serve, e.g. rule or cooper:model=...")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind (loopback unless told).")
@click.option("--port", type=int, default=8000, show_default=True)
@click.option("--max-batch", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--max-wait-ms", type=float, default=10.0, show_default=True, help="How long a request waits for batch-mates.")
@click.option("--items-per-step", type=click.IntRange(min=0), default=0, show_default=True,
              help="Training-step size (rollout batch x samples per prompt): a learning reward updates, a recorded "
              "run writes a step, after this many items. POST /step closes a step too.")
@click.option("--deadline", "deadline_s", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Every request is answered within this many seconds; items not scored by then get reward 0.")
@click.option("--stop-token", "stop_tokens", multiple=True,
              help="An end-of-turn token of the policy's tokenizer, beyond the common ones (repeatable).")
@click.option("--record", "record_name", default="", help="Record the served training run in the store under this "
              "name: per-step training reward, rule accuracy, agreement, response length, alarm.")
@click.option("--record-run", default="", hidden=True, help="Record into this existing run (the openrlhf trainer's).")
@click.option("--alarm-window", type=click.IntRange(min=2), default=10, show_default=True,
              help="Steps the hacking alarm looks back over, for a recorded run.")
@click.option("--token", envvar="HARNESS_SERVER_TOKEN", default="", help="Require this bearer token (env HARNESS_SERVER_TOKEN).")
@_store_option
@click.pass_context
@_friendly
def serve_command(ctx: click.Context, reward_spec: str, host: str, port: int, max_batch: int, max_wait_ms: float,
                  items_per_step: int, deadline_s: float, stop_tokens: tuple[str, ...], record_name: str,
                  record_run: str, alarm_window: int, token: str) -> None:
    """Serve a reward over HTTP: /get_reward (OpenRLHF), /score, /step, /health, /metrics."""
    from harness.core.optional import require

    for module in ("fastapi", "pydantic", "uvicorn"):
        require(module, "the reward server")
    from harness.server.app import ServerConfig
    from harness.server.observer import Recording
    from harness.server.process import run_server
    from rewards import build_reward
    from rewards.contract import close_reward

    recording = None
    if record_name or record_run:
        recording = Recording(str(_store(ctx).path), record_run, record_name, items_per_step, alarm_window)
    config = ServerConfig(reward_spec, max_batch, max_wait_ms, items_per_step, token, deadline_s=deadline_s,
                          stop_tokens=stop_tokens, recording=recording)
    reward = build_reward(reward_spec)

    def ready(address: str) -> None:
        click.echo(f"serving {reward_spec} at {address} (POST /get_reward, /score, /step; GET /health, /metrics): "
                   f"batches of up to {max_batch} items gathered for up to {max_wait_ms:g} ms, every request answered "
                   f"within {deadline_s:g} s" + (f", a step every {items_per_step} items" if items_per_step else "")
                   + (f", recording to {recording.store_path}" if recording else ""), err=True)

    try:
        run_server(reward, config, host, port, on_ready=ready)
    finally:
        close_reward(reward)


@main.command("train")
@click.option("--trainer", default=None, help="Trainer backend (harness ls trainers); default trl.")
@click.option("--reward", "reward", default=None, help="Reward spec: rule, verifyrm:model=..., cooper:...")
@click.option("--policy", default=None, help="Policy model: a folder, a hub id, or smollm2-135m.")
@click.option("--dataset", default=None, help="gsm8k or a jsonl of question/answer.")
@click.option("--config", "config_file", default=None, type=click.Path(exists=True, dir_okay=False),
              help="YAML file with the same keys; the command line overrides it.")
@click.option("--output", default=None, help="Output folder (checkpoints, final model).")
@click.option("--max-steps", type=int, default=None)
@click.option("--num-generations", type=int, default=None, help="Rollouts per prompt (Cooper: 16).")
@click.option("--prompts-per-step", type=int, default=None)
@click.option("--learning-rate", type=float, default=None)
@click.option("--warmup-steps", type=int, default=None)
@click.option("--beta", type=float, default=None, help="KL coefficient.")
@click.option("--max-completion-length", type=int, default=None)
@click.option("--max-prompt-length", type=int, default=None)
@click.option("--temperature", type=float, default=None)
@click.option("--seed", type=int, default=None)
@click.option("--save-steps", type=int, default=None)
@click.option("--limit", type=int, default=None, help="Use only the first N training problems.")
@click.option("--alarm-window", type=int, default=None, help="Steps the hacking alarm looks back over.")
@click.option("--stop-on-hack/--no-stop-on-hack", default=None, help="Stop when the hacking alarm fires.")
@click.option("--eval-every", type=int, default=None, help="Steps between held-out accuracy checks (0: none).")
@click.option("--eval-suite", default=None, help="Held-out problems: gsm8k (its test split) or a jsonl.")
@click.option("--eval-limit", type=int, default=None, help="Held-out problems per check.")
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16"]), default=None,
              help="trl: auto (default) picks bfloat16 where this machine runs it faster than float32.")
@click.option("--probe", default=None, help="A labelled suite spec (e.g. jsonl:data=probe.jsonl,category=kind): the "
              "reward's accuracy, ranking of right over wrong, and pay rate on the 'hole' category (probe_hole in a "
              "config file) are recorded every step (constant for a static reward, moving for cooper).")
@click.option("--probe-limit", type=int, default=None, help="Only the first N items of the probe.")
@click.option("--launcher", default=None, help="openrlhf: the command that runs OpenRLHF's trainer (default "
              "'python -m openrlhf.cli.train_ppo_ray'; e.g. 'ray job submit --address ADDR -- python3 -m "
              "openrlhf.cli.train_ppo_ray').")
@click.option("--dry-run", is_flag=True, help="openrlhf: write the prompt data and print the checked command.")
@_store_option
@click.pass_context
@_friendly
def train_command(ctx: click.Context, trainer: str | None, config_file: str | None, dry_run: bool, **options: object) -> None:
    """GRPO with any registered reward; every step's metrics go to the run store."""
    from trainers import TRAINERS
    from trainers.grpo import GRPORunConfig, load_config_file

    cli = {"trainer": trainer, **options}
    try:
        config = GRPORunConfig.merged(load_config_file(config_file), cli)
    except (TypeError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    backend = TRAINERS.get(config.trainer)

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
    run = train(chosen, _store(ctx))
    _emit([Table("Run", ["field", "value"], [list(p) for p in run_summary(run)]), metrics_table(run)], "table")


@main.command("sft")
@click.option("--data", required=True, help="jsonl of question and solution (the worked answer to imitate).")
@click.option("--output", required=True, help="Output folder; the model goes to OUTPUT/final.")
@click.option("--policy", default="smollm2-135m", show_default=True, help="A folder, a hub id, or smollm2-135m.")
@click.option("--epochs", type=float, default=1.0, show_default=True)
@click.option("--max-steps", type=int, default=-1, show_default=True, help="Optimizer steps; overrides --epochs when positive.")
@click.option("--learning-rate", type=float, default=5e-5, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--max-length", type=click.IntRange(min=8), default=256, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--dtype", type=click.Choice(["auto", "float32", "bfloat16"]), default="auto", show_default=True,
              help="auto picks bfloat16 where this machine runs it faster than float32.")
@_store_option
@click.pass_context
@_friendly
def sft_command(ctx: click.Context, **options: Any) -> None:
    """Supervised warm-up of a policy with TRL's SFTTrainer (prompts as GRPO sees them); the run is stored."""
    from harness.core.progress import ProgressLog
    from trainers.sft import SFTRun, SFTRunConfig

    lines = ProgressLog("sft", "steps")

    def show(step: int, total: int, values: dict) -> None:
        click.echo(f"step {step}/{total} loss={values['loss']:.4f}", err=True)
        lines.update(step, total)

    run = SFTRun(SFTRunConfig(**options), progress=show).run(_store(ctx))
    _emit([Table("Run", ["field", "value"], [list(p) for p in run_summary(run)]), metrics_table(run)], "table")


@main.command("eval-policy")
@click.option("--model", required=True, help="Policy: a folder, a hub id, or smollm2-135m.")
@click.option("--backend", default="hf", show_default=True, help="lm-eval model type: hf, vllm, local-chat-completions.")
@click.option("--model-args", default="", help="lm-eval model_args (default: pretrained=MODEL).")
@click.option("--suites", "benchmarks", default="gsm8k,svamp,math500,olympiadbench,math_odyssey", show_default=True,
              help="Comma-separated: gsm8k, svamp, math500, olympiadbench, math_odyssey, aime24, aime25, amc23, minerva_math, "
                   "or .jsonl files with question and answer fields.")
@click.option("--preset", type=click.Choice(["cooper", "greedy"]), default="cooper", show_default=True,
              help="cooper: temperature 0.7, top-p 0.95, 8 samples, mean accuracy; greedy: one greedy sample.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N problems of each benchmark.")
@click.option("--max-gen-toks", type=click.IntRange(min=1), default=512, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--base-policy", default="", help="The untrained policy (for tables); default: from the training run in "
              "the store that wrote MODEL, else MODEL itself.")
@click.option("--trained-with", default="", help="The reward spec MODEL was trained with (for tables); default: from "
              "the training run in the store, else none.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@_store_option
@click.pass_context
@_friendly
def eval_policy_command(ctx: click.Context, model: str, backend: str, model_args: str, benchmarks: str, preset: str,
                        limit: int | None, max_gen_toks: int, batch_size: int, base_policy: str, trained_with: str,
                        fmt: str) -> None:
    """Evaluate a policy on the math benchmarks through lm-eval, scored by the rule reward; prints Table 3's columns."""
    from harness.core.generation.hf import resolve_causal_lm
    from harness.policy_eval import PolicyEvalRequest, evaluate_and_store, with_lineage

    path = resolve_causal_lm(model) if backend == "hf" else model
    store = _store(ctx)
    request = PolicyEvalRequest(path, tuple(b.strip() for b in benchmarks.split(",") if b.strip()), backend,
                                model_args, preset, limit, max_gen_toks, batch_size, base_policy, trained_with)
    run = evaluate_and_store(with_lineage(request, store, model), store)
    _emit([category_table([run], "Policy accuracy (%)")], fmt)


@main.command("tables")
@click.option("--layout", type=click.Choice(list(TABLES)), required=True)
@click.argument("run_refs", nargs=-1)
@click.option("--suite", default=None, help="Without RUN arguments: the latest complete runs of this suite (default for the verifybench, "
              "verifybench-hard and robustness layouts: that suite).")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--published", "published_mode", type=click.Choice(PUBLISHED_MODES), default="matched",
              show_default=True, help="The papers' figures beside the runs: for the same rows, every row of the "
              "paper's table (\"—\" where not run), or none.")
@click.option("--published-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Reference figures of the same shape as harness/data/published.yaml, instead of the packaged ones.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "latex", "csv", "json", "table"]), default="markdown",
              show_default=True)
@_store_option
@click.pass_context
@_friendly
def tables_command(ctx: click.Context, layout: str, run_refs: tuple[str, ...], suite: str | None, limit: int,
                   published_mode: str, published_file: str | None, fmt: str) -> None:
    """Render stored runs in a paper's table layout, with the papers' published figures beside them."""
    store = _store(ctx)
    suite = suite or RUN_SUITES.get(layout)
    runs = [store.get(r) for r in run_refs] or store.runs(suite=suite, kind=RUN_KINDS[layout], status="complete", limit=limit)
    if not runs and published_mode != "all":
        looked = f"no complete {RUN_KINDS[layout]} runs" + (f" of suite {suite!r}" if suite else "")
        raise click.UsageError(f"{looked} in {store.path}: give RUN ids or --suite (or --published all for the "
                               "papers' rows alone)")
    published = None if published_mode == "none" else load_published(published_file)
    table = paper_table(layout, runs, published, published_mode)
    if fmt == "latex":
        click.echo(render_latex(table))
    else:
        _emit([table], fmt)


@main.command("plot")
@click.option("--kind", type=click.Choice(["training", "rm-accuracy", "probe", "scores", "calibration", "threshold"]),
              required=True, help="training: training reward, rule accuracy and held-out accuracy per step (seeds "
              "of one reward as mean and spread); rm-accuracy: the reward's probe accuracy per step; probe: its "
              "ranking of right over wrong and hole pay rate per step; scores: score "
              "histograms of correct vs incorrect; calibration: reliability diagram with AUC and ECE; threshold: "
              "accuracy, precision and recall over the threshold.")
@click.argument("run_refs", nargs=-1, required=True)
@click.option("--output", required=True, type=click.Path(dir_okay=False), help="File stem; .png and .svg are written.")
@_store_option
@click.pass_context
@_friendly
def plot_command(ctx: click.Context, kind: str, run_refs: tuple[str, ...], output: str) -> None:
    """Figures from stored runs: training dynamics, Cooper's RM accuracy, score distributions."""
    from pathlib import Path

    from harness.plots import FIGURES

    for path in FIGURES[kind](_store(ctx), run_refs, Path(output)):
        click.echo(str(path))
