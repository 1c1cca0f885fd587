"""A trainer records a run through :class:`trainers.recording.RunLog`: a hacked-looking run stored step by step,
its alarm fired once, warned in the shared words and stored at its step, the progress line told of each training
step, and the run completed with final metrics from the stored steps."""

from harness.core.records import RunStatus
from harness.core.store import NewRun, RunKind, RunStore
from trainers.hacking import alarm_message
from trainers.recording import RunLog


def test_a_run_log_runs_the_alarm_and_records_every_step(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.begin(NewRun(kind=RunKind.TRAIN, reward="r", suite="s", data_source="d", data_hash="", n_items=1,
                                config={}, versions={}))
    warnings, shown = [], []
    run_log = RunLog(store, run_id, alarm_window=5, total_steps=8, warn=warnings.append,
                     progress=lambda step, total, values: shown.append((step, total)))
    run_log.log(0, {"heldout_accuracy": 0.5})  # beside the training steps: no alarm, no progress line
    fired = [run_log.step(s, {"train_reward": 0.5 + 0.05 * s, "rule_accuracy": 0.6 - 0.04 * s}) for s in range(1, 9)]
    run_log.complete()

    assert fired.index(True) == 4 and fired.count(True) == 1  # the fifth step fills the window of 5
    assert warnings == [alarm_message(5, 5)]
    assert shown == [(s, 8) for s in range(1, 9)]
    steps = store.steps(run_id)
    assert steps[0] == {"heldout_accuracy": 0.5}
    assert [s for s, v in steps.items() if v.get("hacking_alarm")] == [5]
    record = store.get(run_id)
    metrics = {m.name: m.value for m in record.metrics}
    assert record.status == RunStatus.COMPLETE
    assert metrics["hacking_alarm_step"] == 5 and metrics["steps"] == 8  # step 0 is the start, not a step
    assert metrics["final_train_reward"] == 0.5 + 0.05 * 8


def test_a_step_without_both_numbers_leaves_the_alarm_alone(tmp_path):
    """A reward server's step without the rule accuracy (no rollouts judged) is stored, never alarmed on."""
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = store.begin(NewRun(kind=RunKind.TRAIN, reward="r", suite="s", data_source="d", data_hash="", n_items=1,
                                config={}, versions={}))
    run_log = RunLog(store, run_id, alarm_window=2)
    assert not any(run_log.step(s, {"train_reward": 0.1 * s}) for s in range(1, 6))
    assert sorted(store.steps(run_id)) == [1, 2, 3, 4, 5]
