"""The run store's schema, its versions and the two ways an older store is brought to the current one: migrated
in place when a command writes to it, or read as it is through views when a command only reads.

A reading command must never change the file it reads (a committed store stays byte for byte what was
committed, and a store on read-only media stays readable), so an older store is read through TEMP views and
tables on the reading connection: SQLite looks an unqualified name up in the temp schema first, so the store's
queries run unchanged against the current schema's columns, with NULL (or the value a migration would give)
where the older file has none.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache

# 2: the steps table (training runs); 3: items keep their detail, data_hash is a hash or ''; 4: per-step probe
# scores and artifacts (files a run wrote, by hash); 5: metrics keep their 95% interval (low, high), and items
# their texts where no suite gives them again (a policy's generations)
SCHEMA_VERSION = 5


class SchemaError(Exception):
    """A file that is no run store, or one written by a newer harness."""


SCHEMA = """
CREATE TABLE IF NOT EXISTS owners (run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    host TEXT NOT NULL, pid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    reward TEXT NOT NULL,
    suite TEXT NOT NULL,
    data_source TEXT NOT NULL,
    data_hash TEXT NOT NULL,
    n_items INTEGER NOT NULL,
    config TEXT NOT NULL,
    versions TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    wall_seconds REAL,
    error TEXT
);
CREATE TABLE IF NOT EXISTS items (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    uid TEXT,
    category TEXT,
    label INTEGER,
    value REAL,
    verdict INTEGER,
    reason TEXT,
    answer TEXT,
    latency_s REAL,
    detail TEXT,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS metrics (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL,
    higher_is_better INTEGER,
    n INTEGER NOT NULL,
    grp TEXT NOT NULL,
    low REAL,
    high REAL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS texts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    question TEXT NOT NULL,
    reference TEXT NOT NULL,
    completion TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);
CREATE TABLE IF NOT EXISTS steps (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    name TEXT NOT NULL,
    value REAL,
    PRIMARY KEY (run_id, step, name)
);
CREATE TABLE IF NOT EXISTS probe_scores (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    category TEXT,
    label INTEGER,
    value REAL,
    PRIMARY KEY (run_id, step, idx)
);
CREATE TABLE IF NOT EXISTS artifacts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
"""


def stored_version(db: sqlite3.Connection) -> int | None:
    """The schema version a store records (None: a new, empty file); refuses a newer one and a file that is no
    run store."""
    try:
        tables = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
        if not tables:
            return None
        row = db.execute("SELECT value FROM main.meta WHERE key='schema_version'").fetchone() if "meta" in tables \
            else None
    except sqlite3.DatabaseError as exc:
        raise SchemaError(f"not a run store ({exc})") from exc
    if row is None:
        raise SchemaError("not a run store (it has tables but no schema version)")
    version = int(row[0])
    if version > SCHEMA_VERSION:
        raise SchemaError(f"schema version {version}, newer than this harness ({SCHEMA_VERSION}); upgrade the "
                          "harness or use another --store")
    return version


def prepare(db: sqlite3.Connection) -> None:
    """Make a store current for writing: create a new one, migrate an older one in place (in the caller's
    transaction)."""
    version = stored_version(db)
    db.executescript(SCHEMA)
    if version is None:
        db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    elif version < SCHEMA_VERSION:
        migrate(db, version)
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))


@lru_cache(maxsize=1)
def _current_columns() -> dict[str, tuple[str, ...]]:
    """Each table of the current schema and its columns, in order."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        return {name: tuple(r[1] for r in db.execute(f"PRAGMA table_info({name})")) for name in names}
    finally:
        db.close()


# What a migration would write in place, read through a view instead: before 3, data_hash held "prompts:N"
# (training runs, whose n_items held max_steps), "limit:N" or "rows:N".
_OLD_RUN_COLUMNS = {
    "n_items": "CASE WHEN data_hash LIKE 'prompts:%' THEN CAST(substr(data_hash, 9) AS INTEGER) ELSE n_items END",
    "data_hash": "CASE WHEN data_hash LIKE 'prompts:%' OR data_hash LIKE 'limit:%' OR data_hash LIKE 'rows:%'"
                 " THEN '' ELSE data_hash END",
}


def read_as_current(db: sqlite3.Connection, version: int) -> None:
    """On a reading connection to a store of an older ``version``: TEMP tables for the tables it lacks (empty)
    and TEMP views for the tables that lack columns (NULL there), so that queries written for the current
    schema read it unchanged. Nothing is written to the store's file."""
    if version >= SCHEMA_VERSION:
        return
    stored = {row[0] for row in db.execute("SELECT name FROM main.sqlite_master WHERE type='table'")}
    for table, columns in _current_columns().items():
        if table not in stored:
            create = next(stmt for stmt in SCHEMA.split(";") if f"EXISTS {table} (" in stmt)
            db.execute(create.replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE"))
            continue
        have = {row[1] for row in db.execute(f"PRAGMA main.table_info({table})")}
        changed = {c: _OLD_RUN_COLUMNS[c] for c in columns if table == "runs" and version < 3 and c in _OLD_RUN_COLUMNS}
        if have.issuperset(columns) and not changed:
            continue
        select = ", ".join(f"{changed[c]} AS {c}" if c in changed else c if c in have else f"NULL AS {c}"
                           for c in columns)
        # rowid too: the queries order by it, and a view has none of its own
        db.execute(f"CREATE TEMP VIEW {table} AS SELECT rowid AS rowid, {select} FROM main.{table}")


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a store of an older schema up to date, keeping its runs (the schema script added new tables)."""
    if version < 5:  # intervals: empty for the runs before them (``suites.metrics.backfill_intervals`` fills them)
        columns = {row[1] for row in db.execute("PRAGMA table_info(metrics)")}
        for column in ("low", "high"):
            if column not in columns:
                db.execute(f"ALTER TABLE metrics ADD COLUMN {column} REAL")
    if version < 3:
        columns = {row[1] for row in db.execute("PRAGMA table_info(items)")}
        if "detail" not in columns:
            db.execute("ALTER TABLE items ADD COLUMN detail TEXT")
        # data_hash once held "prompts:N" (training runs, whose n_items held max_steps), "limit:N" or "rows:N"
        for run_id, value in db.execute("SELECT id, data_hash FROM runs WHERE data_hash LIKE 'prompts:%'").fetchall():
            db.execute("UPDATE runs SET n_items=? WHERE id=?", (int(value.split(":", 1)[1]), run_id))
        db.execute("UPDATE runs SET data_hash='' WHERE data_hash LIKE 'prompts:%' OR data_hash LIKE 'limit:%'"
                   " OR data_hash LIKE 'rows:%'")
