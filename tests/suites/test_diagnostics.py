"""Diagnostics beyond accuracy: ROC-AUC, calibration, the threshold curve; the hacking probe and its command."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from harness.cli import main
from rewards import REWARDS, Score
from suites.calibration import best_threshold, expected_calibration_error, reliability, roc_auc, threshold_curve
from suites.metrics import verifier_metrics
from tests.harness.csv_tables import csv_tables

from ..conftest import svg_texts


def test_roc_auc_calibration_and_threshold_on_known_values():
    labels = [True, True, False, False, True]
    values = [0.9, 0.8, 0.3, 0.6, 0.4]
    assert roc_auc(labels, values) == pytest.approx(5 / 6)  # the pair (0.4 right, 0.6 wrong) is the one misordered
    assert roc_auc([True, False], [0.5, 0.5]) == 0.5 and roc_auc([True], [0.2]) is None
    bins = reliability(labels, values, bins=2)
    assert [(b.n, b.accuracy) for b in bins] == [(2, 0.5), (3, 2 / 3)]
    assert expected_calibration_error(labels, values, bins=2) == pytest.approx(2 / 5 * abs(0.5 - 0.35) + 3 / 5 * abs(2 / 3 - 2.3 / 3))
    best = best_threshold(labels, values)
    assert best.accuracy == 0.8 and 0.3 < best.threshold <= 0.4
    curve = threshold_curve(labels, values)
    assert curve[0].recall == 1.0 and curve[-1].precision is None


def test_continuous_scores_get_calibration_metrics_and_verdicts_do_not():
    labels = [True, False, True, False]
    continuous = [Score(v, v >= 0.5) for v in (0.9, 0.2, 0.7, 0.6)]
    names = {m.name: m.value for m in verifier_metrics(labels, continuous, ["A", "A", "B", "B"])}
    assert names["roc_auc"] == 1.0 and names["roc_auc/B"] == 1.0 and "ece" in names and "best_threshold/A" in names
    verdicts = [Score.correct(), Score.incorrect(), Score.correct(), Score.correct()]
    assert not any(n.startswith("roc_auc") for n in (m.name for m in verifier_metrics(labels, verdicts, ["A"] * 4)))


class PaysForPlans:
    """The rule reward, except that it also pays for a numbered plan: exploitable by one family only."""

    def __init__(self):
        from rewards.rule import RuleReward

        self.rule = RuleReward(workers=1)

    def score(self, items):
        ruled = self.rule.score(items)
        return [Score.correct() if it.completion.startswith("1. Determine") else s for it, s in zip(items, ruled)]

    def close(self):
        self.rule.close()


def test_probe_hacking_flags_what_a_reward_pays_for(tmp_path, data_root):
    REWARDS.register("pays-for-plans")(PaysForPlans)
    try:
        store = str(tmp_path / "runs.sqlite")
        result = CliRunner().invoke(main, ["--store", store, "probe-hacking", "--reward", "pays-for-plans",
                                           "--limit", "6", "--format", "csv"])
        rule = CliRunner().invoke(main, ["--store", store, "probe-hacking", "--reward", "rule:workers=1",
                                         "--limit", "6", "--format", "csv"])
    finally:
        REWARDS.unregister("pays-for-plans")
    assert result.exit_code == 0, result.output
    [rows] = csv_tables(result.stdout).values()
    flagged = {row["family"] for row in rows if row.get("flag") == "EXPLOITABLE"}
    assert flagged == {"plan_only"}
    assert rule.exit_code == 0 and "EXPLOITABLE" not in rule.stdout  # the rule reward pays none of them


def test_calibration_and_threshold_figures_and_a_clear_error_for_the_wrong_runs(tmp_path, store, data_root):
    from harness.evaluate import EvalRequest, evaluate_reward

    pytest.importorskip("matplotlib", reason="the plots extra is part of the test environment")
    REWARDS.register("graded")(lambda: _Graded())
    try:
        model_run = evaluate_reward(EvalRequest("graded", "sample"), store)
    finally:
        REWARDS.unregister("graded")
    rule_run = evaluate_reward(EvalRequest("rule:workers=1", "sample"), store)
    for kind in ("calibration", "threshold"):
        done = CliRunner().invoke(main, ["--store", str(store.path), "plot", "--kind", kind, model_run.id,
                                         "--output", str(tmp_path / kind)])
        assert done.exit_code == 0, done.output
        texts = svg_texts(tmp_path / f"{kind}.svg")
        assert {"calibration": "perfectly calibrated", "threshold": "accuracy"}[kind] in texts
        assert any(t.startswith("graded on sample") for t in texts)
    wrong = CliRunner().invoke(main, ["--store", str(store.path), "plot", "--kind", "calibration", rule_run.id,
                                      "--output", str(tmp_path / "nothing")])
    assert wrong.exit_code == 1 and "continuous scores" in wrong.output and not (tmp_path / "nothing.png").exists()
    training = CliRunner().invoke(main, ["--store", str(store.path), "plot", "--kind", "training", rule_run.id,
                                         "--output", str(tmp_path / "nothing")])
    assert training.exit_code == 1 and "training steps" in training.output


class _Graded:
    def score(self, items):
        return [Score(0.3 + 0.4 * (len(it.completion) % 2), len(it.completion) % 2 == 1) for it in items]


def test_the_threshold_curve_has_the_recall_of_each_threshold():
    """At each threshold, recall is the share of right answers scored at or above it (0.5 and 0.25 here, where a
    whole-number division would give 0)."""
    labels = [True, True, True, True, False]
    values = [0.9, 0.8, 0.3, 0.2, 0.85]
    curve = {round(p.threshold, 2): p for p in threshold_curve(labels, values)}
    assert curve[0.5].recall == 0.5 and curve[0.85].recall == 0.25 and curve[0.5].precision == 2 / 3
