"""``harness compare`` on real runs: over the same items, the paired difference, the exact McNemar p-value (checked
against statsmodels on the stored verdicts) and the flipped items; over different items, an unpaired interval that
says so. Every figure of the comparison carries its interval in every format."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.core.store import RunStore
from harness.evaluate import EvalRequest, evaluate_reward

contingency = pytest.importorskip("statsmodels.stats.contingency_tables")


@pytest.fixture(scope="module")
def runs(tmp_path_factory, data_root):
    """The rule reward and plain math-verify on the bare reference over the same 300 ProcessBench items (they
    disagree on about 20), and the rule reward on the sample suite."""
    path = tmp_path_factory.mktemp("compare") / "runs.sqlite"
    store = RunStore(path)
    a = evaluate_reward(EvalRequest("mathverify:gold=raw,workers=2", "processbench", limit=300), store)
    b = evaluate_reward(EvalRequest("rule:workers=2", "processbench", limit=300), store)
    other = evaluate_reward(EvalRequest("rule:workers=2", "sample"), store)
    return path, store, a, b, other


def _compare(path, *args):
    result = CliRunner().invoke(main, ["--store", str(path), "compare", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_paired_comparison_gives_mcnemar_and_the_flipped_items(runs):
    path, store, a, b, _ = runs
    tables = {t["title"].split(" (")[0]: t for t in json.loads(_compare(path, a.id, b.id, "--flipped", "0",
                                                                         "--format", "json"))}
    [row] = tables["Accuracy, B against A"]["rows"]
    items_a, items_b = store.items(a.id), store.items(b.id)
    right_a = [(i.verdict is True) == i.label for i in items_a]
    right_b = [(i.verdict is True) == i.label for i in items_b]
    only_a = sum(x and not y for x, y in zip(right_a, right_b))
    only_b = sum(y and not x for x, y in zip(right_a, right_b))
    assert only_b > only_a >= 0 and only_a + only_b >= 5  # the runs differ: the test can tell
    assert row["comparison"] == "paired (same items)" and row["items"] == 300
    assert (row["right only in A"], row["right only in B"]) == (only_a, only_b)
    reference = contingency.mcnemar([[0, only_a], [only_b, 0]], exact=True).pvalue
    assert row["McNemar p"] == pytest.approx(reference, rel=1e-5)
    assert row["B - A"] == pytest.approx((sum(right_b) - sum(right_a)) / 300)
    assert row["B - A low"] < row["B - A"] < row["B - A high"]
    assert row["A low"] < row["A"] < row["A high"]
    flipped = tables["Flipped items"]["rows"]
    assert len(flipped) == only_a + only_b
    assert {f["idx"] for f in flipped} == {i.idx for i, x, y in zip(items_a, right_a, right_b) if x != y}
    assert all(f["reference"] and f["completion (end)"] for f in flipped)  # the texts behind each flip


def test_the_terminal_prints_the_p_value_and_the_flips(runs):
    path, _, a, b, _ = runs
    out = _compare(path, a.id, b.id)
    assert "McNemar p" in out and "Flipped items" in out and "paired (same items)" in out


def test_runs_over_different_items_are_compared_unpaired_and_say_so(runs):
    path, _, _, b, other = runs
    [table] = [t for t in json.loads(_compare(path, other.id, b.id, "--format", "json"))
               if t["title"].startswith("Accuracy, B against A")]
    [row] = table["rows"]
    assert row["comparison"] == "unpaired (different items)" and row["McNemar p"] is None
    assert row["B - A low"] < row["B - A"] < row["B - A high"]
    assert "no paired test" in table["notes"][0]
