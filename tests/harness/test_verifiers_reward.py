"""A registered reward plugged into a task of prime-rl's verifiers 0.4 by import path, scored by verifiers' own
``Task.score`` on traces built as verifiers' own command-line tools build them, on real MathCheck-GSM items: the
same rewards as ``harness eval``, in-process and through a real ``harness serve``. In ``tox -e clients``."""

from __future__ import annotations

import asyncio

import pytest

from harness.core.serving import free_port, serving
from harness.integrations import _shared

pytestmark = pytest.mark.clients

BOMB = "\\boxed{9^{9^{9^{9}}}}"


def _math_task(question: str, answer: object):
    import verifiers.v1 as vf
    from verifiers.v1.configs.task import RewardFunctionConfig, TaskConfig

    class MathData(vf.TaskData):
        answer: float | str

    class MathTask(vf.Task[MathData]):
        pass

    config = TaskConfig(rewards={"correct": RewardFunctionConfig(fn="harness.integrations.verifiers_reward:correct")})
    return MathTask(MathData(prompt=question, answer=answer), config)


def _scored(task, reply: str) -> float:
    import verifiers.v1 as vf
    from verifiers.v1.trace import Trace, TraceTask

    trace = Trace(task=TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
                  agent=vf.AgentInfo(config=vf.AgentConfig(), name="solver"), root_reply=reply)
    asyncio.run(task.score(trace))
    return trace.rewards["correct"].score


@pytest.mark.parametrize("where", ["in-process", "server"])
def test_verifiers_scores_with_the_plugged_reward_as_harness_eval_does(where, real_rows, eval_scores, monkeypatch):
    _shared.LOCAL.close()
    _shared.close_server_client()
    monkeypatch.delenv("HARNESS_REWARD_URL", raising=False)
    monkeypatch.setenv("HARNESS_REWARD", "rule:workers=2")
    tasks = [(_math_task(item.question, label), item.completion) for item, label in real_rows]
    tasks.append((_math_task("What is 2+2?", 4.0), BOMB))
    try:
        if where == "server":
            port = free_port()
            with serving("rule", port, ["--deadline", "30"]):
                monkeypatch.setenv("HARNESS_REWARD_URL", f"http://127.0.0.1:{port}")
                rewards = [_scored(task, reply) for task, reply in tasks]
        else:
            rewards = [_scored(task, reply) for task, reply in tasks]
    finally:
        _shared.LOCAL.close()
        _shared.close_server_client()
    assert rewards == eval_scores + [0.0]


def test_a_task_without_the_reference_field_is_a_clear_setup_error(monkeypatch):
    import verifiers.v1 as vf
    from verifiers.v1.configs.task import RewardFunctionConfig, TaskConfig

    monkeypatch.setenv("HARNESS_REWARD", "rule:workers=1")
    config = TaskConfig(rewards={"correct": RewardFunctionConfig(fn="harness.integrations.verifiers_reward:correct")})
    task = vf.Task(vf.TaskData(prompt="What is 2+2?"), config)
    with pytest.raises(Exception, match="no 'answer' field for the reference answer .* set HARNESS_REFERENCE_FIELD"):
        _scored(task, "4")
    monkeypatch.setenv("HARNESS_REFERENCE_FIELD", "name")
    task = vf.Task(vf.TaskData(prompt="What is 2+2?", name="4"), config)
    try:
        assert _scored(task, "The answer is \\boxed{4}") == 1.0  # the reference read from the field named
    finally:
        _shared.LOCAL.close()
