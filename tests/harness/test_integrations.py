"""The OpenRLHF reward_func module and the verl compute_score adapter, in-process and through a server."""

import importlib.util
from pathlib import Path

import pytest

import harness.integrations.openrlhf_reward_func as openrlhf_module
from harness.core.serving import free_port, serving
from harness.integrations import _shared
from harness.integrations.verl_compute_score import compute_score, compute_score_batch


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
    # verl's batched reward manager calls the batch function without extra_infos
    assert compute_score_batch(["gsm8k"] * 2, ["so #### 18", "so #### 19"], ["18", "18"]) == [1.0, 0.0]


def test_one_item_the_reward_fails_on_costs_its_batch_mates_nothing(monkeypatch):
    """A call that fails is tried again item by item: the one bad item fails, the others keep their rewards."""
    from rewards import Item

    real = _shared._local

    def local(items):
        if any(it.completion == "bad" for it in items):
            raise RuntimeError("the reward broke on one item")
        return real(items)

    monkeypatch.setattr(_shared, "_local", local)
    scores = _shared.score_items([Item("q", "7", "\\boxed{7}"), Item("q", "7", "bad"), Item("q", "7", "\\boxed{8}")])
    assert [(s.verdict, s.reason) for s in scores] == [(True, "verified"), (False, "crashed"), (False, "mismatch")]


def test_a_new_server_address_gets_a_client_of_its_own():
    """The environment names another server (a restarted one on a new port): requests go there, not to the old."""
    try:
        assert _shared.server_client("http://127.0.0.1:9").url == "http://127.0.0.1:9/score"
        assert _shared.server_client("http://127.0.0.1:10").url == "http://127.0.0.1:10/score"
    finally:
        _shared.close_server_client()


def test_adapters_through_a_real_server(monkeypatch):
    port = free_port()
    with serving("rule", port):
        monkeypatch.setenv("HARNESS_REWARD_URL", f"http://127.0.0.1:{port}")
        assert compute_score("math", "\\boxed{\\frac{1}{2}}", "0.5") == 1.0
        body = openrlhf_body([("q", "7", "The answer is 7")])
        assert openrlhf_module.reward_func(body["query"], body["prompts"], body["labels"])["rewards"].tolist() == [1.0]
        assert not _shared.LOCAL.built  # nothing was built in-process
