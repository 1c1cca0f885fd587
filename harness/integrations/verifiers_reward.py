"""Any registered reward as a reward of prime-rl's ``verifiers`` (0.4, its v1 API).

verifiers scores a rollout with its task's ``@vf.reward`` methods and with reward functions plugged into the task
config by import path; each is called with the task's data (``task``) and the rollout's trace (``trace``), and its
float is recorded on the trace under its name (``verifiers/v1/task.py``, ``Task.score``). :func:`correct` is such a
function: the question is the task's prompt, the reference the task data's ``answer`` field (``HARNESS_REFERENCE_FIELD``
names another), the completion the trace's last reply. The reward is ``HARNESS_REWARD`` (a spec, built in-process,
default ``rule``) or ``HARNESS_REWARD_URL`` (a running ``harness serve``), as for the other adapters, scored off
the event loop so that concurrent rollouts are not held up. An item the reward fails on scores 0.0; a task whose
data has no reference field is a setup error, raised at the first call.

    TaskConfig(rewards={"correct": {"fn": "harness.integrations.verifiers_reward:correct"}})
    # on verifiers' command line: --env.taskset.task.rewards.correct.fn harness.integrations.verifiers_reward:correct
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from harness.integrations._shared import score_items
from rewards.contract import Item, reward_value
from rewards.inputs import clean_completion, reference_text

REFERENCE_FIELD_ENV = "HARNESS_REFERENCE_FIELD"


def item_of(task: Any, trace: Any) -> Item:
    """The harness item of a verifiers rollout: the task data's prompt and reference, the trace's last reply."""
    field = os.environ.get(REFERENCE_FIELD_ENV, "answer")
    data = task.model_dump()  # verifiers hands a reward its task data, a pydantic model
    if data.get(field) is None:
        have = ", ".join(sorted(k for k, v in data.items() if v not in (None, [], {}, "")))
        raise ValueError(f"the verifiers task data has no {field!r} field for the reference answer (it has: {have}); "
                         f"set {REFERENCE_FIELD_ENV} to the field that holds it")
    return Item(task.prompt_text, reference_text(data[field]), clean_completion(trace.last_reply))


async def correct(task: Any, trace: Any) -> float:
    """The registered reward's value for the rollout (0.0 for an item it failed on, or an abstention)."""
    item = item_of(task, trace)
    [score] = await asyncio.to_thread(score_items, [item])
    return float(reward_value(score))
