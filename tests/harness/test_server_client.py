"""The one client of reward servers (:mod:`harness.core.server_client`) and its one failure policy, as each of its
callers meets it: the ``remote`` reward, the framework adapters (``score_items``, which verl's, OpenRLHF's and
verifiers' adapters call) and TRL's async ``RemoteReward``. Against a real ``harness serve`` on loopback and
against peers that misbehave at the socket; and the answer readers on every JSON body a server can send."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import server_client
from harness.core.server_client import ServerRefused, openrlhf_answer, read_answer, score_answer
from harness.integrations import _shared
from harness.integrations.trl_remote import RemoteReward
from rewards import Item, build_reward

from .peers import Misbehaving

ITEMS = [Item("q", "1", "\\boxed{1}"), Item("q", "1", "\\boxed{2}"), Item("q", "4", "\\boxed{4}")]


@pytest.fixture
def quick_retries(monkeypatch):
    monkeypatch.setattr(server_client, "RETRY_DELAYS_S", (0.05, 0.05))


def _remote_reward(base: str) -> list:
    reward = build_reward(f"remote:url={base}/get_reward,timeout=0.5,batch_size=3")
    try:
        return reward.score(ITEMS)
    finally:
        reward.close()


def _adapters(base: str, monkeypatch) -> list:
    monkeypatch.setenv("HARNESS_REWARD_URL", base)
    _shared.close_server_client()
    monkeypatch.setattr(server_client, "TIMEOUT_S", 0.5)
    try:
        return _shared.score_items(ITEMS)
    finally:
        _shared.close_server_client()


def _trl(base: str) -> list:
    reward = RemoteReward(base, timeout_s=0.5)

    async def call():
        try:
            return await reward(prompts=["q"] * 3, completions=[it.completion for it in ITEMS],
                                reference=[it.reference for it in ITEMS])
        finally:
            await reward.aclose()

    return asyncio.run(call())


def test_the_three_callers_agree_with_the_real_server(rule_server, monkeypatch):
    remote, adapters, trl = _remote_reward(rule_server), _adapters(rule_server, monkeypatch), _trl(rule_server)
    assert [s.value for s in remote] == [s.value for s in adapters] == trl == [1.0, 0.0, 1.0]
    assert [s.verdict for s in remote] == [s.verdict for s in adapters] == [True, False, True]


@pytest.mark.parametrize("what, reason", [("hang", "timeout"), ("drop", "crashed"), ("garbage", "crashed"),
                                          ("short", "crashed"), ("unavailable", "crashed")])
def test_a_server_that_fails_is_a_failed_score_for_scores_and_an_abstention_for_trl(quick_retries, monkeypatch,
                                                                                    what, reason):
    peer = Misbehaving(what)
    base = peer.url.rsplit("/", 1)[0]
    try:
        for scores in (_remote_reward(base), _adapters(base, monkeypatch)):
            assert [(s.value, s.verdict, s.reason) for s in scores] == [(0.0, False, reason)] * 3
        assert _trl(base) == [None, None, None]  # never 0.0: an outage is not a training signal
    finally:
        peer.close()
    sent = 3 if what in ("hang", "drop", "unavailable") else 1  # only what the service did is sent again
    assert peer.requests == 3 * sent


@pytest.mark.parametrize("what", ["refuse", "forbid"])
def test_a_refused_token_is_one_clear_error_for_every_caller(monkeypatch, what):
    peer = Misbehaving(what)
    base = peer.url.rsplit("/", 1)[0]
    try:
        for call in (lambda: _remote_reward(base), lambda: _adapters(base, monkeypatch), lambda: _trl(base)):
            with pytest.raises(ServerRefused, match="HARNESS_SERVER_TOKEN"):
                call()
    finally:
        peer.close()
    assert peer.requests == 3  # one request each: a refusal is not sent again, nor item by item


def test_a_failure_reason_is_read_from_its_field_not_from_the_message():
    read = openrlhf_answer(0.5)
    typed = read_answer(read, {"rewards": [0.0, 1.0], "errors": ["it ran out: crashed", None],
                               "failure_reasons": ["timeout", None]}, 2, "u")
    assert [(s.reason, s.is_failure) for s in typed] == [("timeout", True), ("remote", False)]
    untyped = read_answer(read, {"rewards": [0.0], "errors": ["timeout: in the text only"]}, 1, "u")
    assert untyped[0].reason == "crashed"  # a foreign server's text is not parsed for a reason
    served = read_answer(score_answer, {"scores": [{"error": "x", "reason": "out_of_memory", "detail": "big"}]}, 1, "u")
    assert served[0].reason == "out_of_memory" and "big" in served[0].detail


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
score_objects = st.fixed_dictionaries({}, optional={k: json_values for k in
                                                    ("value", "verdict", "reason", "answer", "detail", "error")})
score_answers = st.one_of(json_values, st.fixed_dictionaries(
    {"scores": st.one_of(json_values, st.lists(st.one_of(score_objects, json_values), min_size=2, max_size=2))}))


@settings(max_examples=500, deadline=None)
@given(score_answers)
def test_no_answer_to_score_a_server_can_send_raises(answer):
    scores = read_answer(score_answer, answer, 2, "u")
    assert len(scores) == 2 and all(s.value is None or 0.0 <= s.value <= 1.0 for s in scores)


def test_a_client_needs_a_connection_and_closes_whether_or_not_it_was_used():
    with pytest.raises(ValueError, match="connections"):
        server_client.ServerClient("http://127.0.0.1:9", connections=0)
    one = server_client.ServerClient("http://127.0.0.1:9", connections=1)
    one.close()  # never used: nothing to close, nothing raised
    used = server_client.ServerClient("http://127.0.0.1:9", connections=1)
    client = used.client
    used.close()
    assert client.is_closed and used._client is None


def test_the_retry_delays_wait_longer_each_time():
    delays = server_client.RETRY_DELAYS_S
    assert len(delays) >= 2 and all(0 < a < b for a, b in zip(delays, delays[1:]))


def test_an_abstention_in_an_answer_is_read_as_one():
    [score] = score_answer({"scores": [{"value": None, "verdict": None, "reason": "unparsed"}]}, 1)
    assert (score.value, score.verdict, score.reason) == (None, None, "unparsed") and not score.is_failure
    [paid] = score_answer({"scores": [{"value": 1.0, "verdict": True, "reason": "verified"}]}, 1)
    assert (paid.value, paid.verdict) == (1.0, True)


def test_a_timeout_must_be_positive():
    for timeout in (0, -1.0):
        with pytest.raises(ValueError, match="timeout"):
            server_client.ServerClient("http://127.0.0.1:9", timeout_s=timeout)


def test_a_score_that_abstains_by_half_is_no_answer():
    for half in ({"value": 1.0, "verdict": None, "reason": "x"}, {"value": None, "verdict": True, "reason": "x"}):
        [score] = read_answer(score_answer, {"scores": [half]}, 1, "http://x")
        assert score.is_failure and "abstains by half" in score.detail


def _answering(status: int, body: str) -> server_client.ServerClient:
    """A client whose every request gets ``status`` and ``body``, through httpx's own mock transport."""
    import httpx

    client = server_client.ServerClient("http://127.0.0.1:9/score", timeout_s=1)
    client._client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(status, text=body)))
    return client


@pytest.mark.parametrize("status, body, quoted", [
    (404, "x" * 1000, 300),  # an error page: its first 300 characters
    (200, "x" * 1000, 200),  # not JSON: its first 200, quoted
    (200, "[" + ", ".join(['"x"'] * 400) + "]", 200),  # JSON that is not an answer: its first 200
])
def test_a_failed_answer_quotes_a_bounded_part_of_what_the_server_sent(status, body, quoted):
    client = _answering(status, body)
    try:
        [score] = client.post({"items": []}, 1, score_answer)
    finally:
        client.close()
    assert score.is_failure
    assert body[:quoted] in score.detail and body[: quoted + 1] not in score.detail
