"""CSV output read back as a reader reads it: one table, whose ``table`` column says which table a row is of."""

from __future__ import annotations

import csv
import io


def csv_tables(text: str) -> dict[str, list[dict[str, str]]]:
    """The rows of each table (by title) of one CSV stream, each row with only its own table's non-empty cells;
    notes are left out. Fails unless the whole stream is one table under one header."""
    csv.field_size_limit(1 << 30)  # completions are shown whole
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header[0] == "table" and all(len(r) == len(header) for r in rows), "not one table"
    out: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        record = {h: v for h, v in zip(header, row) if v != ""}
        if "note" in record:
            continue
        out.setdefault(row[0], []).append(record)
    return out
