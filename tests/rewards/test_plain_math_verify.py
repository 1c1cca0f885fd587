"""The ``mathverify`` reward is plain math-verify: on real labelled items its verdicts are those of a plain loop of
``verify(parse(reference), parse(completion))``, and a hung item costs only itself."""

from __future__ import annotations

from rewards import Item, build_reward
from rewards.plain_math_verify import plain_verdict
from suites import build_suite


def test_its_verdicts_equal_a_plain_loop_on_real_items(data_root):
    rows = [r for spec in ("mathcheck-gsm", "answer-equivalence") for r in build_suite(spec).load().rows[::9]]
    items = [r.item for r in rows]
    reward = build_reward("mathverify:workers=2")
    try:
        scores = reward.score(items)
    finally:
        reward.close()
    loop = [plain_verdict(it.reference, it.completion) for it in items]
    assert [s.verdict is True for s in scores] == loop
    assert any(loop) and not all(loop)  # both verdicts occur: the comparison can fail


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
