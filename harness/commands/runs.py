"""Reading the run store: listings, one run, comparisons, paper tables and figures."""

from __future__ import annotations

import click

from harness.commands.common import (
    emit,
    flipped_option,
    friendly,
    run_store,
    store_note,
    store_option,
)
from harness.core.records import RunRecord
from harness.core.store import RunKind, RunStatus, StoreError
from harness.published import load_published
from harness.report import (
    FORMATS,
    Table,
    category_table,
    comparability,
    compare_table,
    flipped_table,
    items_table,
    judged_right,
    metrics_table,
    paired_items,
    paired_table,
    run_summary,
    runs_table,
)
from harness.tables import PUBLISHED_MODES, RUN_KINDS, RUN_SUITES, TABLES, paper_table, render_latex


@click.command("runs")
@click.option("--suite", default=None, help="Only runs of this suite spec.")
@click.option("--reward", default=None, help="Only runs of this reward spec.")
@click.option("--status", default=None, type=click.Choice([s.value for s in RunStatus]))
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def runs_command(ctx: click.Context, suite: str | None, reward: str | None, status: str | None, limit: int, fmt: str) -> None:
    """List stored runs, newest first.

    The default store is one file for all of this user's harness processes, so runs made anywhere can be compared;
    'latest' means the newest run in it, whichever process made it. Give a project its own store with --store or
    HARNESS_STORE."""
    store = run_store(ctx, existing=True)
    click.echo(store_note(store, ctx), err=True)
    emit([runs_table(store.runs(suite=suite, reward=reward, status=status, limit=limit))], fmt)


@click.command("show")
@click.argument("run_ref")
@click.option("--items", "show_items", is_flag=True, help="Also list every item's score and reason.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def show_command(ctx: click.Context, run_ref: str, show_items: bool, fmt: str) -> None:
    """Show one run (an id, a unique id prefix, or 'latest')."""
    store = run_store(ctx, existing=True)
    run = store.get(run_ref)
    tables = [Table("Run", ["field", "value"], [list(p) for p in run_summary(run)])]
    if run.metrics:
        tables += [*_categories([run]), metrics_table(run)]
    artifacts = store.artifacts(run.id)
    if artifacts:  # files the run wrote outside the store (a reward model's weights), by hash
        tables.append(Table("Files", ["step", "name", "sha256", "path"],
                            [[a.step, a.name, a.sha256, a.path] for a in artifacts]))
    if show_items:
        tables.append(items_table(run, store.items(run.id), whole=fmt in ("csv", "json"), kept=store.texts(run.id)))
    emit(tables, fmt)


@click.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@flipped_option(50)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@store_option
@click.pass_context
@friendly
def compare_command(ctx: click.Context, run_a: str, run_b: str, flipped: int, fmt: str) -> None:
    """Compare two runs: their metrics side by side, and their accuracy with its uncertainty. On the same items,
    the paired difference with its 95% interval, the exact McNemar test and the items that flipped; on
    different items, an unpaired interval that says so."""
    store = run_store(ctx, existing=True)
    a, b = store.get(run_a), store.get(run_b)
    items = store.items(a.id), store.items(b.id)  # read once: the verdict and the paired tables use both
    tested = policy_tests(a, b, *items)  # once: the metric rows and the paired table show the same tests
    compared = compare_table(a, b, for_reading=fmt in ("table", "markdown"),
                             changes=paired_metric_changes(a, b, *items, tested=tested))
    for warning in comparability(a, b):  # once, on stderr: stdout stays the data
        click.secho(f"WARNING: {warning}", fg="yellow", err=True)
    emit([*_categories([a, b]), compared, *paired_tables(store, a, b, flipped, items, tested)], fmt)


def policy_tests(a: RunRecord, b: RunRecord, items_a: list, items_b: list) -> dict | None:
    """Two policy evaluations' paired tests by problem (:func:`harness.policy_eval.paired_by_problem`), else None."""
    if a.kind != RunKind.POLICY_EVAL or b.kind != RunKind.POLICY_EVAL:
        return None
    from harness.policy_eval import paired_by_problem

    return paired_by_problem(items_a, items_b)


def paired_metric_changes(a: RunRecord, b: RunRecord, items_a: list, items_b: list, tested: dict | None = None) -> dict:
    """Each tested metric's paired change with its interval when the runs scored the same items: two reward
    evaluations item by item (:func:`suites.metrics.paired_changes`), two policy evaluations problem by problem
    (``tested``, or :func:`policy_tests` when not given); none otherwise."""
    if a.kind == RunKind.POLICY_EVAL and b.kind == RunKind.POLICY_EVAL:
        tested = tested if tested is not None else policy_tests(a, b, items_a, items_b)
        return {name: (t.value, t.low, t.high) for name, t in (tested or {}).items()}
    from suites.metrics import paired_changes

    if not paired_items(a, b, items_a, items_b) or any(i.label is None for i in items_a):
        return {}
    return paired_changes([bool(i.label) for i in items_a], [i.verdict is True for i in items_a],
                          [i.verdict is True for i in items_b], [i.category for i in items_a])


def paired_tables(store, a: RunRecord, b: RunRecord, flipped: int, items: tuple | None = None,
                  tested: dict | None = None) -> list[Table]:
    """B's accuracy against A's with its uncertainty, and the items that flipped when the runs are paired and
    some did (no flip: the paired table's counts say so, and an empty table only prints its headers) (``items``:
    both runs' items, and ``tested``, two policies' tests by problem, when the caller has them already)."""
    items_a, items_b = items if items is not None else (store.items(a.id), store.items(b.id))
    tables = [paired_table(a, b, items_a, items_b, tested)]
    if paired_items(a, b, items_a, items_b) and any(judged_right(x) != judged_right(y) for x, y in zip(items_a, items_b)):
        tables.append(flipped_table(a, items_a, items_b, flipped or None, store.texts(a.id)))
    return tables


def _categories(runs: list[RunRecord]) -> list[Table]:
    """The accuracy-by-category table, where a run has categories (an evaluation's suite, a policy's benchmarks);
    a training run has none, and a table of empty cells would only hide its metrics."""
    return [category_table(runs)] if any(m.group == "by_category" for r in runs for m in r.metrics) else []


@click.command("tables")
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
@store_option
@click.pass_context
@friendly
def tables_command(ctx: click.Context, layout: str, run_refs: tuple[str, ...], suite: str | None, limit: int,
                   published_mode: str, published_file: str | None, fmt: str) -> None:
    """Render stored runs in a paper's table layout, with the papers' published figures beside them."""
    suite = suite or RUN_SUITES.get(layout)
    papers_alone = published_mode == "all" and not run_refs  # the papers' rows need no store
    try:
        store = run_store(ctx, existing=True)
    except StoreError:
        if not papers_alone:
            raise
        runs = []
    else:
        runs = [store.get(r) for r in run_refs] or store.runs(suite=suite, kind=RUN_KINDS[layout], status="complete",
                                                              limit=limit)
        other = [f"{r.id} is a {r.kind} run" for r in runs if r.kind != RUN_KINDS[layout]]
        if other:
            raise click.UsageError(f"the {layout} layout reads {RUN_KINDS[layout]} runs; " + ", ".join(other))
        if not runs and published_mode != "all":
            looked = f"no complete {RUN_KINDS[layout]} runs" + (f" of suite {suite!r}" if suite else "")
            raise click.UsageError(f"{looked} in {store.path}: give RUN ids or --suite (or --published all for the "
                                   "papers' rows alone)")
    published = None if published_mode == "none" else load_published(published_file)
    table = paper_table(layout, runs, published, published_mode,
                        items_of=(lambda run: store.items(run.id)) if runs else None)
    if fmt == "latex":
        click.echo(render_latex(table))
    else:
        emit([table], fmt)


@click.command("plot")
@click.option("--kind", type=click.Choice(["training", "rm-accuracy", "probe", "scores", "calibration", "threshold"]),
              required=True, help="training: training reward, rule accuracy and held-out accuracy per step (seeds "
              "of one reward as mean and spread); rm-accuracy: the reward's probe accuracy per step; probe: its "
              "ranking of right over wrong and hole pay rate per step; scores: score "
              "histograms of correct vs incorrect; calibration: reliability diagram with AUC and ECE; threshold: "
              "accuracy, precision and recall over the threshold.")
@click.argument("run_refs", nargs=-1, required=True)
@click.option("--output", required=True, type=click.Path(dir_okay=False), help="File stem; .png and .svg are written.")
@store_option
@click.pass_context
@friendly
def plot_command(ctx: click.Context, kind: str, run_refs: tuple[str, ...], output: str) -> None:
    """Figures from stored runs: training dynamics, Cooper's RM accuracy, score distributions."""
    from pathlib import Path

    from harness.plots import FIGURES

    for path in FIGURES[kind](run_store(ctx, existing=True), run_refs, Path(output)):
        click.echo(str(path))
