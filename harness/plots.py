"""Figures from stored runs (matplotlib, PNG and SVG): training dynamics per reward variant, Cooper's reward-model
accuracy over updates, and score distributions of correct versus incorrect completions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.optional import require
from harness.store import RunStore


def _pyplot():
    matplotlib = require("matplotlib", "plots")
    matplotlib.use("Agg")  # files only; no display
    import matplotlib.pyplot as plt

    return plt


def _save(fig, output: Path) -> list[Path]:
    output.parent.mkdir(parents=True, exist_ok=True)
    paths = [output.with_suffix(".png"), output.with_suffix(".svg")]
    for path in paths:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    return paths


def _label(reward_spec: str) -> str:
    """The reward's name; its options only when short (legends, not a run listing)."""
    return reward_spec if len(reward_spec) <= 24 else reward_spec.split(":", 1)[0]


def training_dynamics(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Held-out accuracy and training reward per step, one line per run (reward variant)."""
    plt = _pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for ref in run_ids:
        run = store.get(ref)
        steps = store.steps(run.id)
        xs = sorted(steps)
        reward = [(s, steps[s]["train_reward"]) for s in xs if steps[s].get("train_reward") is not None]
        rule = [(s, steps[s]["rule_accuracy"]) for s in xs if steps[s].get("rule_accuracy") is not None]
        held = [(s, steps[s]["heldout_accuracy"]) for s in xs if steps[s].get("heldout_accuracy") is not None]
        if reward:
            line = top.plot(*zip(*reward), label=f"{_label(run.reward)}: training reward")[0]
            if rule:
                top.plot(*zip(*rule), linestyle="--", color=line.get_color(), label=f"{_label(run.reward)}: rule accuracy")
        if held:
            bottom.plot(*zip(*held), marker="o", label=_label(run.reward))
    top.set_ylabel("reward / rule accuracy")
    top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    bottom.set_ylabel("held-out accuracy")
    bottom.set_xlabel("step")
    if bottom.lines:
        bottom.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("Training dynamics")
    paths = _save(fig, output)
    plt.close(fig)
    return paths


def reward_model_accuracy(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Cooper's reward-model accuracy on its probe set over updates (step metric ``rm_probe_accuracy``)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for ref in run_ids:
        run = store.get(ref)
        steps = store.steps(run.id)
        points = [(s, v["rm_probe_accuracy"]) for s, v in sorted(steps.items()) if v.get("rm_probe_accuracy") is not None]
        if points:
            ax.plot(*zip(*points), marker=".", label=_label(run.reward))
    ax.set_xlabel("step")
    ax.set_ylabel("reward-model probe accuracy")
    if ax.lines:
        ax.legend(fontsize=7)
    paths = _save(fig, output)
    plt.close(fig)
    return paths


def score_distribution(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Histograms of rewards' scores for completions labelled correct versus incorrect, one panel per eval run."""
    plt = _pyplot()
    runs = [store.get(ref) for ref in run_ids]
    fig, axes = plt.subplots(1, len(runs), figsize=(6 * len(runs), 3.5), squeeze=False)
    bins = [i / 20 for i in range(21)]
    for ax, run in zip(axes[0], runs):
        items = store.items(run.id)
        correct = [i.value for i in items if i.label and i.value is not None]
        wrong = [i.value for i in items if i.label is False and i.value is not None]
        ax.hist([correct, wrong], bins=bins,
                label=[f"labelled correct ({len(correct)})", f"labelled incorrect ({len(wrong)})"])
        ax.set_xlabel("reward")
        ax.set_ylabel("completions")
        ax.set_title(f"{_label(run.reward)} on {run.suite}")
        ax.legend(fontsize=8)
    paths = _save(fig, output)
    plt.close(fig)
    return paths


# `harness plot --kind NAME`: each figure takes the store, the run references and the output stem.
FIGURES = {"training": training_dynamics, "rm-accuracy": reward_model_accuracy, "scores": score_distribution}
