"""The CPU-scale experiments: the negative control's data script, and the Cooper-regime experiment's one command
shortened to two steps (what CI runs: the pipeline, not the science; docs/cpu_scale holds the full runs)."""

from __future__ import annotations

import json
import os
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
def test_cooper_regime_pipeline_runs_shortened(tmp_path, data_root):
    """experiments/cooper_regime/run.sh end to end at tiny sizes: data, warm-up, reward model, its evaluations, the
    three rewards' training runs, and the report with its criteria. The pipeline, not the science."""
    require_packaged_smollm2()
    env = {**os.environ, "OUT": str(tmp_path / "out"), "DOCS": str(tmp_path / "docs"), "STEPS": "2", "SEEDS": "0",
           "SMALL": "1", "HARNESS_STORE": str(tmp_path / "runs.sqlite")}
    done = subprocess.run(["bash", str(REPO / "experiments" / "cooper_regime" / "run.sh")], env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-4000:]
    store = RunStore(tmp_path / "runs.sqlite")
    train = store.runs(kind="train", status="complete")
    assert sorted(r.reward.split(":")[0] for r in train) == ["cooper", "rule", "verifyrm"]
    for run in train:
        steps = store.steps(run.id)
        assert sorted(steps) == [1, 2] and all("rm_probe_accuracy" in v for v in steps.values())
        assert run.metric("final_heldout_accuracy") is not None
    summary = (tmp_path / "docs" / "summary.md").read_text()
    assert "Training runs by reward" in summary and "**H (the static VerifyRM is hacked)**" in summary
    assert "What the static VerifyRM pays for before RL" in summary
    assert (tmp_path / "docs" / "training_dynamics.png").stat().st_size > 1000
