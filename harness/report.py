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

from harness.core.store import ItemRow, ItemText, Metric, RunKind, RunRecord

FORMATS = ("table", "markdown", "csv", "json")


@dataclass(frozen=True)
class Estimate:
    """A figure with its uncertainty, as a table cell: ``value`` with its 95% interval ``[low, high]``
    (``spread=None``), or ``value ± spread`` where the spread is a standard error or a standard deviation (named
    by ``spread``). ``mark`` follows the figure (``*``: different from a baseline, by a paired test). The terminal
    and Markdown print ``92.1 [89.0, 94.4]`` or ``34.3 ± 2.1``; CSV and JSON give the bounds (or the spread) their
    own columns; LaTeX prints a spread with ``\\pm``."""

    value: float | None
    low: float | None = None
    high: float | None = None
    spread: str | None = None  # "se" or "sd": value ± error, with error in ``error``
    error: float | None = None
    mark: str = ""

    @classmethod
    def of(cls, metric: Metric | None) -> Estimate:
        """A stored metric and its interval (none where the run kept none)."""
        if metric is None:
            return cls(None)
        return cls(metric.value, metric.low, metric.high)

    @classmethod
    def spread_of(cls, value: float | None, error: float | None, kind: str) -> Estimate:
        return cls(value, spread=kind, error=error)

    @property
    def has_uncertainty(self) -> bool:
        return (self.low is not None and self.high is not None) or self.error is not None

    def text(self, scale: float, decimals: int) -> str:
        if self.value is None:
            return "—"
        body = f"{scale * self.value:.{decimals}f}"
        if self.spread is not None and self.error is not None:
            body += f" ± {scale * self.error:.{decimals}f}"
        elif self.low is not None and self.high is not None:
            body += f" [{scale * self.low:.{decimals}f}, {scale * self.high:.{decimals}f}]"
        return body + self.mark

    def columns(self, header: str, marked: bool = False) -> list[str]:
        """The columns CSV and JSON give this cell: the value, then its bounds or its spread, then its mark
        where the column has marks."""
        mark = [f"{header} mark"] if marked else []
        if self.spread is not None:
            return [header, f"{header} {self.spread}", *mark]
        return [header, f"{header} low", f"{header} high", *mark]

    def parts(self, scale: float | None, decimals: int, marked: bool = False) -> list[Any]:
        """The values of :meth:`columns`: in percent, rounded as printed, with ``scale``; exact without."""
        numbers = [self.value, self.error] if self.spread is not None else [self.value, self.low, self.high]
        mark = [self.mark] if marked else []
        if scale is None:
            return [*numbers, *mark]
        return [*(None if v is None else round(scale * v, decimals) for v in numbers), *mark]


class PValue(float):
    """A p-value: printed with two significant digits (``3.7e-09``), kept exact in CSV and JSON."""


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
    # single cells printed as percentages in a column that is not (a metrics table's shares among its counts)
    percent_cells: frozenset[tuple[int, int]] = frozenset()
    # a table of a few runs' columns reads turned when too wide; a list (of runs) is never turned: turned or not
    # would then depend on how many rows it has, and two runs would print one layout and three another
    turns: bool = True

    def is_percent(self, row: int, col: int) -> bool:
        return col in self.percent_columns or (row, col) in self.percent_cells

    def cell(self, row: int, col: int) -> str:
        value = self.rows[row][col]
        if value is None:
            return "—"
        if isinstance(value, Estimate):
            percent = self.is_percent(row, col)
            return value.text(100.0 if percent else 1.0, self.decimals.get(col, 1) if percent else 4)
        if isinstance(value, PValue):
            return f"{value:.2g}"
        if isinstance(value, float):
            return f"{100 * value:.{self.decimals.get(col, 1)}f}" if self.is_percent(row, col) else f"{value:.4f}"
        return str(value)

    def shown(self, row: int, col: int) -> Any:
        """A cell's value as the terminal and Markdown show it, for CSV: percent columns in percent, rounded as
        printed; other values unchanged."""
        value = self.rows[row][col]
        if isinstance(value, float) and self.is_percent(row, col):
            return round(100 * value, self.decimals.get(col, 1))
        return value

    def _estimate_columns(self) -> dict[int, Estimate]:
        """The columns holding estimates, each with a sample cell that says which columns it spreads into."""
        found: dict[int, Estimate] = {}
        for row in self.rows:
            for c, value in enumerate(row):
                if isinstance(value, Estimate) and not (c in found and found[c].has_uncertainty):
                    found[c] = value
        return found

    def _marked_columns(self) -> set[int]:
        """The columns where some estimate carries a mark (``*``, a significant difference): CSV and JSON give
        the mark a column of its own."""
        return {c for row in self.rows for c, v in enumerate(row) if isinstance(v, Estimate) and v.mark}

    def flat_headers(self) -> list[str]:
        """The headers of CSV and JSON, where an estimate's bounds (or spread), and its mark, have columns of
        their own."""
        estimates, marked = self._estimate_columns(), self._marked_columns()
        return [h for c, header in enumerate(self.headers)
                for h in (estimates[c].columns(header, c in marked) if c in estimates else [header])]

    def flat_rows(self, exact: bool) -> list[list[Any]]:
        """Every row for CSV (``exact=False``: percentages as printed) or JSON (exact fractions)."""
        estimates, marked = self._estimate_columns(), self._marked_columns()
        return [self._flat_row(r, exact, estimates, marked) for r in range(len(self.rows))]

    def _flat_row(self, row: int, exact: bool, estimates: Mapping[int, Estimate], marked: set[int]) -> list[Any]:
        out: list[Any] = []
        for c, value in enumerate(self.rows[row]):
            if c not in estimates:
                out.append(value if exact else self.shown(row, c))
                continue
            sample = estimates[c]
            if not isinstance(value, Estimate):  # a count or a bare figure in a column of estimates: no bounds
                out += [value if exact else self.shown(row, c), *[None] * (len(sample.columns("", c in marked)) - 1)]
                continue
            cell = Estimate(value.value, value.low, value.high, sample.spread, value.error, value.mark)
            percent = self.is_percent(row, c) and not exact
            out += cell.parts(100.0 if percent else None if exact else 1.0,
                              self.decimals.get(c, 1) if percent else 6, c in marked)
        return out

    def as_records(self) -> list[dict[str, Any]]:
        """The exact values (fractions in percent columns; JSON names those columns ``fractions``), an estimate's
        bounds in columns of their own."""
        headers = self.flat_headers()
        return [dict(zip(headers, row)) for row in self.flat_rows(exact=True)]


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
        by_name = {m.name: m for m in run.metrics}
        rows.append([run.id, run.reward, *(estimate(by_name.get(f"accuracy/{c}")) for c in columns),
                     estimate(by_name.get("accuracy"))])
    return Table(title, headers, rows, frozenset(range(2, len(headers))),
                 notes=(INTERVAL_NOTE,) if any(isinstance(v, Estimate) and v.has_uncertainty
                                               for row in rows for v in row) else ())


INTERVAL_NOTE = ("[low, high]: the 95% interval (Wilson for a share of items or, for a policy, of its mean over "
                 "problems; for F1, Wilson's of the true positives' share of the items labelled or paid correct, "
                 "carried over, and for macro accuracy the categories' Wilson intervals combined (MOVER), in runs "
                 "stored from 2026-11-28 on, a seeded bootstrap over items in earlier ones; a seeded bootstrap over "
                 "items for AUROC and ECE); ± a standard deviation (over seeds), as the column says")


def estimate(metric: Metric | None) -> Estimate | None:
    """A metric as a cell: with its interval when the run kept one, else its bare value; absent, None."""
    if metric is None or metric.value is None:
        return None
    return Estimate.of(metric)


def _value(m: Metric) -> Any:
    """A count (a confusion cell, a number of steps: integral with no better direction) as an int; else as is."""
    if m.value is not None and m.higher_is_better is None and float(m.value).is_integer():
        return int(m.value)
    return m.value


# Metrics that are shares (of items, of rollouts, of problems): printed as percentages wherever accuracies are
SHARES = frozenset({
    "accuracy", "macro_accuracy", "precision", "recall", "f1", "abstain_rate", "timeout_rate", "crash_rate",
    "label_positive_rate", "false_positive_rate", "false_negative_rate", "best_threshold_accuracy", "paid_rate",
    "final_train_reward", "final_rule_accuracy", "final_heldout_accuracy", "final_rm_probe_accuracy",
    "final_rm_probe_ranking", "final_rm_hole_pay", "peak_rm_hole_pay",
})


def is_share(name: str) -> bool:
    """A metric printed as a percentage (``accuracy/Numeric`` as ``accuracy``)."""
    return name.split("/", 1)[0] in SHARES


def metrics_table(run: RunRecord) -> Table:
    """A run's metrics: shares in percent (as accuracies are everywhere; JSON keeps fractions), with their
    intervals; counts as integers; other figures (ECE, AUROC, seconds) as they are."""
    rows, percent = [], set()
    for m in run.metrics:
        if m.group == "by_category":
            continue
        better = {True: "higher", False: "lower", None: ""}[m.higher_is_better]
        if is_share(m.name) and m.value is not None:
            percent.add((len(rows), 1))
        rows.append([m.name, Estimate.of(m) if m.interval is not None else _value(m), m.n, better])
    return Table(f"Metrics of run {run.id} (shares in %)", ["metric", "value", "n", "better"], rows,
                 percent_cells=frozenset(percent))


def runs_table(runs: Sequence[RunRecord]) -> Table:
    rows = [
        [r.id, r.status_text, r.reward, r.suite, r.n_items,
         estimate(next((m for m in r.metrics if m.name == "accuracy"), None)), r.created_at]
        for r in runs
    ]
    return Table("Runs", ["run", "status", "reward", "suite", "items", "accuracy", "created"], rows, frozenset({5}),
                 bare_columns=frozenset({1, 2, 3, 6}), turns=False)


def comparability(a: RunRecord, b: RunRecord) -> list[str]:
    """Why two runs' metrics may not be comparable item for item (empty when they scored the same data)."""
    if a.suite != b.suite:
        return [f"the runs scored different suites ({a.suite} vs {b.suite}): their metrics describe different items"]
    if a.data_hash != b.data_hash or a.n_items != b.n_items:
        return [f"the runs scored different data of suite {a.suite} ({a.n_items} items, {a.data_hash[:12]} vs "
                f"{b.n_items} items, {b.data_hash[:12]}): compare with care"]
    return []


def compare_table(a: RunRecord, b: RunRecord, for_reading: bool = False,
                  changes: Mapping[str, tuple[float, float | None, float | None]] | None = None) -> Table:
    """Metrics of two runs side by side with the change; a note says when the runs scored different suites or
    data. ``for_reading`` (a terminal, Markdown): the columns are A and B, the runs named once in the title, and
    the note left to the command's warning; otherwise (CSV, JSON) the columns are the run ids, which a file needs.

    On the same items a change has its paired interval and a verdict from the test behind it, from ``changes``:
    for reward evaluations :func:`suites.metrics.paired_changes` (accuracy, recall and each category's accuracy
    by the interval the exact McNemar test inverts, macro accuracy, precision and F1 by a paired randomization
    test), for policy evaluations :func:`harness.policy_eval.paired_by_problem` (paired by problem). "better" or
    "worse" only where the interval leaves 0 out, "no difference shown" otherwise; a metric with no paired test
    gets no verdict: a change of -0.0 or one within the noise is not "worse"."""
    b_metrics = {m.name: m for m in b.metrics}
    changes = dict(changes or {})
    rows: list[list[Any]] = []
    percent: set[tuple[int, int]] = set()
    for m in a.metrics:
        other = b_metrics.get(m.name)
        if other is None:
            continue
        delta = None if m.value is None or other.value is None else other.value - m.value
        verdict = ""
        change: Any = delta
        if m.name in changes and delta is not None:
            _, low, high = changes[m.name]
            verdict = "no difference shown"
            if low is not None and high is not None:
                change = Estimate(delta, low, high)
                if low > 0 or high < 0:
                    verdict = "better" if (delta > 0) == bool(m.higher_is_better) else "worse"
        counts = isinstance(_value(m), int) and isinstance(_value(other), int)
        if is_share(m.name):  # a share and its change in percent (points), as everywhere accuracies are shown
            percent |= {(len(rows), 1), (len(rows), 2), (len(rows), 3)}
        rows.append([m.name, Estimate.of(m) if m.interval else _value(m),
                     Estimate.of(other) if other.interval else _value(other),
                     int(delta) if counts and delta is not None and change is delta else change, verdict])
    tested = ("change: B - A, on the same items with its paired 95% interval (accuracy, recall and each "
              "category's accuracy: the interval the exact McNemar test inverts on their items; macro accuracy, "
              "precision, F1: a paired randomization test's, none where no item moved them; a policy's accuracy: "
              "paired by problem, a randomization test over problems); verdict: better or "
              "worse only where that interval leaves 0 out, else no difference shown; the other metrics' changes "
              "have no test and no verdict",)
    if for_reading:  # the runs named once: columns A and B keep each line short and the ids out of every line
        return Table(f"A = {a.id} ({a.reward}), B = {b.id} ({b.reward}); change = B - A (shares in %, change "
                     "in points)", ["metric", "A", "B", "change", "verdict"], rows, percent_cells=frozenset(percent),
                     notes=tested)
    return Table(f"{a.id} -> {b.id}", ["metric", a.id, b.id, "change", "verdict"], rows,
                 notes=(*comparability(a, b), *tested), percent_cells=frozenset(percent))


def run_summary(run: RunRecord) -> list[tuple[str, str]]:
    wall = f"{run.wall_seconds:.1f}s" if run.wall_seconds is not None else "—"
    pairs = [
        ("run", run.id),
        ("status", run.status_text),
        ("reward", run.reward),
        ("suite", run.suite),
        # a policy's evaluation has a model, not a data file (its benchmarks are its suite)
        ("model", run.data_source) if run.kind == RunKind.POLICY_EVAL
        else ("data", f"{run.data_source} ({run.data_hash[:19]})" if run.data_hash else run.data_source),
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
        percent = table.percent_columns | {c for _, c in table.percent_cells}
        if percent:  # exact fractions here; the other formats print them as percentages
            flat = table.flat_headers()
            payload["fractions"] = [h for h in flat
                                    if any(h == table.headers[c] or h.startswith(table.headers[c] + " ")
                                           for c in percent)]
        if table.notes:
            payload["notes"] = list(table.notes)
        return json.dumps(payload, indent=2, default=str)
    if fmt == "csv":
        return render_csv([table])
    if fmt == "markdown":
        from tabulate import tabulate

        cells = [[table.cell(r, c) for c in range(len(table.headers))] for r in range(len(table.rows))]
        notes = "\n\n" + "\n".join(f"{i}. {note}" for i, note in enumerate(table.notes, 1)) if table.notes else ""
        return f"**{table.title}**\n\n" + tabulate(cells, headers=table.headers, tablefmt="github", disable_numparse=True) + notes
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def render_csv(tables: Sequence[Table]) -> str:
    """Tables as one CSV table, which any CSV reader loads whole: a ``table`` column with each row's table
    title, then every table's columns (the union, in order of first appearance; a row fills its own table's),
    then ``note``, on rows of their own, for each table's notes. Values as Markdown prints them: percentages
    where Markdown has them, an estimate's bounds and its mark in columns of their own."""
    headers: list[str] = []
    for table in tables:
        headers += [h for h in table.flat_headers() if h not in headers]
    has_notes = any(t.notes for t in tables)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(["table", *headers, *(["note"] if has_notes else [])])
    for table in tables:
        at = {h: headers.index(h) for h in table.flat_headers()}
        for row in table.flat_rows(exact=False):
            cells: list[Any] = [""] * len(headers)
            for h, v in zip(table.flat_headers(), row):
                cells[at[h]] = "" if v is None else v
            writer.writerow([table.title, *cells, *([""] if has_notes else [])])
        for note in table.notes:
            writer.writerow([table.title, *[""] * len(headers), note])
    return buf.getvalue()


def to_rich(table: Table, width: int | None = None, plain: bool = False) -> Any:
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
    # every text is the table's own, never markup: "[low, high]" in a note is printed, not read as a style
    from rich import box
    from rich.markup import escape

    # a pipe or a file gets plain characters (a Markdown-style grid), a terminal the box-drawing ones
    out = RichTable(title=escape(table.title), title_justify="left",
                    caption=escape("\n".join(table.notes)) or None, caption_justify="left",
                    box=box.MARKDOWN if plain else box.HEAVY_HEAD)
    for i, header in enumerate(table.headers):
        out.add_column(escape(header), justify="right" if i >= 1 and _numeric_column(table, i) else "left", overflow="fold",
                       min_width=_value_width(table, i) or None)
    for r in range(len(table.rows)):
        out.add_row(*(escape(table.cell(r, c)) for c in range(len(table.headers))))
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
    runs with many columns reads as a line per column) unless it is a list that never turns; the caller prints
    :func:`as_lines` when neither fits."""
    if needed_width(table) <= width or not table.rows or not table.turns:
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
    return all(isinstance(row[col], (int, float, Estimate)) or row[col] is None for row in table.rows)


def items_table(run: RunRecord, items: list[ItemRow], whole: bool,
                kept: Mapping[int, ItemText] | None = None) -> Table:
    """Each item's score and reason, with the reference and the completion it was scored on: the texts the run
    kept (a policy's generations), else its suite's when its data can still be read (the end of the completion,
    where its answer is, unless ``whole``)."""
    data = _texts(run, kept)

    def texts(idx: int) -> list[str]:
        if data is None:
            return []
        item = data[idx]
        return [item.reference if whole else item.reference[:40],
                item.completion if whole else ("…" + item.completion[-60:]).replace("\n", " ")
                if len(item.completion) > 60 else item.completion.replace("\n", " ")]

    headers = ["idx", "uid", "category", "label", "score", "verdict", "reason", "answer", "latency_s"]
    rows = [[i.idx, i.uid, i.category, i.label, i.value, i.verdict, i.reason, (i.answer or "")[:60], i.latency_s,
             *texts(i.idx)] for i in items]
    notes = () if data is not None else ("reference and completion not shown: the run's data is no longer where "
                                         "it was, or has changed since",) if run.kind == RunKind.REWARD_EVAL else ()
    return Table("Items", headers + (["reference", "completion"] if data is not None else []), rows, notes=notes)


def _texts(run: RunRecord, kept: Mapping[int, ItemText] | None) -> Mapping[int, Any] | None:
    """The texts behind a run's items, by index: those the run kept (a policy's generations), else its suite's
    items when its data can still be read; None when neither is there."""
    if kept:
        return kept
    from harness.evaluate import scored_data

    data = scored_data(run)
    return None if data is None else {i: row.item for i, row in enumerate(data.rows)}


def judged_right(item: ItemRow) -> bool:
    """The reward judged the item as its label says (an abstention is a "not correct", as in the metrics); for an
    item without a label (a policy's sample), that the reward paid it."""
    if item.label is None:
        return item.verdict is True
    return (item.verdict is True) == bool(item.label)


def paired_items(a: RunRecord, b: RunRecord, items_a: list[ItemRow], items_b: list[ItemRow]) -> bool:
    """Two runs can be compared item by item: the same data, and the same labelled items in the same order."""
    if not items_a or len(items_a) != len(items_b) or a.data_hash != b.data_hash:
        return False
    return all(x.idx == y.idx and x.uid == y.uid and x.label == y.label for x, y in zip(items_a, items_b))


def paired_table(a: RunRecord, b: RunRecord, items_a: list[ItemRow], items_b: list[ItemRow],
                 tested: Mapping[str, Any] | None = None) -> Table:
    """Accuracy of B against A: on the same items, the paired difference with its 95% interval and the exact
    McNemar test on the items that flipped; on different items, the runs' own intervals and an unpaired interval
    of the difference (which says so). ``tested``: two policy runs' tests by problem, when the caller has them
    (:func:`harness.policy_eval.paired_by_problem`, a randomization test each: computed once a command)."""
    from harness.core.uncertainty import half_width_stderr, normal_interval, paired_comparison, wilson

    headers = ["comparison", "items", "A", "B", "B - A", "right only in A", "right only in B", "McNemar p", "significant"]
    if a.kind == RunKind.POLICY_EVAL and b.kind == RunKind.POLICY_EVAL:
        return _policy_paired_table(a, b, items_a, items_b, tested)
    if paired_items(a, b, items_a, items_b):
        c = paired_comparison([judged_right(i) for i in items_a], [judged_right(i) for i in items_b])
        row = ["paired (same items)", c.n,
               Estimate(c.accuracy_a, *wilson(c.accuracy_a * c.n, c.n)),  # type: ignore[misc]
               Estimate(c.accuracy_b, *wilson(c.accuracy_b * c.n, c.n)),  # type: ignore[misc]
               Estimate(c.difference, c.low, c.high), c.only_a, c.only_b, PValue(c.p_value),
               "yes" if c.significant() else "no"]
        notes = ("B - A: the mean per-item difference, with the 95% interval the exact McNemar test inverts (it "
                 "leaves 0 out exactly when p < 0.05); McNemar: exact two-sided binomial test on the items right "
                 "under one run only",)
    else:
        acc_a, acc_b = (next((m for m in r.metrics if m.name == "accuracy"), None) for r in (a, b))
        if acc_a is None or acc_b is None or acc_a.value is None or acc_b.value is None:
            return Table("Accuracy, B against A", headers, [], notes=("no accuracy to compare",))
        ia = acc_a.interval or wilson(acc_a.value * acc_a.n, acc_a.n)
        ib = acc_b.interval or wilson(acc_b.value * acc_b.n, acc_b.n)
        se = (half_width_stderr(ia) ** 2 + half_width_stderr(ib) ** 2) ** 0.5 if ia and ib else None
        difference = acc_b.value - acc_a.value
        bounds = normal_interval(difference, se) or (None, None)
        significant = "" if bounds[0] is None else "yes" if bounds[0] > 0 or bounds[1] < 0 else "no"
        row = ["unpaired (different items)", f"{acc_a.n} / {acc_b.n}", Estimate(acc_a.value, *ia) if ia else None,
               Estimate(acc_b.value, *ib) if ib else None, Estimate(difference, *bounds), None, None, None,
               significant]
        notes = ("the runs did not score the same items (or one kept none): no paired test; B - A has the normal "
                 "interval of two independent proportions, wider than a paired one",)
    return Table("Accuracy, B against A", headers, [row], frozenset({2, 3, 4}), notes)


def _policy_paired_table(a: RunRecord, b: RunRecord, items_a: list[ItemRow], items_b: list[ItemRow],
                         tested: Mapping[str, Any] | None = None) -> Table:
    """Two policies' accuracy paired by problem (:func:`harness.policy_eval.paired_by_problem`): per benchmark and
    overall, each run's figure, B - A with the interval of the randomization test over problems, and its p."""
    if tested is None:
        from harness.policy_eval import paired_by_problem

        tested = paired_by_problem(items_a, items_b)
    headers = ["metric", "problems", "A", "B", "B - A", "randomization p", "significant"]
    ma, mb = ({m.name: m for m in r.metrics} for r in (a, b))
    rows = [[name, ma[name].n if name in ma else None, estimate(ma.get(name)), estimate(mb.get(name)),
             Estimate(t.value, t.low, t.high), PValue(t.p_value), "yes" if t.significant() else "no"]
            for name, t in tested.items()]
    notes = ("paired by problem: per problem B's share of right samples minus A's; B - A is their mean (overall: "
             "the mean over benchmarks) with the interval of a paired randomization test that exchanges the runs' "
             "shares problem by problem (it leaves 0 out exactly when p < 0.05); the samples of one problem are "
             "not independent, so no test over samples",) if rows else (
             "the runs did not evaluate the same problems, or no problem's share differs: no paired test",)
    return Table("Accuracy, B against A, paired by problem", headers, rows, frozenset({2, 3, 4}), notes)


def flipped_table(a: RunRecord, items_a: list[ItemRow], items_b: list[ItemRow], limit: int | None = 50,
                  texts: Mapping[int, ItemText] | None = None) -> Table:
    """The items whose verdict changed between two paired runs: id, label, both verdicts, and the reference and
    the completion's end: from ``texts`` (what a policy evaluation kept), else from the run's data where it can
    still be read."""
    data = _texts(a, texts)
    flipped = [(x, y) for x, y in zip(items_a, items_b) if judged_right(x) != judged_right(y)]
    headers = ["idx", "uid", "label", "A verdict", "B verdict", "right under"]
    if data is not None:
        headers += ["reference", "completion (end)"]
    rows = []
    for x, y in flipped[:limit] if limit else flipped:
        row: list[Any] = [x.idx, x.uid, x.label, x.verdict, y.verdict, "A" if judged_right(x) else "B"]
        if data is not None:
            item = data[x.idx]
            row += [item.reference[:60], ("…" + item.completion[-80:] if len(item.completion) > 80
                                          else item.completion).replace("\n", " ")]
        rows.append(row)
    shown = f"{len(rows)} of {len(flipped)}" if limit and len(flipped) > limit else str(len(flipped))
    return Table(f"Flipped items ({shown})", headers, rows,
                 notes=() if data is not None else ("reference and completion not shown: the run's data is not "
                                                    "where it was, or has changed",))
