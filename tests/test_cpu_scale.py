"""The CPU-scale experiment (experiments/cpu_scale) shortened to two steps: its config, its data script, the
rule and Cooper rewards through the same trainer, its summary and figures. It checks the pipeline, not the
science; docs/cpu_scale holds the full run."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from harness.store import RunStore
from trainers.grpo import GRPORunConfig, load_config_file

from .models import require_packaged_smollm2, tiny_classifier

EXPERIMENT = Path(__file__).resolve().parent.parent / "experiments" / "cpu_scale"


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
def test_experiment_config_runs_shortened(tmp_path, data_root):
    require_packaged_smollm2()
    spec = importlib.util.spec_from_file_location("cpu_scale_report", EXPERIMENT / "report.py")
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    from trainers.trl_backend import TRLTrainer

    subprocess.run([sys.executable, str(EXPERIMENT / "make_arithmetic.py"), "--out", str(tmp_path), "--train", "8",
                    "--test", "2"], check=True, capture_output=True)
    values = load_config_file(str(EXPERIMENT / "config.yaml"))
    base = GRPORunConfig.merged(values, {"reward": "rule:workers=1"})
    short = replace(base, dataset=str(tmp_path / "arithmetic_train.jsonl"), eval_suite=str(tmp_path / "arithmetic_test.jsonl"),
                    max_steps=2, num_generations=4, prompts_per_step=1, max_completion_length=16, eval_every=1,
                    eval_limit=2, eval_max_tokens=8, warmup_steps=0)
    store = RunStore(tmp_path / "runs.sqlite")
    rm = tiny_classifier(tmp_path / "rm")
    runs = []
    for spec in ("rule:workers=1", f"cooper:model={rm},negatives=group"):
        cfg = replace(short, reward=spec, output=str(tmp_path / spec.split(":")[0]), probe="sample", probe_limit=4)
        runs.append(TRLTrainer(cfg, warn=lambda m: None).run(store))
    assert [r.status for r in runs] == ["complete", "complete"]
    cooper_steps = store.steps(runs[1].id)
    assert all("rm_probe_accuracy" in v for v in cooper_steps.values() if "train_reward" in v)
    summary = report.training_summary(store, runs)
    assert summary.count("\n") == 4 and "`cooper" in summary and "1: " in summary  # held-out accuracy at step 1
