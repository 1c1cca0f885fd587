"""The run store never reports numbers for a run that did not finish."""

import sqlite3

import pytest

from harness.core.store import SCHEMA_VERSION, ItemRow, Metric, NewRun, RunStore, StoreError
from harness.evaluate import EvalRequest, evaluate_reward
from rewards import REWARDS, Score


def new_run(**over):
    base = dict(kind="reward-eval", reward="rule", suite="sample", data_source="x", data_hash="h", n_items=1,
                config={}, versions={})
    base.update(over)
    return NewRun(**base)


def test_complete_run_round_trip(store):
    run_id = store.begin(new_run())
    store.complete(
        run_id,
        [ItemRow(0, "u", "Numeric", True, 1.0, True, "verified", "42", 0.01)],
        [Metric("accuracy", 1.0, True, 1, "overall")],
        wall_seconds=0.5,
    )
    run = store.get(run_id[:12])
    assert run.status == "complete" and run.metric("accuracy") == 1.0 and run.wall_seconds == 0.5
    assert store.items(run_id)[0].answer == "42"
    assert store.resolve("latest") == run_id
    with pytest.raises(StoreError, match="not running"):
        store.complete(run_id, [], [], 0.0)


def test_failed_write_rolls_back_items_and_metrics(store):
    run_id = store.begin(new_run())
    duplicate = ItemRow(0, "u", "c", True, 1.0, True, "", None, 0.0)
    with pytest.raises(sqlite3.IntegrityError):
        store.complete(run_id, [duplicate, duplicate], [Metric("accuracy", 1.0, True, 1, "overall")], 0.1)
    run = store.get(run_id)
    assert run.status == "running" and run.metrics == [] and store.items(run_id) == []


def test_unknown_and_ambiguous_refs(store):
    with pytest.raises(StoreError, match="no runs"):
        store.resolve("latest")
    a, b = store.begin(new_run()), store.begin(new_run())
    with pytest.raises(StoreError, match="ambiguous"):
        store.resolve(a[:4])
    with pytest.raises(StoreError, match="no run 'zzz'"):
        store.get("zzz")
    assert {r.id for r in store.runs()} == {a, b}


class ExplodesOnSecondBatch:
    def __init__(self) -> None:
        self.calls = 0

    def score(self, items):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("model server went away")
        return [Score.correct() for _ in items]


class InterruptedOnSecondBatch(ExplodesOnSecondBatch):
    def score(self, items):
        if self.calls == 1:
            raise KeyboardInterrupt
        return super().score(items)


class BreaksTheContractOnSecondBatch(ExplodesOnSecondBatch):
    def score(self, items):
        self.calls += 1
        return [Score.correct() for _ in items][: 1 if self.calls == 2 else None]


@pytest.mark.parametrize("reward_cls, status, exc", [
    (BreaksTheContractOnSecondBatch, "failed", ValueError),
    (InterruptedOnSecondBatch, "interrupted", KeyboardInterrupt),
])
def test_interrupted_evaluation_leaves_a_marked_run_without_numbers(store, reward_cls, status, exc):
    REWARDS.register("explodes-for-test", reward_cls)
    try:
        with pytest.raises(exc):
            evaluate_reward(EvalRequest("explodes-for-test", "sample", batch_size=8), store)
    finally:
        REWARDS.unregister("explodes-for-test")
    [run] = store.runs()
    assert run.status == status and run.metrics == [] and store.items(run.id) == []
    assert run.error


def test_a_batch_the_reward_raises_on_is_scored_again_item_by_item_and_the_run_completes(store):
    REWARDS.register("explodes-for-test", ExplodesOnSecondBatch)
    try:
        run = evaluate_reward(EvalRequest("explodes-for-test", "sample", batch_size=8), store)
    finally:
        REWARDS.unregister("explodes-for-test")
    assert run.status == "complete" and all(i.verdict is True for i in store.items(run.id))


def test_newer_schema_is_refused_for_reading_and_for_writing(tmp_path):
    path = tmp_path / "s.sqlite"
    RunStore(path).begin(new_run())
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    with pytest.raises(StoreError, match="newer than this harness"):
        RunStore.existing(path)
    with pytest.raises(StoreError, match="newer than this harness"):
        RunStore(path).runs()
    with pytest.raises(StoreError, match="newer than this harness"):
        RunStore(path).begin(new_run())


def test_recording_never_leaves_a_run_running(store):
    with store.recording(new_run()) as done:
        store.complete(done, [], [], 1.0)
    with store.recording(new_run()) as forgotten:
        pass  # a caller that forgets to complete
    with pytest.raises(TypeError):
        with store.recording(new_run()) as broken:
            raise TypeError("a bad option, after the run began")
    assert [store.get(r).status for r in (done, forgotten, broken)] == ["complete", "failed", "failed"]
    assert store.get(broken).error == "TypeError: a bad option, after the run began"


def test_a_schema_2_store_opens_migrated_with_its_runs(tmp_path):
    """A store written before schema 3: items without detail, data_hash holding counts, n_items holding max_steps."""
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema_version', '2');
        CREATE TABLE runs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, status TEXT NOT NULL, reward TEXT NOT NULL,
            suite TEXT NOT NULL, data_source TEXT NOT NULL, data_hash TEXT NOT NULL, n_items INTEGER NOT NULL,
            config TEXT NOT NULL, versions TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
            wall_seconds REAL, error TEXT);
        CREATE TABLE items (run_id TEXT NOT NULL, idx INTEGER NOT NULL, uid TEXT, category TEXT, label INTEGER,
            value REAL, verdict INTEGER, reason TEXT, answer TEXT, latency_s REAL, PRIMARY KEY (run_id, idx));
        INSERT INTO runs VALUES ('r1', 'train', 'complete', 'rule', 'gsm8k', 'gsm8k', 'prompts:400', 40, '{}', '{}',
            '2026-11-20T00:00:00+00:00', NULL, 1.0, NULL);
        INSERT INTO runs VALUES ('r2', 'reward-eval', 'complete', 'rule', 'sample', 'x', 'abc123', 2, '{}', '{}',
            '2026-11-20T00:00:01+00:00', NULL, 1.0, NULL);
        INSERT INTO items VALUES ('r2', 0, 'a', 'A', 1, 1.0, 1, 'verified', '4', 0.1);
    """)
    db.commit()
    db.close()
    before = path.read_bytes()
    store = RunStore(path)
    train, evaluation = store.get("r1"), store.get("r2")
    assert (train.kind, train.data_hash, train.n_items) == ("train", "", 400)  # the prompts, not max_steps
    assert evaluation.data_hash == "abc123" and store.items("r2")[0].detail == ""
    assert path.read_bytes() == before  # read as it is, as the migration would read it: nothing written
    run_id = store.begin(new_run())  # the first write migrates
    store.complete(run_id, [ItemRow(0, "u", "A", True, 0.0, False, "timeout", None, 2.0, "killed after 2s")], [], 1.0)
    assert store.items(run_id)[0].detail == "killed after 2s"  # the cause of a failure is kept
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT n_items, data_hash FROM runs WHERE id='r1'").fetchone() == (400, "")
        assert db.execute("SELECT value FROM meta").fetchone() == (str(SCHEMA_VERSION),)


def test_a_runs_settings_are_its_kinds_typed_config(tmp_path):
    from harness.core.store import EvalSettings, RunStatus, TrainingSettings

    store = RunStore(tmp_path / "s.sqlite")
    train = store.begin(NewRun("train", "rule", "d", "d", "", 1, {"output": "runs/x", "seed": 2, "beta": 0.1}, {}))
    old = store.begin(NewRun("reward-eval", "rule", "s", "s", "", 1, {"limit": 5}, {}))  # stored before category_name
    assert store.get(train).settings == TrainingSettings(output="runs/x", seed=2)  # beta is the trainer's own
    assert store.get(old).settings == EvalSettings(limit=5)
    assert store.get(old).status is RunStatus.RUNNING and str(store.get(old).status) == "running"


def test_probe_scores_and_artifacts_round_trip_and_go_with_their_run(store):
    from harness.core.store import Artifact, ProbeScore

    run_id = store.begin(new_run(kind="train"))
    rows = [ProbeScore(0, "right", True, 0.9), ProbeScore(1, "hole", False, None)]
    store.log_probe(run_id, 0, rows)
    store.log_probe(run_id, 1, [ProbeScore(0, "right", True, 0.8), ProbeScore(1, "hole", False, 0.2)])
    store.log_artifact(run_id, Artifact(5, "update-0005", "/x/update-0005", "ab" * 32))
    assert store.probe_scores(run_id)[0] == rows
    assert [r.value for r in store.probe_scores(run_id)[1]] == [0.8, 0.2]
    assert store.artifacts(run_id) == [Artifact(5, "update-0005", "/x/update-0005", "ab" * 32)]
    with sqlite3.connect(store.path) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("DELETE FROM runs WHERE id=?", (run_id,))
        assert db.execute("SELECT COUNT(*) FROM probe_scores").fetchone() == (0,)
        assert db.execute("SELECT COUNT(*) FROM artifacts").fetchone() == (0,)


def test_an_export_holds_the_chosen_runs_whole_and_opens_as_a_store(store, tmp_path):
    from harness.core.store import ProbeScore

    keep, drop = store.begin(new_run(kind="train")), store.begin(new_run(kind="train"))
    for run_id in (keep, drop):
        store.log_step(run_id, 1, {"train_reward": 0.5})
        store.log_probe(run_id, 1, [ProbeScore(0, "right", True, 0.7)])
    dest = store.export(tmp_path / "out" / "runs.sqlite", [keep])
    exported = RunStore(dest)
    assert [r.id for r in exported.runs()] == [keep]
    assert exported.steps(keep) == {1: {"train_reward": 0.5}}
    assert exported.probe_scores(keep)[1][0].value == 0.7
    with sqlite3.connect(dest) as db:
        assert db.execute("SELECT COUNT(*) FROM steps WHERE run_id=?", (drop,)).fetchone() == (0,)
    assert [r.id for r in store.runs()] == [drop, keep] or [r.id for r in store.runs()] == [keep, drop]
    assert not list((tmp_path / "out").glob(".*tmp"))  # no temporary file left beside it


def _owned_by(store, run_id, host, pid):
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE owners SET host=?, pid=? WHERE run_id=?", (host, pid, run_id))


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid  # gone, and not reused within the test


def test_a_running_run_is_orphaned_only_when_its_process_on_this_host_is_gone(store):
    import socket

    here, dead = socket.gethostname(), _dead_pid()
    alive = store.begin(new_run())  # this process: alive
    assert not store.get(alive).orphaned
    gone_here = store.begin(new_run())
    _owned_by(store, gone_here, here, dead)
    assert store.get(gone_here).orphaned
    elsewhere = store.begin(new_run())  # a pid here says nothing about another machine's process
    _owned_by(store, elsewhere, here + "-elsewhere", dead)
    assert not store.get(elsewhere).orphaned


def test_the_default_store_is_runs_sqlite_in_the_users_data_folder(monkeypatch):
    from platformdirs import user_data_path

    from harness.core.store import STORE_ENV, default_store_path

    monkeypatch.delenv(STORE_ENV, raising=False)
    assert default_store_path() == user_data_path("rl-reward-harness") / "runs.sqlite"
    monkeypatch.setenv(STORE_ENV, "~/elsewhere.sqlite")
    assert str(default_store_path()).endswith("/elsewhere.sqlite") and "~" not in str(default_store_path())


def test_runs_lists_the_newest_fifty_unless_asked_for_more(store):
    ids = [store.begin(new_run()) for _ in range(52)]
    listed = [r.id for r in store.runs()]
    assert listed == ids[::-1][:50]
    assert len(store.runs(limit=60)) == 52


def test_an_existing_store_is_opened_and_a_missing_one_is_refused_creating_nothing(tmp_path):
    made = RunStore(tmp_path / "runs.sqlite")
    run_id = made.begin(new_run())
    assert RunStore.existing(tmp_path / "runs.sqlite").get(run_id).id == run_id
    typo = tmp_path / "nested" / "runz.sqlite"
    with pytest.raises(StoreError, match=f"no run store at {typo}: check --store"):
        RunStore.existing(typo)
    assert not (tmp_path / "nested").exists()  # neither the file nor the folder on its way


def test_latest_is_the_newest_run_begun_whatever_its_row_order(tmp_path):
    """A store merged or rebuilt holds a newer run in an earlier row: latest goes by when runs began."""
    import sqlite3

    from harness.core.store import NewRun, RunStore

    store = RunStore(tmp_path / "s.sqlite")
    newer = store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
    older = store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
    with sqlite3.connect(store.path) as db:  # the second row began a minute before the first
        db.execute("UPDATE runs SET created_at='2000-01-01T00:00:00+00:00' WHERE id=?", (older,))
    assert store.get("latest").id == newer


def test_an_id_prefix_is_matched_as_written(tmp_path):
    from harness.core.store import NewRun, RunStore, StoreError

    store = RunStore(tmp_path / "s.sqlite")
    run_id = store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
    assert store.resolve(run_id[:15]) == run_id
    wildcard = run_id[:8] + "_" + run_id[9:15]  # "_" where the id has "-": no run has that id
    with pytest.raises(StoreError, match="no run"):
        store.resolve(wildcard)
    if run_id != run_id.upper():  # its hex suffix has a letter: the upper-case id is another id
        with pytest.raises(StoreError, match="no run"):
            store.resolve(run_id.upper())


def test_exporting_an_unknown_run_refuses_and_leaves_nothing(tmp_path):
    from harness.core.store import NewRun, RunStore, StoreError

    store = RunStore(tmp_path / "s.sqlite")
    store.begin(NewRun("reward-eval", "rule", "sample", "d", "h", 1, {}, {}))
    with pytest.raises(StoreError):
        store.export(tmp_path / "out" / "copy.sqlite", ["no-such-run"])
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_runs_are_listed_by_suite_reward_status_and_kind_each_alone_and_together(store):
    """The filters of `harness runs`: each narrows the list to what it names, and they combine with AND."""
    a = store.begin(new_run(suite="sample", reward="rule", kind="reward-eval"))
    b = store.begin(new_run(suite="processbench", reward="rule", kind="reward-eval"))
    c = store.begin(new_run(suite="sample", reward="verifyrm", kind="train"))
    store.abort(b, "failed", "boom")

    def ids(**filters):
        return {r.id for r in store.runs(**filters)}

    assert ids() == {a, b, c}
    assert ids(suite="sample") == {a, c} and ids(reward="rule") == {a, b}
    assert ids(status="failed") == {b} and ids(kind="train") == {c}
    assert ids(suite="sample", reward="rule") == {a} and ids(suite="processbench", status="running") == set()


def test_an_export_makes_the_folders_on_its_way(store, tmp_path):
    run_id = store.begin(new_run())
    dest = store.export(tmp_path / "docs" / "experiment" / "runs.sqlite")
    assert [r.id for r in RunStore(dest).runs()] == [run_id]
