"""``harness serve --replicas N``: the reward on Ray Serve replicas, on a local Ray over loopback, driven by
OpenRLHF 0.11.2's own client code with real items; and what is decided before Ray starts.

The Ray tests run in ``tox -e clients`` (``ray[serve]`` is installed there); the first two run everywhere.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from harness.core.serving import free_port, serve_command_line, start_serving, stop_serving
from harness.server.replicas import NotReplicable, ReplicaSettings, aggregate, check_replicable

from .conftest import in_process_values, numeric_mathcheck_rows
from .openrlhf_client import openrlhf_rollouts, reward_of

LEARNER = (
    "from rewards import REWARDS, Score\n\n"
    "@REWARDS.register('learner')\n"
    "class Learner:\n"
    "    '''Says correct to everything and learns from nothing (a learning reward for the tests).'''\n"
    "    def score(self, items):\n"
    "        return [Score.correct() for _ in items]\n"
    "    def learn(self, items, scores):\n"
    "        return {}\n"
)


def test_metrics_of_replicas_add_up_and_keep_each_replica():
    one = {"requests": 3, "items": 5, "batches": 2, "failed_items": 1, "max_batch_size": 4, "latency_p99_s": 0.2}
    two = {"requests": 1, "items": 1, "batches": 1, "failed_items": 0, "max_batch_size": 1, "latency_p99_s": 0.5}
    total = aggregate({"a": one, "b": two})
    assert (total["requests"], total["items"], total["batches"], total["failed_items"]) == (4, 6, 3, 1)
    assert total["mean_batch_size"] == 2.0 and total["max_batch_size"] == 4
    assert total["latency_p99_s"] == 0.5  # the slowest replica's
    assert total["replicas"] == {"a": one, "b": two}
    assert aggregate({})["mean_batch_size"] is None


@pytest.fixture
def learner(tmp_path):
    from harness.core.plugins import load_plugins
    from rewards import REWARDS

    (tmp_path / "learner.py").write_text(LEARNER)
    load_plugins([str(tmp_path / "learner.py")])
    yield tmp_path / "learner.py"
    REWARDS.unregister("learner")


def test_a_learning_reward_is_served_by_one_replica_only(learner):
    from rewards import build_reward

    for spec in ("learner", "cascade:first=[rule:workers=1],then=learner"):
        reward = build_reward(spec)
        with pytest.raises(NotReplicable, match=r"learns .* one owner: serve it with --replicas 1"):
            check_replicable(reward, spec, ReplicaSettings(2), recording=False)
        check_replicable(reward, spec, ReplicaSettings(1), recording=False)
    with pytest.raises(NotReplicable, match="one recorder"):
        check_replicable(build_reward("rule:workers=1"), "rule", ReplicaSettings(2), recording=True)


# -- on a local Ray ------------------------------------------------------------------------------------------------
ray_serve = pytest.mark.clients
N_REAL = 100


@pytest.fixture(scope="module")
def replicated():
    """``harness serve --reward rule --replicas 2`` on loopback, with a local Ray of its own."""
    pytest.importorskip("ray.serve")
    port = free_port()
    proc = start_serving(serve_command_line("rule", port, ["--replicas", "2", "--deadline", "30"]), port, quiet=False)
    try:
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        stop_serving(proc, timeout=60)


@pytest.fixture(scope="module")
def real_items(data_root):
    rows = numeric_mathcheck_rows(N_REAL)
    return rows, in_process_values(rows)


def _replicas(base: str) -> dict:
    import httpx

    return httpx.get(f"{base}/metrics", timeout=10).json()["replicas"]


@ray_serve
def test_two_replicas_serve_400_requests_from_32_clients_with_every_reward_right(replicated, real_items, tokenizer):
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    _, base = replicated
    rows, expected = real_items
    before = {name: r["items"] for name, r in _replicas(base).items()}
    executor = SingleTurnAgentExecutor(remote_rm_url=f"{base}/get_reward")
    pairs = [(item.question, label, item.completion) for item, label in rows] * 4
    outputs = openrlhf_rollouts(executor, tokenizer, pairs, clients=32)
    assert all(o["reward"] is not None for o in outputs)  # OpenRLHF drops a reward it could not fetch: none
    assert [reward_of(o) for o in outputs] == expected * 4
    for _ in range(20):  # each replica's counters are as of its last report, at most half a second old
        served = {name: r["items"] - before.get(name, 0) for name, r in _replicas(base).items()}
        if sum(served.values()) == 400:
            break
        time.sleep(0.5)
    assert len(served) == 2 and all(n > 0 for n in served.values()), served  # both replicas served
    assert sum(served.values()) == 400


@ray_serve
def test_a_replica_killed_under_load_is_replaced_and_no_request_is_lost(replicated, real_items, tokenizer, monkeypatch):
    """Requests that were on the killed replica are answered 500 by Ray's proxy, never left waiting; OpenRLHF's
    client and the harness's verl adapter send them again, so every rollout gets its reward, and Serve starts a
    replica in the dead one's place."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx
    from openrlhf.utils.agent import SingleTurnAgentExecutor

    from harness.integrations import _shared
    from harness.integrations.verl_compute_score import compute_score

    _, base = replicated
    rows, expected = real_items
    monkeypatch.setenv("HARNESS_REWARD_URL", base)
    _shared.close_server_client()
    victim = next(iter(_replicas(base).values()))["pid"]
    executor = SingleTurnAgentExecutor(remote_rm_url=f"{base}/get_reward")
    pairs = [(item.question, label, item.completion) for item, label in rows] * 4
    verl_calls = [("mathcheck-gsm", item.completion, label) for item, label in rows] * 2
    threading.Timer(1.0, os.kill, (victim, signal.SIGKILL)).start()
    with ThreadPoolExecutor(8) as pool:  # verl's reward workers, beside OpenRLHF's rollouts
        verl = pool.map(lambda call: compute_score(*call), verl_calls)
        outputs = openrlhf_rollouts(executor, tokenizer, pairs, clients=32)
        verl = list(verl)
    _shared.close_server_client()
    assert all(o["reward"] is not None for o in outputs)
    assert [reward_of(o) for o in outputs] == expected * 4
    assert verl == expected * 2
    live = {}
    for _ in range(120):  # Serve replaces the replica; a new one reports within a few seconds of starting
        live = {name: r for name, r in _replicas(base).items() if r["reported_s_ago"] < 2}
        if len(live) == 2 and victim not in {r["pid"] for r in live.values()}:
            break
        time.sleep(1)
    assert len(live) == 2 and victim not in {r["pid"] for r in live.values()}, live
    response = httpx.post(f"{base}/score", json={"items": [{"question": "1+1?", "reference": "2",
                                                            "completion": "The answer is \\boxed{2}"}]}, timeout=30)
    assert response.json()["scores"][0]["value"] == 1.0


@ray_serve
def test_sigterm_stops_the_deployment_and_every_ray_process(tmp_path):
    pytest.importorskip("ray.serve")
    import psutil

    port = free_port()
    proc = start_serving(serve_command_line("rule", port, ["--replicas", "1"]), port)
    children = psutil.Process(proc.pid).children(recursive=True)
    assert any("raylet" in " ".join(c.cmdline()) for c in children)  # the local Ray this command started
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 0
    _, alive = psutil.wait_procs(children, timeout=60)
    assert alive == [], [" ".join(p.cmdline())[:120] for p in alive]


@ray_serve
def test_a_learning_reward_with_replicas_is_refused_before_ray_starts(tmp_path):
    pytest.importorskip("ray.serve")
    (tmp_path / "learner.py").write_text(LEARNER)
    command = [sys.executable, "-m", "harness", "--plugin", str(tmp_path / "learner.py"), "serve", "--reward", "learner",
               "--replicas", "2", "--port", str(free_port())]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "learns from the rollouts it scores" in done.stderr and "Traceback" not in done.stderr
    assert "ray" not in done.stderr.lower().replace("--replicas", "")  # refused before a local Ray was started
