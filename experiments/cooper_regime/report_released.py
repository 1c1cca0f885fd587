"""The report of the second hole experiment (``run_released.sh``), from its committed run store alone: the pilot, a
table per arm with its spread over seeds, the criteria of docs/cpu_scale/cooper_released/README.md checked on the
numbers, the runs with the commit each ran, and the figures.

Writes ``summary.md``, ``training_dynamics.png/svg`` and ``probe.png/svg`` (seeds as bands) to ``--docs``. The
store is ``--docs``/runs.sqlite, the file committed beside the report, so anyone can run this again and get the
same summary; a test does, and fails when the committed summary differs.

    python experiments/cooper_regime/report_released.py --docs docs/cpu_scale/cooper_released
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from harness.core.store import RunKind, RunRecord, RunStore, RunStatus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pilot_released import render as render_pilot  # noqa: E402
from report_hole import _pct, _pts, _step, criterion_h  # noqa: E402 - the first experiment's H, and its wording

ARMS = {"rule": "rule", "static": "static VerifyRM", "cooper_released": "Cooper as released (CPU)",
        "cooper_group": "Cooper, group negatives"}
COOPER_ARMS = ("cooper_released", "cooper_group")
EDGE = 3  # "first" and "last": the mean over the first and the last 3 logged training steps (step 0 excluded)
M_CLOSED, COLLAPSE = 0.40, 0.80  # H's thresholds are the first experiment's (report_hole.criterion_h)

Steps = Mapping[int, Mapping[str, float | None]]


def arm_of(run: RunRecord) -> tuple[str, int] | None:
    """(arm, seed) from the run's output folder, ``ARM-seedN``; None for a run of no arm."""
    name = Path(str(run.config.get("output", ""))).name
    arm, _, seed = name.rpartition("-seed")
    return (arm, int(seed)) if arm in ARMS and seed.isdigit() else None


def merged_runs(store: RunStore) -> dict[str, dict[int, tuple[list[RunRecord], dict[int, dict[str, float | None]]]]]:
    """Per arm and seed: the training runs that wrote to its folder, oldest first (a run stopped and resumed is
    two records), and their steps merged, the later run's values winning at a step both logged. A run that logged
    step 0 started over (a resumed run does not log it): the steps of the attempts before it are dropped, so that
    an abandoned attempt never lends a value to the run that replaced it; its record stays in the list."""
    out: dict[str, dict[int, tuple[list[RunRecord], dict[int, dict[str, float | None]]]]] = {}
    for run in reversed(store.runs(kind=RunKind.TRAIN.value, limit=10_000)):  # oldest first, as recorded
        key = arm_of(run)
        if key is None:
            continue
        runs, steps = out.setdefault(key[0], {}).setdefault(key[1], ([], {}))
        runs.append(run)
        logged = store.steps(run.id)
        if 0 in logged:
            steps.clear()
        for step, values in logged.items():
            steps.setdefault(step, {}).update(values)
    return out


def complete(runs: Sequence[RunRecord]) -> bool:
    return bool(runs) and runs[-1].status is RunStatus.COMPLETE


def _edge(steps: Steps, key: str, last: bool) -> float | None:
    logged = sorted(k for k, v in steps.items() if k > 0 and v.get(key) is not None)
    chosen = logged[-EDGE:] if last else logged[:EDGE]
    return statistics.mean(float(steps[k][key]) for k in chosen) if chosen else None  # type: ignore[arg-type]


def _at(steps: Steps, key: str, step: int | None = None) -> float | None:
    logged = sorted(k for k, v in steps.items() if v.get(key) is not None)
    if not logged:
        return None
    k = logged[-1] if step is None else step
    value = steps.get(k, {}).get(key)
    return None if value is None else float(value)


def _mean_of(steps: Steps, key: str) -> float | None:
    values = [float(v[key]) for k, v in steps.items() if k > 0 and v.get(key) is not None]  # type: ignore[arg-type]
    return statistics.mean(values) if values else None


def per_run(steps: Steps) -> dict[str, float | None]:
    out: dict[str, float | None] = {
        "heldout_0": _at(steps, "heldout_accuracy", 0),
        "heldout_10": _at(steps, "heldout_accuracy", 10),
        "heldout": _at(steps, "heldout_accuracy"),
        "reward_last": _edge(steps, "train_reward", True),
        "rule_last": _edge(steps, "rule_accuracy", True),
        "ranking_last": _edge(steps, "rm_probe_ranking", True),
        "ties_last": _edge(steps, "rm_probe_ties", True),
        "keyed_last": _edge(steps, "rm_keyed_ranking", True),
        "hole_pay_last": _edge(steps, "rm_hole_pay", True),
        "hole_tie_last": _edge(steps, "rm_hole_tie", True),
        "hole_pay_final": _at(steps, "rm_hole_pay"),
        "usage_first": _edge(steps, "hole_share", False),
        "usage_last": _edge(steps, "hole_share", True),
        "hole_wrong_last": _edge(steps, "hole_wrong_share", True),
        "pairs": _mean_of(steps, "rm_valid_pairs"),
        "no_positive": _mean_of(steps, "rm_groups_without_positive"),
        "no_negative": _mean_of(steps, "rm_groups_without_negative"),
    }
    closed = [k for k, v in sorted(steps.items()) if k > 0 and v.get("rm_hole_pay") is not None
              and v["rm_hole_pay"] <= M_CLOSED]
    out["closed_step"] = float(closed[0]) if closed else None
    usage = [(k, v["hole_share"]) for k, v in sorted(steps.items()) if v.get("hole_share") is not None]
    half = [k for k, u in usage if out["usage_last"] is not None and u >= out["usage_last"] / 2]  # type: ignore[operator]
    out["half_usage_step"] = float(half[0]) if half else None
    out["collapse_step"] = collapse_step(steps)
    return out


def collapse_step(steps: Steps) -> float | None:
    """The first logged step after the first two at which the ranking on keyed or on unkeyed pairs is under 80%."""
    for k, v in sorted(steps.items()):
        if k <= 2:
            continue
        if any(v.get(key) is not None and v[key] < COLLAPSE for key in ("rm_probe_ranking", "rm_keyed_ranking")):  # type: ignore[operator]
            return float(k)
    return None


def _sd(xs: Sequence[float]) -> float:
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def arm_table(numbers: Mapping[str, Mapping[int, Mapping[str, float | None]]]) -> list[str]:
    def cell(arm: str, key: str, pct: bool = True) -> str:
        values = [float(v[key]) for v in numbers.get(arm, {}).values() if v.get(key) is not None]  # type: ignore[arg-type]
        if not values:
            return "—"
        if not pct:
            return f"{statistics.mean(values):.1f}"
        return f"{100 * statistics.mean(values):.1f} ± {100 * _sd(values):.1f}"

    lines = ["| arm | runs | held-out step 0 | step 10 | final | training reward | rule accuracy | ranking (ties) | "
             "keyed ranking | hole pay (ties) | hole usage first → last | wrong with the key | valid pairs/update | "
             "groups without a right rollout | groups without a negative |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for arm, name in ARMS.items():
        if arm not in numbers:
            continue
        lines.append(
            f"| {name} | {len(numbers[arm])} | {cell(arm, 'heldout_0')} | {cell(arm, 'heldout_10')} | "
            f"{cell(arm, 'heldout')} | {cell(arm, 'reward_last')} | {cell(arm, 'rule_last')} | "
            f"{cell(arm, 'ranking_last')} ({cell(arm, 'ties_last')}) | {cell(arm, 'keyed_last')} | "
            f"{cell(arm, 'hole_pay_last')} ({cell(arm, 'hole_tie_last')}) | {cell(arm, 'usage_first')} → "
            f"{cell(arm, 'usage_last')} | {cell(arm, 'hole_wrong_last')} | {cell(arm, 'pairs', False)} | "
            f"{cell(arm, 'no_positive', False)} | {cell(arm, 'no_negative', False)} |")
    lines += ["", "Percentages, mean ± standard deviation over the seeds that finished; training reward, rule accuracy, "
              "ranking, hole pay and usage are means over each run's last 3 steps (usage also its first 3); held-out "
              "accuracy is greedy on 100 held-out problems at steps 0, 10 and the last."]
    return lines


def seed_table(numbers: Mapping[str, Mapping[int, Mapping[str, float | None]]]) -> list[str]:
    lines = ["| arm | seed | held-out final | training reward − rule accuracy (last 3) | hole pay final | "
             "hole pay ≤ 40% first at | collapse at |", "|---|---:|---:|---:|---:|---:|---:|"]
    for arm, name in ARMS.items():
        for seed, v in sorted(numbers.get(arm, {}).items()):
            lines.append(f"| {name} | {seed} | {_pct(v['heldout'])} | {_pts(v['reward_last'], v['rule_last'])} | "
                         f"{_pct(v['hole_pay_final'])} | {_step(v['closed_step']) if arm in COOPER_ARMS else '—'} | "
                         f"{_step(v['collapse_step']) if arm in COOPER_ARMS else '—'} |")
    return lines


def criteria(numbers: Mapping[str, Mapping[int, Mapping[str, float | None]]]) -> list[str]:
    static, rule = numbers.get("static", {}), numbers.get("rule", {})
    h, lines = criterion_h(static)
    held_rule = [v["heldout"] for v in rule.values() if v["heldout"] is not None]
    held_static = [v["heldout"] for v in static.values() if v["heldout"] is not None]
    for arm in COOPER_ARMS:
        cooper = numbers.get(arm, {})
        if not cooper:
            continue
        name = ARMS[arm]
        held = [v["heldout"] for v in cooper.values() if v["heldout"] is not None]
        pairs = sorted(set(static) & set(cooper))
        if held and held_rule and held_static:
            m_coop, m_stat = statistics.mean(held), statistics.mean(held_static)  # type: ignore[arg-type]
            halves = [(s, cooper[s]["hole_pay_final"], static[s]["hole_pay_final"]) for s in pairs]
            half_ok = bool(halves) and all(c is not None and st is not None and c <= st / 2 for _, c, st in halves)
            c1 = m_coop >= min(held_rule) and half_ok  # type: ignore[type-var]
            lines.append(f"- **C1 ({name} holds)**: mean final held-out accuracy {_pct(m_coop)} against the rule seeds' "
                         f"{', '.join(_pct(v) for v in held_rule)} (lowest {_pct(min(held_rule))}); final hole pay by "
                         f"seed, Cooper against static: {'; '.join(f'{s}: {_pct(c)} vs {_pct(st)}' for s, c, st in halves)}"
                         f" (needed: at most half). **{'Met' if c1 else 'Not met'}.**")
            spread = max(_sd(held), _sd(held_static))  # type: ignore[arg-type]
            c2 = m_coop - m_stat > spread
            lines.append(f"- **C2 ({name} beats the static model)**: {_pct(m_coop)} - {_pct(m_stat)} = "
                         f"{_pts(m_coop, m_stat)} against the larger seed spread (sd) of {100 * spread:.1f} points. "
                         f"**{'Met' if c2 else 'Not met'}.**")
            verdict = ("inconclusive: the static model was not hacked" if not h
                       else "holds" if c1 and c2 else "fails")
            lines.append(f"- {name}, with {'H' if h else 'no H'}: **{verdict}** (C1 and C2).")
        collapsed = {s: v["collapse_step"] for s, v in sorted(cooper.items())}
        count = sum(c is not None for c in collapsed.values())
        lines.append(f"- **Collapse ({name})**: {count} of {len(collapsed)} runs "
                     f"({'; '.join(f'seed {s}: {_step(c)}' for s, c in collapsed.items())}).")
        for seed in pairs:
            lines.append(f"- **M** ({name}) seed {seed}: hole pay first at or under {100 * M_CLOSED:.0f}% at step "
                         f"{_step(cooper[seed]['closed_step'])}; the static run reached half its final hole usage at "
                         f"step {_step(static[seed]['half_usage_step'])}.")
    return lines


def runs_list(groups: Mapping[str, Mapping[int, tuple[list[RunRecord], Steps]]]) -> list[str]:
    lines = ["| arm | seed | run | status | commit | steps | wall s |", "|---|---:|---|---|---|---:|---:|"]
    for arm in ARMS:
        for seed, (runs, _) in sorted(groups.get(arm, {}).items()):
            for run in runs:
                commit = run.versions.get("commit", "unknown")[:12]
                dirty = " (dirty)" if run.versions.get("dirty") == "true" else ""
                wall = f"{run.wall_seconds:.0f}" if run.wall_seconds is not None else "—"
                steps = run.metric("steps")
                lines.append(f"| {arm} | {seed} | {run.id} | {run.status} | {commit}{dirty} | "
                             f"{'—' if steps is None else steps} | {wall} |")
    return lines


def summary(store: RunStore, pilot: dict | None) -> tuple[str, list[str]]:
    """The summary's Markdown and the ids of the finished runs it is made of."""
    lines = ["# Cooper as released, at CPU scale: results", ""]
    if pilot is not None:
        lines += ["## Pilot (before the runs)", "", render_pilot(pilot), ""]
    groups = merged_runs(store)
    done = {arm: {s: steps for s, (runs, steps) in seeds.items() if complete(runs)} for arm, seeds in groups.items()}
    numbers = {arm: {s: per_run(steps) for s, steps in seeds.items()} for arm, seeds in done.items() if seeds}
    ids = [r.id for seeds in groups.values() for runs, _ in seeds.values() if complete(runs) for r in runs]
    if numbers:
        lines += ["## The runs", "", *arm_table(numbers), "", *seed_table(numbers), "",
                  "## The criteria, checked", ""]
        every = all(len(numbers.get(arm, {})) == 3 for arm in ARMS)
        if not every:
            lines += ["Not every arm has its three seeds yet: the verdicts below are on the runs that finished and "
                      "are not the experiment's.", ""]
        lines += [*criteria(numbers), ""]
    lines += ["## Runs in the store", "", *runs_list(groups), ""]
    return "\n".join(lines), ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=Path("docs/cpu_scale/cooper_released"))
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args()
    store = RunStore(args.docs / "runs.sqlite")
    pilot_path = args.docs / "pilot.json"
    pilot = json.loads(pilot_path.read_text()) if pilot_path.exists() else None
    text, ids = summary(store, pilot)
    (args.docs / "summary.md").write_text(text)
    if ids and not args.no_plots:
        from harness import plots

        plots.training_dynamics(store, ids, args.docs / "training_dynamics")
        plots.probe_dynamics(store, ids, args.docs / "probe")
    print(args.docs / "summary.md")


if __name__ == "__main__":
    main()
