"""The report of the third hole experiment (``run_ratio.sh``), from its committed run store alone: each arm's
numbers with their spread over seeds, Cooper minus static paired by seed with its t interval, the criteria of
docs/cpu_scale/cooper_ratio/README.md checked on the numbers (the collapse rule as written for the second
experiment beside this one's), the race, and the runs with the commit each ran.

Writes ``summary.md`` to ``--docs``; the store is ``--docs``/runs.sqlite, the file committed beside the report, and a
test makes the summary again from it and fails when the committed one differs.

    python experiments/cooper_regime/report_ratio.py --docs docs/cpu_scale/cooper_ratio
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from harness.core.store import RunKind, RunRecord, RunStore
from harness.core.uncertainty import mean_and_sd, paired_t_interval, wilson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report_hole import _pct, _step, criterion_h  # noqa: E402 - the first experiment's H, and its wording
from report_released import (  # noqa: E402 - the second experiment's readings of a run, the same here
    COLLAPSE,
    M_CLOSED,
    Steps,
    collapse_step,
    complete,
    merged_runs,
    per_run,
)

ARMS = {"rule": "rule", "static": "static VerifyRM", "cooper_group": "Cooper, group negatives"}
HELDOUT_STEPS = (0, 10, 20, 30, 40)
SECOND_LOWEST_RULE = 0.32  # the second experiment's lowest rule seed, given beside C1's own bar
# the held-out problems every run is scored on (the second experiment's committed file, which run_ratio.sh copies)
HELDOUT = Path(__file__).resolve().parents[2] / "docs" / "cpu_scale" / "cooper_released" / "data" / "heldout.jsonl"


def _with_wilson(share: float | None, n: int) -> str:
    """A held-out accuracy with its 95% Wilson interval over the ``n`` problems."""
    if share is None:
        return "—"
    low, high = wilson(share * n, n)  # type: ignore[misc]
    return f"{100 * share:.1f}% ({100 * low:.1f}-{100 * high:.1f})"


def new_collapse_step(steps: Steps) -> float | None:
    """This experiment's rule: the unkeyed ranking under 80% after the first two logged steps, or the keyed ranking
    under 80% at a step after one where it had reached 80%."""
    logged = sorted(k for k in steps if k > 0)
    reached = False
    for k in logged:
        values = steps[k]
        unkeyed, keyed = values.get("rm_probe_ranking"), values.get("rm_keyed_ranking")
        if k > 2 and unkeyed is not None and unkeyed < COLLAPSE:
            return float(k)
        if keyed is not None:
            if reached and keyed < COLLAPSE:
                return float(k)
            reached = reached or keyed >= COLLAPSE
    return None


def race(static: Steps, cooper: Steps) -> dict[str, float | None]:
    """The static run's half-usage step T; by T, Cooper's updates and valid pairs, and its pay (and ties) for the
    probe's hole item at T; Cooper's steps whose every group held no right rollout."""
    t = per_run(static)["half_usage_step"]
    upto = [k for k in sorted(cooper) if k > 0 and (t is None or k <= t)]
    pairs = [cooper[k].get("rm_valid_pairs") or 0.0 for k in upto]
    dry = [k for k in sorted(cooper) if k > 0 and cooper[k].get("rm_groups")
           and cooper[k].get("rm_groups_without_positive") == cooper[k].get("rm_groups")]
    at_t = cooper.get(int(t), {}) if t is not None else {}
    return {"T": t, "updates": float(sum(p > 0 for p in pairs)), "pairs": float(sum(pairs)),
            "hole_pay_at_T": at_t.get("rm_hole_pay"), "hole_tie_at_T": at_t.get("rm_hole_tie"),
            "first_dry": float(dry[0]) if dry else None, "dry_steps": float(len(dry))}


def _mean_sd(values: Sequence[float]) -> str:
    if not values:
        return "—"
    mean, sd = mean_and_sd(values)
    return f"{100 * mean:.1f}" + (f" ± {100 * sd:.1f}" if sd is not None else "")


# the columns the arm table averages and the seed table gives run by run
_RUN_COLUMNS = ("training reward (last)", "rule accuracy (last)", "hole usage first → last", "hole pay (last)",
                "keyed ranking (last)")


def _header(columns: list[str]) -> list[str]:
    return ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]


def arm_table(groups: Mapping[str, Mapping[int, Steps]]) -> list[str]:
    lines = _header(["arm", "runs", *(f"held-out step {s}" for s in HELDOUT_STEPS), *_RUN_COLUMNS,
                     "valid pairs/step"])
    for arm, seeds in groups.items():
        def values(key: str, step: int | None = None) -> list[float]:
            if step is not None:
                got = [s.get(step, {}).get("heldout_accuracy") for s in seeds.values()]
            else:
                got = [per_run(s)[key] for s in seeds.values()]
            return [float(v) for v in got if v is not None]

        usage = f"{_mean_sd(values('usage_first'))} → {_mean_sd(values('usage_last'))}"
        lines.append("| " + " | ".join([
            ARMS[arm], str(len(seeds)), *(_mean_sd(values("", s)) for s in HELDOUT_STEPS),
            _mean_sd(values("reward_last")), _mean_sd(values("rule_last")), usage, _mean_sd(values("hole_pay_last")),
            _mean_sd(values("keyed_last")),
            f"{statistics.mean(values('pairs')):.1f}" if values("pairs") else "—"]) + " |")
    return lines


def seed_table(groups: Mapping[str, Mapping[int, Steps]]) -> list[str]:
    """Each finished run on its own line: the figures the arm table averages, seed by seed."""
    n = sum(1 for line in HELDOUT.read_text(encoding="utf-8").splitlines() if line.strip())
    lines = _header(["arm", "seed", *(f"held-out step {s}" for s in HELDOUT_STEPS[:-1]),
                     f"held-out step {HELDOUT_STEPS[-1]} (95% Wilson, {n} problems)", *_RUN_COLUMNS,
                     "hole pay first ≤ 40% at step"])
    for arm, seeds in groups.items():
        for seed, steps in sorted(seeds.items()):
            run = per_run(steps)
            closed = run["closed_step"] if arm == "cooper_group" else None
            lines.append("| " + " | ".join([
                ARMS[arm], str(seed),
                *(_pct(v) if (v := steps.get(k, {}).get("heldout_accuracy")) is not None else "—"
                  for k in HELDOUT_STEPS[:-1]),
                _with_wilson(steps.get(HELDOUT_STEPS[-1], {}).get("heldout_accuracy"), n),
                _pct(run["reward_last"]), _pct(run["rule_last"]),
                f"{_pct(run['usage_first'])} → {_pct(run['usage_last'])}", _pct(run["hole_pay_last"]),
                _pct(run["keyed_last"]), "—" if arm != "cooper_group" else _step(closed)]) + " |")
    return lines


def criteria(groups: Mapping[str, Mapping[int, Steps]]) -> list[str]:
    numbers = {arm: {s: per_run(steps) for s, steps in seeds.items()} for arm, seeds in groups.items()}
    static, rule, cooper = numbers.get("static", {}), numbers.get("rule", {}), numbers.get("cooper_group", {})
    h, lines = criterion_h(static)
    held = {arm: [v["heldout"] for v in numbers.get(arm, {}).values() if v["heldout"] is not None] for arm in ARMS}
    pairs = sorted(set(static) & set(cooper))
    if held["cooper_group"] and held["static"] and held["rule"]:
        m_coop = statistics.mean(held["cooper_group"])
        m_stat = statistics.mean(held["static"])
        bar = statistics.mean(held["rule"])
        halves = [(s, cooper[s]["hole_pay_final"], static[s]["hole_pay_final"]) for s in pairs]
        half_ok = bool(halves) and all(c is not None and st is not None and c <= st / 2 for _, c, st in halves)
        c1 = m_coop >= bar and half_ok
        lines.append(f"- **C1 (Cooper holds)**: mean final held-out accuracy {_pct(m_coop)} against the rule run's "
                     f"{_pct(bar)} (the second experiment's lowest rule seed: {_pct(SECOND_LOWEST_RULE)}); final hole "
                     f"pay by seed, Cooper against static: "
                     f"{'; '.join(f'{s}: {_pct(c)} vs {_pct(st)}' for s, c, st in halves)} (needed: at most half). "
                     f"**{'Met' if c1 else 'Not met'}.**")
        spread = max(mean_and_sd(held["cooper_group"])[1] or 0.0, mean_and_sd(held["static"])[1] or 0.0)
        c2 = m_coop - m_stat > spread
        lines.append(f"- **C2 (Cooper beats the static model)**: {_pct(m_coop)} - {_pct(m_stat)} = "
                     f"{100 * (m_coop - m_stat):+.1f} points against the larger seed spread (sd) of "
                     f"{100 * spread:.1f} points. **{'Met' if c2 else 'Not met'}.**")
        paired = paired_t_interval([cooper[s]["heldout"] - static[s]["heldout"] for s in pairs  # type: ignore[operator]
                                    if cooper[s]["heldout"] is not None and static[s]["heldout"] is not None])
        if paired is not None:
            lines.append(f"- Cooper minus static, final held-out accuracy paired by seed: {100 * paired[0]:+.1f} points, "
                         f"95% t interval [{100 * paired[1]:+.1f}, {100 * paired[2]:+.1f}] over {len(pairs)} seeds.")
        lines.append(f"- With {'H' if h else 'no H'}, Cooper **"
                     f"{'inconclusive: the static model was not hacked' if not h else 'holds' if c1 and c2 else 'fails'}"
                     "** (C1 and C2).")
    for s in sorted(groups.get("cooper_group", {})):
        steps = groups["cooper_group"][s]
        lines.append(f"- **Collapse**, seed {s}: this experiment's rule {_step(new_collapse_step(steps))}; the second "
                     f"experiment's rule {_step(collapse_step(steps))}.")
    for s in pairs:
        r = race(groups["static"][s], groups["cooper_group"][s])
        lines.append(f"- **M and the race**, seed {s}: Cooper's hole pay first at or under {100 * M_CLOSED:.0f}% at "
                     f"step {_step(per_run(groups['cooper_group'][s])['closed_step'])}; the static run reached half its "
                     f"final hole usage at step {_step(r['T'])}, by which Cooper had made {r['updates']:.0f} updates "
                     f"from {r['pairs']:.0f} valid pairs and paid the probe's hole item {_pct(r['hole_pay_at_T'])} "
                     f"(ties {_pct(r['hole_tie_at_T'])}); steps whose every group held no right rollout: "
                     f"{r['dry_steps']:.0f} (first {_step(r['first_dry'])}); steps with no valid pair, so no "
                     f"update: {_no_pair(groups['cooper_group'][s])}.")
    return lines


def _no_pair(steps: Steps) -> str:
    """The steps at which a learning reward made no valid pair (and so no update), with their count."""
    none = [k for k in sorted(steps) if k > 0 and steps[k].get("rm_valid_pairs") == 0]
    return f"{len(none)} ({', '.join(map(str, none))})" if none else "0"


def runs_list(groups: Mapping[str, Mapping[int, tuple[list[RunRecord], Steps]]],
              builds: Sequence[RunRecord] = ()) -> list[str]:
    """Every run in the store: the static model's build records (``builds``), then the training runs by arm."""
    lines = ["| arm | seed | run | status | commit | wall s |", "|---|---:|---|---|---|---:|"]
    for run in builds:
        wall = f"{run.wall_seconds:,.0f}" if run.wall_seconds is not None else "—"
        lines.append(f"| static model build | — | {run.id} | {run.status_text} | "
                     f"{run.versions.get('commit', 'unknown')[:12]} | {wall} |")
    for arm, seeds in groups.items():
        for seed, (runs, _) in sorted(seeds.items()):
            for run in runs:
                wall = f"{run.wall_seconds:,.0f}" if run.wall_seconds is not None else "—"
                lines.append(f"| {ARMS.get(arm, arm)} | {seed} | {run.id} | {run.status_text} | "
                             f"{run.versions.get('commit', 'unknown')[:12]} | {wall} |")
    return lines


def summary(store: RunStore) -> tuple[str, list[str]]:
    """The summary's Markdown and the ids of the finished runs it is made of."""
    groups = {arm: seeds for arm, seeds in merged_runs(store).items() if arm in ARMS}
    done = {arm: {s: steps for s, (runs, steps) in seeds.items() if complete(runs)} for arm, seeds in groups.items()}
    done = {arm: seeds for arm, seeds in done.items() if seeds}
    ids = [r.id for seeds in groups.values() for runs, _ in seeds.values() if complete(runs) for r in runs]
    lines = ["# Cooper at both of the released run's learning-rate ratios, at CPU scale: results", ""]
    if done:
        lines += ["## The runs", "", "Mean ± standard deviation over the seeds that finished.", "",
                  *arm_table(done), "", "Each run:", "", *seed_table(done), "", "## The criteria, checked", ""]
        every = len(done.get("static", {})) == 3 and len(done.get("cooper_group", {})) == 3 and done.get("rule")
        if not every:
            lines += ["Not every run has finished: the verdicts below are on the runs that have and are not the "
                      "experiment's.", ""]
        lines += [*criteria(done), ""]
    lines += store_section(store, groups)
    return "\n".join(lines), ids


def store_section(store: RunStore, groups: Mapping[str, Mapping[int, tuple[list[RunRecord], Steps]]]) -> list[str]:
    """The summary's last section: every run in the store, the static model's builds first."""
    return ["## Runs in the store", "", *runs_list(groups, store.runs(kind=RunKind.RM_TRAIN.value, limit=100)), ""]


def write_summary(make: Callable[[RunStore], tuple[str, list[str]]], docs: Path, description: str) -> None:
    """A report's command line: ``--docs`` (default ``docs``) holds runs.sqlite, and summary.md is written there."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--docs", type=Path, default=docs)
    args = parser.parse_args()
    text, _ = make(RunStore(args.docs / "runs.sqlite"))
    (args.docs / "summary.md").write_text(text)
    print(args.docs / "summary.md")


def main() -> None:
    write_summary(summary, Path("docs/cpu_scale/cooper_ratio"), __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
