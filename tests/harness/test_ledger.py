"""The verdict ledger (docs/ledger): every labelled item's verdict and reason under the model-free verifiers,
recomputed here so that a change that moves any verdict fails with the items it moved.

The rule reward's ledger is recomputed whole (seconds with two workers). Plain math-verify and the cascade of the
two parse every item with sympy (over a minute together on 2 cores), so the default run recomputes a seeded twentieth
of each set for them; ``tox -e ledger`` recomputes and rewrites all three.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.ledger import (
    LEDGER_REWARDS,
    LEDGER_SETS,
    Entry,
    LedgerError,
    LedgerSet,
    accuracy_markdown,
    compute,
    moved,
    read_ledger,
    report,
    restricted,
    summary,
    write_ledger,
)

RULE = next(r for r in LEDGER_REWARDS if r.spec == "rule")
LEDGER_DIR = Path(__file__).resolve().parents[2] / "docs" / "ledger"  # the checkout's, wherever harness is installed


def _failure(spec: str, changes) -> str:
    lines = "\n".join(report(spec, changes, limit=100))
    return (f"{lines}\nA verdict moved. If the change is meant, rewrite the ledger with `tox -e ledger` and say in "
            "the commit why each item moved.")


@pytest.mark.usefixtures("data_root")
def test_the_rule_rewards_verdicts_are_the_ledgers(rule_reward):
    spec, committed = read_ledger(LEDGER_DIR / RULE.file)
    assert spec == RULE.spec
    now = compute(RULE.spec, reward=rule_reward)
    changes = moved(committed, now)
    assert not changes, _failure(RULE.spec, changes)


@pytest.mark.usefixtures("data_root")
@pytest.mark.parametrize("ledger_reward", [r for r in LEDGER_REWARDS if r is not RULE], ids=lambda r: r.file)
def test_the_other_model_free_verdicts_are_the_ledgers_on_a_sample(ledger_reward):
    spec, committed = read_ledger(LEDGER_DIR / ledger_reward.file)
    assert spec == ledger_reward.spec
    now = compute(ledger_reward.spec, share=0.05)
    assert len(now) > 200  # a twentieth of every set, not an empty sample that agrees with anything
    changes = moved(restricted(committed, {e.key for e in now}), now)
    assert not changes, _failure(ledger_reward.spec, changes)


def test_the_ledger_covers_every_set_and_only_them():
    for ledger_reward in LEDGER_REWARDS:
        _, entries = read_ledger(LEDGER_DIR / ledger_reward.file)
        assert {e.set for e in entries} == {s.name for s in LEDGER_SETS}, ledger_reward.file
    _, rule = read_ledger(LEDGER_DIR / RULE.file)
    for ledger_reward in LEDGER_REWARDS:
        _, entries = read_ledger(LEDGER_DIR / ledger_reward.file)
        assert {e.key for e in entries} == {e.key for e in rule}, f"{ledger_reward.file} covers other items"


def test_the_ledgers_readme_shows_what_the_ledgers_hold():
    """The accuracy table of docs/ledger/README.md, per set and category with its interval, is made again from the
    committed ledgers: a hand edit or a stale page fails."""
    ledgers = {r.spec: read_ledger(LEDGER_DIR / r.file)[1] for r in LEDGER_REWARDS}
    assert accuracy_markdown(ledgers) in (LEDGER_DIR / "README.md").read_text(encoding="utf-8")


def test_accuracy_counts_each_set_and_category_apart():
    entries = [_entry("a", "1", True, True, "v"), _entry("a", "2", True, False, "m"),
               _entry("a", "3", False, False, "m")]
    entries = [Entry(e.set, e.id, e.label, e.verdict, e.reason, c) for e, c in zip(entries, ("x", "x", "y"))]
    table = accuracy_markdown({"rule": entries})
    assert "| a | all | 2 / 3: 66.7" in table
    assert "|  | x | 1 / 2: 50.0" in table and "|  | y | 1 / 1: 100.0" in table


@pytest.mark.usefixtures("data_root")
def test_a_grader_change_that_moves_verdicts_is_caught_with_its_items(rule_reward):
    """Answers read only from a box (``fallback_chars=0``) refuse the answer-phrase formats: the ledger lists those
    items as right to wrong, by id, with their old and new reasons."""
    real = [s for s in LEDGER_SETS if s.name == "real-formats"]
    before = compute("rule", real, reward=rule_reward)
    after = compute("rule:fallback_chars=0,workers=1", real)
    changes = moved(before, after)
    kinds = summary(changes)["real-formats"]
    assert kinds["right to wrong"] > 0
    lines = list(report("rule:fallback_chars=0", changes))
    a_move = next(c for c in changes if c.kind == "right to wrong")
    assert any(a_move.key[1] in line and "-> 0" in line for line in lines)


def _entry(set_name: str, item: str, label: bool, verdict: bool | None, reason: str) -> Entry:
    return Entry(set_name, item, label, verdict, reason)


def test_moves_are_named_by_direction_with_asymmetric_counts():
    """Two items go right to wrong and one wrong to right, so a swapped direction shows in the counts."""
    old = [_entry("a", "1", True, True, "verified"), _entry("a", "2", False, False, "mismatch"),
           _entry("a", "3", True, True, "verified"), _entry("b", "4", False, True, "verified"),
           _entry("b", "5", True, False, "mismatch"), _entry("b", "6", False, False, "mismatch")]
    new = [_entry("a", "1", True, False, "no_answer_found"), _entry("a", "2", False, False, "mismatch"),
           _entry("a", "3", True, False, "mismatch"), _entry("b", "4", False, False, "mismatch"),
           _entry("b", "6", False, None, "abstained"), _entry("b", "7", True, True, "verified")]
    changes = moved(old, new)
    by_key = {c.key: c.kind for c in changes}
    assert by_key == {("a", "1"): "right to wrong", ("a", "3"): "right to wrong", ("b", "4"): "wrong to right",
                      ("b", "5"): "removed", ("b", "6"): "verdict, still right", ("b", "7"): "added"}
    counts = summary(changes)
    assert counts["a"]["right to wrong"] == 2 and counts["a"]["wrong to right"] == 0
    assert counts["b"]["wrong to right"] == 1 and counts["b"]["right to wrong"] == 0
    text = "\n".join(report("rule", changes))
    assert "a 1 label 1: 1 verified -> 0 no_answer_found" in text
    assert "b 4 label 0: 1 verified -> 0 mismatch" in text
    assert "a: 2 right to wrong" in text and "b: 1 wrong to right" in text


def test_a_reason_that_changes_under_the_same_verdict_is_a_move():
    old = [_entry("a", "1", False, False, "mismatch")]
    new = [_entry("a", "1", False, False, "no_answer_found")]
    [change] = moved(old, new)
    assert change.kind == "reason only"
    assert moved(old, old) == []


def test_an_abstention_counts_as_not_correct():
    assert _entry("a", "1", False, None, "abstained").right is True
    assert _entry("a", "1", True, None, "abstained").right is False


def test_a_ledger_is_read_as_written(tmp_path: Path):
    entries = [_entry("sample", "x\ty", True, None, "a reason\nover lines"),
               _entry("processbench", "b", False, True, "v")]
    path = tmp_path / "l.tsv"
    write_ledger(path, "rule:timeout=3", entries)
    spec, back = read_ledger(path)
    assert spec == "rule:timeout=3"
    assert [(e.set, e.id, e.label, e.verdict, e.reason) for e in back] == [
        ("processbench", "b", False, True, "v"), ("sample", "x y", True, None, "a reason over lines")]
    assert not list(tmp_path.glob("*.partial"))


def test_a_file_that_is_no_ledger_is_refused_with_what_to_do(tmp_path: Path):
    with pytest.raises(LedgerError, match="tox -e ledger"):
        read_ledger(tmp_path / "missing.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("# reward: rule\nset\tid\tcategory\tlabel\tverdict\treason\nprocessbench\tb\tc\tyes\t1\tv\n")
    with pytest.raises(LedgerError, match="line 3"):
        read_ledger(bad)


def test_the_sample_is_seeded_and_a_share_of_every_set():
    from harness.ledger import sample_rows

    rows = list(range(1000))
    assert sample_rows(rows, 0.1) == sample_rows(rows, 0.1)
    assert len(sample_rows(rows, 0.1)) == 100
    assert sample_rows(rows, 1.0) == rows
    assert len(sample_rows(rows[:3], 0.1)) == 1
    assert LedgerSet("x", "sample") != LedgerSet("x", "sample", "other")
