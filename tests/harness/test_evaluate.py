"""``harness eval``'s scoring loop: a reward that scores each item as it finishes gets every item at once (its
workers never wait for a batch's slowest item), with progress every ``batch_size`` items; others get batches."""

from __future__ import annotations

import threading

import pytest

from harness.evaluate import score_in_batches
from rewards import Item, Score


class Streaming:
    """Scores items in reverse order of arrival, from a thread of its own, as a pool of workers would."""

    def __init__(self, skip: int | None = None) -> None:
        self.calls: list[int] = []
        self.skip = skip

    def score(self, items):
        raise AssertionError("a reward that scores each item must not be given batches")

    def score_each(self, items, on_score):
        self.calls.append(len(items))

        def run():
            for i in reversed(range(len(items))):
                if i != self.skip:
                    on_score(i, Score.correct() if items[i].reference == "1" else Score.incorrect(), 0.01 * i)

        worker = threading.Thread(target=run)
        worker.start()
        worker.join()


class Batched:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def score(self, items):
        self.calls.append(len(items))
        return [Score.correct() if it.reference == "1" else Score.incorrect() for it in items]


def _items(n):
    return [Item(question="q", reference=str(i % 2), completion="c") for i in range(n)]


def test_a_reward_that_scores_each_item_gets_them_all_at_once_with_progress_and_its_own_timings():
    reward, seen = Streaming(), []
    scored = score_in_batches(reward, _items(10), 4, progress=lambda done, total: seen.append((done, total)))
    assert reward.calls == [10]
    assert [s.verdict for s, _ in scored] == [i % 2 == 1 for i in range(10)]  # in the items' order
    assert [round(t, 2) for _, t in scored] == [0.01 * i for i in range(10)]
    assert seen == [(4, 10), (8, 10), (10, 10)]


def test_other_rewards_get_batches():
    reward = Batched()
    assert len(score_in_batches(reward, _items(10), 4)) == 10
    assert reward.calls == [4, 4, 2]


def test_a_missing_score_is_an_error_that_names_the_item():
    with pytest.raises(RuntimeError, match="no score for 1 of 10 items .*item 3"):
        score_in_batches(Streaming(skip=3), _items(10), 4)


def test_a_reward_that_starts_early_starts_before_the_data_is_read(store, monkeypatch):
    """The rule reward's workers take half a second to start: its own start returns at once (close waits for it),
    and ``harness eval`` calls it before it reads the data."""
    from harness.evaluate import EvalRequest, evaluate_reward
    from rewards.rule import RuleReward
    from rewards.sandbox import KillablePool
    from suites.jsonl import JsonlVerifierSuite

    starting, release = threading.Event(), threading.Event()

    def slow_start(self):
        starting.set()
        release.wait(30)

    monkeypatch.setattr(KillablePool, "start", slow_start)
    reward = RuleReward(workers=1)
    reward.start_early()
    assert starting.wait(30) and not release.is_set()  # returned while its workers were still starting
    release.set()
    reward.close()

    events: list[str] = []
    start_early = RuleReward.start_early

    def recorded_start(self):
        events.append("start early")
        start_early(self)

    def load(self, data, limit=None):
        events.append("data read")
        raise FileNotFoundError("no data")  # the run stops here; the reward is closed all the same

    monkeypatch.setattr(RuleReward, "start_early", recorded_start)
    monkeypatch.setattr(JsonlVerifierSuite, "load", load)
    with pytest.raises(FileNotFoundError):
        evaluate_reward(EvalRequest(reward="rule", suite="jsonl", data="x.jsonl"), store)
    assert events == ["start early", "data read"]
