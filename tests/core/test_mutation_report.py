"""The mutation report (docs/mutation) is made from its committed results alone, and the tool's judgement of which
mutants cannot change behaviour (those inside type annotations) is right on a module written for it."""

from pathlib import Path

from tools.mutation import _inside, annotation_spans, report, wilson

DOCS = Path(__file__).resolve().parents[2] / "docs" / "mutation"

SOURCE = '''from __future__ import annotations


def pick(a: str | None, *rest: int | None) -> str | None:
    flags = 1 | 2
    size: int | None = None
    return a if flags | 4 else size
'''


def test_only_mutants_inside_annotations_are_set_apart():
    spans = annotation_spans(SOURCE)
    line = SOURCE.splitlines()
    def at(row, text, nth=0):
        col = -1
        for _ in range(nth + 1):
            col = line[row - 1].index(text, col + 1)
        return row, col

    assert _inside(*at(4, "|", 0), spans) and _inside(*at(4, "|", 1), spans) and _inside(*at(4, "|", 2), spans)
    assert _inside(*at(6, "|"), spans)
    assert not _inside(*at(5, "|"), spans) and not _inside(*at(7, "|"), spans)


def test_the_interval_of_a_share():
    low, high = wilson(7, 14)
    assert 0.2 < low < 0.5 < high < 0.8
    assert wilson(30, 30)[1] == 1.0 and wilson(0, 30)[0] == 0.0


def test_the_reports_table_is_made_again_from_the_committed_results():
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- table -->\n")[1].split("<!-- /table -->")[0]
    assert table == report(DOCS)


def test_the_second_sets_table_is_made_again_from_its_committed_results():
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- table clients-and-figures -->\n")[1].split("<!-- /table -->")[0]
    assert table == report(DOCS / "clients-and-figures")


def test_the_decided_modules_table_is_made_again_from_its_committed_results():
    text = (DOCS / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- table decided -->\n")[1].split("<!-- /table -->")[0]
    assert table == report(DOCS / "decided")


def test_a_result_names_the_commit_its_mutants_ran_on_not_one_made_during_the_run(tmp_path, monkeypatch):
    """The tree is copied when a module's run starts; a commit made while its mutants run (hours, beside other
    work) is not what they tested, and the result must not name it."""
    import json
    import subprocess
    import sys

    import tools.mutation as mutation

    tree = tmp_path / "tree"
    tree.mkdir()
    git = ["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (tree / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "first"], check=True)
    first = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()

    def run_module(module, *args):  # the run, during which a commit is made
        (tree / "a.py").write_text("x = 2\n")
        subprocess.run([*git, "commit", "-qam", "during"], check=True)
        return {"module": module, "mutants": [], "sample": 0, "mutants_in_module": 0, "seconds": 0.0}

    monkeypatch.setattr(mutation, "run_module", run_module)
    monkeypatch.setattr(sys, "argv", ["mutation", "--out", str(tmp_path / "out"), "--tree", str(tree), "--module",
                                      "harness/rescoring.py"])
    mutation.main()
    [result] = json.loads((tmp_path / "out" / "results-before.json").read_text())
    assert result["tree_commit"] == first
