"""The ``remote`` reward: a reward served over OpenRLHF's protocol, scored as if it ran here. Against a real
``harness serve`` on loopback (the in-process rewards, on real MathCheck-GSM items), and against servers that
misbehave at the socket: one that never answers, one that drops the connection, one that answers garbage."""

import re

import pytest

from harness.core import server_client
from rewards import Item, build_reward

from .peers import Misbehaving

BOMB = "\\boxed{9^{9^{9^{9}}}}"


@pytest.fixture(scope="module")
def server(rule_server):
    return f"{rule_server}/get_reward"


def test_remote_scores_equal_the_in_process_reward_on_real_items(server, real_rows, eval_scores):
    reward = build_reward(f"remote:url={server},concurrency=8")
    try:
        items = [Item(item.question, str(label), item.completion) for item, label in real_rows]
        scores = reward.score(items)
        assert [s.value for s in scores] == eval_scores
        assert all(s.verdict == (s.value == 1.0) for s in scores)  # the server's own verdict, not a threshold
        batched = build_reward(f"remote:url={server},batch_size=7")
        assert [s.value for s in batched.score(items)] == eval_scores
        batched.close()
    finally:
        reward.close()


def test_an_item_the_server_failed_fails_alone(server):
    reward = build_reward(f"remote:url={server},batch_size=3")
    try:
        good, bad = Item("What is 2+2?", "4", "\\boxed{4}"), Item("What is 2+2?", "4", BOMB)
        first, second, third = reward.score([good, bad, good])
        assert (first.value, third.value) == (1.0, 1.0) and not first.is_failure
        assert second.value == 0.0 and second.verdict is False  # the bomb: refused or failed, never paid
    finally:
        reward.close()


@pytest.fixture
def quick_retries(monkeypatch):
    monkeypatch.setattr(server_client, "RETRY_DELAYS_S", (0.05, 0.05))


@pytest.mark.parametrize("what, reason, words", [
    ("hang", "timeout", "did not answer within 0.5s"),
    ("drop", "crashed", "RemoteProtocolError|ReadError"),  # a close before or after the request is read
    ("garbage", "crashed", "not the protocol's answer"),
    ("short", "crashed", "must be a list of 2 numbers"),
])
def test_a_misbehaving_server_costs_only_a_failed_score(quick_retries, what, reason, words):
    peer = Misbehaving(what)
    reward = build_reward(f"remote:url={peer.url},timeout=0.5,batch_size=2")
    try:
        scores = reward.score([Item("q", "1", "\\boxed{1}"), Item("q", "1", "\\boxed{2}")])
    finally:
        reward.close()
        peer.close()
    assert [(s.value, s.verdict, s.reason) for s in scores] == [(0.0, False, reason)] * 2
    assert re.search(words, scores[0].detail), scores[0].detail
    assert peer.requests == (3 if what in ("hang", "drop") else 1)  # only what the service did is sent again


def test_a_refused_token_is_an_error_at_the_first_call():
    peer = Misbehaving("refuse")
    reward = build_reward(f"remote:url={peer.url}")
    try:
        with pytest.raises(PermissionError, match="refused the token"):
            reward.score([Item("q", "1", "\\boxed{1}")])
    finally:
        reward.close()
        peer.close()


def test_a_url_that_is_not_http_is_refused_when_built():
    with pytest.raises(ValueError, match="http"):
        build_reward("remote:url=localhost:8000")


def test_the_remote_rewards_defaults_are_the_ones_the_readme_documents():
    """The README's table of reward options is the contract a user reads: timeout 180 s, batch_size 1,
    concurrency 16, threshold 0.5."""
    import inspect

    from rewards.remote import ServedReward

    from ..readme_options import documented_defaults

    documented = documented_defaults()["remote"]
    defaults = {k: p.default for k, p in inspect.signature(ServedReward).parameters.items() if k in documented}
    assert documented == {"timeout": 180.0, "batch_size": 1.0, "concurrency": 16.0, "threshold": 0.5}
    assert defaults == documented


@pytest.mark.parametrize("option", ["batch_size=0", "concurrency=0", "timeout=0", "timeout=-1"])
def test_each_bound_of_the_remote_reward_is_refused_alone(option):
    with pytest.raises(ValueError):
        build_reward(f"remote:url=http://127.0.0.1:9/get_reward,{option}")


def test_the_remote_reward_takes_one_connection_and_scores_no_items_without_asking():
    reward = build_reward("remote:url=http://127.0.0.1:9/get_reward,concurrency=1")  # nothing listens there
    try:
        assert reward.score([]) == []
    finally:
        reward.close()
