"""The papers' published figures: the packaged file's consistency, which run matches which paper row, and the
tables that show them beside stored runs."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import Metric, NewRun
from harness.policy_eval import PolicyEvalRequest, with_lineage
from harness.published import PublishedDataError, average_mismatches, load_published, parse_published, run_identity
from harness.tables import paper_table

from .csv_tables import csv_tables


def _reward_run(store, reward: str, suite: str, accuracy: dict[str, float]):
    run_id = store.begin(NewRun("reward-eval", reward, suite, suite, "h", 10, {}, {}))
    rows = [Metric(f"accuracy/{k}", v, True, 1, "by_category") for k, v in accuracy.items() if k != "all"]
    rows.append(Metric("accuracy", accuracy["all"], True, 10, "overall"))
    store.complete(run_id, [], rows, 1.0)
    return store.get(run_id)


def _policy_run(store, config: dict, data_source: str = "/models/x"):
    run_id = store.begin(NewRun("policy-eval", "rule", "math:gsm8k", data_source, "h", 1, config, {}))
    store.complete(run_id, [], [Metric("accuracy/GSM8K", 0.5, True, 1, "by_category")], 1.0)
    return store.get(run_id)


def test_packaged_averages_agree_with_their_columns_except_the_flagged_rows():
    published = load_published()
    mismatched = {(row.system, layout) for row, layout, _ in average_mismatches(published)}
    # Three rows are printed with averages that do not follow from their own columns; the file says so.
    assert mismatched == {
        ("Tencent-Qwen2.5-7B-RLVR", "verifybench-hard"),
        ("Qwen2.5-1.5B-Instruct, Baseline", "cooper-rl"),
        ("Qwen2.5-1.5B-Instruct, Model-based", "cooper-rl"),
    }
    assert all("as published" in row.note for row, _, _ in average_mismatches(published))
    assert len(published.for_layout("verifybench")) == len(published.for_layout("verifybench-hard")) == 29
    assert len(published.for_layout("cooper-rl")) == 8


def test_identity_of_reward_and_policy_runs(store):
    judge = _reward_run(store, "judge:model=Qwen/Qwen3-4B,backend=openai", "verifybench", {"all": 0.9})
    assert run_identity(judge) == {"reward": "judge", "model": "Qwen3-4B"}
    trained = _policy_run(store, {"base_policy": "Qwen/Qwen2.5-1.5B-Instruct", "trained_with": "cooper:model=rm"})
    assert run_identity(trained) == {"policy": "Qwen2.5-1.5B-Instruct", "reward": "cooper"}
    untrained = _policy_run(store, {}, data_source="/models/Llama-3.2-1B-Instruct/")
    assert run_identity(untrained) == {"policy": "Llama-3.2-1B-Instruct", "reward": "none"}


def test_plain_math_verify_on_verifybench_hard_is_shown_beside_the_papers_math_verify_row(store):
    """The paper's math-verify row is plain math-verify: ``mathverify`` matches it, and the rule reward (which adds
    rules of its own) does not."""
    published = load_published()
    rule = _reward_run(store, "rule", "verifybench-hard", {"all": 0.75})
    assert published.matching("verifybench-hard", rule) is None
    run = _reward_run(store, "mathverify", "verifybench-hard",
                      {"Numeric": 0.9, "Expression": 0.8, "Multi-choice": 0.7, "String": 0.6, "all": 0.75})
    table = paper_table("verifybench-hard", [run], published)
    assert table.headers[:3] == ["Reward", "Num", "Num (paper)"] and table.headers[-2:] == ["Paper row", "Source"]
    [row] = table.rows
    assert row[0] == "mathverify" and row[-2] == "math-verify 0.8.0" and "2505.15801" in row[-1]
    # ours, then the paper's as printed, with the Wilson interval of its n (252 Num items, 1,000 in all)
    assert table.cell(0, 1) == "90.0" and table.cell(0, 2) == "84.52 [79.54, 88.46]"
    assert table.cell(0, table.headers.index("AVG (paper)")) == "76.00 [73.26, 78.54]"
    assert any("math-verify 0.8.0" in note for note in table.notes)
    assert "mathverify scored 10 items of verifybench-hard; the paper's figures are over 1000." in table.notes


def test_same_reward_on_other_data_is_not_the_same_row(store):
    published = load_published()
    run = _reward_run(store, "rule", "sample", {"Numeric": 1.0, "all": 1.0})
    assert published.matching("verifybench", run) is None
    table = paper_table("verifybench", [run], published)  # nothing matched: no columns of dashes
    assert table.headers == ["Reward", "Num", "Exp", "MC", "Str", "AVG"]
    assert not any("2505.15801" in note for note in table.notes)
    listed = paper_table("verifybench", [run], published, "all")
    assert listed.rows[0][-2:] == [None, None] and len(listed.rows) == 30
    assert all(listed.cell(0, i) == "—" for i, h in enumerate(listed.headers) if h.endswith("(paper)"))


def test_all_lists_the_papers_rows_with_dashes_where_not_run(store):
    published = load_published()
    run = _policy_run(store, {"base_policy": "Qwen2.5-1.5B-Instruct", "trained_with": "rule"})
    table = paper_table("cooper-rl", [run], published, "all")
    assert len(table.rows) == 8  # the run takes the place of its paper row; seven more are listed
    first = table.rows[0]
    assert first[:2] == ["Qwen2.5-1.5B-Instruct", "rule"] and first[-2] == "Qwen2.5-1.5B-Instruct, Rule-based"
    assert table.cell(0, table.headers.index("GSM8K")) == "50.0"
    assert table.cell(0, table.headers.index("GSM8K (paper)")) == "76.44"
    cooper = next(i for i, r in enumerate(table.rows) if r[-2] == "Qwen2.5-1.5B-Instruct, Cooper")
    assert table.cell(cooper, table.headers.index("GSM8K")) == "—"
    assert table.cell(cooper, table.headers.index("Avg (paper)")) == "58.02"
    assert any("the mean of the five columns is 54.57" in note for note in table.notes)  # the baseline's caveat
    assert len(paper_table("cooper-rl", [run], published, "none").headers) == 2 + 6


def test_published_file_errors_name_the_row():
    base = {"sources": {"p": {"cite": "Paper"}}, "layouts": {"l": {"columns": ["A", "B"]}}}
    with pytest.raises(PublishedDataError, match=r"row 1 \(X\): l needs 2 values: A, B"):
        parse_published({**base, "rows": [{"system": "X", "source": "p", "match": {"reward": "rule"}, "l": [1]}]})
    with pytest.raises(PublishedDataError, match="unknown source 'q'"):
        parse_published({**base, "rows": [{"system": "X", "source": "q", "match": {"reward": "rule"}, "l": [1, 2]}]})
    with pytest.raises(PublishedDataError, match="match keys are reward, model, policy"):
        parse_published({**base, "rows": [{"system": "X", "source": "p", "match": {"judge": "y"}, "l": [1, 2]}]})
    with pytest.raises(PublishedDataError, match="must be numbers"):
        parse_published({**base, "rows": [{"system": "X", "source": "p", "match": {"reward": "r"}, "l": [1, "two"]}]})


def test_lineage_from_the_training_run_that_wrote_the_weights(store, tmp_path):
    out = tmp_path / "grpo"
    (out / "final").mkdir(parents=True)
    run_id = store.begin(NewRun("train", "verifyrm:model=rm", "gsm8k", "gsm8k", "h", 2,
                                {"output": str(out), "policy": "smollm2-135m"}, {}))
    store.complete(run_id, [], [], 1.0)
    filled = with_lineage(PolicyEvalRequest(str(out / "final"), ("gsm8k",)), store)
    assert (filled.base_policy, filled.trained_with) == ("smollm2-135m", "verifyrm:model=rm")
    given = with_lineage(PolicyEvalRequest(str(out / "final"), ("gsm8k",), base_policy="b", trained_with="rule"), store)
    assert (given.base_policy, given.trained_with) == ("b", "rule")
    untrained = with_lineage(PolicyEvalRequest(str(tmp_path / "cache" / "x"), ("gsm8k",)), store, "smollm2-135m")
    assert (untrained.base_policy, untrained.trained_with) == ("smollm2-135m", "")


def test_cli_tables_with_a_users_published_file(store, tmp_path):
    figures = tmp_path / "mine.yaml"
    figures.write_text(
        "sources: {lab: {cite: 'Our lab notebook'}}\n"
        "layouts: {verifybench: {suite: verifybench, columns: [Num, Exp, MC, Str, AVG]}}\n"
        "rows: [{system: 'old rule', source: lab, match: {reward: rule}, verifybench: [1, 2, 3, 4, 2.5]}]\n"
    )
    run = _reward_run(store, "rule", "verifybench", {"Numeric": 0.5, "all": 0.5})
    args = ["--store", str(store.path), "tables", "--layout", "verifybench", run.id, "--format", "csv"]
    result = CliRunner().invoke(main, [*args, "--published-file", str(figures)])
    assert result.exit_code == 0, result.output
    assert "old rule,Our lab notebook" in result.stdout
    paper_only = CliRunner().invoke(main, ["--store", str(tmp_path / "empty.sqlite"), "tables", "--layout",
                                           "verifybench", "--published", "all", "--format", "csv"])
    assert paper_only.exit_code == 0, paper_only.output
    [rows] = csv_tables(paper_only.stdout).values()
    assert sum(r.get("Source") == "VerifyBench, arXiv 2505.15801v4, Table 2" for r in rows) == 29
    bad = tmp_path / "bad.yaml"
    bad.write_text("rows: [{system: X}]\n")
    failed = CliRunner().invoke(main, [*args, "--published-file", str(bad)])
    assert failed.exit_code == 1 and "row 1 (X): missing 'source'" in failed.output
    assert json.loads(CliRunner().invoke(main, [*args[:-1], "json"]).stdout)[0]["notes"]


def test_a_papers_figure_has_the_wilson_interval_of_its_item_count(tmp_path):
    """VerifyBench-Hard's columns are shares of 252, 88, 430 and 230 items and AVG of 1,000: each published figure
    gets statsmodels' Wilson interval at its own column's n (Exp's, of 88 items, the widest), and the note says
    the interval was computed here."""
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s.sqlite"), "tables", "--layout", "verifybench-hard",
                                       "--published", "all", "--format", "json"])
    assert result.exit_code == 0, result.output
    [table] = json.loads(result.stdout)
    [row] = [r for r in table["rows"] if r["Paper row"] == "math-verify 0.8.0"]
    widths = {}
    for column, n in (("Num", 252), ("Exp", 88), ("MC", 430), ("Str", 230), ("AVG", 1000)):
        value = row[f"{column} (paper)"]
        low, high = proportion.proportion_confint(value * n, n, alpha=0.05, method="wilson")
        assert (row[f"{column} (paper) low"], row[f"{column} (paper) high"]) == (pytest.approx(low), pytest.approx(high))
        widths[column] = high - low
    assert max(widths, key=widths.get) == "Exp" and min(widths, key=widths.get) == "AVG"
    assert any("Exp 88" in note and "computed here" in note for note in table["notes"])
