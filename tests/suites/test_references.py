"""Every suite's references, as every reward sees them: clean of typesetting, and paid when boxed as an answer.

Over every packaged suite and every suite whose data is here (the math benchmarks for policies, the verifier
suites, the robustness suite; VerifyBench and VerifyBench-Hard once ``harness data fetch verifybench`` has put them
in place, else they are skipped and say so). A reference that is a whole solution is answered by its own final
answer (its boxes, or GSM8K's ``####``), as a model would box it. The answer-equivalence fixtures are left out:
their references are items under test, paired with the answers they were labelled against.

The rule reward is checked on every distinct reference. ``mathverify`` (plain math-verify as verl calls it) costs
about 40 s for all of them on 2 cores, so the default run checks a seeded sample of each suite;
``HARNESS_REFERENCE_SAMPLE=0`` (``tox -e references``) checks them all. Exceptions are listed by suite and uid below,
each with its reason; any other reference that fails is a failure.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from harness.core.answers import clean_reference
from rewards import Item
from rewards.math.grader import reference_answer
from rewards.plain_math_verify import plain_verdict

from ..conftest import DATA_ROOT, VERIFYBENCH_HARD

# (suite, uid) -> why the reference, answered by itself, is not paid
_NO_SINGLE_VALUE = "a worked solution or a sentence that states no single value: the rule abstains, even on itself"
_VBH = "verifybench-hard-subset"
RULE_EXCEPTIONS = {
    (_VBH, "13c03b682a952e80a999c8551089683b"): "the reference is the text '] }', no answer",
    **{(_VBH, uid): _NO_SINGLE_VALUE for uid in (
        "0c2200e91f324ea5a912da84f9090638", "ee805f1ab52d4d38ba668e44b5b3fbca", "d892147f21a603cf006be26ac0db27cb",
        "bd6387db3ba7707f36a144a4530b7914", "a820313cc66f1ba94f39b41b8179b111", "046f9f9a9c2639879d3d7dd202b63cc8",
        "75b2a58542259d851176d51275ee3259")},  # the last: "right by 1 and up by 2"
    ("robustness", "robust-335"): _NO_SINGLE_VALUE,
}
_WHOLE_SOLUTION = "a whole solution as the reference: verl's call boxes all of it, and math-verify reads no answer"
_PARTS = "several parts in several boxes: math-verify reads one"
MATHVERIFY_EXCEPTIONS = {
    **{(_VBH, uid): _WHOLE_SOLUTION
       for uid in ("44c232ac393ed1725189761572d000ac", "b629da2c271997896da3aca353f20a50")},
    **{(_VBH, uid): _PARTS for uid in (
        "b54f5c7d65837b8a8d11b890dec53b15", "99fb5ec0153c30b2fe8ebb5a8cf10442", "247f7e59c16a10ddfaa918e3b1699eaf",
        "864a7a59ef8dfd151f0d9ea527323991", "e2584ff11780a2a9b044c5418f2be9c2", "7ff87a43db7f15aa80827e2230dd95a1",
        "a44b72d3d877c6ec0df9d1313c3e4a87", "f925e2381ebfaa1578d07a646aefde58")},
}
_SAMPLE = int(os.environ.get("HARNESS_REFERENCE_SAMPLE", "40"))


def _policy_suites() -> list[str]:
    from suites.math_benchmarks import benchmarks

    return list(benchmarks())


# (name in the exceptions, suite spec, data where not the declared default)
_VERIFIER_SUITES = [
    ("sample", "sample", None),
    ("processbench", "processbench", None),
    ("mathcheck-gsm", "mathcheck-gsm", None),
    ("verifybench-hard-subset", "verifybench-hard", str(VERIFYBENCH_HARD.relative_to(DATA_ROOT))),
    ("verifybench", "verifybench", None),
    ("verifybench-hard", "verifybench-hard", None),
    ("robustness", "robustness", None),
]


def _references(name: str) -> dict[str, str]:
    """uid -> reference, one uid a distinct reference, as the suite loads them."""
    from suites import build_suite
    from suites.declarations import declarations
    from suites.math_benchmarks import normalised_records

    if name in _policy_suites():
        return {f"{i}": ref for i, ref in enumerate(dict.fromkeys(r["answer"] for r in normalised_records(name)))}
    _, spec, data = next(entry for entry in _VERIFIER_SUITES if entry[0] == name)
    declared = declarations().verifier.get(spec)
    if data is None and declared is not None and declared.fetch and not (DATA_ROOT / declared.data).exists():
        pytest.skip(f"{spec} is not here: `harness data fetch {declared.fetch}` puts it in {DATA_ROOT / declared.data}")
    out: dict[str, str] = {}
    for row in build_suite(spec).load(data).rows:
        if row.item.reference not in out.values():
            out[str(row.item.metadata.get("uid", len(out)))] = row.item.reference
    return out


def _answered(reference: str) -> str:
    return f"The final answer is $\\boxed{{{reference_answer(reference)}}}$."


SUITES = _policy_suites() + [name for name, _, _ in _VERIFIER_SUITES]


@pytest.mark.parametrize("name", SUITES)
def test_every_reference_is_clean_of_typesetting(name):
    dirty = {uid: ref for uid, ref in _references(name).items() if clean_reference(ref) != ref}
    assert not dirty, f"{name}: {len(dirty)} references keep a typesetting tail, e.g. {list(dirty.items())[:5]}"


@pytest.mark.parametrize("name", SUITES)
def test_every_reference_boxed_is_paid_by_the_rule_reward(name, rule_reward):
    references = _references(name)
    uids = list(references)
    scores = rule_reward.score([Item("", references[u], _answered(references[u])) for u in uids])
    unpaid = {u: (s.reason, s.detail) for u, s in zip(uids, scores) if s.verdict is not True}
    unexpected = {u: why for u, why in unpaid.items() if (name, u) not in RULE_EXCEPTIONS}
    assert not unexpected, f"{name}: {len(unexpected)} references not paid: " + "; ".join(
        f"{u} {references[u][:60]!r} -> {why}" for u, why in list(unexpected.items())[:10])
    stale = [u for (suite, u) in RULE_EXCEPTIONS if suite == name and u in references and u not in unpaid]
    assert not stale, f"{name}: listed as exceptions but paid now: {stale}"


@pytest.mark.parametrize("name", SUITES)
def test_every_reference_boxed_is_paid_by_mathverify(name):
    references = _references(name)
    uids = sorted(references)
    if _SAMPLE and len(uids) > _SAMPLE:
        listed = [u for (suite, u) in MATHVERIFY_EXCEPTIONS if suite == name and u in references]
        uids = sorted(set(random.Random(0).sample(uids, _SAMPLE)) | set(listed))
    unpaid = {u for u in uids if not plain_verdict(references[u], _answered(references[u]), "boxed")}
    unexpected = sorted(u for u in unpaid if (name, u) not in MATHVERIFY_EXCEPTIONS)
    assert not unexpected, f"{name}: {len(unexpected)} references not paid by mathverify: " + "; ".join(
        f"{u} {references[u][:60]!r}" for u in unexpected[:10])
    stale = [u for (suite, u) in MATHVERIFY_EXCEPTIONS if suite == name and u in references and u not in unpaid]
    assert not stale, f"{name}: listed as exceptions but paid now: {stale}"


def test_the_cleaning_keeps_what_is_part_of_an_answer():
    assert clean_reference("\\frac{40}{243}$.") == "\\frac{40}{243}"
    assert clean_reference("\\frac{\\sqrt{30}}{12} $.") == "\\frac{\\sqrt{30}}{12}"
    assert clean_reference("B.") == "B"
    assert clean_reference("5 \\noindent") == "5"
    assert clean_reference("$2^{1009}$") == "2^{1009}"
    assert clean_reference("$x^4-10x^2+1.$ \\\\\n\\noindent") == "x^4-10x^2+1"  # Math Odyssey's
    assert clean_reference("$x$ and $y$") == "$x$ and $y$"  # two formulas and a word: not one formula
    assert clean_reference("1, 2, 3, \\ldots") == "1, 2, 3, \\ldots"
    assert clean_reference("1, 2, ...") == "1, 2, ..."
    assert clean_reference("\\$5") == "\\$5"


def test_the_data_root_is_the_one_the_suites_read():
    assert Path(os.environ["HARNESS_DATA_ROOT"]) == DATA_ROOT
