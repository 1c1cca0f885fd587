"""Scoring rewards on suites, probing what they pay for, and hybrid labelling."""

from __future__ import annotations

import click

from harness.commands.common import (
    emit,
    flipped_option,
    friendly,
    progress,
    run_store,
    store_option,
)
from harness.core.records import RunKind
from harness.report import (
    FORMATS,
    Table,
    category_table,
    metrics_table,
    run_summary,
)


@click.command("eval")
@click.option("--reward", "reward_spec", required=True, help="Reward spec: rule, or NAME:key=value,...")
@click.option("--suite", "suite_spec", required=True, help="Suite spec: sample, verifybench-hard, jsonl:...")
@click.option("--data", default=None, help="Local jsonl file or folder instead of the suite's default source.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Score a sample of N items across the suite's subsets and labels (seeded: the same N, the same items).")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def eval_command(
    ctx: click.Context, reward_spec: str, suite_spec: str, data: str | None, limit: int | None, batch_size: int, fmt: str
) -> None:
    """Score a reward on a suite, store the run, and print its metrics."""
    from harness.evaluate import EvalRequest, evaluate_reward
    from rewards.contract import REASON_CRASHED

    request = EvalRequest(reward_spec, suite_spec, data, limit, batch_size)
    with progress("eval: scoring") as update:
        run = evaluate_reward(request, run_store(ctx), progress=update)
    if fmt == "table":
        click.echo("  ".join(f"{k}: {v}" for k, v in run_summary(run)[:6]), err=True)
    emit([category_table([run]), metrics_table(run)], fmt)
    # the items are read back only when the run's own crash rate says some failed
    failed = [i for i in run_store(ctx).items(run.id) if i.reason == REASON_CRASHED] if run.metric("crash_rate") else []
    if failed:  # one line, not a traceback: which reward raised what, where, on which item
        first = failed[0]
        click.secho(f"WARNING: {len(failed)} of {run.n_items} items failed and count as not correct; the first, item "
                    f"{first.idx} (uid {first.uid}): {first.detail}. Every one: harness show {run.id} --items",
                    fg="yellow", err=True)


@click.command("probe-hacking")
@click.option("--reward", "reward_spec", required=True, help="Reward spec, e.g. verifyrm:model=runs/verifyrm-minilm.")
@click.option("--limit", type=click.IntRange(min=1), default=60, show_default=True,
              help="Real correct completions to mutate (from MathCheck-GSM).")
@click.option("--threshold", type=float, default=0.5, show_default=True, help="A score at or above it is paid.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def probe_hacking_command(ctx: click.Context, reward_spec: str, limit: int, threshold: float, fmt: str) -> None:
    """Before any training: how much a reward pays for wrong outputs, per family, and which families it can be
    exploited by (the robustness suite's must-reject families and mutated real answers)."""
    from harness.hacking_probe import hacking_table, probe_hacking

    with progress("probe-hacking: scoring") as update:
        runs, rows = probe_hacking(reward_spec, run_store(ctx), limit=limit, threshold=threshold, progress=update)
    click.echo("runs: " + ", ".join(r.id for r in runs), err=True)
    emit([hacking_table(reward_spec, rows, threshold)], fmt)


@click.command("label")
@click.option("--judge", "judge_spec", required=True, help="Judge reward spec, e.g. judge:model=smollm2-135m.")
@click.option("--rule", "rule_spec", default="rule", show_default=True, help="Rule reward spec.")
@click.option("--input", "input_file", default=None, help="jsonl/parquet with question, reference_answer, completion.")
@click.option("--suite", "suite_spec", default=None, help="Or a verifier suite; its labels only grade the report.")
@click.option("--data", default=None, help="Local data for --suite.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Label only the first N triples.")
@click.option("--output", required=True, type=click.Path(dir_okay=False), help="Labelled jsonl to write.")
@friendly
@store_option
def label_command(judge_spec: str, rule_spec: str, input_file: str | None, suite_spec: str | None, data: str | None,
                  limit: int | None, output: str) -> None:
    """Hybrid labelling: keep the triples where the rule reward and the judge agree."""
    from pathlib import Path

    from harness.labelling import label_file

    with progress("label: rule and judge") as update:
        report, report_path = label_file(judge_spec, Path(output), rule_spec=rule_spec, input_file=input_file,
                                         suite_spec=suite_spec, data=data, limit=limit, progress=update)
    rows = [[k, v] for k, v in {**report.__dict__, "agreement": report.agreement}.items()]
    emit([Table(f"Hybrid labelling -> {output} (report: {report_path})", ["", "value"], rows)], "table")


@click.command("rescore")
@click.argument("run_ref")
@click.option("--reward", "reward_specs", required=True, multiple=True,
              help="Reward spec to score the run's texts with (repeatable: one new run each).")
@click.option("--batch-size", type=click.IntRange(min=1), default=64, show_default=True)
@flipped_option(20)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def rescore_command(ctx: click.Context, run_ref: str, reward_specs: tuple[str, ...], batch_size: int, flipped: int,
                    fmt: str) -> None:
    """Score what a stored run scored (an eval's items, a policy evaluation's generations) with other rewards,
    without generating again. Each is stored as a new run naming its source, and compared with it item by item:
    how the score moves per benchmark or category, with the paired interval, McNemar's test and the flipped items."""
    from harness.commands.runs import paired_tables
    from harness.rescoring import rescore

    store = run_store(ctx, existing=True, writes=True)
    source = store.get(run_ref)
    tables: list[Table] = []
    for spec in reward_specs:
        with progress(f"rescore: {spec}") as update:
            run = rescore(store, source.id, spec, batch_size=batch_size, progress=update)
        click.echo(f"rescore: {source.id} with {spec} stored as {run.id}"
                   + (f" (texts read from {run.data_source})" if run.kind == RunKind.REWARD_EVAL else ""), err=True)
        tables += [category_table([source, run]), *paired_tables(store, source, run, flipped)]
    emit(tables, fmt)
