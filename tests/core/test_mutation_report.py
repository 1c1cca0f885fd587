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
