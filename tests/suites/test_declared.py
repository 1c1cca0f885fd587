"""Suites declared in suites/data/suites.yaml: listed without importing suite code, built from the declaration,
and a declaration that leaves something out fails when read, naming the suite and the key."""

import subprocess
import sys

import pytest

from suites import SUITES, build_suite
from suites.declarations import CategoryRule, DeclarationError, declarations, parse_declarations


def test_listing_suites_imports_no_suite_code():
    code = (
        "import sys\n"
        "from harness.catalog import catalog\n"
        "listed = {title: [e.name for e in entries] for title, entries in catalog('suites')}\n"
        "assert 'verifybench-hard' in listed['suites'] and 'processbench' in listed['suites'], listed\n"
        "assert 'math_odyssey' in listed['policy benchmarks (eval-policy --suites)'], listed\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('suites.') and m != 'suites.declarations' "
        "and m != 'suites.contract')\n"
        "print(loaded)\n"
        "assert loaded == [], loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_declared_suites_read_the_real_data_by_their_declaration(data_root):
    processbench = build_suite("processbench").load()
    assert processbench.categories == ("gsm8k", "math")  # the subsets of the shared copy (ids "gsm8k-12", ...)
    assert processbench.category_name == "subset"
    hard = build_suite("verifybench-hard").load("verifier/verifybench_hard_subset_longjudgebench")
    assert hard.categories == ("Numeric", "Expression", "Multi-choice", "String")
    assert {r.category for r in hard.rows} <= {*hard.categories, "Other"}
    assert SUITES.entry("mathcheck-gsm").origin == "builtin (suites.yaml)"


def test_category_rules():
    verifybench = declarations().verifier["verifybench"].category
    assert verifybench.of({"answer_type": "C1 - Single Choice"}) == "Multi-choice"
    assert verifybench.of({"answer_type": "z"}) == verifybench.of({}) == "Other"
    assert CategoryRule("id", before_last="-").of({"id": "gsm8k-ab-12"}) == "gsm8k-ab"
    assert CategoryRule("kind").of({}) == "unknown" and CategoryRule().of({"kind": "x"}) == "all"


def test_a_declaration_that_leaves_something_out_is_named():
    entry = {"fields": {"question": "q", "reference": "r", "completion": "c"}, "data": "x.jsonl"}
    with pytest.raises(DeclarationError, match="verifier suite 'mine' maps no field for label"):
        parse_declarations({"verifier": {"mine": entry}})
    with pytest.raises(DeclarationError, match="needs a default 'data' location or a 'hub' dataset"):
        parse_declarations({"verifier": {"mine": {"fields": {**entry["fields"], "label": "ok"}}}})
    with pytest.raises(DeclarationError, match="cooper_table3 names benchmarks not declared: nope"):
        parse_declarations({"policy": {}, "cooper_table3": ["nope"]})
