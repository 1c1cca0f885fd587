"""The papers' table layouts from stored runs: VerifyBench's accuracy by answer type, Cooper's Table 3, and the
robustness suite's table. Rendered as Markdown, LaTeX or CSV (``harness tables``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.report import Table, category_table
from harness.store import RunRecord

_VERIFYBENCH_COLUMNS = {"Numeric": "Num", "Expression": "Exp", "Multi-choice": "MC", "String": "Str"}
_TABLE3 = ("GSM8K", "SVAMP", "MATH500", "OB-EN", "Odyssey")


def _by_name(run: RunRecord) -> dict[str, float | None]:
    return {m.name: m.value for m in run.metrics}


def verifybench_layout(runs: Sequence[RunRecord]) -> Table:
    headers = ["Reward", *_VERIFYBENCH_COLUMNS.values(), "AVG"]
    rows = []
    for run in runs:
        m = _by_name(run)
        rows.append([run.reward, *(m.get(f"accuracy/{c}") for c in _VERIFYBENCH_COLUMNS), m.get("accuracy")])
    return Table("Accuracy by answer type (%)", headers, rows, frozenset(range(1, len(headers))))


def cooper_rl_layout(runs: Sequence[RunRecord]) -> Table:
    headers = ["Policy", *_TABLE3, "Avg"]
    rows = []
    for run in runs:
        m = _by_name(run)
        values = [m.get(f"accuracy/{c}") for c in _TABLE3]
        present = [v for v in values if v is not None]
        rows.append([run.data_source, *values, sum(present) / len(present) if present else None])
    return Table("Policy accuracy on math benchmarks (%)", headers, rows, frozenset(range(1, len(headers))))


def robustness_layout(runs: Sequence[RunRecord]) -> Table:
    base = category_table(runs, "Robustness: accuracy by attack family (%)")
    headers = ["Reward", *base.headers[2:], "FPR", "FNR", "timeouts"]  # no run id: the layout is for papers
    rows = [[run.reward, *row[2:], _by_name(run).get("false_positive_rate"), _by_name(run).get("false_negative_rate"),
             _by_name(run).get("timeout_rate")] for row, run in zip(base.rows, runs)]
    return Table(base.title, headers, rows, frozenset(range(1, len(headers))))


LAYOUTS: dict[str, Callable[[Sequence[RunRecord]], Table]] = {
    "verifybench": verifybench_layout,
    "verifybench-hard": verifybench_layout,
    "cooper-rl": cooper_rl_layout,
    "robustness": robustness_layout,
}


def render_latex(table: Table) -> str:
    from tabulate import tabulate

    cells = [[table.cell(r, c) for c in range(len(table.headers))] for r in range(len(table.rows))]
    return tabulate(cells, headers=table.headers, tablefmt="latex_booktabs")
