"""What the ``remote`` reward makes of every answer a server can send: the protocol's answer gives its scores, any
other shape fails its items with the reason, and nothing is raised to the caller (a property over generated JSON
bodies, and the shapes a review found raising)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewards.remote import ServedReward

URL = "http://127.0.0.1:9/get_reward"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
per_item = st.one_of(json_values, st.lists(json_values, min_size=0, max_size=4))
answers = st.one_of(
    json_values,
    st.fixed_dictionaries({"rewards": st.one_of(json_values, st.lists(json_values, min_size=3, max_size=3))},
                          optional={"errors": per_item, "extra_logs": st.one_of(json_values, st.fixed_dictionaries(
                              {}, optional={"verdict": per_item, "reward_failed": per_item}))}),
)


@settings(max_examples=1500, deadline=None)
@given(answers)
def test_no_answer_a_server_can_send_raises(answer):
    scores = ServedReward(URL).scores_from(answer, 3)
    assert len(scores) == 3
    assert all(s.value is None or 0.0 <= s.value <= 1.0 for s in scores)


@pytest.mark.parametrize("answer", [
    {"rewards": [1.0, 0.0, 1.0], "errors": ["timeout: x"]},  # shorter than rewards: an IndexError before
    {"rewards": [1.0, 0.0, 1.0], "extra_logs": {"verdict": [True]}},
    {"rewards": [1.0, 0.0, 1.0], "extra_logs": {"reward_failed": [0]}},
    {"rewards": [1.0, 0.0, 1.0], "extra_logs": ["not", "an", "object"]},  # an AttributeError before
    {"rewards": [1.0, 0.0, 1.0], "errors": "crashed"},  # a string, indexed character by character before
    ["rewards", 1.0],
    {"rewards": [1.0, 0.0, 1.0, 1.0]},  # one reward more than the items sent: the answer to another request
])
def test_a_malformed_answer_fails_every_item_with_its_reason(answer):
    scores = ServedReward(URL).scores_from(answer, 3)
    assert [s.reason for s in scores] == ["crashed"] * 3 and all("not the protocol's answer" in s.detail for s in scores)


def test_a_reward_at_the_threshold_is_correct_when_the_server_sends_no_verdict():
    """OpenRLHF's serve_rm sends rewards only: the threshold decides, and a reward at it counts as correct."""
    assert [s.verdict for s in ServedReward(URL).scores_from({"rewards": [0.5, 0.4999]}, 2)] == [True, False]
    assert ServedReward(URL, threshold=1.0).scores_from({"rewards": [1.0]}, 1)[0].verdict is True
    assert ServedReward(URL).scores_from({"rewards": [0.9], "extra_logs": {"verdict": [False]}}, 1)[0].verdict is False


def test_an_item_the_server_marks_failed_fails_with_the_servers_words():
    """Any one of ``reward_failed``, ``errors`` or ``failure_reasons`` fails its item, never pays its reward; the
    detail keeps the server's error text, and a failure without one says ``reward_failed``."""
    scores = ServedReward(URL).scores_from(
        {"rewards": [1.0, 1.0, 0.0], "extra_logs": {"reward_failed": [True, False, False]},
         "errors": [None, None, "the judge timed out"], "failure_reasons": [None, None, "timeout"]}, 3)
    assert [(s.is_failure, s.reason, s.value) for s in scores] == [(True, "crashed", 0.0), (False, "remote", 1.0),
                                                                    (True, "timeout", 0.0)]
    assert "reward_failed" in scores[0].detail and "the judge timed out" in scores[2].detail
