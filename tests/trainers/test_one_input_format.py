"""One rollout, one text: what a reward model is trained on, checked on, probed with and scores during GRPO.

A static reward model trained on bare problems and scored on prompts that end in the trainer's instruction paid
every rollout 0.991 (docs/cpu_scale/cooper_format): the four paths below must build the same text for the same
(question, reference, completion), each through its own code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rewards.verifyrm import VerifyRMFormat
from suites.math_data import PROMPT_SUFFIX
from trainers.grpo import RewardBridge
from trainers.probe import Probe
from trainers.reward_model import RMTrainConfig, VerifyRMTrainer
from trainers.rm_data import load_training_rows
from trainers.trl_backend import TRLRunConfig, TRLTrainer

from ..models import tiny_causal_lm

REPO = Path(__file__).resolve().parents[2]
QUESTION = "A bus carries 10 people. At the first stop 19 get on and 5 get off. How many people are on the bus?"
REFERENCE = "24"
COMPLETION = "10 + 19 = 29\n29 - 5 = 24\n\\boxed{24}"


def _pilot():
    sys.path.insert(0, str(REPO / "experiments" / "cooper_regime"))
    try:
        return __import__("pilot")
    finally:
        sys.path.pop(0)


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> dict[str, str]:
    """The model's input text for the one rollout, as each path makes it."""
    tmp = tmp_path_factory.mktemp("one-format")
    fmt = VerifyRMFormat()
    row = {"question": QUESTION, "reference_answer": REFERENCE, "completion": COMPLETION, "label": True,
           "kind": "right"}
    rollouts = tmp / "rollouts.jsonl"
    rollouts.write_text(json.dumps(row) + "\n" + json.dumps({**row, "completion": "\\boxed{7}", "label": False,
                                                             "kind": "wrong"}) + "\n")
    render = lambda item: fmt.render(item.question, item.reference, item.completion)  # noqa: E731
    out = {}
    # training: train-rm's rows from the same file, as the trainer reads them with --questions policy
    trainer = VerifyRMTrainer(RMTrainConfig(base="minilm-l6", output=tmp / "rm", questions="policy"))
    spec = f"jsonl:data={rollouts},reference=reference_answer"
    out["training"] = render(trainer.inputs(load_training_rows([], [spec]))[0].item)
    # the static checks (P1): the pilot's rollout items
    out["static checks"] = render(_pilot().rollout_items([row])[0])
    # the probe, as `harness train --probe` reads it
    probe = Probe.from_spec(f"jsonl:data={rollouts},reference=reference_answer,category=kind")
    out["probe"] = render(probe.items[0])
    # GRPO: the TRL backend's dataset row for the problem, the completion as TRL hands it over, the bridge's items
    problems = tmp / "train.jsonl"
    problems.write_text(json.dumps({"question": QUESTION, "answer": REFERENCE}) + "\n")
    backend = TRLTrainer(TRLRunConfig(dataset=str(problems), policy=str(tiny_causal_lm(tmp / "policy"))))
    from transformers import AutoTokenizer

    [dataset_row] = backend._dataset(AutoTokenizer.from_pretrained(tmp / "policy"))
    bridge = RewardBridge.__new__(RewardBridge)  # items() reads nothing of the bridge's state
    [item] = bridge.items([dataset_row["prompt"]], [[{"role": "assistant", "content": COMPLETION}]],
                          [dataset_row["reference"]])
    out["rl"] = render(item)
    return out


def test_the_four_paths_give_one_text(texts):
    assert len(set(texts.values())) == 1, texts


def test_that_text_asks_the_question_as_the_policy_is_asked_it(texts):
    text = texts["rl"]
    assert f"<question>{QUESTION}{PROMPT_SUFFIX}</question>" in text
    assert f"<reference_answer>{REFERENCE}</reference_answer>" in text and f"<completion>{COMPLETION}</completion>" in text


def test_train_rm_reads_questions_as_given_unless_told(tmp_path):
    rows = load_training_rows([], [f"jsonl:data={REPO / 'docs/cpu_scale/cooper_released/data/rmtest_rollouts.jsonl'}"
                                   ",reference=reference_answer"])
    given = VerifyRMTrainer(RMTrainConfig(base="minilm-l6", output=tmp_path)).inputs(rows)
    assert [r.item.question for r in given] == [r.item.question for r in rows]
    asked = VerifyRMTrainer(RMTrainConfig(base="minilm-l6", output=tmp_path, questions="policy")).inputs(rows)
    assert all(a.item.question == r.item.question + PROMPT_SUFFIX and a.label == r.label for a, r in zip(asked, rows))
    with pytest.raises(ValueError, match="questions must be given or policy"):
        RMTrainConfig(base="minilm-l6", output=tmp_path, questions="asked")


def test_the_step_margin_is_right_minus_wrong_within_each_prompt():
    """GRPO's signal: the margin per prompt, right rollouts (by the rule) minus wrong ones, averaged over the prompts
    that have both; a prompt whose rollouts are all right or all wrong has none."""
    from rewards.contract import Item, Score
    from trainers.step_metrics import step_values

    items = [Item(q, "1", c, {"prompt_id": q}) for q, c in
             (("p", "a"), ("p", "b"), ("p", "c"), ("q", "a"), ("q", "b"), ("r", "a"))]
    rewards = [0.9, 0.7, 0.2, 0.6, 0.5, 0.99]
    right = [True, True, False, False, True, True]
    values = step_values(items, [Score(v, v >= 0.5, "model") for v in rewards], right)
    # p: (0.9 + 0.7) / 2 - 0.2 = 0.6; q: 0.5 - 0.6 = -0.1; r: no wrong rollout
    assert values["reward_margin"] == pytest.approx((0.6 - 0.1) / 2) and values["margin_groups"] == 2
    flat = step_values(items, [Score(0.991, True, "model")] * 6, right)
    assert flat["train_reward"] == pytest.approx(0.991) and flat["reward_margin"] == pytest.approx(0.0)
