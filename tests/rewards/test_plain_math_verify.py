"""The ``mathverify`` reward is plain math-verify as the field calls it: by default its verdicts on real labelled
items are those of math-verify's own ``math_metric`` called as RL trainers call it (the reference boxed, LaTeX
extraction for the gold, expression and LaTeX extraction for the prediction); each other convention equals its own
plain loop; and a hung item costs only itself."""

from __future__ import annotations

import pytest

from rewards import Item, build_reward
from suites import build_suite


def _real_items(step: int = 9) -> list:
    return [r for spec in ("processbench", "mathcheck-gsm", "answer-equivalence")
            for r in build_suite(spec).load().rows[::step]]


def _score(spec: str, items: list[Item]) -> list[bool]:
    reward = build_reward(spec)
    try:
        return [s.verdict is True for s in reward.score(items)]
    finally:
        reward.close()


def _trainer_metric_verdicts(items: list[Item]) -> list[bool]:
    """math-verify's own ``math_metric`` with the extraction targets RL code gives it (verl's math-verify reward
    before 0.9 called exactly this), the reference wrapped in ``\\boxed{}``."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, math_metric

    metric = math_metric(gold_extraction_target=(LatexExtractionConfig(),),
                         pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig()))
    out = []
    for it in items:
        try:
            value, _ = metric(["\\boxed{" + it.reference + "}"], [it.completion])
        except BaseException:  # noqa: BLE001 - a trainer's loop scores an error 0
            value = 0.0
        out.append(value >= 1.0)
    return out


def test_the_default_is_the_trainers_call_on_real_items(data_root):
    rows = _real_items()
    items = [r.item for r in rows]
    ours = _score("mathverify:workers=2", items)
    theirs = _trainer_metric_verdicts(items)
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert len(differ) <= 0.0015 * len(items), [(items[i].reference, items[i].completion[-80:]) for i in differ[:5]]
    assert any(ours) and not all(ours)  # both verdicts occur: the comparison can fail
    labels = [r.label for r in rows]
    raw = _score("mathverify:gold=raw,workers=2", items)
    # the bare reference is the weaker call on real data: the comparison a table makes is against the stronger one
    assert sum(a == y for a, y in zip(ours, labels)) > sum(a == y for a, y in zip(raw, labels))


@pytest.mark.parametrize("gold", ["dollar", "raw"])
def test_each_other_convention_equals_its_plain_loop(data_root, gold):
    from math_verify import parse, verify

    items = [r.item for r in _real_items(step=23)]
    wrap = {"dollar": lambda ref: f"${ref}$", "raw": lambda ref: ref}[gold]

    def loop(it: Item) -> bool:
        try:
            return bool(verify(parse(wrap(it.reference)), parse(it.completion)))
        except BaseException:  # noqa: BLE001
            return False

    assert _score(f"mathverify:gold={gold},workers=2", items) == [loop(it) for it in items]


def test_the_conventions_differ_where_the_reference_is_bare_latex():
    """``2\\sqrt{3}`` as a bare reference parses to nothing under ``raw``: every answer to it is called wrong."""
    items = [Item("", "2\\sqrt{3}", "The answer is $2\\sqrt 3$."), Item("", "\\frac{1}{2}", "so \\boxed{0.5}")]
    assert _score("mathverify:gold=boxed,workers=1", items) == [True, True]
    assert _score("mathverify:gold=dollar,workers=1", items) == [True, True]
    assert _score("mathverify:gold=raw,workers=1", items)[0] is False


def test_an_unknown_convention_is_refused_before_any_work():
    with pytest.raises(Exception, match="gold"):
        build_reward("mathverify:gold=latex")


def test_a_hung_item_is_a_timeout_of_its_own():
    """A tower of powers sends math-verify's comparison into a computation it does not finish in 2 s: the worker is
    killed, the item scores ``timeout``, and its batch-mates keep their verdicts."""
    reward = build_reward("mathverify:workers=1,timeout=2")
    try:
        scores = reward.score([Item("", "1", "\\boxed{1}"), Item("", "2", "\\boxed{9^{9^{9^{9}}}}"),
                               Item("", "2", "\\boxed{3}")])
    finally:
        reward.close()
    assert [s.verdict for s in scores] == [True, False, False]
    assert scores[1].reason == "timeout" and scores[2].reason == "mismatch"
