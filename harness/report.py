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

from harness.core.store import ItemRow, Metric, RunRecord

FORMATS = ("table", "markdown", "csv", "json")


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[Any]]
    percent_columns: frozenset[int] = frozenset()
    notes: tuple[str, ...] = ()  # sources and caveats, printed under the table
    decimals: Mapping[int, int] = field(default_factory=dict)  # per percent column; 1 otherwise
    # columns whose values say what they are (a status, a spec): a row a line shows them without ``header=``
    bare_columns: frozenset[int] = frozenset()

    def cell(self, row: int, col: int) -> str:
        value = self.rows[row][col]
        if value is None:
            return "—"
        if isinstance(value, float):
            return f"{100 * value:.{self.decimals.get(col, 1)}f}" if col in self.percent_columns else f"{value:.4f}"
        return str(value)

    def shown(self, row: int, col: int) -> Any:
        """A cell's value as the terminal and Markdown show it, for CSV: percent columns in percent, rounded as
        printed; other values unchanged."""
        value = self.rows[row][col]
        if isinstance(value, float) and col in self.percent_columns:
            return round(100 * value, self.decimals.get(col, 1))
        return value

    def as_records(self) -> list[dict[str, Any]]:
        """The exact values (fractions in percent columns; JSON names those columns ``fractions``)."""
        return [dict(zip(self.headers, row)) for row in self.rows]


def category_table(runs: Sequence[RunRecord], title: str = "") -> Table:
    """One row per run: accuracy per category (in the suite's column order), then AVG (overall accuracy). The
    default title names what the suite's categories are ("answer type", "attack family")."""
    if not title:
        kinds = {run.category_name or "category" for run in runs}
        title = f"Accuracy by {kinds.pop() if len(kinds) == 1 else 'category'} (%)"
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


def _value(m: Metric) -> Any:
    """A count (a confusion cell, a number of steps: integral with no better direction) as an int; else as is."""
    if m.value is not None and m.higher_is_better is None and float(m.value).is_integer():
        return int(m.value)
    return m.value


def metrics_table(run: RunRecord) -> Table:
    rows = []
    for m in run.metrics:
        if m.group == "by_category":
            continue
        better = {True: "higher", False: "lower", None: ""}[m.higher_is_better]
        rows.append([m.name, _value(m), m.n, better])
    return Table(f"Metrics of run {run.id}", ["metric", "value", "n", "better"], rows)


def runs_table(runs: Sequence[RunRecord]) -> Table:
    rows = [
        [r.id, r.status_text, r.reward, r.suite, r.n_items, r.metric("accuracy"), r.created_at]
        for r in runs
    ]
    return Table("Runs", ["run", "status", "reward", "suite", "items", "accuracy", "created"], rows, frozenset({5}),
                 bare_columns=frozenset({1, 2, 3, 6}))


def comparability(a: RunRecord, b: RunRecord) -> list[str]:
    """Why two runs' metrics may not be comparable item for item (empty when they scored the same data)."""
    if a.suite != b.suite:
        return [f"the runs scored different suites ({a.suite} vs {b.suite}): their metrics describe different items"]
    if a.data_hash != b.data_hash or a.n_items != b.n_items:
        return [f"the runs scored different data of suite {a.suite} ({a.n_items} items, {a.data_hash[:12]} vs "
                f"{b.n_items} items, {b.data_hash[:12]}): compare with care"]
    return []


def compare_table(a: RunRecord, b: RunRecord, for_reading: bool = False) -> Table:
    """Metrics of two runs side by side with the change and whether it is an improvement; a note says when the
    runs scored different suites or data. ``for_reading`` (a terminal, Markdown): the columns are A and B, the runs
    named once in the title, and the note left to the command's warning; otherwise (CSV, JSON) the columns are the
    run ids, which a file needs."""
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
        counts = isinstance(_value(m), int) and isinstance(_value(other), int)
        rows.append([m.name, _value(m), _value(other), int(delta) if counts and delta is not None else delta, verdict])
    if for_reading:  # the runs named once: columns A and B keep each line short and the ids out of every line
        return Table(f"A = {a.id} ({a.reward}), B = {b.id} ({b.reward}); change = B - A",
                     ["metric", "A", "B", "change", "verdict"], rows)
    return Table(f"{a.id} -> {b.id}", ["metric", a.id, b.id, "change", "verdict"], rows,
                 notes=tuple(comparability(a, b)))


def run_summary(run: RunRecord) -> list[tuple[str, str]]:
    wall = f"{run.wall_seconds:.1f}s" if run.wall_seconds is not None else "—"
    pairs = [
        ("run", run.id),
        ("status", run.status_text),
        ("reward", run.reward),
        ("suite", run.suite),
        ("data", f"{run.data_source} ({run.data_hash[:19]})"),
        ("items", str(run.n_items)),
        ("created", run.created_at),
        ("wall time", wall),
        ("commit", _commit_text(run.versions)),
    ]
    if run.error:
        pairs.append(("error", run.error))
    return pairs


def _commit_text(versions: dict[str, str]) -> str:
    """The code's commit as ``show`` prints it: ``unknown`` for runs stored before commits were recorded."""
    commit = versions.get("commit", "unknown")
    dirty = versions.get("dirty", "unknown")
    if dirty == "true":
        return f"{commit} (with uncommitted changes)"
    return commit if dirty == "false" or commit == "unknown" else f"{commit} (changes unknown)"


def render_text(table: Table, fmt: str) -> str:
    """``markdown``, ``csv`` or ``json`` text of a table."""
    if fmt == "json":
        payload: dict[str, Any] = {"title": table.title, "rows": table.as_records()}
        if table.percent_columns:  # exact fractions here; the other formats print them as percentages
            payload["fractions"] = [table.headers[c] for c in sorted(table.percent_columns)]
        if table.notes:
            payload["notes"] = list(table.notes)
        return json.dumps(payload, indent=2, default=str)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(table.headers)
        for r in range(len(table.rows)):  # as Markdown prints them: percentages where Markdown has them
            writer.writerow(["" if v is None else v for v in (table.shown(r, c) for c in range(len(table.headers)))])
        return buf.getvalue()
    if fmt == "markdown":
        from tabulate import tabulate

        cells = [[table.cell(r, c) for c in range(len(table.headers))] for r in range(len(table.rows))]
        notes = "\n\n" + "\n".join(f"{i}. {note}" for i, note in enumerate(table.notes, 1)) if table.notes else ""
        return f"**{table.title}**\n\n" + tabulate(cells, headers=table.headers, tablefmt="github", disable_numparse=True) + notes
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def to_rich(table: Table, width: int | None = None) -> Any:
    """The table for a terminal (or a log) ``width`` columns wide: as it is when every value fits whole, turned
    when that fits (:func:`fitted`), else one line per row with ``header=value`` fields (:func:`as_lines`, a rich
    ``Text`` to print without wrapping). No column is narrower than its longest value, so ids, dates and figures
    are never cut; only headers fold."""
    from rich.table import Table as RichTable
    from rich.text import Text

    if width is not None:
        shown = fitted(table, width)
        if needed_width(shown) > width:
            return Text(as_lines(table), no_wrap=True, overflow="ignore")
        table = shown
    out = RichTable(title=table.title, title_justify="left", caption="\n".join(table.notes) or None,
                    caption_justify="left")
    for i, header in enumerate(table.headers):
        out.add_column(header, justify="right" if i >= 1 and _numeric_column(table, i) else "left", overflow="fold",
                       min_width=_value_width(table, i) or None)
    for r in range(len(table.rows)):
        out.add_row(*(table.cell(r, c) for c in range(len(table.headers))))
    return out


def _value_width(table: Table, col: int) -> int:
    return max((len(table.cell(r, col)) for r in range(len(table.rows))), default=0)


def needed_width(table: Table) -> int:
    """Columns a rich table needs to show every value whole (headers may fold at spaces): each column's widest
    value or header word, plus a border and a space either side."""
    widths = [max(_value_width(table, c), *(len(w) for w in table.headers[c].split() or [""]))
              for c in range(len(table.headers))]
    return sum(w + 3 for w in widths) + 1


def turned(table: Table) -> Table:
    """Rows become columns: one line per column of the original (a family, a metric), one column per row (a run,
    headed by its first cell)."""
    headers = [table.headers[0], *(table.cell(r, 0) for r in range(len(table.rows)))]
    rows = [[table.headers[c], *(table.cell(r, c) for r in range(len(table.rows)))]
            for c in range(1, len(table.headers))]
    return Table(table.title, headers, rows, notes=table.notes)


def fitted(table: Table, width: int) -> Table:
    """The table as it is when every value fits whole in ``width`` columns, else turned (a table of one or a few
    runs with many columns reads as a line per column); the caller prints :func:`as_lines` when neither fits."""
    if needed_width(table) <= width or not table.rows:
        return table
    return turned(table)


def as_lines(table: Table) -> str:
    """One line per row: its first cell, then ``header=value`` for the rest; whole values on lines of any length,
    which grep finds and a log keeps."""
    lines = [table.title] if table.title else []
    if len(table.headers) == 2:  # a list of fields and their values: the header says nothing a line needs
        lines += [f"{table.cell(r, 0)}  {table.cell(r, 1)}" for r in range(len(table.rows))]
        return "\n".join([*lines, *table.notes])
    for r in range(len(table.rows)):
        lines.append("  ".join([table.cell(r, 0), *(table.cell(r, c) if c in table.bare_columns
                                                     else f"{table.headers[c]}={table.cell(r, c)}"
                                                     for c in range(1, len(table.headers)))]))
    return "\n".join([*lines, *table.notes])


def _numeric_column(table: Table, col: int) -> bool:
    return all(isinstance(row[col], (int, float)) or row[col] is None for row in table.rows)


def items_table(run: RunRecord, items: list[ItemRow], whole: bool) -> Table:
    """Each item's score and reason, with the reference and the completion it was scored on when the run's data
    can still be read (the end of the completion, where its answer is, unless ``whole``)."""
    from harness.evaluate import scored_data

    data = scored_data(run)

    def texts(idx: int) -> list[str]:
        if data is None:
            return []
        item = data.rows[idx].item
        return [item.reference if whole else item.reference[:40],
                item.completion if whole else ("…" + item.completion[-60:]).replace("\n", " ")
                if len(item.completion) > 60 else item.completion.replace("\n", " ")]

    headers = ["idx", "uid", "category", "label", "score", "verdict", "reason", "answer", "latency_s"]
    rows = [[i.idx, i.uid, i.category, i.label, i.value, i.verdict, i.reason, (i.answer or "")[:60], i.latency_s,
             *texts(i.idx)] for i in items]
    notes = () if data is not None else ("reference and completion not shown: the run's data is no longer where "
                                         "it was, or has changed since",) if run.kind == "reward-eval" else ()
    return Table("Items", headers + (["reference", "completion"] if data is not None else []), rows, notes=notes)
