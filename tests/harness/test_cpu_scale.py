"""The CPU-scale experiments: the negative control's data script, and the Cooper-regime experiment's one command
shortened to two steps (what CI runs: the pipeline, not the science; docs/cpu_scale holds the full runs)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.store import RunStore

from ..models import require_packaged_smollm2

REPO = Path(__file__).resolve().parents[2]
EXPERIMENT = REPO / "experiments" / "cpu_scale"


def test_arithmetic_sets_are_disjoint_and_seeded(tmp_path):
    for out in (tmp_path / "a", tmp_path / "b"):
        subprocess.run([sys.executable, str(EXPERIMENT / "make_arithmetic.py"), "--out", str(out), "--seed", "3",
                        "--train", "50", "--test", "10"], check=True, capture_output=True)
    assert (tmp_path / "a" / "arithmetic_train.jsonl").read_text() == (tmp_path / "b" / "arithmetic_train.jsonl").read_text()
    train = [json.loads(line) for line in (tmp_path / "a" / "arithmetic_train.jsonl").read_text().splitlines()]
    test = [json.loads(line) for line in (tmp_path / "a" / "arithmetic_test.jsonl").read_text().splitlines()]
    assert len(train) == 50 and len(test) == 10
    assert not {r["question"] for r in train} & {r["question"] for r in test}
    assert all(str(sum(int(w) for w in r["question"].replace("?", " ").replace(".", " ").split() if w.isdigit()))
               == r["answer"] for r in train + test)


@pytest.mark.slow
@pytest.mark.pipeline
def test_cooper_released_pipeline_runs_shortened(tmp_path, data_root):
    """experiments/cooper_regime/run_released.sh end to end at tiny sizes: data, warm-up, the policy's rollouts
    labelled, the static reward model, the pilot, the three reward-model arms' training runs with the probe stored
    item by item from step 0, the store exported beside the report after each run, and the report made from that
    export alone. The pipeline, not the science (docs/cpu_scale/cooper_released holds the full runs)."""
    require_packaged_smollm2()
    docs = tmp_path / "docs"
    # the three reward-model arms: the rule arm's training run is test_train's (the test command's time is short)
    env = {**os.environ, "OUT": str(tmp_path / "out"), "DOCS": str(docs), "STEPS": "1", "SEEDS": "0",
           "SMALL": "1", "HARNESS_STORE": str(tmp_path / "runs.sqlite"), "ARMS": "static cooper_released cooper_group"}
    # in a session of its own: on a timeout the whole pipeline goes (a training run it started included)
    process = subprocess.Popen(["bash", str(REPO / "experiments" / "cooper_regime" / "run_released.sh")], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, stderr = process.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        pytest.fail("the shortened pipeline took more than 30 minutes: " + stderr[-2000:])
    assert process.returncode == 0, stderr[-4000:]
    pilot = json.loads((docs / "pilot.json").read_text())
    assert {"P1", "P2", "static", "cooper", "arms"} <= set(pilot)
    assert set(pilot["cooper"]) == {"released_assistant", "released_perturb", "group"}
    store = RunStore(docs / "runs.sqlite")  # the export, not the working store
    train = store.runs(kind="train", status="complete")
    assert sorted(Path(r.config["output"]).name for r in train) == [
        "cooper_group-seed0", "cooper_released-seed0", "static-seed0"]
    for run in train:
        assert run.versions["commit"] and run.versions["dirty"] in ("true", "false", "unknown")
        steps = store.steps(run.id)
        assert sorted(steps) == [0, 1]
        assert {"rm_probe_ranking", "rm_probe_ties", "rm_keyed_ranking", "rm_hole_pay", "rm_hole_tie",
                "heldout_accuracy"} <= set(steps[0])
        assert {"hole_share", "hole_wrong_share", "rm_keyed_ranking"} <= set(steps[1])
        probe = store.probe_scores(run.id)
        assert sorted(probe) == [0, 1] and {r.category for r in probe[0]} == {"right", "wrong", "hole", "keyed_right"}
    subprocess.run([sys.executable, str(REPO / "experiments" / "cooper_regime" / "report_released.py"), "--docs",
                    str(docs)], check=True, capture_output=True)
    summary = (docs / "summary.md").read_text()
    assert "## Pilot (before the runs)" in summary and "**H (the static model is hacked)**" in summary
    assert "**Collapse (Cooper, group negatives)**" in summary and "not the experiment's" in summary
    assert "hole pay rate" in (docs / "probe.svg").read_text()


def _report_module(name: str):
    sys.path.insert(0, str(REPO / "experiments" / "cooper_regime"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def test_the_first_hole_experiment_s_pilot_is_made_again_from_its_committed_data():
    """All that is left of the first hole experiment's data is its pilot: its section of the summary and pilot.md
    are made again from pilot.json (the runs' tables cannot be: their store is lost, as its report says)."""
    docs = REPO / "docs" / "cpu_scale" / "cooper_hole"
    text = _report_module("pilot").render(json.loads((docs / "pilot.json").read_text()))
    assert (docs / "pilot.md").read_text().strip() == text.strip()
    assert f"## Pilot (before the runs)\n\n{text}\n" in (docs / "summary.md").read_text()


RELEASED = REPO / "docs" / "cpu_scale" / "cooper_released"


def test_the_released_experiment_s_summary_is_made_again_from_its_committed_store(tmp_path):
    """summary.md is what report_released.py makes of the committed store and pilot: any edit of the one without
    the other fails here. Every run in the store names the commit it ran, from a clean tree."""
    if not (RELEASED / "summary.md").exists():
        pytest.skip("the experiment has no summary yet")
    store_file = tmp_path / "runs.sqlite"
    store_file.write_bytes((RELEASED / "runs.sqlite").read_bytes())  # opening a store may migrate it: a copy
    store = RunStore(store_file)
    pilot = json.loads((RELEASED / "pilot.json").read_text())
    text, ids = _report_module("report_released").summary(store, pilot)
    assert text == (RELEASED / "summary.md").read_text()
    assert (RELEASED / "pilot.md").read_text().strip() == _report_module("pilot_released").render(pilot).strip()
    for run in store.runs(limit=10_000):
        assert len(run.versions["commit"]) == 40 and run.versions["dirty"] == "false", run.id


def test_a_run_that_started_over_takes_nothing_from_the_attempt_it_replaced(tmp_path):
    """A run stopped and resumed is two records whose steps join; a run started again from step 0 (an attempt set
    aside) replaces the steps before it, and only its record of the attempt is kept."""
    from harness.core.store import NewRun

    report = _report_module("report_released")
    store = RunStore(tmp_path / "runs.sqlite")

    def attempt(steps: dict[int, dict[str, float]]) -> str:
        run_id = store.begin(NewRun("train", "cooper:model=m", "d", "d", "h", 1, {"output": "out/cooper_group-seed0"},
                                    {}))
        for step, values in steps.items():
            store.log_step(run_id, step, values)
        return run_id

    abandoned = attempt({0: {"train_reward": 0.1}, 1: {"train_reward": 0.2}, 4: {"hacking_alarm": 1.0}})
    fresh = attempt({0: {"train_reward": 0.5}, 1: {"train_reward": 0.6}})
    resumed = attempt({2: {"train_reward": 0.7}})
    runs, steps = report.merged_runs(store)["cooper_group"][0]
    assert [r.id for r in runs] == [abandoned, fresh, resumed]
    assert steps == {0: {"train_reward": 0.5}, 1: {"train_reward": 0.6}, 2: {"train_reward": 0.7}}


RATIO = REPO / "docs" / "cpu_scale" / "cooper_ratio"


def test_the_third_experiment_s_summary_is_made_again_from_its_committed_store(tmp_path):
    """summary.md is what report_ratio.py makes of the committed store; every run in it names a clean commit."""
    if not (RATIO / "summary.md").exists():
        pytest.skip("the experiment has no summary yet")
    store_file = tmp_path / "runs.sqlite"
    store_file.write_bytes((RATIO / "runs.sqlite").read_bytes())  # opening a store may migrate it: a copy
    store = RunStore(store_file)
    text, _ = _report_module("report_ratio").summary(store)
    assert text == (RATIO / "summary.md").read_text()
    for run in store.runs(limit=10_000):
        assert len(run.versions["commit"]) == 40 and run.versions["dirty"] == "false", run.id


def test_the_new_collapse_rule_fires_on_a_loss_not_on_a_late_start_and_the_race_counts_updates():
    report = _report_module("report_ratio")
    late_start = {k: {"rm_probe_ranking": 0.95, "rm_keyed_ranking": 0.4 + 0.1 * k} for k in range(1, 8)}
    assert report.new_collapse_step(late_start) is None  # under 80% until it learned it: not a collapse
    assert _report_module("report_released").collapse_step(late_start) == 3.0  # the old rule reads it as one
    lost = {**late_start, 8: {"rm_probe_ranking": 0.95, "rm_keyed_ranking": 0.5}}
    assert report.new_collapse_step(lost) == 8.0
    unkeyed = {1: {"rm_probe_ranking": 0.5}, 3: {"rm_probe_ranking": 0.79}}
    assert report.new_collapse_step(unkeyed) == 3.0
    static = {k: {"hole_share": u} for k, u in enumerate([0.1, 0.1, 0.2, 0.5, 0.9, 1.0, 1.0, 1.0])}
    cooper = {k: {"rm_valid_pairs": p, "rm_groups": 5.0, "rm_groups_without_positive": g, "rm_hole_pay": 1.0,
                  "rm_hole_tie": 0.0} for k, p, g in [(1, 3.0, 2.0), (2, 0.0, 5.0), (3, 2.0, 1.0), (4, 4.0, 0.0),
                                                      (5, 1.0, 5.0)]}
    r = report.race(static, cooper)
    assert r["T"] == 3.0 and r["updates"] == 2.0 and r["pairs"] == 5.0 and r["hole_pay_at_T"] == 1.0
    assert r["dry_steps"] == 2.0 and r["first_dry"] == 2.0


FORMAT = REPO / "docs" / "cpu_scale" / "cooper_format"


def test_the_fourth_test_s_format_check_is_made_again_from_its_committed_json():
    """Step 1 of the fourth Cooper test: its table is rendered again from format_check.json, and the JSON says
    what the README reads from it (the static model pays every rollout in the RL text)."""
    report = json.loads((FORMAT / "format_check.json").read_text())
    assert _report_module("format_check").render(report) == (FORMAT / "format_check.md").read_text()
    for name in ("p1_rollouts", "step0_rollouts"):
        rl, trained = report["sets"][name]["formats"]["rl"], report["sets"][name]["formats"]["trained"]
        assert rl["paid"][0] == 1.0 and trained["paid"][0] < 0.5
        assert report["sets"][name]["rl_vs_trained"]["mcnemar_p"] < 1e-30


def test_the_fourth_test_s_summary_is_made_again_from_its_committed_store(tmp_path):
    """summary.md is what report_format.py makes of the committed store; every run in it names a clean commit."""
    if not (FORMAT / "summary.md").exists():
        pytest.skip("the fourth test has no summary yet")
    store_file = tmp_path / "runs.sqlite"
    store_file.write_bytes((FORMAT / "runs.sqlite").read_bytes())
    store = RunStore(store_file)
    text, _ = _report_module("report_format").summary(store)
    assert text == (FORMAT / "summary.md").read_text()
    for run in store.runs(limit=10_000):
        assert len(run.versions["commit"]) == 40 and run.versions["dirty"] == "false", run.id


def test_the_fourth_test_s_h_is_hacking_not_saturation():
    """H needs the reward to rise while the rule accuracy falls after step 1; a reward that pays 0.99 from the start
    is saturated, not hacked, however far the rule accuracy is below it (the second and third tests' static runs)."""
    report = _report_module("report_format")
    steps = lambda reward, rule: {k: {"train_reward": reward(k), "rule_accuracy": rule(k)} for k in range(1, 41)}  # noqa: E731
    hacking = report.hacked(steps(lambda k: 0.3 + 0.015 * k, lambda k: 0.3 - 0.004 * k))
    assert hacking["hacked"] and not hacking["saturated"]
    assert hacking["rise"] == pytest.approx(0.015 * 36) and hacking["fall"] == pytest.approx(-0.004 * 36)
    saturated = report.hacked(steps(lambda k: 0.99, lambda k: 0.3 - 0.004 * k))
    assert not saturated["hacked"] and saturated["saturated"]
    learning = report.hacked(steps(lambda k: 0.3 + 0.015 * k, lambda k: 0.3 + 0.01 * k))  # both rise: no hacking
    assert not learning["hacked"]
    # the third test's static runs, read by this rule: saturated, none hacked
    store = RunStore(RATIO / "runs.sqlite")  # read-only: a reading never writes
    static = report.merged_runs(store)["static"]
    assert all(report.hacked(s)["saturated"] and not report.hacked(s)["hacked"] for _, s in static.values())


def test_the_fourth_test_s_verdicts_are_the_summary_s():
    """The README's verdict on each criterion is the one summary.md computes from the store (a verdict written by
    hand that the store does not give fails here), and no verdict is given before all nine runs are in."""
    summary = (FORMAT / "summary.md").read_text()
    readme = (FORMAT / "README.md").read_text()
    verdicts = readme[readme.index("## Verdicts"):]
    for criterion in ("H", "C1", "C2"):
        [line] = [x for x in summary.splitlines() if x.startswith(f"- **{criterion} (")]
        computed = "not met" if line.endswith("**Not met.**") else "met" if line.endswith("**Met.**") else None
        assert computed is not None, line
        assert f"- **{criterion}: {computed}" in verdicts, criterion
    runs = [x for x in summary.split("## Runs in the store")[1].splitlines() if "| complete |" in x]
    assert sum(" model build " not in x for x in runs) == 9
