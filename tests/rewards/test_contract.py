"""The reward contract: typed items and scores, the optional learning hook, one score per item enforced."""

import pytest

from harness.evaluate import EvalRequest, evaluate_reward
from rewards import REWARDS, Item, LearnsFromFeedback, Reward, Score


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


def test_learning_hook_is_detected_structurally():
    reward = Stateful()
    assert isinstance(reward, Reward) and isinstance(reward, LearnsFromFeedback)
    assert not isinstance(ShortChanged(), LearnsFromFeedback)


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
