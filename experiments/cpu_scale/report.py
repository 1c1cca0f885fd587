"""Summarises the CPU-scale runs in the store into docs/cpu_scale/: Markdown tables and the figures.

    HARNESS_STORE=... python experiments/cpu_scale/report.py [--docs FOLDER]

Writes ``summary.md`` (one row per training run: the training reward and the rule accuracy of the same rollouts
at the start and the end, held-out accuracy by step, the alarm, wall time), ``policies.md`` (the final
policies through ``harness eval-policy``, and the same runs in Cooper's Table 3 layout with the paper's rows),
``training_dynamics.{png,svg}`` and ``cooper_rm_accuracy.{png,svg}``.
"""

from __future__ import annotations

from pathlib import Path

from harness import plots
from harness.core.store import RunRecord, RunStore
from harness.published import load_published
from harness.report import Table, category_table, render_text
from harness.tables import paper_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cpu_scale"


def _mean(steps: dict[int, dict[str, float | None]], keys: list[int], name: str) -> float:
    values = [steps[k].get(name) for k in keys]
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else float("nan")


def training_summary(store: RunStore, runs: list[RunRecord]) -> str:
    lines = ["| reward | steps | train reward, first 10 → last 10 steps | rule accuracy of the same rollouts, first 10 → "
             "last 10 | held-out accuracy by step | hacking alarm | wall s |", "|---|---:|---|---|---|---|---:|"]
    for run in runs:
        steps = store.steps(run.id)
        logged = sorted(k for k, v in steps.items() if v.get("train_reward") is not None)
        first, last = logged[:10], logged[-10:]
        held = ", ".join(f"{s}: {v['heldout_accuracy']:.2f}" for s, v in sorted(steps.items())
                         if v.get("heldout_accuracy") is not None)
        alarm = run.metric("hacking_alarm_step")
        lines.append(
            f"| `{run.reward.split(',')[0]}` | {len(logged)} "
            f"| {_mean(steps, first, 'train_reward'):.3f} → {_mean(steps, last, 'train_reward'):.3f} "
            f"| {_mean(steps, first, 'rule_accuracy'):.3f} → {_mean(steps, last, 'rule_accuracy'):.3f} "
            f"| {held} | {'step %d' % alarm if alarm is not None else 'no'} | {run.wall_seconds:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Tables and figures of the CPU-scale runs in the store.")
    parser.add_argument("--docs", type=Path, default=DOCS, help=f"output folder (default {DOCS})")
    docs = parser.parse_args().docs
    store = RunStore()
    trains = list(reversed(store.runs(kind="train", status="complete", limit=10)))
    policies = list(reversed(store.runs(kind="policy-eval", status="complete", limit=10)))
    docs.mkdir(parents=True, exist_ok=True)
    summary = training_summary(store, trains)
    (docs / "summary.md").write_text(summary)
    if policies:
        base = category_table(policies)
        by_benchmark = Table("Final policies through harness eval-policy, greedy (%)",
                             ["trained with", *base.headers[2:]],
                             [[(r.settings.trained_with or "none (the base policy)").split(",")[0], *row[2:]]
                              for r, row in zip(policies, base.rows)], frozenset(range(1, len(base.headers) - 1)))
        table3 = paper_table("cooper-rl", policies, load_published(), "all")
        (docs / "policies.md").write_text(render_text(by_benchmark, "markdown") + "\n\n"
                                          + render_text(table3, "markdown") + "\n")
    plots.training_dynamics(store, [r.id for r in trains], docs / "training_dynamics")
    cooper = [r.id for r in trains if r.reward.startswith("cooper")]
    if cooper:
        plots.reward_model_accuracy(store, cooper, docs / "cooper_rm_accuracy")
    print(summary)


if __name__ == "__main__":
    main()
