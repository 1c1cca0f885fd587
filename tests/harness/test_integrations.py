"""The OpenRLHF reward_func module and the verl compute_score adapter, in-process and through a server."""

import importlib.util
from pathlib import Path

import pytest

import harness.integrations.openrlhf_reward_func as openrlhf_module
from harness.core.serving import free_port, serving
from harness.integrations import _shared
from harness.integrations.verl_compute_score import compute_score


@pytest.fixture(autouse=True)
def fresh_reward(in_process_reward):
    in_process_reward("rule:workers=1")


def openrlhf_body(pairs):
    """OpenRLHF 0.11's request: query = templated prompt + response, plus prompts and labels."""
    prompts = [f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n" for q, _, _ in pairs]
    return {"query": [p + r for p, (_, _, r) in zip(prompts, pairs)], "prompts": prompts,
            "labels": [label for _, label, _ in pairs]}


def test_reward_func_loaded_from_its_file_path_like_openrlhf_does():
    path = Path(openrlhf_module.__file__)
    spec = importlib.util.spec_from_file_location("reward_func_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    body = openrlhf_body([("What is 6*7?", "42", "\\boxed{42}"), ("What is 6*7?", "42", "\\boxed{24}")])
    out = module.reward_func(body["query"], body["prompts"], body["labels"])
    assert out["rewards"].tolist() == [1.0, 0.0] and out["extra_logs"]["verdict"].tolist() == [1.0, 0.0]


def test_verl_compute_score():
    assert compute_score("gsm8k", "so #### 18", "18") == 1.0
    assert compute_score("gsm8k", "so #### 19", "18", {"question": "q"}) == 0.0


def test_adapters_through_a_real_server(monkeypatch):
    port = free_port()
    with serving("rule", port):
        monkeypatch.setenv("HARNESS_REWARD_URL", f"http://127.0.0.1:{port}")
        assert compute_score("math", "\\boxed{\\frac{1}{2}}", "0.5") == 1.0
        body = openrlhf_body([("q", "7", "The answer is 7")])
        assert openrlhf_module.reward_func(body["query"], body["prompts"], body["labels"])["rewards"].tolist() == [1.0]
        assert not _shared.LOCAL.built  # nothing was built in-process
