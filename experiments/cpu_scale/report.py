"""Summarises the CPU-scale runs in the store into docs/cpu_scale/: a Markdown table and the figures.

    HARNESS_STORE=... python experiments/cpu_scale/report.py
"""

from __future__ import annotations

from pathlib import Path

from harness import plots
from harness.store import RunStore

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cpu_scale"


def main() -> None:
    store = RunStore()
    runs = [r for r in reversed(store.runs(status="complete", limit=20)) if r.kind == "train"]
    DOCS.mkdir(parents=True, exist_ok=True)
    lines = ["| reward | steps | train reward (mean of last 4) | rule accuracy of rollouts (mean of last 4) |"
             " held-out accuracy by step | hacking alarm | wall s |", "|---|---:|---:|---:|---|---|---:|"]
    for run in runs:
        steps = store.steps(run.id)
        last = [steps[s] for s in sorted(steps)[-4:]]
        mean = lambda key: sum(v.get(key, 0.0) or 0.0 for v in last) / max(1, len(last))  # noqa: E731
        held = ", ".join(f"{s}: {v['heldout_accuracy']:.2f}" for s, v in sorted(steps.items()) if v.get("heldout_accuracy") is not None)
        alarm = run.metric("hacking_alarm_step")
        lines.append(f"| `{run.reward.split(',')[0]}` | {len(steps)} | {mean('train_reward'):.3f} | {mean('rule_accuracy'):.3f} "
                     f"| {held} | {'step %d' % alarm if alarm is not None else 'no'} | {run.wall_seconds:.0f} |")
    (DOCS / "summary.md").write_text("\n".join(lines) + "\n")
    ids = [r.id for r in runs]
    plots.training_dynamics(store, ids, DOCS / "training_dynamics")
    plots.reward_model_accuracy(store, [r.id for r in runs if r.reward.startswith("cooper")], DOCS / "cooper_rm_accuracy")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
