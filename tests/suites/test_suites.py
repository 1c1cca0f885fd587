"""Suites load the real data in ../shared/data (never a copy) and fail clearly on bad input."""

import json
from collections import Counter

import pytest

from suites import SUITES, build_suite
from suites.loading import DataError, resolve_data_path

from ..conftest import VERIFYBENCH_HARD


def test_verifybench_hard_subset_loads_316_human_labelled_records(data_root):
    data = build_suite("verifybench-hard").load(str(VERIFYBENCH_HARD))
    assert len(data.rows) == 316
    assert sum(r.label for r in data.rows) == 64
    # SOURCE.md: C (choice/state) 123, A (numeric) 105, D (string) 45, B (expression) 43
    assert Counter(r.category for r in data.rows) == {
        "Multi-choice": 123, "Numeric": 105, "String": 45, "Expression": 43
    }
    assert data.categories == ("Numeric", "Expression", "Multi-choice", "String")
    first = data.rows[0].item
    assert first.metadata["answer_type"] == "B5 - Matrix" and first.uid == first.metadata["uid"]
    assert data.content_hash.startswith("sha256:") and data.source.endswith("verifybench_hard_subset_longjudgebench")


def test_relative_data_paths_resolve_under_the_data_root(data_root):
    resolved = resolve_data_path("verifier/verifybench_hard_subset_longjudgebench")
    assert resolved.resolve() == VERIFYBENCH_HARD.resolve()


def test_missing_data_says_where_it_looked(data_root):
    with pytest.raises(DataError) as info:
        build_suite("verifybench-hard").load("verifier/no_such_folder")
    message = str(info.value)
    assert "verifier/no_such_folder" in message and str(data_root.resolve()) in message
    assert "HARNESS_DATA_ROOT" in message


def test_processbench_and_mathcheck(data_root):
    pb = build_suite("processbench").load()
    assert len(pb.rows) == 1400 and set(pb.categories) == {"gsm8k", "math"}
    assert sum(r.label for r in pb.rows) == 700
    assert "\n\n" in pb.rows[0].item.completion  # steps joined by blank lines
    mc = build_suite("mathcheck-gsm").load()
    assert len(mc.rows) == 1032 and sum(r.label for r in mc.rows) == 603
    assert mc.rows[0].item.reference == "18"  # 18.0 read as text without ".0"


def test_limit_keeps_the_first_rows(data_root):
    assert len(build_suite("mathcheck-gsm").load(limit=7).rows) == 7
    with pytest.raises(DataError, match="positive"):
        build_suite("mathcheck-gsm").load(limit=0)


def test_packaged_sample_suite_needs_no_data_root(monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_DATA_ROOT", str(tmp_path / "nothing"))
    data = build_suite("sample").load()
    assert len(data.rows) >= 30 and data.source == "package:sample.jsonl"
    assert set(data.categories) == {"Numeric", "Expression", "Multi-choice", "String"}
    assert any(r.label for r in data.rows) and not all(r.label for r in data.rows)


def test_generic_jsonl_maps_fields(tmp_path):
    path = tmp_path / "mine.jsonl"
    rows = [
        {"problem": "1+1?", "gold": 2, "output": "The answer is 2", "ok": "Correct", "kind": "easy"},
        {"problem": "2+2?", "gold": 4, "output": "The answer is 5", "ok": "Incorrect", "kind": "easy"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    suite = build_suite("jsonl:question=problem,reference=gold,completion=output,label=ok,category=kind")
    data = suite.load(str(path))
    assert [(r.item.reference, r.label, r.category) for r in data.rows] == [("2", True, "easy"), ("4", False, "easy")]


def test_generic_jsonl_errors_name_the_field_and_the_fix(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": "q", "reference": "r", "completion": "c"}) + "\n")
    with pytest.raises(DataError, match=r"no field 'label'.*--suite jsonl:label=FIELD"):
        build_suite("jsonl").load(str(path))
    path.write_text('{"question": "q"\n')
    with pytest.raises(DataError, match=r"bad.jsonl:1: not valid JSON"):
        build_suite("jsonl").load(str(path))
    path.write_text(json.dumps({"question": "q", "reference": "r", "completion": "c", "label": "maybe"}) + "\n")
    with pytest.raises(DataError, match="cannot read 'maybe'"):
        build_suite("jsonl").load(str(path))
    with pytest.raises(DataError, match="no default data"):
        build_suite("jsonl").load()


def test_hub_source_without_datasets_or_network_fails_clearly(monkeypatch):
    """The hub unreachable, as offline mode makes it at once (a network that does not answer makes
    ``datasets`` retry for 20 s and then fail the same way)."""
    import sys

    from harness.core.optional import MissingDependencyError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for module, name in (("huggingface_hub.constants", "HF_HUB_OFFLINE"), ("datasets.config", "HF_HUB_OFFLINE")):
        if module in sys.modules:  # read when imported: an earlier test may have imported it already
            monkeypatch.setattr(sys.modules[module], name, True)
    try:
        build_suite("verifybench").load()
    except MissingDependencyError as exc:
        assert "pip install 'rl-reward-harness[hub]'" in str(exc)
    except DataError as exc:  # datasets installed but the hub is unreachable
        assert "--data" in str(exc)
    else:
        pytest.fail("loading from an unreachable hub should fail")


def test_suite_registry_lists_every_builtin():
    assert {"sample", "verifybench", "verifybench-hard", "processbench", "mathcheck-gsm", "jsonl"} <= set(SUITES.names())
