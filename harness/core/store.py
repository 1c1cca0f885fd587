"""The run store: every evaluation is a run in one SQLite file.

A run is inserted as ``running`` when it starts; its items and metrics are written, and its status set to
``complete``, in one transaction at the end. So an interrupted run is either absent or marked ``running``
/ ``interrupted`` / ``failed`` with no metrics: never half-written numbers. The schema is versioned in the
``meta`` table.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness.core.errors import UserError
from harness.core.records import (  # noqa: F401 - the records are read from here too
    Artifact,
    EvalSettings,
    ItemRow,
    ItemText,
    Metric,
    NewRun,
    PolicyEvalSettings,
    ProbeScore,
    RunKind,
    RunRecord,
    RunStatus,
    TrainingSettings,
    content_hash,
)
from harness.core.schema import (  # noqa: F401 - SCHEMA_VERSION is read from here too
    SCHEMA,
    SCHEMA_VERSION,
    SchemaError,
    prepare,
    read_as_current,
    stored_version,
)

_log = logging.getLogger(__name__)

STORE_ENV = "HARNESS_STORE"


class Terminated(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM): ended like Ctrl-C, so that runs are marked ``interrupted`` and
    child processes are stopped on the way out. The message says which signal."""


class StoreError(UserError, LookupError):
    """A run is unknown or ambiguous, or the store file is unusable."""


class RunFailed(UserError, RuntimeError):
    """A run that ended without numbers worth keeping (a reward that failed on most of its items): stored as
    ``failed``, left out of tables, and the command exits non-zero with this one-line cause."""


def default_store_path() -> Path:
    """``$HARNESS_STORE``, else ``runs.sqlite`` in the user's data directory."""
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_path

    return user_data_path("rl-reward-harness") / "runs.sqlite"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")



def _gone(host: str, pid: int) -> bool:
    """The process ``pid`` on ``host`` no longer exists (known only for this host; elsewhere: not known, so not)."""
    if host != socket.gethostname():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, as another user's
        return False
    return False


def _bool_or_none(v: Any) -> bool | None:
    return None if v is None else bool(v)


class RunStore:
    """A SQLite file of runs. Opened per operation, so one store object is safe to share across threads.

    Nothing touches the file before the first write: a command refused before it records a run leaves no store
    behind, and reading an older store does not migrate it (:func:`~harness.core.schema.read_as_current`). A
    store opened with ``readonly`` (what reading commands use, :meth:`existing`) is opened by SQLite in
    ``mode=ro``: it can sit on read-only media, and any write is refused."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.readonly = readonly
        self._prepared = False

    @classmethod
    def existing(cls, path: str | os.PathLike[str] | None = None, *, readonly: bool = True) -> RunStore:
        """A store that must exist already: reading commands open stores this way (read-only unless ``readonly``
        is False: a command that reads a run and records another), so a mistyped path is an error naming it,
        never a new empty database (nor the folders on its way)."""
        resolved = Path(path).expanduser() if path is not None else default_store_path()
        if not resolved.is_file():
            hint = (f"check --store (or {STORE_ENV})" if path is not None or os.environ.get(STORE_ENV)
                    else "a run store is made by the first harness eval or train that records a run")
            raise StoreError(f"no run store at {resolved}: {hint}")
        store = cls(resolved, readonly=readonly)
        with store._connect():  # a file that is no store, or a newer one, is refused now
            pass
        return store

    def _ensure_schema(self) -> None:
        """Create or migrate the file, once, before the first write."""
        if self._prepared:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30)
        try:
            with db:
                prepare(db)
        except SchemaError as exc:
            raise StoreError(f"{self.path}: {exc}") from exc
        finally:
            db.close()
        self._prepared = True

    def _open_for_reading(self) -> sqlite3.Connection:
        if not self.path.is_file():  # nothing recorded yet: an empty store, made in memory, not on disk
            db = sqlite3.connect(":memory:")
            db.executescript(SCHEMA)
            return db
        db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
        try:
            version = stored_version(db)
            if version is None:
                db.executescript(SCHEMA.replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE IF NOT EXISTS"))
            else:
                read_as_current(db, version)
        except SchemaError as exc:
            db.close()
            raise StoreError(f"{self.path}: {exc}") from exc
        except BaseException:
            db.close()
            raise
        return db

    @contextmanager
    def _connect(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """A connection for one operation: a writing one (the schema made current first), or a reading one that
        leaves the file as it is."""
        if write:
            if self.readonly:
                raise StoreError(f"{self.path} was opened for reading only")
            self._ensure_schema()
            db = sqlite3.connect(self.path, timeout=30)
        elif self._prepared:
            db = sqlite3.connect(self.path, timeout=30)
        else:
            db = self._open_for_reading()
        try:
            db.execute("PRAGMA foreign_keys = ON")
            with db:  # commits on success, rolls back on any exception
                yield db
        finally:
            db.close()

    # -- writing ------------------------------------------------------------------------------
    def begin(self, run: NewRun) -> str:
        run_id = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
        with self._connect(write=True) as db:
            db.execute(
                "INSERT INTO runs (id, kind, status, reward, suite, data_source, data_hash, n_items, config,"
                " versions, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    run_id, RunKind(run.kind).value, RunStatus.RUNNING.value, run.reward, run.suite, run.data_source, run.data_hash,
                    run.n_items, json.dumps(run.config, sort_keys=True), json.dumps(run.versions, sort_keys=True),
                    _now(),
                ),
            )
            # who runs it: a run whose process is gone without ending it is shown as such (RunRecord.orphaned)
            db.execute("INSERT OR REPLACE INTO owners VALUES (?,?,?)", (run_id, socket.gethostname(), os.getpid()))
        return run_id

    def complete(
        self, run_id: str, items: Sequence[ItemRow], metrics: Sequence[Metric], wall_seconds: float,
        n_items: int | None = None,
    ) -> None:
        """Write items and metrics and mark the run complete, all in one transaction; ``n_items`` corrects the
        count when it is known only at the end (problems a policy was evaluated on, rollouts a server saw)."""
        with self._connect(write=True) as db:
            _insert_items(db, run_id, items)
            if n_items is not None:
                db.execute("UPDATE runs SET n_items=? WHERE id=?", (n_items, run_id))
            db.executemany(
                "INSERT INTO metrics (run_id, name, value, higher_is_better, n, grp, low, high) VALUES (?,?,?,?,?,?,?,?)",
                [(run_id, m.name, m.value, _int(m.higher_is_better), m.n, m.group, m.low, m.high) for m in metrics],
            )
            db.execute(
                "UPDATE runs SET status=?, finished_at=?, wall_seconds=? WHERE id=?",
                (RunStatus.COMPLETE.value, _now(), wall_seconds, run_id),
            )

    def log_items(self, run_id: str, items: Sequence[ItemRow], texts: Sequence[ItemText]) -> None:
        """Items of a running run as they are scored, with their texts, in one transaction: a run interrupted
        part-way keeps what it scored (its metrics come only with :meth:`complete`)."""
        if len(items) != len(texts):
            raise ValueError(f"{len(items)} items and {len(texts)} texts: each item needs its text")
        with self._connect(write=True) as db:
            _insert_items(db, run_id, items)
            db.executemany("INSERT INTO texts VALUES (?,?,?,?,?)",
                           [(run_id, it.idx, t.question, t.reference, t.completion) for it, t in zip(items, texts)])

    def texts(self, ref: str) -> dict[int, ItemText]:
        """The texts a run kept for its items, by item index (none for a run whose suite gives them)."""
        run_id = self.resolve(ref)
        with self._connect() as db:
            rows = db.execute("SELECT idx, question, reference, completion FROM texts WHERE run_id=? ORDER BY idx",
                              (run_id,)).fetchall()
        return {i: ItemText(q, r, c) for i, q, r, c in rows}

    def set_intervals(self, run_id: str, intervals: dict[str, tuple[float, float]]) -> None:
        """Give a stored run's metrics their 95% intervals (a run stored before intervals were kept)."""
        with self._connect(write=True) as db:
            db.executemany("UPDATE metrics SET low=?, high=? WHERE run_id=? AND name=?",
                           [(low, high, run_id, name) for name, (low, high) in intervals.items()])

    def log_step(self, run_id: str, step: int, values: dict[str, float]) -> None:
        """Per-step values of a training run; written as they come, so a crashed run keeps its curve."""
        with self._connect(write=True) as db:
            db.executemany(
                "INSERT OR REPLACE INTO steps VALUES (?,?,?,?)",
                [(run_id, step, k, None if v is None else float(v)) for k, v in values.items()],
            )

    def log_probe(self, run_id: str, step: int, rows: Sequence[ProbeScore]) -> None:
        """What the reward paid for each probe item at ``step``: the figures behind every probe number, kept so
        that any other summary of the probe can be computed later from the store alone."""
        with self._connect(write=True) as db:
            db.executemany(
                "INSERT OR REPLACE INTO probe_scores VALUES (?,?,?,?,?,?)",
                [(run_id, step, r.idx, r.category, _int(r.label), r.value) for r in rows],
            )

    def probe_scores(self, ref: str) -> dict[int, list[ProbeScore]]:
        """Per step, the probe items' values, in item order."""
        run_id = self.resolve(ref)
        with self._connect() as db:
            rows = db.execute("SELECT step, idx, category, label, value FROM probe_scores WHERE run_id=?"
                              " ORDER BY step, idx", (run_id,)).fetchall()
        out: dict[int, list[ProbeScore]] = {}
        for step, idx, category, label, value in rows:
            out.setdefault(step, []).append(ProbeScore(idx, category, _bool_or_none(label), value))
        return out

    def log_artifact(self, run_id: str, artifact: Artifact) -> None:
        """A file the run wrote outside the store (a reward model's weights), named by its hash."""
        with self._connect(write=True) as db:
            db.execute("INSERT OR REPLACE INTO artifacts VALUES (?,?,?,?,?)",
                       (run_id, artifact.step, artifact.name, artifact.path, artifact.sha256))

    def artifacts(self, ref: str) -> list[Artifact]:
        run_id = self.resolve(ref)
        with self._connect() as db:
            rows = db.execute("SELECT step, name, path, sha256 FROM artifacts WHERE run_id=? ORDER BY step, name",
                              (run_id,)).fetchall()
        return [Artifact(*r) for r in rows]

    def steps(self, ref: str) -> dict[int, dict[str, float | None]]:
        run_id = self.resolve(ref)
        with self._connect() as db:
            rows = db.execute("SELECT step, name, value FROM steps WHERE run_id=? ORDER BY step", (run_id,)).fetchall()
        out: dict[int, dict[str, float | None]] = {}
        for step, name, value in rows:
            out.setdefault(step, {})[name] = value
        return out

    def abort(self, run_id: str, status: RunStatus | str, error: str) -> None:
        """Mark a run that will never complete (``failed`` or ``interrupted``); it keeps no numbers."""
        with self._connect(write=True) as db:
            db.execute(
                "UPDATE runs SET status=?, finished_at=?, error=? WHERE id=? AND status=?",
                (RunStatus(status).value, _now(), error[:2000], run_id, RunStatus.RUNNING.value),
            )

    @contextmanager
    def recording(self, run: NewRun) -> Iterator[str]:
        """Begin ``run`` and guard it in one step; yields its id. The block completes it with :meth:`complete`;
        an exception or Ctrl-C inside marks it ``failed`` / ``interrupted``, and a block that ends without
        completing it marks it ``failed``: no run is left ``running`` by a caller's mistake."""
        run_id = self.begin(run)
        with self.guard(run_id):
            yield run_id
        self.abort(run_id, RunStatus.FAILED, "the run ended without being completed")  # a no-op once complete

    @contextmanager
    def guard(self, run_id: str) -> Iterator[None]:
        """Mark the run ``interrupted`` (Ctrl-C) or ``failed`` (any error) if the block raises, then re-raise."""
        try:
            yield
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                status, why = RunStatus.INTERRUPTED, str(exc) or "interrupted by the user"
            else:
                status, why = RunStatus.FAILED, f"{type(exc).__name__}: {exc}"
            self.abort(run_id, status, why)
            _log.warning("run %s marked %s in %s (harness show %s)", run_id, status, self.path, run_id)
            raise

    def export(self, dest: str | os.PathLike[str], run_ids: Sequence[str] | None = None) -> Path:
        """A copy of this store at ``dest`` (replaced whole, never half-written), with only ``run_ids`` when given:
        the file an experiment commits beside its report, which ``harness --store FILE`` reads as any store."""
        dest = Path(dest)
        keep = [self.resolve(r) for r in run_ids] if run_ids is not None else None  # unknown ids: nothing made
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.tmp")
        tmp.unlink(missing_ok=True)
        target = sqlite3.connect(tmp)
        try:
            with self._connect() as source:  # read as any read is: an older store as it is, nothing migrated
                source.backup(target)
            if keep is not None:
                target.execute("PRAGMA foreign_keys = ON")
                marks = ",".join("?" * len(keep))
                target.execute(f"DELETE FROM runs WHERE id NOT IN ({marks})", keep)
                target.commit()
            target.execute("VACUUM")
        finally:
            target.close()
        os.replace(tmp, dest)
        return dest

    # -- reading ------------------------------------------------------------------------------
    def resolve(self, ref: str) -> str:
        """A full run id from an id, a unique prefix, or ``latest``."""
        with self._connect() as db:
            if ref == "latest":
                row = db.execute("SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1").fetchone()
                if row is None:
                    raise StoreError(f"no runs in {self.path}")
                return row[0]
            # a prefix of the id as written: no LIKE, whose "_" matches any character and which ignores case
            rows = db.execute("SELECT id FROM runs WHERE substr(id, 1, ?) = ? ORDER BY id", (len(ref), ref)).fetchall()
        if not rows:
            raise StoreError(f"no run {ref!r} in {self.path} (see `harness runs`)")
        if len(rows) > 1:
            raise StoreError(f"run {ref!r} is ambiguous: {', '.join(r[0] for r in rows[:5])} ...")
        return rows[0][0]

    def get(self, ref: str) -> RunRecord:
        run_id = self.resolve(ref)
        with self._connect() as db:
            row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id=?", (run_id,)).fetchone()
            metrics = db.execute(
                "SELECT name, value, higher_is_better, n, grp, low, high FROM metrics WHERE run_id=? ORDER BY rowid",
                (run_id,)).fetchall()
            owner = db.execute("SELECT host, pid FROM owners WHERE run_id=?", (run_id,)).fetchone()
        record = _run_from_row(row, [Metric(n, v, _bool_or_none(h), c, g, lo, hi) for n, v, h, c, g, lo, hi in metrics])
        if record.status is RunStatus.RUNNING and owner is not None and _gone(*owner):
            return replace(record, orphaned=True)
        return record

    def runs(
        self, *, suite: str | None = None, reward: str | None = None, status: str | None = None,
        kind: str | None = None, limit: int = 50,
    ) -> list[RunRecord]:
        """Newest first, optionally filtered; metrics included."""
        clauses: list[str] = []
        args: list[Any] = []
        for column, value in (("suite", suite), ("reward", reward), ("status", status), ("kind", kind)):
            if value is not None:
                clauses.append(f"{column}=?")
                args.append(value)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._connect() as db:
            ids = [
                r[0]
                for r in db.execute(
                    f"SELECT id FROM runs {where} ORDER BY created_at DESC, rowid DESC LIMIT ?", (*args, limit)
                )
            ]
        return [self.get(i) for i in ids]

    def training_run_for(self, model: str | os.PathLike[str]) -> RunRecord | None:
        """The newest complete training run whose output folder holds ``model`` (its ``final`` or a checkpoint).

        This is how a policy evaluation learns which base policy and which reward produced the weights it scores,
        without the user restating them.
        """
        target = Path(model).expanduser().resolve()
        with self._connect() as db:
            ids = [r[0] for r in db.execute(
                "SELECT id FROM runs WHERE kind=? AND status=? ORDER BY created_at DESC, rowid DESC",
                (RunKind.TRAIN.value, RunStatus.COMPLETE.value)
            )]
        for run_id in ids:
            run = self.get(run_id)
            output = run.settings.output
            if output and Path(output).expanduser().resolve() in (target, *target.parents):
                return run
        return None

    def items(self, ref: str) -> list[ItemRow]:
        run_id = self.resolve(ref)
        with self._connect() as db:
            rows = db.execute(
                "SELECT idx, uid, category, label, value, verdict, reason, answer, latency_s, detail FROM items"
                " WHERE run_id=? ORDER BY idx",
                (run_id,),
            ).fetchall()
        return [
            ItemRow(i, u, c, _bool_or_none(lab), v, _bool_or_none(ver), r, a, lat, d or "")
            for i, u, c, lab, v, ver, r, a, lat, d in rows
        ]


_RUN_COLUMNS = (
    "id, kind, status, reward, suite, data_source, data_hash, n_items, config, versions, created_at,"
    " finished_at, wall_seconds, error"
)


def _run_from_row(row: Sequence[Any], metrics: list[Metric]) -> RunRecord:
    (rid, kind, status, reward, suite, source, dhash, n, config, versions, created, finished, wall, error) = row
    return RunRecord(
        RunKind(kind), reward, suite, source, dhash, n, json.loads(config), json.loads(versions), id=rid,
        status=RunStatus(status), created_at=created, finished_at=finished, wall_seconds=wall, error=error, metrics=metrics,
    )


def _int(v: bool | None) -> int | None:
    return None if v is None else int(v)


def _insert_items(db: sqlite3.Connection, run_id: str, items: Sequence[ItemRow]) -> None:
    """Items of a run that is still running (a finished run's items are what they were)."""
    status = db.execute("SELECT status FROM runs WHERE id=?", (run_id,)).fetchone()
    if status is None or status[0] != RunStatus.RUNNING:
        raise StoreError(f"run {run_id} is not running (status {status and status[0]})")
    db.executemany(
        "INSERT INTO items (run_id, idx, uid, category, label, value, verdict, reason, answer, latency_s, detail)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [(run_id, it.idx, it.uid, it.category, _int(it.label), it.value, _int(it.verdict), it.reason, it.answer,
          it.latency_s, it.detail) for it in items])
