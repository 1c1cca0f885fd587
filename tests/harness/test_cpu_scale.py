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
def test_cooper_hole_pipeline_runs_shortened(tmp_path, data_root):
    """experiments/cooper_regime/run_hole.sh end to end at tiny sizes: data, warm-up, the policy's rollouts labelled,
    the static reward model and its control, the pilot, the three rewards' training runs with the probe and the
    hole's pattern logged every step, and the report with its criteria. The pipeline, not the science
    (docs/cpu_scale/cooper_hole holds the full runs; the first experiment's run.sh stays as its control)."""
    require_packaged_smollm2()
    env = {**os.environ, "OUT": str(tmp_path / "out"), "DOCS": str(tmp_path / "docs"), "STEPS": "2", "SEEDS": "0",
           "SMALL": "1", "HARNESS_STORE": str(tmp_path / "runs.sqlite"),
           "PILOT_SETTINGS": "negatives=group,learning_rate=2e-4"}
    # in a session of its own: on a timeout the whole pipeline goes (a training run it started included)
    process = subprocess.Popen(["bash", str(REPO / "experiments" / "cooper_regime" / "run_hole.sh")], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, stderr = process.communicate(timeout=1800)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
        pytest.fail("the shortened pipeline took more than 30 minutes: " + stderr[-2000:])
    assert process.returncode == 0, stderr[-4000:]
    pilot = json.loads((tmp_path / "out" / "pilot.json").read_text())
    assert {"P1", "P2", "P3", "static", "cooper"} <= set(pilot)
    store = RunStore(tmp_path / "runs.sqlite")
    train = store.runs(kind="train", status="complete")
    assert sorted(r.reward.split(":")[0] for r in train) == ["cooper", "rule", "verifyrm"]
    for run in train:
        steps = store.steps(run.id)
        assert sorted(steps) == [1, 2]
        assert all({"rm_probe_ranking", "rm_hole_pay", "hole_share", "hole_wrong_share"} <= set(v) for v in steps.values())
        assert run.metric("final_heldout_accuracy") is not None
    cooper = next(r for r in train if r.reward.startswith("cooper"))
    assert all("rm_groups_without_positive" in v for v in store.steps(cooper.id).values())
    summary = (tmp_path / "docs" / "summary.md").read_text()
    assert "## Pilot (before the runs)" in summary and "**H (the static model is hacked)**" in summary
    assert "**C1 (Cooper holds)**" in summary and "**C2 (Cooper beats the static model)**" in summary
    svg = (tmp_path / "docs" / "probe.svg").read_text()
    assert "hole pay rate" in svg and "ranking of right over wrong" in svg
