"""The commands that score (``eval``, ``probe-hacking``, ``label``, ``rescore``) as a user calls them: the options
each one requires, the bounds of its counts, ``--store`` and ``--plugin`` after the subcommand, what goes to stderr
and what to stdout, and the one line that names the first item a reward failed on."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import RunStore
from rewards import REWARDS, Score

# three triples for ``label``: the rule pays 1 and 3 (2 states two values); a judge that reads the last word pays
# 1 and 2
TRIPLES = [{"question": "q1", "reference_answer": "1", "completion": "so 1"},
           {"question": "q2", "reference_answer": "2", "completion": "maybe 3 or 2"},
           {"question": "q3", "reference_answer": "3", "completion": "\\boxed{3} is the answer"}]
JUDGE_PLUGIN = (
    "from rewards import REWARDS, Score\n\n"
    "@REWARDS.register('last-word-judge')\n"
    "class LastWord:\n"
    "    def score(self, items):\n"
    "        return [Score.correct() if it.completion.split()[-1] == it.reference else Score.incorrect()\n"
    "                for it in items]\n"
)


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def triples(tmp_path):
    path = tmp_path / "triples.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in TRIPLES))
    return path


@pytest.fixture
def registered():
    """Rewards registered in the test, taken out again after it."""
    names: list[str] = []

    def register(name: str, cls: type) -> None:
        REWARDS.register(name)(cls)
        names.append(name)

    yield register
    for name in names:
        REWARDS.unregister(name)


@pytest.mark.parametrize("args, missing", [
    (["eval", "--suite", "sample"], "--reward"),
    (["eval", "--reward", "rule"], "--suite"),
    (["probe-hacking", "--limit", "1"], "--reward"),
    (["label", "--input", "x.jsonl", "--output", "y.jsonl"], "--judge"),
    (["label", "--judge", "exact", "--input", "x.jsonl"], "--output"),
    (["rescore", "latest"], "--reward"),
])
def test_each_scoring_command_names_the_option_it_misses(tmp_path, args, missing):
    result = _cli("--store", str(tmp_path / "s.sqlite"), *args)
    assert result.exit_code == 2 and f"Missing option '{missing}'" in result.output, result.output
    assert not (tmp_path / "s.sqlite").exists()


def test_each_scoring_command_refuses_an_unknown_reward_in_one_line_and_records_nothing(tmp_path, triples):
    store = tmp_path / "s.sqlite"
    assert _eval(store, "--limit", "2").exit_code == 0
    [source] = RunStore(store).runs()
    out = tmp_path / "out.jsonl"
    for args in (["eval", "--reward", "nosuch", "--suite", "sample"], ["probe-hacking", "--reward", "nosuch"],
                 ["label", "--judge", "nosuch", "--input", str(triples), "--output", str(out)],
                 ["rescore", source.id, "--reward", "nosuch"]):
        refused = _cli("--store", str(store), *args)
        assert refused.exit_code == 1 and "Error: unknown reward 'nosuch'" in refused.output, args
        assert "Traceback" not in refused.output and len(refused.output.strip().splitlines()) == 1, refused.output
    assert RunStore(store).runs() == [source] and not out.exists()


def _eval(store, *args: str):
    return _cli("--store", str(store), "eval", "--reward", "rule:workers=1", "--suite", "sample", *args)


def test_a_count_below_one_is_refused_by_name_and_one_is_taken(tmp_path, triples, data_root):
    store = tmp_path / "s.sqlite"
    for option in ("--limit", "--batch-size"):
        refused = _eval(store, "--limit", "2", option, "0")
        assert refused.exit_code == 2 and option in refused.output, refused.output
        assert _eval(store, "--limit", "2", option, "1").exit_code == 0
    # newest first: --batch-size 1 on 2 items, then --limit 1
    assert [r.n_items for r in RunStore(store).runs()] == [2, 1]
    source = RunStore(store).runs()[0].id
    refused = _cli("--store", str(store), "rescore", source, "--reward", "mathverify", "--batch-size", "0")
    assert refused.exit_code == 2 and "--batch-size" in refused.output
    taken = _cli("--store", str(store), "rescore", source, "--reward", "mathverify", "--batch-size", "1")
    assert taken.exit_code == 0, taken.output
    label = ["label", "--judge", "exact", "--input", str(triples), "--output", str(tmp_path / "out.jsonl")]
    refused = _cli(*label, "--limit", "0")
    assert refused.exit_code == 2 and "--limit" in refused.output and not (tmp_path / "out.jsonl").exists()
    assert _cli(*label, "--limit", "1").exit_code == 0
    assert json.loads((tmp_path / "out.jsonl.report.json").read_text())["total"] == 1
    refused = _cli("--store", str(store), "probe-hacking", "--reward", "rule", "--limit", "0")
    assert refused.exit_code == 2 and "--limit" in refused.output


def test_the_probes_defaults_are_shown_in_its_help():
    shown = " ".join(_cli("probe-hacking", "--help").output.split())  # as one line: the help wraps anywhere
    assert "[default: 60; x>=1]" in shown and "[default: 0.5]" in shown
    assert "[default: rule]" in " ".join(_cli("label", "--help").output.split())


def test_store_and_plugin_are_taken_after_each_scoring_subcommand(tmp_path, triples, data_root):
    store, plugin = tmp_path / "after.sqlite", tmp_path / "judge.py"
    plugin.write_text(JUDGE_PLUGIN)
    try:
        probed = _cli("probe-hacking", "--reward", "rule:workers=1", "--limit", "1", "--format", "csv",
                      "--store", str(store))
        assert probed.exit_code == 0, probed.output
        runs = RunStore(store).runs()
        assert runs and probed.stderr.splitlines()[-1] == "runs: " + ", ".join(r.id for r in reversed(runs))
        smallest = min(runs, key=lambda r: r.n_items)
        rescored = _cli("rescore", smallest.id, "--reward", "mathverify", "--format", "csv", "--store", str(store))
        assert rescored.exit_code == 0, rescored.output
        assert len(RunStore(store).runs()) == len(runs) + 1
        out = tmp_path / "out.jsonl"
        labelled = _cli("label", "--plugin", str(plugin), "--judge", "last-word-judge", "--input", str(triples),
                        "--output", str(out), "--store", str(store))
        assert labelled.exit_code == 0, labelled.output
    finally:
        REWARDS.unregister("last-word-judge")
    # the rule pays items 1 and 3, the judge items 1 and 2: both pay item 1, both refuse none
    assert [json.loads(line)["question"] for line in out.read_text().splitlines()] == ["q1"]
    report = json.loads((tmp_path / "out.jsonl.report.json").read_text())
    assert (report["both_correct"], report["rule_only_correct"], report["judge_only_correct"]) == (1, 1, 1)
    printed = {line.strip("| ").split("|")[0].strip(): line.split("|")[2].strip()
               for line in labelled.stdout.splitlines() if line.count("|") == 3}
    assert printed["rule_only_correct"] == "1" and printed["judge_only_correct"] == "1" and printed["kept"] == "1"
    assert printed["agreement"] == "0.3333"


def test_eval_prints_its_summary_to_stderr_in_the_table_format_alone(tmp_path):
    store = tmp_path / "s.sqlite"
    table = _eval(store, "--limit", "3")
    assert table.exit_code == 0, table.output
    [summary] = [line for line in table.stderr.splitlines() if line.startswith("run: ")]
    run = RunStore(store).runs()[0]
    fields = [part.split(": ", 1) for part in summary.split("  ")]
    assert [name for name, _ in fields] == ["run", "status", "reward", "suite", "data", "items"]
    assert dict(fields)["run"] == run.id and dict(fields)["items"] == "3"
    assert "run: " not in table.stdout
    for fmt in ("markdown", "csv", "json"):
        other = _eval(store, "--limit", "3", "--format", fmt)
        assert other.exit_code == 0 and not any(line.startswith("run: ") for line in other.stderr.splitlines())


class RaisesOnLatex:
    """Raises on a batch that holds a reference written in LaTeX (10 of the sample suite's 42) and pays the last
    number otherwise: its failed items are spread through the suite, so the first is not the last. Its scores
    give no reason (``Score(value, verdict)``, as the contract allows), which sorts before ``crashed``: only a
    failure's own reason counts it as failed."""

    def score(self, items):
        if any("\\" in it.reference for it in items):
            raise ValueError("cannot read a reference in LaTeX")
        return [Score(1.0, True) if it.completion.rstrip(".").split()[-1:] == [it.reference] else Score(0.0, False)
                for it in items]


def test_the_failure_warning_counts_every_failed_item_and_names_the_first(tmp_path, registered):
    registered("raises-on-latex", RaisesOnLatex)
    store = tmp_path / "s.sqlite"
    result = _cli("--store", str(store), "eval", "--reward", "raises-on-latex", "--suite", "sample", "--format", "csv")
    assert result.exit_code == 0, result.output
    [run] = RunStore(store).runs()
    failed = [i for i in RunStore(store).items(run.id) if i.reason == "crashed"]
    assert len(failed) == 10 and failed[0].idx != failed[-1].idx
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("WARNING:")]
    first = min(failed, key=lambda i: i.idx)
    assert warning.startswith(f"WARNING: 10 of 42 items failed and count as not correct; the first, item "
                              f"{first.idx} (uid {first.uid}): {first.detail}.")
    assert warning.endswith(f"Every one: harness show {run.id} --items")
    assert "WARNING" not in result.stdout
    clean = _eval(store, "--limit", "6")
    assert clean.exit_code == 0 and "WARNING" not in clean.output


class Pays:
    """Pays every item (``PAYS = True``) or none: between the two, every item of a suite flips."""

    PAYS = True

    def score(self, items):
        return [Score.correct() if self.PAYS else Score.incorrect() for _ in items]


class Refuses(Pays):
    PAYS = False


def test_rescore_lists_twenty_flipped_items_unless_told_otherwise(tmp_path, registered):
    registered("pays-all", Pays)
    registered("refuses-all", Refuses)
    store = tmp_path / "s.sqlite"
    assert _cli("--store", str(store), "eval", "--reward", "refuses-all", "--suite", "sample").exit_code == 0
    source = RunStore(store).runs()[0].id

    def flipped(*args: str) -> list[dict]:
        done = _cli("--store", str(store), "rescore", source, "--reward", "pays-all", "--format", "json", *args)
        assert done.exit_code == 0, done.output
        return next(t for t in json.loads(done.stdout) if t["title"].startswith("Flipped items"))["rows"]

    assert len(flipped()) == 20
    assert len(flipped("--flipped", "25")) == 25 and len(flipped("--flipped", "0")) == 42
