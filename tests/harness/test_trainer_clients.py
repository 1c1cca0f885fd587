"""slime's remote reward protocol and TRL's async reward functions, against a real ``harness serve`` on loopback, on
real MathCheck-GSM items: the same rewards as the rule reward in-process (what ``harness eval`` gives)."""

import asyncio

import httpx
import pytest

from harness.integrations.trl_remote import RemoteReward
from rewards.rule import RuleReward

BOMB = "\\boxed{9^{9^{9^{9}}}}"


@pytest.fixture(scope="module")
def server(rule_server):
    return rule_server


def test_slime_remote_rm_gets_the_rewards_harness_eval_gives(server, real_rows, eval_scores):
    """The body slime's ``remote_rm`` (slime/rollout/rm_hub/__init__.py) posts to ``--rm-url``, one sample per
    request, and what it takes back: the JSON body itself is the reward."""
    async def run():
        async with httpx.AsyncClient(timeout=120) as client:
            async def remote_rm(prompt, response, label):
                answer = await client.post(f"{server}/slime", json={"prompt": prompt, "response": response,
                                                                    "label": label})
                answer.raise_for_status()
                return answer.json()

            calls = [remote_rm(item.question, item.completion + "<|im_end|>", label) for item, label in real_rows]
            calls.append(remote_rm([{"role": "user", "content": "What is 2+2?"}], BOMB, 4.0))  # messages, a bomb
            return await asyncio.gather(*calls)

    rewards = asyncio.run(run())
    assert all(isinstance(r, float) for r in rewards)
    assert rewards[:-1] == eval_scores and rewards[-1] == 0.0


def test_slime_label_errors_are_400():
    from fastapi.testclient import TestClient

    from harness.server import ServerConfig, create_app

    with RuleReward(workers=1) as reward, TestClient(create_app(reward, ServerConfig("rule"))) as c:
        bad = c.post("/slime", json={"prompt": "q", "response": "\\boxed{6}", "label": {"reference": ["6"]}})
        assert bad.status_code == 400 and "reference must be text or a number" in bad.text


def test_trl_runs_the_remote_reward_as_its_async_reward_function(server, real_rows, eval_scores):
    """TRL's own machinery: it recognises the callable as async and runs it on its daemon event loop, with the
    dataset's columns as keyword arguments, exactly as ``GRPOTrainer._calculate_rewards`` does."""
    from trl.trainer.utils import is_async_callable, shutdown_event_loop_in_daemon, start_event_loop_in_daemon

    reward = RemoteReward(server)
    assert is_async_callable(reward)
    thread, loop, ready = start_event_loop_in_daemon(name="trl-rewards")
    ready.wait()
    try:
        prompts = [[{"role": "user", "content": item.question}] for item, _ in real_rows]
        completions = [[{"role": "assistant", "content": item.completion}] for item, _ in real_rows]
        kwargs = {"reference": [label for _, label in real_rows], "trainer_state": None}
        for _ in range(2):  # the pooled client is reused on the second step
            out = asyncio.run_coroutine_threadsafe(
                reward(prompts=prompts, completions=completions, completion_ids=[[1]] * len(prompts), **kwargs), loop
            ).result(timeout=120)
            assert out == eval_scores
        bomb = asyncio.run_coroutine_threadsafe(
            reward(prompts=["q"], completions=[BOMB], completion_ids=[[1]], reference=[4]), loop).result(timeout=120)
        assert bomb == [0.0]
        with pytest.raises(ValueError, match="no 'reference' column"):
            asyncio.run_coroutine_threadsafe(reward(prompts=["q"], completions=["1"], answer=["1"]), loop).result(60)
        asyncio.run_coroutine_threadsafe(reward.aclose(), loop).result(timeout=60)
    finally:
        shutdown_event_loop_in_daemon(thread, loop)
