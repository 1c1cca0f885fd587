"""``--limit N`` samples across a suite's subsets and labels, reproducibly, instead of taking its first N rows."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rewards import Item
from suites import build_suite
from suites.contract import LabelledItem
from suites.sampling import stratified


def test_processbench_limited_to_200_holds_both_subsets_and_both_labels(data_root):
    full = build_suite("processbench").load().rows
    rows = build_suite("processbench").load(limit=200).rows
    assert len(rows) == 200
    strata = Counter((r.category, r.label) for r in rows)
    assert {c for c, _ in strata} == {r.category for r in full} and {lab for _, lab in strata} == {True, False}
    whole = Counter((r.category, r.label) for r in full)
    for key, n in whole.items():  # each stratum in proportion, to within one row
        assert abs(strata[key] - 200 * n / len(full)) <= 1, key
    assert [r.item for r in build_suite("processbench").load(limit=200).rows] == [r.item for r in rows]


def _rows(spec: list[tuple[str, bool]]) -> list[LabelledItem]:
    return [LabelledItem(Item("q", "r", str(i)), label, category) for i, (category, label) in enumerate(spec)]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), min_size=1, max_size=60), st.integers(1, 70))
def test_a_sample_is_the_size_asked_in_file_order_and_reaches_every_stratum_it_can(spec, limit):
    rows = _rows(spec)
    chosen = stratified(rows, limit)
    assert len(chosen) == min(limit, len(rows))
    positions = [int(r.item.completion) for r in chosen]
    assert positions == sorted(set(positions))  # no repeats, the file's order kept
    strata = {(r.category, r.label) for r in rows}
    if limit >= len(strata):
        assert {(r.category, r.label) for r in chosen} == strata
    assert stratified(rows, limit) == chosen  # the same every time
