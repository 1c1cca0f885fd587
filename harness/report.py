"""Rendering stored runs as tables: the terminal (rich), Markdown, CSV and JSON.

Reports read only :class:`~harness.core.store.RunRecord`, never a live reward, so any stored run can be shown
again or compared later.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.core.store import RunRecord

FORMATS = ("table", "markdown", "csv", "json")


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[Any]]
    percent_columns: frozenset[int] = frozenset()
    notes: tuple[str, ...] = ()  # sources and caveats, printed under the table
    decimals: Mapping[int, int] = field(default_factory=dict)  # per percent column; 1 otherwise

    def cell(self, row: int, col: int) -> str:
        value = self.rows[row][col]
        if value is None:
            return "—"
        if isinstance(value, float):
            return f"{100 * value:.{self.decimals.get(col, 1)}f}" if col in self.percent_columns else f"{value:.4f}"
        return str(value)

    def as_records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.headers, row)) for row in self.rows]


def category_table(runs: Sequence[RunRecord], title: str = "Accuracy by answer type (%)") -> Table:
    """One row per run: accuracy per category (in the suite's column order), then AVG (overall accuracy)."""
    columns: list[str] = []
    for run in runs:
        for m in run.metrics:
            if m.group == "by_category":
                name = m.name.split("/", 1)[1]
                if name not in columns:
                    columns.append(name)
    headers = ["run", "reward", *columns, "AVG"]
    rows = []
    for run in runs:
        by_name = {m.name: m.value for m in run.metrics}
        rows.append(
            [run.id, run.reward, *(by_name.get(f"accuracy/{c}") for c in columns), by_name.get("accuracy")]
        )
    return Table(title, headers, rows, frozenset(range(2, len(headers))))


def metrics_table(run: RunRecord) -> Table:
    rows = []
    for m in run.metrics:
        if m.group == "by_category":
            continue
        better = {True: "higher", False: "lower", None: ""}[m.higher_is_better]
        value: Any = int(m.value) if m.group == "confusion" and m.value is not None else m.value
        rows.append([m.name, value, m.n, better])
    return Table(f"Metrics of run {run.id}", ["metric", "value", "n", "better"], rows)


def runs_table(runs: Sequence[RunRecord]) -> Table:
    rows = [
        [r.id, r.status, r.reward, r.suite, r.n_items, r.metric("accuracy"), r.created_at]
        for r in runs
    ]
    return Table("Runs", ["run", "status", "reward", "suite", "items", "accuracy", "created"], rows, frozenset({5}))


def compare_table(a: RunRecord, b: RunRecord) -> Table:
    """Metrics of two runs side by side with the change and whether it is an improvement."""
    b_metrics = {m.name: m for m in b.metrics}
    rows = []
    for m in a.metrics:
        other = b_metrics.get(m.name)
        if other is None:
            continue
        delta = None if m.value is None or other.value is None else other.value - m.value
        verdict = ""
        if delta and m.higher_is_better is not None:
            verdict = "better" if (delta > 0) == m.higher_is_better else "worse"
        rows.append([m.name, m.value, other.value, delta, verdict])
    return Table(f"{a.id} -> {b.id}", ["metric", a.id, b.id, "change", ""], rows)


def run_summary(run: RunRecord) -> list[tuple[str, str]]:
    wall = f"{run.wall_seconds:.1f}s" if run.wall_seconds is not None else "—"
    pairs = [
        ("run", run.id),
        ("status", run.status),
        ("reward", run.reward),
        ("suite", run.suite),
        ("data", f"{run.data_source} ({run.data_hash[:19]})"),
        ("items", str(run.n_items)),
        ("created", run.created_at),
        ("wall time", wall),
    ]
    if run.error:
        pairs.append(("error", run.error))
    return pairs


def render_text(table: Table, fmt: str) -> str:
    """``markdown``, ``csv`` or ``json`` text of a table."""
    if fmt == "json":
        payload: dict[str, Any] = {"title": table.title, "rows": table.as_records()}
        if table.notes:
            payload["notes"] = list(table.notes)
        return json.dumps(payload, indent=2, default=str)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(table.headers)
        writer.writerows([["" if v is None else v for v in row] for row in table.rows])
        return buf.getvalue()
    if fmt == "markdown":
        from tabulate import tabulate

        cells = [[table.cell(r, c) for c in range(len(table.headers))] for r in range(len(table.rows))]
        notes = "\n\n" + "\n".join(f"{i}. {note}" for i, note in enumerate(table.notes, 1)) if table.notes else ""
        return f"**{table.title}**\n\n" + tabulate(cells, headers=table.headers, tablefmt="github", disable_numparse=True) + notes
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def to_rich(table: Table) -> Any:
    from rich.table import Table as RichTable

    out = RichTable(title=table.title, title_justify="left", caption="\n".join(table.notes) or None,
                    caption_justify="left")
    for i, header in enumerate(table.headers):
        out.add_column(header, justify="right" if i >= 1 and _numeric_column(table, i) else "left")
    for r in range(len(table.rows)):
        out.add_row(*(table.cell(r, c) for c in range(len(table.headers))))
    return out


def _numeric_column(table: Table, col: int) -> bool:
    return all(isinstance(row[col], (int, float)) or row[col] is None for row in table.rows)
