"""The harness command, through click's runner, on the packaged suite and the real VerifyBench-Hard subset."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import RunStore

from ..conftest import VERIFYBENCH_HARD
from .csv_tables import csv_tables


@pytest.fixture
def run_cli(tmp_path):
    store_path = tmp_path / "runs.sqlite"

    def invoke(*args):
        result = CliRunner().invoke(main, ["--store", str(store_path), *args], catch_exceptions=False)
        return result

    invoke.store = lambda: RunStore(store_path)
    return invoke


def test_eval_sample_prints_table_and_stores_run(run_cli):
    result = run_cli("eval", "--reward", "rule", "--suite", "sample", "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "Numeric" in result.output and "AVG" in result.output and "accuracy" in result.output
    [run] = run_cli.store().runs()
    assert run.status == "complete" and run.suite == "sample" and run.metric("accuracy") > 0.9
    assert "math-verify" in run.versions and run.data_hash.startswith("sha256:")


def test_eval_verifybench_hard_per_type_table(run_cli, data_root):
    result = run_cli("eval", "--reward", "rule", "--suite", "verifybench-hard", "--data", str(VERIFYBENCH_HARD),
                     "--format", "json")
    assert result.exit_code == 0, result.output
    category, metrics = json.loads(result.stdout)
    assert "accuracy" in {row["metric"] for row in metrics["rows"]}
    [row] = category["rows"]
    figures = ("Numeric", "Expression", "Multi-choice", "String", "AVG")
    assert set(row) == {"run", "reward", *figures, *(f"{k} {b}" for k in figures for b in ("low", "high"))}
    assert all(0.0 <= row[f"{k} low"] <= row[k] <= row[f"{k} high"] <= 1.0 for k in figures)  # each with its interval
    assert set(category["fractions"]) == set(row) - {"run", "reward"}
    run = run_cli.store().get(row["run"])
    assert run.n_items == 316 and len(run_cli.store().items(run.id)) == 316


def test_runs_show_compare(run_cli):
    assert run_cli("eval", "--reward", "rule", "--suite", "sample", "--limit", "10").exit_code == 0
    assert run_cli("eval", "--reward", "rule:fallback_chars=0", "--suite", "sample", "--limit", "10").exit_code == 0
    runs = run_cli.store().runs()
    listing = run_cli("runs", "--format", "csv")
    assert listing.exit_code == 0 and all(r.id in listing.output for r in runs)
    shown = run_cli("show", "latest", "--items", "--format", "markdown")
    assert shown.exit_code == 0 and "Items" in shown.output and "verified" in shown.output
    compared = run_cli("compare", runs[1].id, runs[0].id, "--format", "csv")
    assert compared.exit_code == 0 and "accuracy" in compared.output


COMMITTED_STORES = sorted((Path(__file__).resolve().parents[2] / "docs").glob("**/runs.sqlite"))


def _copy_of(committed: Path, tmp_path: Path) -> Path:
    """A committed store to work on: opening a store may migrate it, and the committed file stays as it is."""
    store_file = tmp_path / "runs.sqlite"
    shutil.copy(committed, store_file)
    return store_file


@pytest.mark.parametrize("committed", COMMITTED_STORES, ids=lambda p: p.parent.name)
def test_show_and_compare_read_every_run_of_a_committed_store(tmp_path, committed):
    """The stores committed beside the reports hold training, warm-up, reward-model and evaluation runs: ``show``
    prints each with the commit it ran, and ``compare`` takes any two of a kind, as the reports say they can."""
    store_file = _copy_of(committed, tmp_path)

    def invoke(*args):
        return CliRunner().invoke(main, ["--store", str(store_file), *args], catch_exceptions=False)

    runs = RunStore(store_file).runs(limit=10_000)
    assert runs
    for run in runs:
        shown = invoke("show", run.id, "--format", "markdown")
        assert shown.exit_code == 0, shown.output
        assert run.id in shown.output and run.versions["commit"] in shown.output
    by_kind: dict[str, list] = {}
    for run in runs:
        if run.metrics:
            by_kind.setdefault(run.kind, []).append(run)
    for same in by_kind.values():
        if len(same) >= 2:
            compared = invoke("compare", same[0].id, same[1].id, "--format", "markdown")
            assert compared.exit_code == 0, compared.output
            assert same[0].metrics[0].name in compared.output


def test_a_table_given_runs_of_another_kind_says_which_kind_it_reads(tmp_path):
    """A training run named for a layout that reads evaluations (a paper's policy table, VerifyBench's, the
    verifiers') is a user's slip: one line that names the kind the layout reads, not an AttributeError from deep
    in the table or a table of cells that mean nothing."""
    [released] = [p for p in COMMITTED_STORES if p.parent.name == "cooper_released"]
    store_file = _copy_of(released, tmp_path)
    store = RunStore(store_file)
    train = store.runs(kind="train", status="complete", limit=1)[0]
    for layout, wanted in (("cooper-rl", "policy-eval"), ("verifybench", "reward-eval"), ("verifiers", "reward-eval")):
        result = CliRunner().invoke(main, ["--store", str(store_file), "tables", "--layout", layout, train.id])
        assert result.exit_code == 2, (layout, result.output)
        assert f"reads {wanted} runs" in result.output and f"{train.id} is a train run" in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_user_errors_are_one_clear_line(run_cli):
    typo = run_cli("eval", "--reward", "rul", "--suite", "sample")
    assert typo.exit_code == 1 and "did you mean 'rule'" in typo.output and "Traceback" not in typo.output
    bad_key = run_cli("eval", "--reward", "rule:timout=3", "--suite", "sample")
    assert bad_key.exit_code == 1 and "no option 'timout'; did you mean 'timeout'" in bad_key.output
    missing = run_cli("eval", "--reward", "rule", "--suite", "verifybench-hard", "--data", "nowhere/x.jsonl")
    assert missing.exit_code == 1 and "looked in" in missing.output
    assert run_cli.store().runs() == []  # nothing was recorded for runs that could not start


def test_ls_and_validate(run_cli, data_root):
    listing = run_cli("ls")
    assert listing.exit_code == 0 and "rule" in listing.output and "verifybench-hard" in listing.output
    # every kind one name a line, with no box drawing, so that it reads the same through a pipe
    assert not set("┏┃━│┡└┗") & set(listing.output)
    assert "trl  summary=" in listing.output and "rule  summary=" in listing.output
    generators = run_cli("ls", "generators")
    assert generators.exit_code == 0 and "transformers" in generators.output and "openai" in generators.output
    ok = run_cli("validate", "--reward", "rule:timeout=3", "--suite", "processbench")
    assert ok.exit_code == 0 and "1400 items" in ok.output


def test_every_command_is_listed_and_resolves():
    import click

    ctx = click.Context(main)
    names = main.list_commands(ctx)
    assert {"eval", "serve", "train", "train-rm", "sft", "plot", "tables", "eval-policy", "ls"} <= set(names)
    for name in names:
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name, name


def _leaf_commands(group, ctx, path=()):
    import click

    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _leaf_commands(command, click.Context(command, parent=ctx), (*path, name))
        else:
            yield (*path, name), command


def test_every_command_takes_store_after_its_name(tmp_path):
    """The README promises ``--store`` before or after the command, for every command."""
    import click

    missing = [" ".join(path) for path, command in _leaf_commands(main, click.Context(main))
               if "--store" not in {o for p in command.params for o in getattr(p, "opts", ())}]
    assert missing == []
    store = tmp_path / "runs.sqlite"
    ok = CliRunner().invoke(main, ["validate", "--reward", "rule", "--store", str(store)])
    assert ok.exit_code == 0, ok.output
    assert not store.exists()  # a command that records nothing makes no store


def test_eval_imports_neither_the_server_nor_the_trainers():
    """A command imports its own module only: ``harness eval`` starts without the web stack, the trainers, the
    replicas, the plots and the paper tables (their errors are known to the command line as ``UserError``)."""
    import subprocess
    import sys

    probe = ("import sys\nfrom harness.cli import main\n"
             "main(['eval', '--help'], standalone_mode=False)\n"
             "print(sorted(m for m in sys.modules if m.startswith(('harness.server', 'harness.commands.training',"
             " 'harness.commands.serving', 'harness.plots', 'harness.tables', 'harness.published', 'trainers',"
             " 'fastapi', 'pydantic'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]", out


def test_no_command_help_shows_markup_meant_for_docs(run_cli):
    """Help texts come from the commands' docstrings: they are read in a terminal, not rendered as reST."""
    import click

    from harness.cli import main

    ctx = click.Context(main)
    for name in main.list_commands(ctx):
        result = run_cli(name, "--help")
        assert result.exit_code == 0 and "``" not in result.output, name


@pytest.mark.parametrize("error", [
    "harness.core.spec:SpecError", "harness.core.registry:RegistryError", "suites.loading:DataError",
    "harness.core.store:StoreError", "harness.core.store:RunFailed", "harness.core.optional:MissingDependencyError",
    "harness.published:PublishedDataError", "harness.plots:NothingToPlot", "harness.core.plugins:PluginError",
    "harness.server.replicas:NotReplicable",
])
def test_each_user_facing_error_ends_a_command_in_one_line(error):
    """The errors whose message tells the user what to fix are caught by their mark, wherever they are defined."""
    import importlib

    import click

    from harness.commands.common import friendly

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)

    def command() -> None:
        raise cls("what to fix")

    with pytest.raises(click.ClickException, match="what to fix"):
        friendly(command)()
    with pytest.raises(KeyError):  # anything else keeps its traceback
        friendly(lambda: (_ for _ in ()).throw(KeyError("a bug")))()


@pytest.mark.parametrize("command, default", [(["runs"], 50), (["tables", "--layout", "verifiers"], 10)])
def test_a_listing_limit_is_at_least_one_and_its_default_is_shown(tmp_path, command, default):
    store = str(tmp_path / "runs.sqlite")
    refused = CliRunner().invoke(main, ["--store", store, *command, "--limit", "0"])
    assert refused.exit_code == 2 and "--limit" in refused.output
    shown = CliRunner().invoke(main, [command[0], "--help"])
    assert shown.exit_code == 0 and f"default: {default}" in shown.output


def test_a_limit_of_one_lists_one_run_and_compare_lists_50_flips_by_default(tmp_path):
    store = str(tmp_path / "runs.sqlite")
    for _ in range(2):
        assert CliRunner().invoke(main, ["--store", store, "eval", "--reward", "rule", "--suite", "sample",
                                         "--limit", "4"]).exit_code == 0
    [listed] = json.loads(CliRunner().invoke(main, ["--store", store, "runs", "--limit", "1", "--format",
                                                     "json"]).stdout)
    assert len(listed["rows"]) == 1
    assert "default: 50" in CliRunner().invoke(main, ["compare", "--help"]).output


def test_tables_without_runs_say_so_and_the_papers_rows_alone_need_no_store(tmp_path):
    missing = str(tmp_path / "none.sqlite")
    refused = CliRunner().invoke(main, ["--store", missing, "tables", "--layout", "verifybench"])
    assert refused.exit_code != 0 and "no run store" in refused.output
    papers = CliRunner().invoke(main, ["--store", missing, "tables", "--layout", "verifybench", "--published", "all"])
    assert papers.exit_code == 0, papers.output
    empty = tmp_path / "empty.sqlite"
    RunStore(empty).abort("none", "failed", "a write that makes the store")
    nothing = CliRunner().invoke(main, ["--store", str(empty), "tables", "--layout", "verifybench"])
    assert nothing.exit_code == 2 and "no complete reward-eval runs of suite 'verifybench'" in nothing.output


def test_show_items_as_csv_is_the_items_table_and_tables_needs_a_layout(tmp_path):
    store = str(tmp_path / "runs.sqlite")
    assert CliRunner().invoke(main, ["--store", store, "eval", "--reward", "rule", "--suite", "sample", "--limit",
                                     "4"]).exit_code == 0
    shown = CliRunner().invoke(main, ["--store", store, "show", "latest", "--items", "--format", "csv"]).stdout
    tables = csv_tables(shown)  # completions hold newlines, quoted
    assert list(tables["Items"][0])[1:4] == ["idx", "uid", "category"] and len(tables["Items"]) == 4
    assert {"Run", "Items"} <= set(tables) and any(t.startswith("Metrics") for t in tables)
    no_layout = CliRunner().invoke(main, ["--store", store, "tables"])
    assert no_layout.exit_code == 2 and "--layout" in no_layout.output
    assert "default: table" in CliRunner().invoke(main, ["compare", "--help"]).output


def test_plot_refuses_a_folder_as_its_output_stem(tmp_path):
    refused = CliRunner().invoke(main, ["--store", str(tmp_path / "runs.sqlite"), "plot", "--kind", "training",
                                        "latest", "--output", str(tmp_path)])
    assert refused.exit_code == 2 and "directory" in refused.output


def test_the_papers_figures_are_shown_unless_asked_not_to(tmp_path):
    missing = str(tmp_path / "none.sqlite")
    shown = CliRunner().invoke(main, ["--store", missing, "tables", "--layout", "verifybench", "--published", "all"])
    assert shown.exit_code == 0 and "Paper row" in shown.stdout and "math-verify 0.8.0" in shown.stdout


@pytest.mark.parametrize("args, names", [
    (["plot", "latest", "--output", "x"], "--kind"),
    (["plot", "--kind", "training", "latest"], "--output"),
    (["tables", "--layout", "verifybench", "--published-file", "."], "directory"),
])
def test_an_option_a_command_needs_is_asked_for_by_name(tmp_path, args, names):
    refused = CliRunner().invoke(main, ["--store", str(tmp_path / "runs.sqlite"), *args])
    assert refused.exit_code == 2 and names in refused.output


def test_a_category_table_is_shown_only_for_runs_that_have_categories(tmp_path):
    committed = Path(__file__).resolve().parents[2] / "docs" / "cpu_scale" / "cooper_released" / "runs.sqlite"
    store = tmp_path / "runs.sqlite"
    shutil.copyfile(committed, store)
    training = CliRunner().invoke(main, ["--store", str(store), "show", "20261127-011847-cc723f", "--format", "json"])
    assert training.exit_code == 0 and "Accuracy by" not in training.stdout
    assert CliRunner().invoke(main, ["--store", str(store), "eval", "--reward", "rule", "--suite", "sample",
                                     "--limit", "4"]).exit_code == 0
    evaluation = CliRunner().invoke(main, ["--store", str(store), "show", "latest", "--format", "json"])
    assert "Accuracy by answer type" in evaluation.stdout


def test_reading_commands_refuse_a_missing_store_in_a_folder_that_exists(tmp_path):
    missing = tmp_path / "runs.sqlite"
    for command in (["runs"], ["show", "latest"]):
        refused = CliRunner().invoke(main, ["--store", str(missing), *command])
        assert refused.exit_code != 0 and f"no run store at {missing}" in refused.output
    assert not missing.exists()


def test_a_layout_refuses_runs_of_any_other_kind_and_shows_papers_alone_on_an_empty_store(tmp_path):
    from harness.core.store import NewRun

    path = tmp_path / "runs.sqlite"
    store = RunStore(path)
    policy = store.begin(NewRun("policy-eval", "rule", "gsm8k", "x", "", 1, {}, {}))
    store.complete(policy, [], [], 1.0)
    refused = CliRunner().invoke(main, ["--store", str(path), "tables", "--layout", "verifiers", policy])
    assert refused.exit_code == 2 and f"{policy} is a policy-eval run" in refused.output
    papers = CliRunner().invoke(main, ["--store", str(path), "tables", "--layout", "verifybench", "--published", "all"])
    assert papers.exit_code == 0 and "Paper row" in papers.stdout
