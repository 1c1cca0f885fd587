"""The answer-equivalence fixtures built from the graders' own test files (``harness data fetch
answer-equivalence``): each layout the four files use, read from test files written here; a value that is not a
literal is never evaluated; and, where the data root holds the four repositories' files, the published fixtures
byte for byte."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from harness.datasets.fetch import data_sets, git_blob_sha1
from harness.datasets.fixtures import lighteval_fixtures, parametrized_cases, unittest_cases

ORIGIN = {"repo": "someone/grader", "commit": "c0ffee", "source": "tests/test_cases.py", "path": "x"}

PYTEST_FILE = textwrap.dedent('''\
    import math
    import pytest


    @pytest.mark.parametrize(
        "gold, pred, expected, precision",
        [
            # Test fractions
            ("1/2", "0.5", 1, 6),
            # ("1/3", "0.33", 0, 6),
            (
                f"{math.sqrt(4):.3f}",
                f"$2$",
                1,
                2,
            ),
            ("x", Language.EN, 1, 6),
            ("3", "4", 0, 6),
        ],
    )
    def test_numbers(gold, pred, expected, precision):
        assert compare_strings(gold, pred, match_types=["latex"], precision=precision) == expected


    def test_one_call():
        assert compare_strings("$1$", "1.0", match_types=["expr"]) == 1


    @pytest.mark.parametrize("gold, pred, expected", [(f"{__import__('os').getcwd()}", "1", 1), ("2", "2", 1)])
    def test_not_a_literal(gold, pred, expected):
        assert compare_strings(gold, pred) == expected
    ''')

UNITTEST_FILE = textwrap.dedent('''\
    import unittest


    class TestIsEquiv(unittest.TestCase):
        def test_units(self):
            # a unit is dropped
            test_in = "10\\\\text{ cm}"
            test_out = "10"
            self.assertTrue(is_equiv(test_in, test_out, verbose=False))

            test_pairs = [
                ("10cm", "10"),  # space is a must for short units
                ("10m", "10"),
            ]
            for test_in, test_out in test_pairs:
                self.assertFalse(_not_equiv(test_in, test_out))

            test_in = "1"
            test_out = "2"
            self.assertFalse(is_equiv(test_in, test_out))
    ''')


def test_a_parametrized_file_gives_its_cases_with_their_lines_comments_and_options():
    records = list(parametrized_cases(PYTEST_FILE, ORIGIN))
    ids = [r["id"] for r in records]
    assert ids == ["test_cases.py::test_numbers[0]", "test_cases.py::test_numbers[disabled-before-1.0]",
                   "test_cases.py::test_numbers[1]", "test_cases.py::test_numbers[3]",  # [2] holds an enum member
                   "test_cases.py::test_one_call@L26", "test_cases.py::test_not_a_literal[1]"]
    first, disabled, computed, last, call, _ = records
    assert (first["gold"], first["pred"], first["expected_equivalent"], first["expected_raw"]) == ("1/2", "0.5", True, 1)
    assert first["line"] == 9 and first["comment"] == ["Test fractions"] and first["extra_params"] == {"precision": 6}
    assert first["checked_by"] == "compare_strings(gold, pred, match_types=['latex'], precision=precision)"
    assert first["call_kwargs"] == {"match_types": ["latex"], "precision": {"expr": "precision"}}
    assert disabled["disabled_in_source"] and (disabled["gold"], disabled["expected_equivalent"]) == ("1/3", False)
    assert disabled["line"] == computed["line"] == 11  # a disabled case is placed at the case below it
    assert computed["gold"] == "2.000" and computed["pred"] == "$2$"
    note = 'gold is the value of the f-string f"{math.sqrt(4):.3f}" in the source (evaluated when converting)'
    assert computed["comment"] == [note]  # the plain f-string pred needs no note
    assert (last["gold"], last["expected_equivalent"], last["comment"]) == ("3", False, [])
    assert (call["gold"], call["pred"], call["call_kwargs"]) == ("$1$", "1.0", {"match_types": ["expr"]})
    assert all(r["source_repo"] == "someone/grader" and r["path"] == "tests/test_cases.py" for r in records)


def test_a_value_that_is_not_a_literal_is_never_evaluated(tmp_path, monkeypatch):
    """An f-string may compute only with math's functions: anything else leaves its case out, unevaluated."""
    calls = []
    monkeypatch.setattr("os.getcwd", lambda: calls.append("ran") or "/")
    records = list(parametrized_cases(PYTEST_FILE, ORIGIN))
    assert calls == [] and not any(r["id"] == "test_cases.py::test_not_a_literal[0]" for r in records)


def test_a_unittest_file_gives_each_assertion_and_each_pair_of_its_loops():
    records = list(unittest_cases(UNITTEST_FILE, ORIGIN))
    assert [(r["id"].split("::")[1], r["gold"], r["pred"], r["expected_equivalent"], r["line"], r["comment"])
            for r in records] == [
        ("TestIsEquiv.test_units[0]", "10\\text{ cm}", "10", True, 9, ["a unit is dropped"]),
        ("TestIsEquiv.test_units[1]", "10cm", "10", False, 15, ["space is a must for short units"]),
        ("TestIsEquiv.test_units[2]", "10m", "10", False, 15, []),
        ("TestIsEquiv.test_units[3]", "1", "2", False, 20, []),
    ]
    assert records[0]["checked_by"] == "is_equiv" and records[1]["checked_by"] == "_not_equiv"
    assert records[1]["assertion"] == ("for (test_in, test_out) in test_pairs: "
                                       "self.assertFalse(_not_equiv(test_in, test_out))")
    assert list(records[0]) == ["id", "source_repo", "commit", "path", "line", "test_function", "gold", "pred",
                                "expected_equivalent", "expected_raw", "extra_params", "checked_by", "call_kwargs",
                                "assertion", "comment", "disabled_in_source"]


def test_lighteval_keeps_only_the_pairs_math_verify_does_not_hold(tmp_path):
    known = tmp_path / "math_verify_tests.jsonl"
    known.write_text(json.dumps({"gold": "1/2", "pred": "0.5"}) + "\n", encoding="utf-8")
    source = tmp_path / "tests" / "test_cases.py"
    source.parent.mkdir()
    source.write_text(PYTEST_FILE, encoding="utf-8")
    origin = {**ORIGIN, "path": "tests/test_cases.py"}
    lines = lighteval_fixtures(tmp_path, {"source": origin, "math_verify": "math_verify_tests.jsonl"})
    golds = [json.loads(line)["gold"] for line in lines]
    assert "1/2" not in golds and golds[:2] == ["1/3", "2.000"]


def test_the_published_fixtures_are_built_again_byte_for_byte(data_root):
    """From the four repositories' files at their commits, where the data root holds them (``harness data fetch
    answer-equivalence`` puts them there): the bytes of the published fixtures, which the manifest pins."""
    from harness.datasets.builds import BUILDERS

    data_set = data_sets()["answer-equivalence"]
    missing = [f.path for f in data_set.files if not (data_root / f.path).is_file()]
    if missing:
        pytest.skip(f"the graders' test files are not under the data root ({len(missing)} missing): "
                    "harness data fetch answer-equivalence downloads them")
    for f in data_set.files:
        assert git_blob_sha1((data_root / f.path).read_bytes()) == f.blob, f.path
    for build in data_set.builds:
        built = "".join(BUILDERS[build.builder](data_root, build.args)).encode("utf-8")
        assert built == (data_root / build.path).read_bytes(), build.path
        assert git_blob_sha1(built) == build.blob


def test_the_manifest_pins_the_published_fixtures(data_root):
    """Each build's hash is the published file's, so a fetch that builds anything else writes nothing."""
    for build in data_sets()["answer-equivalence"].builds:
        assert git_blob_sha1((data_root / build.path).read_bytes()) == build.blob, Path(build.path).name
