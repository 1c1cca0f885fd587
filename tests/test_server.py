"""The reward server: OpenRLHF's protocol, the native route, bad input, dynamic batching, Cooper steps, and
real server processes on loopback."""

import asyncio
import json
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from harness.server import ServerConfig, create_app
from harness.server.ports import free_port
from rewards import REWARDS, Score


def openrlhf_body(pairs):
    """OpenRLHF 0.11's request: query = templated prompt + response, plus prompts and labels."""
    prompts = [f"<|im_start|>user\n{q}<|im_end|>\n<|im_start|>assistant\n" for q, _, _ in pairs]
    return {"query": [p + r for p, (_, _, r) in zip(prompts, pairs)], "prompts": prompts,
            "labels": [label for _, label, _ in pairs]}


@pytest.fixture
def client(rule_reward):
    app = create_app(rule_reward, ServerConfig("rule", max_wait_ms=5))
    with TestClient(app) as c:
        yield c


def test_get_reward_speaks_openrlhf(client):
    body = openrlhf_body([("What is 6*7?", "42", "6*7 = 42. \\boxed{42}"), ("What is 6*7?", "42", "\\boxed{41}"),
                          ("2+2?", json.dumps({"reference": "4", "prompt_id": 7}), "The answer is 4")])
    response = client.post("/get_reward", json=body)
    assert response.status_code == 200
    data = response.json()
    assert data["rewards"] == [1.0, 0.0, 1.0] and data["scores"] == data["rewards"]
    assert data["extra_logs"]["verdict"] == [1.0, 0.0, 1.0]
    assert client.get("/health").json()["status"] == "ok"


def test_native_score_route(client):
    response = client.post("/score", json={"items": [{"reference": "1/2", "completion": "\\boxed{0.5}"}]})
    assert response.status_code == 200 and response.json()["scores"][0]["verdict"] is True


@pytest.mark.parametrize("body, status, message", [
    ({"query": ["x"], "prompts": ["x"]}, 422, "labels"),
    ({"query": ["ab"], "prompts": ["a", "b"], "labels": ["1"]}, 400, "same length"),
    ({"query": ["hello"], "prompts": ["bye"], "labels": ["1"]}, 400, "does not start with"),
    ({"query": [1], "prompts": ["a"], "labels": ["1"]}, 422, "string"),
    ({"query": ["ab"], "prompts": ["a"], "labels": ['{"prompt_id": 1}']}, 400, "reference"),
])
def test_bad_requests_get_a_4xx_with_a_message(client, body, status, message):
    response = client.post("/get_reward", json=body)
    assert response.status_code == status and message in response.text
    assert client.post("/get_reward", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422


def test_body_limit_and_token(rule_reward):
    app = create_app(rule_reward, ServerConfig("rule", token="s3cret", max_body_bytes=1000))
    with TestClient(app) as c:
        body = openrlhf_body([("q", "1", "1")])
        assert c.post("/get_reward", json=body).status_code == 401
        ok = c.post("/get_reward", json=body, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
        big = openrlhf_body([("q", "1", "x" * 5000)])
        assert c.post("/get_reward", json=big, headers={"Authorization": "Bearer s3cret"}).status_code == 413
        assert c.get("/health").status_code == 200  # health needs no token
        assert c.post("/step", headers={"Authorization": "Bearer s3cret"}).status_code == 409


class FailsOnPoison:
    def score(self, items):
        if any("POISON" in it.completion for it in items):
            raise RuntimeError("cannot score this")
        return [Score.correct() for _ in items]


def test_a_bad_item_fails_alone_and_concurrent_requests_are_batched():
    app = create_app(FailsOnPoison(), ServerConfig("poison", max_wait_ms=200, max_batch=64))

    async def run():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
                bodies = [openrlhf_body([("q", "1", "POISON" if i == 3 else f"ok {i}")]) for i in range(12)]
                responses = await asyncio.gather(*(c.post("/get_reward", json=b) for b in bodies))
                stats = (await c.get("/metrics")).json()
        return responses, stats

    responses, stats = asyncio.run(run())
    assert [r.status_code for r in responses] == [200] * 3 + [422] + [200] * 8
    assert stats["failed_items"] == 1 and stats["items"] == 12
    assert stats["max_batch_size"] > 1 and stats["batches"] < 12  # gathered into shared batches


def test_cooper_learns_at_step_boundaries(tmp_path):
    from .models import tiny_classifier

    base = tiny_classifier(tmp_path / "base")
    reward = REWARDS.get("cooper")(str(base), negatives="perturb")
    try:
        app = create_app(reward, ServerConfig("cooper", max_wait_ms=1, items_per_step=4))
        with TestClient(app) as c:
            body = openrlhf_body([("What is 3+4?", "7", "\\boxed{7}"), ("What is 3+4?", "7", "\\boxed{8}")])
            c.post("/get_reward", json=body)
            assert c.get("/metrics").json()["reward_updates"] == 0
            c.post("/get_reward", json=body)  # the fourth item completes a step: rewards first, then the update
            stats = _wait_for(lambda: c.get("/metrics").json(), lambda s: s["reward_updates"] == 1)
            assert stats["last_update"]["valid_pairs"] == 1.0
            c.post("/get_reward", json=body)
            forced = c.post("/step").json()  # an explicit boundary learns from what was scored since
            assert forced["updated"] and c.get("/metrics").json()["reward_updates"] == 2
    finally:
        reward.close()


def _wait_for(fetch, done, timeout=30.0):
    deadline = time.monotonic() + timeout
    value = fetch()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = fetch()
    assert done(value), value
    return value


def _start_server(port, spec="rule"):
    from benchmarks.server_load import start_server

    return start_server(spec, port, 64, 10.0)


def test_two_real_replicas_on_loopback():
    ports = [free_port(), free_port()]
    procs = [_start_server(p) for p in ports]
    try:
        body = openrlhf_body([("What is 6*7?", "42", "\\boxed{42}")])
        for port in ports:  # OpenRLHF spreads requests over a comma-separated list of such URLs
            response = httpx.post(f"http://127.0.0.1:{port}/get_reward", json=body, timeout=60)
            assert response.status_code == 200 and response.json()["rewards"] == [1.0]
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.mark.parametrize("concurrent_batches, slow_last", [(4, True), (1, False)])
def test_a_hung_rule_verification_does_not_stall_other_requests(concurrent_batches, slow_last):
    from rewards.rule import RuleReward

    reward = RuleReward(workers=2, timeout=3)
    app = create_app(reward, ServerConfig("rule", max_wait_ms=5, concurrent_batches=concurrent_batches))
    finished: list[str] = []

    async def run():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:

                async def post(name, label, completion):
                    r = await c.post("/get_reward", json=openrlhf_body([("q", label, completion)]))
                    finished.append(name)
                    return r

                slow = asyncio.create_task(post("slow", "x+1", "\\boxed{(10^{8})! + x}"))
                await asyncio.sleep(0.2)  # the slow item is now in its own batch
                fast = [post(f"fast{i}", str(i), f"\\boxed{{{i}}}") for i in range(5)]
                return await asyncio.gather(slow, *fast)

    try:
        responses = asyncio.run(run())
    finally:
        reward.close()
    assert all(r.status_code == 200 for r in responses)
    assert responses[0].json()["rewards"] == [0.0] and all(r.json()["rewards"] == [1.0] for r in responses[1:])
    # with concurrent batches every later request is answered while the slow one still runs; one batch at a
    # time (as for a learning reward) makes them wait behind it
    assert (finished[-1] == "slow") is slow_last
