"""The reward contract: typed items and scores, the optional learning hook, one score per item enforced."""

import pytest

from harness.evaluate import EvalRequest, evaluate_reward
from rewards import REWARDS, Item, Score


class Stateful:
    def __init__(self) -> None:
        self.learned = 0

    def score(self, items):
        return [Score(0.5, True, "half") for _ in items]

    def learn(self, items, scores):
        self.learned += len(items)
        return {"pairs": float(len(items))}


class ShortChanged:
    def score(self, items):
        return [Score.correct() for _ in items[:-1]]


def test_item_and_score_validation():
    with pytest.raises(TypeError, match="Item.reference must be a str"):
        Item("q", 42, "c")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Item("q", "r", "c").metadata["x"] = 1  # metadata is read-only
    assert Score.abstain("unparsed") == Score(None, None, "unparsed")
    assert Score.correct(answer="7").value == 1.0 and Score.incorrect().verdict is False


def test_a_reward_that_learns_is_taught_by_the_trainer_bridge_and_one_that_does_not_is_only_scored(rule_reward):
    from trainers.grpo import RewardBridge, StepRecords

    learning, records = Stateful(), StepRecords()
    values = RewardBridge(learning, records, rule=rule_reward)(["q", "q"], ["\\boxed{1}", "\\boxed{2}"], ["1", "1"])
    assert values == [0.5, 0.5] and learning.learned == 2 and records.drain()["rm_pairs"] == 2.0

    class ScoresOnly:
        def score(self, items):
            return [Score.correct() for _ in items]

    records = StepRecords()
    RewardBridge(ScoresOnly(), records, rule=rule_reward)(["q"], ["\\boxed{1}"], ["1"])
    assert not any(k.startswith("rm_") for k in records.drain())


def test_evaluation_never_trains_the_reward(store):
    reward = Stateful()
    run = evaluate_reward(EvalRequest("stateful-for-test", "sample", limit=5), store, reward=reward)
    assert reward.learned == 0 and run.status == "complete" and run.n_items == 5


def test_wrong_number_of_scores_fails_the_run(store):
    REWARDS.register("short-changed-for-test", ShortChanged)
    try:
        with pytest.raises(ValueError, match="returned 4 scores for 5 items"):
            evaluate_reward(EvalRequest("short-changed-for-test", "sample", limit=5), store)
    finally:
        REWARDS.unregister("short-changed-for-test")
    [run] = store.runs()
    assert run.status == "failed" and run.metrics == [] and "4 scores for 5 items" in run.error
