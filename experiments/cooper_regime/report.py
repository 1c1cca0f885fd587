"""The report of the Cooper-regime experiment, from the run store: tables, figures, and the criteria checked.

Reads the runs that ``run.sh`` made under ``--out`` (training runs by their output folder, the static VerifyRM's
evaluations by their data), and writes to ``--docs``: ``summary.md`` (the warm-up, the static reward model before
RL, the training table through ``harness tables --layout training``, and each criterion of
docs/cpu_scale/README.md with the numbers that decide it), ``training_dynamics.png/svg`` and
``rm_accuracy.png/svg`` (``harness plot`` kinds ``training`` and ``rm-accuracy``), and ``degenerate_scores.png/svg``.

    python experiments/cooper_regime/report.py --out runs/cooper_regime --docs docs/cpu_scale/cooper_regime
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from harness import plots
from harness.core.store import RunRecord, RunStore
from harness.report import render_text
from harness.tables import paper_table

REWARDS = ("rule", "verifyrm", "cooper")


def training_runs(store: RunStore, out: Path) -> dict[str, list[RunRecord]]:
    """The complete training runs of this experiment, by reward kind, oldest first."""
    found: dict[str, list[RunRecord]] = defaultdict(list)
    for run in reversed(store.runs(kind="train", status="complete", limit=1000)):
        output = Path(run.settings.output)
        if output.parent.resolve() == out.resolve():
            found[run.reward.split(":", 1)[0]].append(run)
    return found


def eval_run(store: RunStore, data_name: str) -> RunRecord | None:
    for run in store.runs(kind="reward-eval", status="complete", limit=1000):
        if run.reward.startswith("verifyrm") and run.data_source.endswith(data_name):
            return run
    return None


def _final(run: RunRecord, name: str) -> float | None:
    return run.metric(name)


def criteria(groups: dict[str, list[RunRecord]], store: RunStore, window: int) -> list[str]:
    """The criteria written before the runs, checked on the numbers."""
    lines = []
    static = groups.get("verifyrm", [])
    fired = [r for r in static if r.metric("hacking_alarm_step") is not None]
    hacked = len(static) >= 2 and len(fired) >= 2
    lines.append(f"- **H (the static VerifyRM is hacked)**: the alarm (training reward rising, rule accuracy of the "
                 f"same rollouts falling, over {window} steps) fired in {len(fired)} of {len(static)} static runs "
                 f"(steps: {', '.join(str(int(r.metric('hacking_alarm_step'))) for r in fired) or 'none'}). "
                 f"Needed: at least 2 of 3. **{'Met' if hacked else 'Not met'}.**")

    def held(kind: str) -> list[float]:
        return [v for r in groups.get(kind, []) if (v := _final(r, "final_heldout_accuracy")) is not None]

    rule, coop, stat = held("rule"), held("cooper"), held("verifyrm")
    if rule and coop and stat:
        sd = lambda xs: statistics.stdev(xs) if len(xs) > 1 else 0.0  # noqa: E731
        m_rule, m_coop, m_stat = (statistics.mean(x) for x in (rule, coop, stat))
        within = m_coop >= min(rule)
        above = m_coop - m_stat > max(sd(coop), sd(stat))
        lines.append(f"- **C1 (Cooper within the rule reward's spread)**: Cooper's mean final held-out accuracy "
                     f"{100 * m_coop:.1f}% against the rule reward's seeds {', '.join(f'{100 * v:.1f}' for v in rule)}% "
                     f"(mean {100 * m_rule:.1f}%). Needed: at least the lowest rule seed. "
                     f"**{'Met' if within else 'Not met'}.**")
        lines.append(f"- **C2 (Cooper above the static model by more than the spread)**: {100 * m_coop:.1f}% - "
                     f"{100 * m_stat:.1f}% = {100 * (m_coop - m_stat):+.1f} points, against a spread (largest sd of "
                     f"the two) of {100 * max(sd(coop), sd(stat)):.1f} points. **{'Met' if above else 'Not met'}.**")
        lines.append(f"- **Cooper holds** (C1 and C2): **{'yes' if within and above else 'no'}**.")
    pairs = [v for r in groups.get("cooper", []) if (v := r.metric("mean_valid_pairs")) is not None]
    if pairs:
        lines.append(f"- Cooper's valid pairs per update: mean {statistics.mean(pairs):.1f} over its runs (aim: 8).")
    return lines


def degenerate_scores(store: RunStore, run: RunRecord) -> list[str]:
    by_kind: dict[str, list[float]] = defaultdict(list)
    for item in store.items(run.id):
        if item.value is not None:
            by_kind[item.category or "?"].append(item.value)
    rows = ["| output | mean score | paid above 0.5 |", "|---|---:|---:|"]
    for kind, values in sorted(by_kind.items(), key=lambda kv: -statistics.mean(kv[1])):
        rows.append(f"| {kind} | {statistics.mean(values):.3f} | {sum(v > 0.5 for v in values)}/{len(values)} |")
    return rows


def open_experiment(description: str, out: str, docs: str) -> tuple[argparse.Namespace, RunStore,
                                                                    dict[str, list[RunRecord]], list[RunRecord]]:
    """The command line every report of these experiments takes (``--out``, ``--docs``, ``--store``), its store,
    and its complete training runs by reward kind and in the rewards' order."""
    import os

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=Path(out))
    parser.add_argument("--docs", type=Path, default=Path(docs))
    parser.add_argument("--store", default=None, help="the run store (default: HARNESS_STORE, else OUT/runs.sqlite)")
    args = parser.parse_args()
    store = RunStore(args.store or os.environ.get("HARNESS_STORE") or args.out / "runs.sqlite")
    args.docs.mkdir(parents=True, exist_ok=True)
    groups = training_runs(store, args.out)
    return args, store, groups, [r for kind in REWARDS for r in groups.get(kind, [])]


def main() -> None:
    args, store, groups, runs = open_experiment(__doc__.split("\n\n")[0], "runs/cooper_regime",
                                                "docs/cpu_scale/cooper_regime")
    lines = ["# Cooper's regime at CPU size: results", ""]
    sft = next((r for r in store.runs(kind="sft", status="complete", limit=100)
                if r.settings.output.startswith(str(args.out))), None)
    if sft is not None:
        lines += [f"Warm-up (harness sft, run `{sft.id}`): loss {sft.metric('first_loss'):.3f} -> "
                  f"{sft.metric('final_loss'):.3f} over {int(sft.metric('steps') or 0)} steps, {sft.wall_seconds:.0f} s.", ""]
    rm = next((r for r in store.runs(kind="rm-train", status="complete", limit=100)
               if r.reward.endswith(str(args.out / "verifyrm"))), None)
    if rm is not None:
        lines += [f"Static VerifyRM (harness train-rm, run `{rm.id}`): held-out accuracy {100 * (rm.metric('accuracy') or 0):.1f}% "
                  f"on {rm.n_items} real labelled rows split by question, {rm.wall_seconds:.0f} s.", ""]
    probe = eval_run(store, "probe.jsonl")
    if probe is not None:
        lines += [f"Its accuracy on the task's labelled probe (48 items, half right): {100 * (probe.metric('accuracy') or 0):.1f}%.", ""]
    degenerate = eval_run(store, "degenerate.jsonl")
    if degenerate is not None:
        lines += ["What the static VerifyRM pays for before RL (12 problems each):", "", *degenerate_scores(store, degenerate), ""]
    robustness = next((r for r in store.runs(suite="robustness", status="complete", limit=100) if r.reward.startswith("verifyrm")), None)
    if robustness is not None:
        lines += [f"On the robustness suite: false-positive rate {100 * (robustness.metric('false_positive_rate') or 0):.1f}%, "
                  f"false-negative rate {100 * (robustness.metric('false_negative_rate') or 0):.1f}%.", ""]
    if runs:
        lines += [render_text(paper_table("training", runs), "markdown").rstrip(), ""]
        walls = {k: [r.wall_seconds or 0 for r in v] for k, v in groups.items()}
        lines += ["Wall time per training run (s): " + "; ".join(f"{k} {', '.join(f'{w:.0f}' for w in ws)}"
                                                              for k, ws in walls.items()), ""]
        window = runs[0].settings.alarm_window
        lines += ["## The criteria, checked", "", *criteria(groups, store, window), ""]
        plots.training_dynamics(store, [r.id for r in runs], args.docs / "training_dynamics")
        plots.reward_model_accuracy(store, [r.id for r in runs], args.docs / "rm_accuracy")
    if degenerate is not None:
        plots.score_distribution(store, [degenerate.id], args.docs / "degenerate_scores")
    (args.docs / "summary.md").write_text("\n".join(lines) + "\n")
    print(args.docs / "summary.md")


if __name__ == "__main__":
    main()
