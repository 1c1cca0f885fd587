"""The graders RL trainers score with, from verl 0.9.1's own release (``tox -e clients``, where verl is installed):
``verl-math-verify`` is verl's function itself, and our ``mathverify`` default agrees with it on real items; the
DAPO grader reads its ``acc``."""

from __future__ import annotations

import pytest

from rewards import Item, build_reward
from suites import build_suite

pytestmark = pytest.mark.clients


def _verdicts(spec: str, items: list[Item]) -> list[bool]:
    reward = build_reward(spec)
    try:
        return [s.verdict is True for s in reward.score(items)]
    finally:
        close = getattr(reward, "close", None)
        if close is not None:
            close()


def test_mathverify_agrees_with_verls_own_grader_on_real_items(data_root):
    from verl.utils.reward_score import math_verify as verl_math_verify

    items = [r.item for spec in ("processbench", "mathcheck-gsm") for r in build_suite(spec).load().rows[::7]]
    theirs = [verl_math_verify.compute_score(it.completion, it.reference) >= 1.0 for it in items]
    assert _verdicts("verl-math-verify:threads=4", items) == theirs  # the row is verl's function, nothing else
    ours = _verdicts("mathverify:workers=2", items)
    differ = sum(a != b for a, b in zip(ours, theirs))
    assert differ <= 0.0015 * len(items), differ
    assert any(theirs) and not all(theirs)


def test_the_dapo_row_is_verls_dapo_grader():
    from verl.utils.reward_score import math_dapo

    items = [Item("", "3", "so\nAnswer: 3"), Item("", "3", "so\nAnswer: 4"), Item("", "\\frac{1}{2}", "\\boxed{\\frac{1}{2}}"),
             Item("", "0.5", "\\boxed{\\frac{1}{2}}")]
    theirs = [bool(math_dapo.compute_score(it.completion, it.reference)["acc"]) for it in items]
    assert _verdicts("verl-dapo", items) == theirs == [True, False, True, False]
