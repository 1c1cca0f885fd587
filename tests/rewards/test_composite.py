"""Composite rewards: cascade, all, any and the weighted mean, with nested specs, through eval, serve and the
training bridge; a cascade with a Cooper stage learns."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from harness.core.spec import SpecError
from harness.evaluate import EvalRequest, evaluate_reward
from harness.server import ServerConfig, create_app
from rewards import REWARDS, Item, LearnsFromFeedback, Score, build_reward


class Scripted:
    """A second opinion for the tests: says correct when the completion contains ``yes``, abstains on ``??``."""

    def score(self, items):
        out = []
        for it in items:
            if "??" in it.completion:
                out.append(Score.abstain("unsure"))
            else:
                out.append(Score(0.9, True, "scripted") if "yes" in it.completion else Score(0.2, False, "scripted"))
        return out


@pytest.fixture(autouse=True)
def scripted():
    REWARDS.register("scripted")(Scripted)
    yield
    REWARDS.unregister("scripted")


ITEMS = [
    Item("q", "4", "\\boxed{4}"),          # the rule reward verifies it
    Item("q", "4", "four, yes"),           # rule rejects; the second stage accepts
    Item("q", "4", "\\boxed{5}"),          # both reject
    Item("q", "4", "?? \\boxed{5}"),       # rule rejects; the second stage abstains
]


def test_cascade_consults_the_second_stage_only_where_the_first_is_not_sure():
    with build_reward("cascade:first=[rule:workers=1],then=scripted") as reward:
        scores = reward.score(ITEMS)
    assert [s.verdict for s in scores] == [True, True, False, None]
    assert scores[0].detail == "decided by rule:workers=1"
    assert scores[1].detail == "decided by scripted (rule:workers=1: mismatch)"
    with build_reward("cascade:first=[rule:workers=1],then=scripted,trust=verdict") as strict:
        assert [s.verdict for s in strict.score(ITEMS)] == [True, False, False, False]  # rule always gives a verdict


def test_all_any_and_the_weighted_mean():
    with build_reward("all:rewards=[rule:workers=1;scripted]") as both:
        assert [s.verdict for s in both.score(ITEMS)] == [False, False, False, False]  # "\\boxed{4}" lacks "yes"
    with build_reward("any:rewards=[rule:workers=1;scripted]") as either:
        assert [s.verdict for s in either.score(ITEMS)] == [True, True, False, False]
    with build_reward("mean:rewards=[rule:workers=1;scripted],weights=[3;1]") as mean:
        values = [s.value for s in mean.score(ITEMS)]
    assert values == pytest.approx([(3 * 1 + 0.2) / 4, (0 + 0.9) / 4, (0 + 0.2) / 4, 0.0])  # abstention left out
    with pytest.raises(ValueError, match="weights must be 2"):
        build_reward("mean:rewards=[rule;scripted],weights=[1;2;3]")
    with pytest.raises(SpecError, match="unclosed"):
        build_reward("cascade:first=rule,then=[verifyrm:model=x")


def test_a_composite_is_a_reward_for_eval_and_serve(store, data_root):
    spec = "cascade:first=[rule:workers=1],then=scripted"
    run = evaluate_reward(EvalRequest(spec, "sample"), store)
    assert run.status == "complete" and run.reward == spec and run.metric("accuracy") is not None
    with build_reward(spec) as reward, TestClient(create_app(reward, ServerConfig(spec, max_wait_ms=5))) as client:
        body = {"items": [{"reference": "4", "completion": c} for c in ("\\boxed{4}", "four, yes", "\\boxed{5}")]}
        assert [s["verdict"] for s in client.post("/score", json=body).json()["scores"]] == [True, True, False]


def test_a_cascade_with_a_cooper_stage_learns(tmp_path):
    from trainers.grpo import RewardBridge, StepRecords

    from ..models import tiny_classifier

    model = tiny_classifier(tmp_path / "rm")
    reward = build_reward(f"cascade:first=[rule:workers=1],then=[cooper:model={model},negatives=perturb]")
    assert isinstance(reward, LearnsFromFeedback)
    with pytest.raises(TypeError, match="serve it"):
        import pickle

        pickle.dumps(reward)
    records = StepRecords()
    bridge = RewardBridge(reward, records)
    try:
        prompts = ["What is 3+4?"] * 4
        bridge(prompts, ["\\boxed{7}", "\\boxed{8}", "\\boxed{7}", "\\boxed{9}"], ["7"] * 4)
        values = records.drain()
    finally:
        bridge.rule.close()
        reward.close()
    assert values["rm_cooper_valid_pairs"] == 1.0 and values["rm_cooper_step"] == 1.0
