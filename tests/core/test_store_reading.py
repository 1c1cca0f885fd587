"""Reading never writes: the reading commands open a store read-only (SQLite's ``mode=ro``), read an older schema
as it is, and leave its bytes unchanged; a store on read-only media is readable; a command refused before it
records anything leaves no store file behind.

The older store is the committed ``docs/cpu_scale/cooper_released/runs.sqlite`` (schema 4), a store no test wrote.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import NewRun, RunStore, StoreError

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "docs" / "cpu_scale" / "cooper_released" / "runs.sqlite"
# two complete training runs of that store, told apart by their negatives (A: perturb, B: group)
RUN_A, RUN_B = "20261127-011847-cc723f", "20261127-005815-21c934"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _version(path: Path) -> str:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    finally:
        db.close()


READS = [
    ["runs"],
    ["runs", "--format", "json"],
    ["show", RUN_A],
    ["show", RUN_A, "--items"],
    ["compare", RUN_A, RUN_B],
    ["tables", "--layout", "training", RUN_A, RUN_B],
]


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    copy = tmp_path / "runs.sqlite"
    shutil.copyfile(COMMITTED, copy)
    assert _version(copy) == "4"
    return copy


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a[:2]))
def test_a_reading_command_leaves_a_schema_4_store_byte_for_byte(old_store: Path, args: list[str]):
    before = _digest(old_store)
    result = CliRunner().invoke(main, ["--store", str(old_store), *args])
    assert result.exit_code == 0, result.output
    assert _digest(old_store) == before
    assert sorted(p.name for p in old_store.parent.iterdir()) == ["runs.sqlite"]  # no journal, no new file


def test_plot_reads_a_schema_4_store_and_writes_only_its_figures(old_store: Path, tmp_path_factory):
    before = _digest(old_store)
    out = tmp_path_factory.mktemp("figures") / "dynamics"
    result = CliRunner().invoke(main, ["--store", str(old_store), "plot", "--kind", "training", RUN_A, RUN_B,
                                       "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert out.with_suffix(".png").is_file() and out.with_suffix(".svg").is_file()
    assert _digest(old_store) == before
    assert sorted(p.name for p in old_store.parent.iterdir()) == ["runs.sqlite"]


def test_show_names_the_run_asked_for(old_store: Path):
    """A and B differ in their negatives (perturb, group): each ``show`` names its own."""
    for ref, negatives, other in ((RUN_A, "negatives=perturb", "negatives=group"),
                                  (RUN_B, "negatives=group", "negatives=perturb")):
        result = CliRunner().invoke(main, ["--store", str(old_store), "show", ref])
        assert result.exit_code == 0, result.output
        assert negatives in result.output and other not in result.output


def test_an_old_store_reads_as_the_migration_would_make_it(old_store: Path, tmp_path: Path):
    """The same runs, metrics and steps, read through the views and after a real migration."""
    migrated = tmp_path / "migrated.sqlite"
    shutil.copyfile(old_store, migrated)
    writer = RunStore(migrated)
    writer.abort("no-such-run", "failed", "a write that changes no row, to migrate")
    assert _version(migrated) == "5"
    as_is = RunStore.existing(old_store)
    for ref in (RUN_A, RUN_B):
        assert as_is.get(ref) == writer.get(ref)
        assert as_is.steps(ref) == writer.steps(ref)
        assert as_is.artifacts(ref) == writer.artifacts(ref)
        assert as_is.texts(ref) == writer.texts(ref) == {}
    assert [r.id for r in as_is.runs(limit=100)] == [r.id for r in writer.runs(limit=100)]
    assert _version(old_store) == "4"


def test_a_store_opened_for_reading_refuses_to_write(old_store: Path):
    reader = RunStore.existing(old_store)
    before = _digest(old_store)
    with pytest.raises(StoreError, match="reading only"):
        reader.begin(NewRun("reward-eval", "rule", "sample", "x", "", 1, {}, {}))
    assert _digest(old_store) == before


def test_a_write_migrates_and_keeps_the_old_runs(old_store: Path):
    store = RunStore(old_store)
    before = store.get(RUN_A)
    run_id = store.begin(NewRun("reward-eval", "rule", "sample", "x", "", 1, {}, {}))
    assert _version(old_store) == "5"
    assert store.get(RUN_A) == before and store.get(run_id).status == "running"


def test_a_store_on_read_only_media_is_read(tmp_path: Path):
    """The store's folder is bind-mounted read-only (in a mount namespace of the test's own, so no privilege is
    needed): the file cannot be written by anyone, root included, as on a read-only disk."""
    if shutil.which("unshare") is None:
        pytest.skip("util-linux's unshare is needed to mount a folder read-only")
    folder = tmp_path / "media"
    folder.mkdir()
    copy = folder / "runs.sqlite"
    shutil.copyfile(COMMITTED, copy)
    before = _digest(copy)
    code = ("import sys\n"
            "try:\n    open(sys.argv[1], 'ab')\nexcept OSError as exc:\n    print('read-only:', exc.errno)\n"
            "else:\n    sys.exit('the store could be written')\n"
            "from harness.cli import main\n"
            f"sys.argv = ['harness', '--store', sys.argv[1], 'show', '{RUN_A}']\nmain()\n")
    mount = 'mount --bind -o ro "$1" "$1" && shift && exec "$@"'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", mount, "sh", str(folder), sys.executable, "-c", code,
                           str(copy)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and done.stderr.lstrip().startswith(("unshare:", "mount:")):
        pytest.skip(f"this machine allows no private read-only mount: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "read-only: 30" in done.stdout  # EROFS: the media refused the write
    assert RUN_A in done.stdout
    assert _digest(copy) == before


def test_a_refused_eval_leaves_no_store_behind(tmp_path: Path):
    path = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(main, ["--store", str(path), "eval", "--reward", "no-such-reward", "--suite", "sample"])
    assert result.exit_code != 0
    assert not path.exists()
    result = CliRunner().invoke(main, ["--store", str(path), "eval", "--reward", "rule", "--suite", "sample",
                                       "--data", str(tmp_path / "missing.jsonl")])
    assert result.exit_code != 0
    assert not path.exists()


def test_a_store_not_yet_written_reads_as_empty_and_makes_no_file(tmp_path: Path):
    path = tmp_path / "new.sqlite"
    store = RunStore(path)
    assert store.runs() == []
    with pytest.raises(StoreError, match="no runs"):
        store.resolve("latest")
    assert not path.exists()


def test_a_file_that_is_no_store_is_refused_by_name(tmp_path: Path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are notes, not a database\n" * 20)
    with pytest.raises(StoreError, match="not a run store"):
        RunStore.existing(path)
