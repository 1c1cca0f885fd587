"""The papers' table layouts from stored runs: VerifyBench's accuracy by answer type, Cooper's Table 3, and the
robustness suite's table. Rendered as Markdown, LaTeX or CSV (``harness tables``).

Where a paper published a figure for the same system as a stored run (see :mod:`harness.published`), the
paper's figure is shown in a column beside the run's, with the paper row and its source; with ``all``, the
paper's other rows are listed too, with "—" in the columns of runs that were not made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from harness.core.spec import ComponentSpec, SpecError
from harness.core.store import ItemRow, Metric, RunKind, RunRecord, RunStatus
from harness.core.uncertainty import half_width_stderr, mean_and_sd, normal_interval, wilson
from harness.published import Published, PublishedRow, caveats
from harness.report import INTERVAL_NOTE, Estimate, Table, category_table, estimate, judged_right, paired_items
from suites.math_benchmarks import display_name, table3

PUBLISHED_MODES: tuple[str, ...] = ("matched", "all", "none")

_VERIFYBENCH_COLUMNS = {"Numeric": "Num", "Expression": "Exp", "Multi-choice": "MC", "String": "Str"}


def _table3_columns() -> tuple[str, ...]:
    return tuple(display_name(b) for b in table3())


def _by_name(run: RunRecord) -> dict[str, float | None]:
    return {m.name: m.value for m in run.metrics}


def _metrics(run: RunRecord) -> dict[str, Metric]:
    return {m.name: m for m in run.metrics}


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def _mean_estimate(cells: Sequence[Estimate | None]) -> Estimate | None:
    """The mean of independent figures (one suite's, one benchmark's) with the normal 95% interval their own
    intervals imply; without an interval where one of them has none."""
    present = [c for c in cells if c is not None and c.value is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    mean = sum(c.value for c in present) / len(present)  # type: ignore[misc]
    if not all(c.low is not None and c.high is not None for c in present):
        return Estimate(mean)
    se = sum(half_width_stderr((c.low, c.high)) ** 2 for c in present) ** 0.5 / len(present)  # type: ignore[arg-type]
    low, high = normal_interval(mean, se)  # type: ignore[misc]
    if all(0.0 <= c.low <= c.high <= 1.0 for c in present):  # type: ignore[operator]
        low, high = max(0.0, low), min(1.0, high)  # a mean of shares is a share: its bounds stay in [0, 1]
    return Estimate(mean, low, high)


def _seed_spread(values: Sequence[float]) -> Estimate | None:
    """A mean over the seeds of one setting, ± their standard deviation."""
    if not values:
        return None
    mean, sd = mean_and_sd(values)
    return Estimate.spread_of(mean, sd, "sd")


@dataclass(frozen=True)
class Layout:
    """A paper's table: the columns naming a row, the value columns, and how a stored run fills them."""

    title: str
    keys: tuple[str, ...]
    value_columns: Callable[[], tuple[str, ...]]  # read when a table is drawn (Table 3's come from suites.yaml)
    row: Callable[[RunRecord], tuple[list[Any], list[float | None]]]
    key_of_published: Callable[[PublishedRow], list[Any]]
    run_kind: RunKind = RunKind.REWARD_EVAL  # the stored runs it reads when none are named

    @property
    def columns(self) -> tuple[str, ...]:
        return self.value_columns()


def _verifybench_row(run: RunRecord) -> tuple[list[Any], list[Any]]:
    m = _metrics(run)
    return [run.reward], [*(estimate(m.get(f"accuracy/{c}")) for c in _VERIFYBENCH_COLUMNS), estimate(m.get("accuracy"))]


def _verifybench_key(row: PublishedRow) -> list[Any]:
    spec = row.match.get("reward", "")
    if "model" in row.match:
        spec += f":model={row.match['model']}"
    return [spec]


def _cooper_row(run: RunRecord) -> tuple[list[Any], list[Any]]:
    m = _metrics(run)
    values = [estimate(m.get(f"accuracy/{c}")) for c in _table3_columns()]
    policy = run.settings.base_policy or run.data_source
    return [policy, run.settings.trained_with or "none"], [*values, _mean_estimate(values)]


def _cooper_key(row: PublishedRow) -> list[Any]:
    return [row.match.get("policy", ""), row.match.get("reward", "")]


_VERIFYBENCH = Layout("Accuracy by answer type (%)", ("Reward",), lambda: (*_VERIFYBENCH_COLUMNS.values(), "AVG"),
                      _verifybench_row, _verifybench_key)
LAYOUTS: dict[str, Layout] = {
    "verifybench": _VERIFYBENCH,
    "verifybench-hard": _VERIFYBENCH,
    "cooper-rl": Layout("Policy accuracy on math benchmarks (%)", ("Policy", "Trained with"),
                        lambda: (*_table3_columns(), "Avg"),
                        _cooper_row, _cooper_key, run_kind=RunKind.POLICY_EVAL),
}


def paper_table(layout: str, runs: Sequence[RunRecord], published: Published | None = None,
                mode: str = "matched", items_of: Callable[[RunRecord], list[ItemRow]] | None = None) -> Table:
    """One row per run in the layout; with published figures, each value column has the paper's beside it. With
    ``items_of``, a layout that compares rewards item by item (``verifiers``) marks the significant differences."""
    if mode not in PUBLISHED_MODES:
        raise ValueError(f"unknown published mode {mode!r}; choose {', '.join(PUBLISHED_MODES)}")
    # a failed, interrupted or running run has no numbers: a row of it would be a row of "—" beside real ones
    complete = [run for run in runs if run.status == RunStatus.COMPLETE]
    left_out = tuple(f"left out: {run.id} ({run.status_text}, no numbers)" for run in runs
                     if run.status != RunStatus.COMPLETE)
    if items_of is not None and layout in PAIRED_TABLES:
        table = PAIRED_TABLES[layout](complete, items_of)
    else:
        table = TABLES[layout](complete, published, mode)
    return replace(table, notes=table.notes + left_out) if left_out else table


def _plain_table(spec: Layout, ours: list[tuple[list[Any], list[float | None]]]) -> Table:
    headers = [*spec.keys, *spec.columns]
    return Table(spec.title, headers, [[*keys, *values] for keys, values in ours],
                 frozenset(range(len(spec.keys), len(headers))), (INTERVAL_NOTE,) if ours else ())


def _layout_table(layout: str, runs: Sequence[RunRecord], published: Published | None, mode: str) -> Table:
    spec = LAYOUTS[layout]
    ours = [spec.row(run) for run in runs]
    paper_rows = published.for_layout(layout) if published is not None and mode != "none" else []
    if published is None or not paper_rows:
        return _plain_table(spec, ours)

    headers = list(spec.keys)
    for column in spec.columns:
        headers += [column, f"{column} (paper)"]
    headers += ["Paper row", "Source"]
    first = len(spec.keys)
    percent = frozenset(range(first, first + 2 * len(spec.columns)))
    decimals = {first + 2 * i + 1: 2 for i in range(len(spec.columns))}  # the papers print two decimals

    counts = published.layouts[layout].counts if layout in published.layouts else ()

    def paper_values(row: PublishedRow | None) -> list[Any]:
        """The paper's figures (percent as printed, to fractions); with the layout's item counts, each with the
        Wilson interval its n implies, computed here (the papers print none)."""
        if row is None:
            return [None] * len(spec.columns)
        values = [round(row.values[layout][c] / 100, 6) for c in spec.columns]
        if not counts:
            return values
        return [Estimate(v, *(wilson(v * n, n) or (None, None))) for v, n in zip(values, counts)]

    def interleave(a: list[float | None], b: list[float | None]) -> list[float | None]:
        return [v for pair in zip(a, b) for v in pair]

    rows: list[list[Any]] = []
    shown: list[PublishedRow] = []
    run_notes: list[str] = []
    for run, (keys, values) in zip(runs, ours):
        match = published.matching(layout, run)
        if match is not None:
            run_notes += caveats(published, layout, run)
            if match not in shown:
                shown.append(match)
        rows.append([*keys, *interleave(values, paper_values(match)),
                     match.system if match else None, match.source.cite if match else None])
    if mode == "matched" and not shown:
        return _plain_table(spec, ours)  # no run has a paper row: the paper columns would be all "—"
    if mode == "all":
        for row in paper_rows:
            if row not in shown:
                shown.append(row)
                rows.append([*spec.key_of_published(row), *interleave([None] * len(spec.columns), paper_values(row)),
                             row.system, row.source.cite])
    notes = [source.cite + (f" ({source.url})" if source.url else "") + (f": {source.note}" if source.note else "")
             for source in dict.fromkeys(row.source for row in shown)]
    notes += [f"{row.system}: {row.note}" for row in shown if row.note]
    notes += run_notes
    notes.append(INTERVAL_NOTE + ("; the papers' figures as published, each with the Wilson interval of its item "
                                  "count (" + ", ".join(f"{c} {n:,}" for c, n in zip(spec.columns, counts))
                                  + "), computed here: the papers print none" if counts else
                                  "; the papers' figures are printed as published, without one"))
    return Table(spec.title, headers, rows, percent, tuple(notes), decimals)


def robustness_layout(runs: Sequence[RunRecord]) -> Table:
    base = category_table(runs, "Robustness: accuracy by attack family (%)")
    headers = ["Reward", *base.headers[2:], "FPR", "FNR", "timeouts"]  # no run id: the layout is for papers
    rows = [[run.reward, *row[2:], *(estimate(_metrics(run).get(name)) for name in
                                     ("false_positive_rate", "false_negative_rate", "timeout_rate"))]
            for row, run in zip(base.rows, runs)]
    return Table(base.title, headers, rows, frozenset(range(1, len(headers))), (INTERVAL_NOTE,))


def _spread(values: Sequence[float]) -> tuple[float | None, float | None, float | None, float | None]:
    """(mean, standard deviation, min, max) of the values present."""
    if not values:
        return None, None, None, None
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5 if len(values) > 1 else 0.0
    return mean, sd, min(values), max(values)


# Options that say where a run keeps its files, or which seed it drew, not what the reward is.
_PER_RUN_OPTIONS = ("seed", "checkpoint_dir", "snapshot_dir")


def setting(reward: str) -> str:
    """A reward spec without what differs between the seeds of one setting: the seed (Cooper's spec carries the
    seed of its own updates) and the folders its checkpoints and weight snapshots go to."""
    try:
        return str(ComponentSpec.parse(reward).without(*_PER_RUN_OPTIONS))
    except SpecError:
        return reward


def training_layout(runs: Sequence[RunRecord]) -> Table:
    """Training runs grouped by reward (the seeds of one setting): final held-out accuracy with its spread across
    seeds, final training reward and rule accuracy, the reward's final probe accuracy, ranking of right over wrong
    and pay rate on the probe's hole, Cooper's valid pairs per update, and how many runs set off the hacking alarm."""
    groups: dict[str, list[RunRecord]] = {}
    for run in runs:
        groups.setdefault(setting(run.reward), []).append(run)
    headers = ["Reward", "seeds", "held-out acc.", "sd", "min", "max", "training reward", "rule accuracy",
               "probe accuracy", "probe ranking", "hole pay", "valid pairs/update", "alarm"]
    rows = []
    for reward, members in groups.items():
        metrics = [_by_name(r) for r in members]

        def values(name: str) -> list[float]:
            return [m[name] for m in metrics if m.get(name) is not None]

        held = _spread(values("final_heldout_accuracy"))
        fired = [m.get("hacking_alarm_step") for m in metrics]
        alarm = f"{sum(f is not None for f in fired)}/{len(fired)}"
        if any(f is not None for f in fired):
            alarm += " (steps " + ", ".join(str(int(f)) for f in fired if f is not None) + ")"
        rows.append([reward, len(members), *held, *(_seed_spread(values(name)) for name in (
            "final_train_reward", "final_rule_accuracy", "final_rm_probe_accuracy", "final_rm_probe_ranking",
            "final_rm_hole_pay", "mean_valid_pairs")), alarm])
    notes = ("held-out accuracy: the last held-out check of each run (greedy, the rule reward), mean, standard "
             "deviation, min and max over the runs of the row; the other columns are means over them ± their "
             "standard deviation over the runs",)
    return Table("Training runs by reward (final values; spread across seeds)", headers, rows,
                 frozenset({2, 3, 4, 5, 6, 7, 8, 9, 10}), notes, {11: 1})


# The suites of the verifiers layout, by the name in a run's suite spec: (column, what the column reads)
VERIFIER_SUITES = (("verifybench-hard", "VerifyBench-Hard"), ("processbench", "ProcessBench"),
                   ("mathcheck-gsm", "MathCheck-GSM"))


def _suite_name(run: RunRecord) -> str:
    try:
        return ComponentSpec.parse(run.suite).name
    except SpecError:
        return run.suite


BASELINE = "mathverify"  # the verifiers layout's baseline row: plain math-verify as trainers call it


def verifiers_layout(runs: Sequence[RunRecord],
                     items_of: Callable[[RunRecord], list[ItemRow]] | None = None) -> Table:
    """One row per reward, for choosing a verifier: accuracy on each labelled suite, F1 and calibration (their
    means over those suites), the false-positive rate on the robustness suite (how often a hacking input is
    paid), the abstention rate, and what it costs: items per second and the median and 99th-percentile seconds
    of an item. Each cell comes from the newest run of that reward on that suite; "-" where none was run.

    Each figure carries its 95% interval; a mean over suites the normal interval its suites' intervals imply.
    With ``items_of`` (the store's items of a run), each suite's accuracy is compared item by item with the
    baseline row's run on the same items (exact McNemar test): ``*`` marks a difference at p < 0.05, and a note
    gives every difference with its interval and p-value."""
    from harness.core.uncertainty import paired_comparison

    latest: dict[str, dict[str, RunRecord]] = {}
    for run in sorted(runs, key=lambda r: r.created_at):
        latest.setdefault(setting(run.reward), {})[_suite_name(run)] = run
    labelled = [name for name, _ in VERIFIER_SUITES]
    headers = ["Reward", *(title for _, title in VERIFIER_SUITES), "F1", "hacking FPR", "ECE", "AUROC", "abstain",
               "items/s", "p50 s", "p99 s"]
    baseline = latest.get(BASELINE, {})
    baseline_items = {name: items_of(run) for name, run in baseline.items()} if items_of is not None else {}
    rows = []
    differences: list[str] = []
    for reward, by_suite in latest.items():
        scored = [_metrics(by_suite[name]) for name in labelled if name in by_suite]
        every = [_metrics(r) for r in by_suite.values()]

        def mean_of(name: str, metrics: list[dict[str, Metric]]) -> Estimate | None:
            return _mean_estimate([estimate(m.get(name)) for m in metrics])

        accuracies: list[Estimate | None] = []
        for name, title in VERIFIER_SUITES:
            run = by_suite.get(name)
            cell = estimate(_metrics(run).get("accuracy")) if run is not None else None
            base = baseline.get(name)
            if cell is not None and items_of is not None and base is not None and reward != BASELINE:
                ours, theirs = items_of(run), baseline_items[name]  # type: ignore[arg-type]
                if paired_items(base, run, theirs, ours):  # type: ignore[arg-type]
                    c = paired_comparison([judged_right(i) for i in theirs], [judged_right(i) for i in ours])
                    if c.significant():
                        cell = Estimate(cell.value, cell.low, cell.high, mark="*")
                    differences.append(f"{reward} - {BASELINE} on {title}: {100 * c.difference:+.1f} points "
                                       f"[{100 * c.low:+.1f}, {100 * c.high:+.1f}], McNemar p = {c.p_value:.2g} "
                                       f"({c.only_b} items right only under {reward}, {c.only_a} only under "
                                       f"{BASELINE}, of {c.n})")
            accuracies.append(cell)
        robustness = _metrics(by_suite["robustness"]) if "robustness" in by_suite else {}
        rows.append([
            reward, *accuracies, mean_of("f1", scored), estimate(robustness.get("false_positive_rate")),
            mean_of("ece", scored), mean_of("roc_auc", scored), mean_of("abstain_rate", every),
            *(_mean([m[name].value for m in every if name in m])
              for name in ("items_per_second", "seconds_p50", "seconds_p99")),
        ])
    notes = [
        "accuracy, F1, hacking FPR and abstain in %; F1, ECE and AUROC are means over the labelled suites run "
        "(ECE and AUROC only for rewards that give a probability); speed columns are means over every suite run, "
        "on the machine that ran them",
        INTERVAL_NOTE + "; a mean over suites has the normal interval of its suites' intervals",
    ]
    if items_of is not None and baseline:
        notes.append(f"*: accuracy differs from the {BASELINE} row's on the same items (exact McNemar test, "
                     "p < 0.05); the differences:")
        notes += differences
    return Table("Choosing a verifier: accuracy, calibration, hackability and cost", headers, rows,
                 frozenset({1, 2, 3, 4, 5, 8}), tuple(notes))


# Every table ``harness tables --layout`` renders; robustness and training tables have no published figures.
TABLES: dict[str, Callable[[Sequence[RunRecord], Published | None, str], Table]] = {
    **{name: partial(_layout_table, name) for name in LAYOUTS},
    "robustness": lambda runs, published, mode: robustness_layout(runs),
    "training": lambda runs, published, mode: training_layout(runs),
    "verifiers": lambda runs, published, mode: verifiers_layout(runs),
}
# Layouts that compare runs item by item when they can read the runs' items
PAIRED_TABLES: dict[str, Callable[[Sequence[RunRecord], Callable[[RunRecord], list[ItemRow]]], Table]] = {
    "verifiers": verifiers_layout,
}
RUN_KINDS: dict[str, RunKind] = {**{name: layout.run_kind for name, layout in LAYOUTS.items()},
                                  "robustness": RunKind.REWARD_EVAL, "training": RunKind.TRAIN,
                                  "verifiers": RunKind.REWARD_EVAL}
# The suite a layout reads when neither runs nor --suite are given: a robustness table of VerifyBench runs, or a
# VerifyBench table of robustness runs, would have columns that mean nothing.
RUN_SUITES = {"verifybench": "verifybench", "verifybench-hard": "verifybench-hard", "robustness": "robustness"}


def render_latex(table: Table) -> str:
    from tabulate import tabulate

    cells = [[table.cell(r, c) for c in range(len(table.headers))] for r in range(len(table.rows))]
    text = tabulate(cells, headers=table.headers, tablefmt="latex_booktabs", disable_numparse=True)
    text = text.replace(" ± ", " $\\pm$ ")  # a spread; tabulate escapes TeX's specials in the cells, not this
    return text + "".join(f"\n% {note}" for note in table.notes)
