"""Paper-layout tables against golden files (made by tools/make_golden_tables.py), and the figures."""

import pytest

from harness.core.store import NewRun
from tools.make_golden_tables import CASES, GOLDEN, render

from ..conftest import svg_texts


@pytest.mark.parametrize("name", sorted(CASES))
def test_tables_match_the_golden_files(store, data_root, name):
    for ext, text in render(store, name).items():
        assert text == (GOLDEN / f"{name}.{ext}").read_text(), f"{name}.{ext} changed; see tools/make_golden_tables.py"


def test_cooper_rl_layout_from_policy_runs(store):
    from harness.core.store import Metric
    from harness.tables import paper_table

    run_id = store.begin(NewRun("policy-eval", "rule", "math:gsm8k,svamp", "/cache/q", "h", 2,
                                {"base_policy": "Qwen2.5-1.5B-Instruct", "trained_with": "cooper:model=rm"}, {}))
    store.complete(run_id, [], [Metric("accuracy/GSM8K", 0.7, True, 1, "by_category"),
                                Metric("accuracy/SVAMP", 0.5, True, 1, "by_category")], 1.0)
    table = paper_table("cooper-rl", [store.get(run_id)])
    assert table.headers == ["Policy", "Trained with", "GSM8K", "SVAMP", "MATH500", "OB-EN", "Odyssey", "Avg"]
    assert table.rows[0][:2] == ["Qwen2.5-1.5B-Instruct", "cooper:model=rm"] and table.rows[0][-1].value == pytest.approx(0.6)
    assert table.cell(0, 4) == "—"  # not run


def test_the_verifiers_layout_puts_each_rewards_suites_side_by_side(store, data_root, rule_reward):
    """Real runs of two rewards: each cell is the newest run's stored metric; the speed columns come from the per-item
    latencies every eval run now stores; a suite not run is a dash."""
    from harness.evaluate import EvalRequest, evaluate_reward
    from harness.tables import paper_table

    for reward, suite in (("rule", "mathcheck-gsm"), ("rule", "mathcheck-gsm"), ("rule", "robustness"),
                          ("mathverify:workers=1", "mathcheck-gsm"), ("mathverify:workers=1", "processbench")):
        evaluate_reward(EvalRequest(reward, suite, limit=30), store,
                        reward=rule_reward if reward == "rule" else None)
    runs = store.runs(kind="reward-eval")
    table = paper_table("verifiers", runs)
    rows = {row[0]: dict(zip(table.headers, row)) for row in table.rows}
    assert set(rows) == {"rule", "mathverify:workers=1"}
    newest = {(r.reward, r.suite): {m.name: m.value for m in r.metrics} for r in reversed(runs)}  # oldest first
    rule_gsm, mv_pb = newest[("rule", "mathcheck-gsm")], newest[("mathverify:workers=1", "processbench")]
    assert rows["rule"]["MathCheck-GSM"].value == rule_gsm["accuracy"] and rows["rule"]["ProcessBench"] is None
    assert rows["rule"]["hacking FPR"].value == newest[("rule", "robustness")]["false_positive_rate"]
    assert rows["mathverify:workers=1"]["ProcessBench"].value == mv_pb["accuracy"]
    for cell in (rows["rule"]["MathCheck-GSM"], rows["rule"]["hacking FPR"]):  # each with its (Wilson) interval
        assert cell.low <= cell.value <= cell.high and cell.low < cell.high
    f1 = rows["rule"]["F1"]  # a bootstrap interval, which a perfect score on 30 items leaves at [1, 1]
    assert f1.low is not None and f1.low <= f1.value <= f1.high
    assert rows["mathverify:workers=1"]["hacking FPR"] is None
    for name in ("items_per_second", "seconds_p50", "seconds_p99"):
        assert rule_gsm[name] is not None and rule_gsm[name] >= 0
    assert rule_gsm["seconds_p50"] <= rule_gsm["seconds_p99"]
    assert table.cell(0, table.headers.index("VerifyBench-Hard")) == "—"


def test_figures_are_written(store, tmp_path, data_root):
    from harness import plots
    from harness.evaluate import EvalRequest, evaluate_reward

    pytest.importorskip("matplotlib", reason="the plots extra is part of the test environment")
    eval_run = evaluate_reward(EvalRequest("rule", "sample"), store)
    train_id = store.begin(NewRun("train", "cooper:model=m", "gsm8k", "gsm8k", "h", 3, {}, {}))
    for step in (1, 2, 3):
        store.log_step(train_id, step, {"train_reward": 0.2 * step, "rule_accuracy": 0.1 * step,
                                        "heldout_accuracy": 0.05 * step, "rm_probe_accuracy": 0.6 + 0.05 * step})
    written = (plots.training_dynamics(store, [train_id], tmp_path / "dyn")
               + plots.reward_model_accuracy(store, [train_id], tmp_path / "rm")
               + plots.score_distribution(store, [eval_run.id, eval_run.id], tmp_path / "scores"))
    assert [p.suffix for p in written] == [".png", ".svg"] * 3
    dynamics, rm, scores = (svg_texts(p) for p in written[1::2])
    assert {"cooper:model=m: training reward", "cooper:model=m: rule accuracy", "held-out accuracy", "step"} <= set(dynamics)
    assert {"reward probe accuracy", "cooper:model=m"} <= set(rm)
    assert "rule on sample" in scores and any(t.startswith("labelled correct (") for t in scores)


def test_plot_command_writes_each_kind(store, tmp_path, data_root):
    from click.testing import CliRunner

    from harness.cli import main
    from harness.evaluate import EvalRequest, evaluate_reward

    pytest.importorskip("matplotlib", reason="the plots extra is part of the test environment")
    run = evaluate_reward(EvalRequest("rule", "sample"), store)
    result = CliRunner().invoke(main, ["--store", str(store.path), "plot", "--kind", "scores", run.id,
                                       "--output", str(tmp_path / "fig" / "scores")])
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == [str(tmp_path / "fig" / "scores.png"), str(tmp_path / "fig" / "scores.svg")]
    missing = CliRunner().invoke(main, ["--store", str(store.path), "plot", "--kind", "training", "nope",
                                        "--output", str(tmp_path / "t")])
    assert missing.exit_code == 1 and "no run 'nope'" in missing.output


def test_training_layout_and_figures_aggregate_seeds(store, tmp_path):
    from harness import plots
    from harness.tables import paper_table
    from trainers.step_metrics import final_metrics

    pytest.importorskip("matplotlib", reason="the plots extra is part of the test environment")
    ids = []
    for reward, held, alarm in (("cooper:model=m,seed=0", 0.5, None), ("cooper:model=m,seed=1", 0.7, None), ("verifyrm:model=m", 0.1, 3)):
        with store.recording(NewRun("train", reward, "d", "d", "", 3, {}, {})) as run_id:
            for step in (1, 2, 3):
                values = {"train_reward": 0.5, "rule_accuracy": 0.4, "rm_probe_accuracy": 0.6, "rm_valid_pairs": 8.0}
                if step == 3:
                    values["heldout_accuracy"] = held
                if alarm == step:
                    values["hacking_alarm"] = 1.0
                store.log_step(run_id, step, values)
            store.complete(run_id, [], final_metrics(store.steps(run_id)), 1.0)
        ids.append(run_id)
    table = paper_table("training", [store.get(i) for i in ids])
    cooper, static = table.rows
    assert cooper[:3] == ["cooper:model=m", 2, pytest.approx(0.6)] and cooper[3] == pytest.approx(0.1414, abs=1e-3)
    assert cooper[-2].value == 8.0 and cooper[-2].error == 0.0 and cooper[-1] == "0/2"
    assert cooper[6].value == 0.5 and cooper[6].spread == "sd"  # a mean over seeds with its spread
    assert static[1] == 1 and static[-1] == "1/1 (steps 3)"
    written = plots.training_dynamics(store, ids, tmp_path / "dyn") + plots.reward_model_accuracy(store, ids, tmp_path / "rm")
    texts = svg_texts(written[1])  # the seeds of one setting are one series with a band, the static model another
    assert "cooper:model=m: training reward (mean of 2, min-max band)" in texts
    assert "verifyrm:model=m: training reward" in texts and not any("seed=" in t for t in texts)


def test_the_seeds_of_one_setting_group_whatever_folders_their_runs_write_to():
    from harness.tables import setting

    a = "cooper:model=rm,negatives=group,seed=0,snapshot_dir=runs/x-seed0-rm,checkpoint_dir=runs/x-seed0-state"
    b = "cooper:model=rm,negatives=group,seed=1,snapshot_dir=runs/x-seed1-rm,checkpoint_dir=runs/x-seed1-state"
    assert setting(a) == setting(b) == "cooper:model=rm,negatives=group"
    assert setting("cooper:model=rm,negatives=perturb,seed=0") != setting(a)


def test_the_published_verifiers_table_is_made_again_from_its_committed_store(tmp_path):
    """docs/verifiers/README.md's table is what ``harness tables --layout verifiers`` makes of the store beside it;
    every run in it names a commit, from a clean tree."""
    from pathlib import Path

    from harness.core.store import RunStore
    from harness.report import render_text
    from harness.tables import paper_table

    folder = Path(__file__).resolve().parents[2] / "docs" / "verifiers"
    copy = tmp_path / "runs.sqlite"
    copy.write_bytes((folder / "runs.sqlite").read_bytes())  # opening a store may migrate it: a copy
    store = RunStore(copy)
    runs = store.runs(kind="reward-eval", status="complete", limit=50)
    table = render_text(paper_table("verifiers", runs, items_of=lambda run: store.items(run.id)), "markdown").strip()
    assert table in (folder / "README.md").read_text()
    assert all(len(r.versions["commit"]) == 40 and r.versions["dirty"] == "false" for r in runs)
