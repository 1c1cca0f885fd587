"""Figures from stored runs (matplotlib, PNG and SVG): training dynamics per reward variant, Cooper's reward-model
accuracy over updates, and score distributions of correct versus incorrect completions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from harness.core.errors import UserError
from harness.core.optional import require
from harness.core.store import RunStore
from harness.tables import setting
from suites.calibration import (
    best_threshold,
    expected_calibration_error,
    is_continuous,
    reliability,
    roc_auc,
    threshold_curve,
)


class NothingToPlot(UserError, ValueError):
    """The runs given have none of the data the figure shows; the message says which runs would."""


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


def _series(store: RunStore, run_ids: Sequence[str], key: str) -> dict[str, dict[int, list[float]]]:
    """``key`` per step, runs of the same reward spec (seeds of one setting) grouped: {label: {step: values}}."""
    groups: dict[str, dict[int, list[float]]] = {}
    for ref in run_ids:
        run = store.get(ref)
        per_step = groups.setdefault(_label(setting(run.reward)), {})
        for step, values in store.steps(run.id).items():
            if values.get(key) is not None:
                per_step.setdefault(step, []).append(float(values[key]))
    return {label: steps for label, steps in groups.items() if steps}


def _draw(ax, steps: dict[int, list[float]], label: str, **style) -> None:
    """One run's line, or for several (seeds) their mean with a min-max band."""
    xs = sorted(steps)
    mean = [sum(steps[x]) / len(steps[x]) for x in xs]
    runs = max(len(v) for v in steps.values())
    line = ax.plot(xs, mean, label=label if runs == 1 else f"{label} (mean of {runs}, min-max band)", **style)[0]
    if runs > 1:
        ax.fill_between(xs, [min(steps[x]) for x in xs], [max(steps[x]) for x in xs], color=line.get_color(),
                        alpha=0.15, linewidth=0)


def training_dynamics(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Training reward and the rule accuracy of the same rollouts per step (top), held-out accuracy (bottom), one
    line per reward variant; runs of the same reward (seeds) as their mean with a min-max band."""
    rewards = _series(store, run_ids, "train_reward")
    if not rewards:
        raise NothingToPlot("none of these runs has training steps (harness train runs, or a served run recorded with "
                         "harness serve --record)")
    plt = _pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    rule = _series(store, run_ids, "rule_accuracy")
    for label, steps in rewards.items():
        _draw(top, steps, f"{label}: training reward")
        if label in rule:
            _draw(top, rule[label], f"{label}: rule accuracy", linestyle="--", color=top.lines[-1].get_color())
    for label, steps in _series(store, run_ids, "heldout_accuracy").items():
        _draw(bottom, steps, label, marker="o")
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
    """The trained reward's accuracy on a fixed labelled probe per step (``rm_probe_accuracy``): flat for a static
    reward, moving for one that learns (Cooper); seeds as their mean with a min-max band."""
    probe = _series(store, run_ids, "rm_probe_accuracy")
    if not probe:
        raise NothingToPlot("none of these runs recorded the reward's probe accuracy (harness train --probe SUITE)")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for label, steps in probe.items():
        _draw(ax, steps, label, marker=".")
    ax.set_xlabel("step")
    ax.set_ylabel("reward probe accuracy")
    if ax.lines:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    paths = _save(fig, output)
    plt.close(fig)
    return paths


def probe_dynamics(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """What the reward pays on the probe per step (:mod:`trainers.probe`): its ranking of right over wrong
    completions of the same problems (and of the keyed right over the keyed wrong, where the probe has them), its pay
    rate on the probe's hole and its ties with the right answer, and (with ``hole_pattern``) the share of the
    policy's rollouts that match the hole's pattern; one panel each, seeds as their mean with a min-max band."""
    panels = [(series, name) for key, name in (("rm_probe_ranking", "ranking of right over wrong"),
                                               ("rm_keyed_ranking", "ranking, both opened by the key"),
                                               ("rm_hole_pay", "hole pay rate (probe)"),
                                               ("rm_hole_tie", "hole tied with the right answer"),
                                               ("hole_share", "rollouts with the hole's pattern"))
              if (series := _series(store, run_ids, key))]
    if not panels:
        raise NothingToPlot("none of these runs recorded probe ranking, hole pay or hole usage (harness train --probe "
                         "SUITE with right and wrong completions of the same problems and a hole category, or "
                         "hole_pattern)")
    plt = _pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.6 * len(panels)), sharex=True, squeeze=False)
    bottom = axes[-1][0]
    for (ax,), (series, name) in zip(axes, panels):
        for label, steps in series.items():
            _draw(ax, steps, label, marker=".")
        ax.set_ylabel(name)
        ax.set_ylim(-0.03, 1.03)
        if ax.lines:
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    bottom.set_xlabel("step")
    fig.suptitle("The reward on the probe, and the hole in the rollouts")
    paths = _save(fig, output)
    plt.close(fig)
    return paths


def score_distribution(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Histograms of rewards' scores for completions labelled correct versus incorrect, one panel per eval run."""
    runs = [store.get(ref) for ref in run_ids]
    if not any(i.label is not None for run in runs for i in store.items(run.id)):
        raise NothingToPlot("none of these runs has labelled items (an evaluation on a labelled suite: harness eval)")
    plt = _pyplot()
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


def _labelled_values(store: RunStore, run_ids: Sequence[str]) -> list[tuple[str, list[bool], list[float]]]:
    """(label, item labels, item scores) of each evaluation run with continuous scores."""
    out = []
    for ref in run_ids:
        run = store.get(ref)
        rows = [(i.label, i.value) for i in store.items(run.id) if i.label is not None and i.value is not None]
        if rows and is_continuous([v for _, v in rows]):
            out.append((f"{_label(run.reward)} on {run.suite}", [y for y, _ in rows], [v for _, v in rows]))
    if not out:
        raise NothingToPlot("none of these runs has continuous scores with labels (an evaluation of a model-based "
                         "reward on a labelled suite: harness eval --reward verifyrm:... --suite ...)")
    return out


def calibration(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Reliability diagram: the share of right answers against the mean score, per score bin, with each run's
    ROC-AUC and expected calibration error in the legend."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="perfectly calibrated")
    for label, ys, vs in _labelled_values(store, run_ids):
        bins = [b for b in reliability(ys, vs) if b.n]
        auc, ece = roc_auc(ys, vs), expected_calibration_error(ys, vs)
        ax.plot([b.mean_score for b in bins], [b.accuracy for b in bins], marker="o",
                label=f"{label} (AUC {auc:.2f}, ECE {ece:.2f})" if auc is not None else f"{label} (ECE {ece:.2f})")
    ax.set_xlabel("mean score in bin")
    ax.set_ylabel("share labelled correct")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    paths = _save(fig, output)
    plt.close(fig)
    return paths


def threshold(store: RunStore, run_ids: Sequence[str], output: Path) -> list[Path]:
    """Accuracy, precision and recall of "score >= t means correct" over t, one panel per run, the best
    threshold marked."""
    plt = _pyplot()
    runs = _labelled_values(store, run_ids)
    fig, axes = plt.subplots(1, len(runs), figsize=(5.5 * len(runs), 3.8), squeeze=False)
    for ax, (label, ys, vs) in zip(axes[0], runs):
        curve = threshold_curve(ys, vs)
        ts = [p.threshold for p in curve]
        ax.plot(ts, [p.accuracy for p in curve], label="accuracy")
        ax.plot(ts, [p.precision if p.precision is not None else float("nan") for p in curve], label="precision")
        ax.plot(ts, [p.recall if p.recall is not None else float("nan") for p in curve], label="recall")
        best = best_threshold(ys, vs)
        if best is not None:
            ax.axvline(best.threshold, color="grey", linestyle=":", label=f"best {best.threshold:.2f} ({100 * best.accuracy:.1f}%)")
        ax.set_xlabel("threshold")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=7)
    paths = _save(fig, output)
    plt.close(fig)
    return paths


# `harness plot --kind NAME`: each figure takes the store, the run references and the output stem.
FIGURES = {"training": training_dynamics, "rm-accuracy": reward_model_accuracy, "probe": probe_dynamics,
           "scores": score_distribution,
           "calibration": calibration, "threshold": threshold}
