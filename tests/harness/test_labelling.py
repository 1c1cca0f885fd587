"""Hybrid labelling on real labelled data: agreement bookkeeping, the written file, the CLI."""

import json

from click.testing import CliRunner

from harness.cli import main
from harness.labelling import hybrid_label, load_triples, write_labelled
from rewards import Item, Score
from suites.contract import LabelledItem


class LastLineJudge:
    """A stand-in second opinion with known behaviour: correct iff the last line contains the reference."""

    def score(self, items):
        return [Score.correct() if it.reference in it.completion.strip().splitlines()[-1] else Score.incorrect()
                for it in items]


def test_agreement_counts_and_kept_labels(rule_reward, data_root):
    triples = load_triples(None, "mathcheck-gsm", None, 120)
    kept, report = hybrid_label(triples, rule_reward, LastLineJudge())
    assert report.total == 120
    assert report.both_correct + report.both_incorrect == report.kept == len(kept)
    assert report.kept + report.rule_only_correct + report.judge_only_correct == report.total
    rule = rule_reward.score([t.item for t in triples])
    judge = LastLineJudge().score([t.item for t in triples])
    expected = [(t, r.verdict) for t, r, j in zip(triples, rule, judge) if r.verdict == j.verdict]
    assert [(t.item, label) for t, label in kept] == [(t.item, label) for t, label in expected]
    assert report.kept_accuracy_vs_gold is not None and report.kept_accuracy_vs_gold >= report.rule_accuracy_vs_gold - 0.05


def test_written_file_has_coopers_columns(tmp_path):
    triples = [LabelledItem(Item("q1", "1", "so 1"), True), LabelledItem(Item("q2", "2", "so 3"), None)]
    kept = [(triples[0], True), (triples[1], False)]
    _, report = hybrid_label(triples, LastLineJudge(), LastLineJudge())
    report_path = write_labelled(kept, report, tmp_path / "labelled.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "labelled.jsonl").read_text().splitlines()]
    assert rows[0] == {"question": "q1", "reference_answer": "1", "completion": "so 1", "label": True}
    assert json.loads(report_path.read_text())["agreement"] == 1.0


def test_label_command_end_to_end(tmp_path, data_root):
    out = tmp_path / "labelled.jsonl"
    result = CliRunner().invoke(
        main, ["label", "--judge", "exact", "--suite", "mathcheck-gsm", "--limit", "40", "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.is_file() and "agreement" in result.output
    for line in out.read_text().splitlines():
        assert set(json.loads(line)) == {"question", "reference_answer", "completion", "label"}
    bad = CliRunner().invoke(main, ["label", "--judge", "exact", "--output", str(out)])
    assert bad.exit_code == 1 and "exactly one of --input" in bad.output


def test_label_input_errors_name_the_option_and_the_line_as_an_editor_counts(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(main, ["label", "--judge", "judge:model=m", "--input", str(tmp_path / "none.jsonl"),
                                   "--output", str(tmp_path / "out.jsonl")])
    assert missing.exit_code == 1 and "with --input" in missing.output and "--data" not in missing.output
    bad = tmp_path / "bad.jsonl"
    good = json.dumps({"question": "q", "reference_answer": "1", "completion": "\\boxed{1}"})
    bad.write_text(good + "\n\n" + json.dumps({"question": "q", "completion": "c"}) + "\n")
    lacking = runner.invoke(main, ["label", "--judge", "judge:model=m", "--input", str(bad),
                                   "--output", str(tmp_path / "out.jsonl")])
    assert lacking.exit_code == 1 and "line 3 lacks reference_answer" in lacking.output  # blank line 2 counted
    bad.write_text(good + "\n{not json\n")
    broken = runner.invoke(main, ["label", "--judge", "judge:model=m", "--input", str(bad),
                                  "--output", str(tmp_path / "out.jsonl")])
    assert broken.exit_code == 1 and "bad.jsonl:2: not valid JSON" in broken.output and "Traceback" not in broken.output
