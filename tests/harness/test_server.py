"""The reward server: OpenRLHF's protocol, the native route, bad input, dynamic batching, Cooper steps, and
real server processes on loopback."""

import asyncio
import json
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from harness.core.serving import free_port, serving
from harness.server import ServerConfig, create_app
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
    refused = client.get("/metrics").json()["refused_requests"]
    response = client.post("/get_reward", json=body)
    assert response.status_code == status and message in response.text
    assert isinstance(response.json()["detail"], str)  # words a person reads, not the validator's raw list
    broken = client.post("/get_reward", content=b"{not json", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and broken.json()["detail"].startswith("the body is not JSON (")
    assert client.get("/metrics").json()["refused_requests"] == refused + 2  # both refusals counted


def test_a_shape_error_names_each_field_without_echoing_the_input(client):
    response = client.post("/get_reward", json={"query": [1, "x" * 10_000], "prompts": "a"})
    detail = response.json()["detail"]
    assert response.status_code == 422 and "query.0:" in detail and "prompts:" in detail and "labels:" in detail
    assert "x" * 100 not in response.text


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
        counts = c.get("/metrics", headers={"Authorization": "Bearer s3cret"}).json()
        assert counts["refused_requests"] == 3  # the 401, the 413 and the 409, whichever layer answered


class Escapes(BaseException):
    """Like math-verify's TimeoutException: not an Exception."""


class FailsOnPoison:
    def score(self, items):
        if any("POISON" in it.completion for it in items):
            raise Escapes("cannot score this")
        return [Score.correct() for _ in items]


class HangsOnPoison:
    """Never returns for a poisoned item, as a reward stuck in C code would."""

    release = threading.Event()

    def score(self, items):
        if any("POISON" in it.completion for it in items):
            self.release.wait()
        return [Score.correct() for _ in items]


def _serve_in_process(app, coroutine):
    async def run():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:
                return await coroutine(c)

    return asyncio.run(run())


def test_a_reward_that_raises_fails_only_its_item_with_the_cause():
    app = create_app(FailsOnPoison(), ServerConfig("poison", max_wait_ms=200, max_batch=64))

    async def run(c):
        bodies = [openrlhf_body([("q", "1", "POISON" if i == 3 else f"ok {i}")]) for i in range(12)]
        responses = await asyncio.gather(*(c.post("/get_reward", json=b) for b in bodies))
        return responses, (await c.get("/metrics")).json()

    responses, stats = _serve_in_process(app, run)
    assert [r.status_code for r in responses] == [200] * 12
    bodies = [r.json() for r in responses]
    assert [b["rewards"] for b in bodies] == [[1.0]] * 3 + [[0.0]] + [[1.0]] * 8
    assert bodies[3]["extra_logs"]["reward_failed"] == [1.0] and bodies[0]["extra_logs"]["reward_failed"] == [0.0]
    assert bodies[3]["errors"] == ["crashed: Escapes: cannot score this"] and bodies[0]["errors"] == [None]
    assert stats["failed_items"] == 1 and stats["items"] == 12
    assert stats["max_batch_size"] > 1 and stats["batches"] < 12  # gathered into shared batches


@pytest.mark.parametrize("learning", [False, True])
def test_a_reward_that_hangs_is_answered_at_the_deadline(learning, tmp_path):
    HangsOnPoison.release.clear()
    reward = HangsOnPoison()
    if learning:  # a learning reward scores one batch at a time: everyone waits, but everyone is answered
        reward.learn = lambda items, scores: {}
    app = create_app(reward, ServerConfig("hang", max_wait_ms=5, deadline_s=1.0))
    order = []

    async def run(c):
        async def post(name, completion):
            r = await c.post("/get_reward", json=openrlhf_body([("q", "1", completion)]))
            order.append(name)
            return r.json()

        poisoned = asyncio.create_task(post("poison", "POISON"))
        await _until(c, "in_flight_batches", 1)  # the poisoned batch is being scored
        others = await asyncio.gather(*(post(f"ok{i}", f"ok {i}") for i in range(4)))
        later = await post("later", "ok later")  # the hung batch's slot was given back
        poisoned = await poisoned
        for _ in range(100):  # the batch itself is given up a moment after its request was answered
            stats = (await c.get("/metrics")).json()
            if stats["abandoned_batches"]:
                break
            await asyncio.sleep(0.05)
        return poisoned, others, later, stats

    try:
        poisoned, others, later, stats = _serve_in_process(app, run)
    finally:
        HangsOnPoison.release.set()
    assert poisoned["rewards"] == [0.0] and poisoned["errors"][0].startswith("timeout: not scored within the 1s")
    assert stats["timed_out_items"] >= 1 and stats["abandoned_batches"] >= 1
    if learning:
        assert all(o["rewards"] == [0.0] for o in others)  # stuck behind the hung batch, and answered
    else:
        assert all(o["rewards"] == [1.0] for o in others) and later["rewards"] == [1.0]
        assert order.index("poison") > order.index("ok0")  # the others did not wait for the hung batch


def test_the_reported_bomb_does_not_hold_its_batch(rule_reward):
    app = create_app(rule_reward, ServerConfig("rule", max_wait_ms=100))
    pairs = [("q", "4", "So the result is 9^9^9^9")] + [("q", str(i), f"The answer is {i}") for i in range(8)]

    async def run(c):
        return await asyncio.gather(*(c.post("/get_reward", json=openrlhf_body([p])) for p in pairs))

    responses = _serve_in_process(app, run)
    assert [r.json()["rewards"] for r in responses] == [[0.0]] + [[1.0]] * 8


@pytest.mark.parametrize("label", [60.0, "60.0", 60, "6e1", json.dumps({"reference": 60.0, "prompt_id": 3})])
@pytest.mark.parametrize("end", ["", "<|im_end|>", "<|endoftext|><|endoftext|>", "<|eot_id|>", "</s>", "<｜end▁of▁sentence｜>"])
def test_numeric_labels_and_end_tokens_as_trainers_send_them(client, label, end):
    body = openrlhf_body([("What percent of the class passed?", label, f"So 60% of the class passed. The answer is 60%.{end}")])
    assert client.post("/get_reward", json=body).json()["rewards"] == [1.0]
    item = {"question": "What percent passed?", "reference": 60.0, "completion": f"The answer is 60%.{end}"}
    assert client.post("/score", json={"items": [item]}).json()["scores"][0]["value"] == 1.0


def test_a_served_training_run_is_recorded_step_by_step(rule_reward, tmp_path):
    from harness.core.store import RunStore
    from harness.server.observer import Recording

    store_path = tmp_path / "runs.sqlite"
    recording = Recording(str(store_path), name="served-grpo", items_per_step=4)
    app = create_app(rule_reward, ServerConfig("rule", max_wait_ms=5, recording=recording))
    completions = ["\\boxed{7}", "\\boxed{8}", "\\boxed{7}", "\\boxed{7}"] * 2 + ["\\boxed{1}"]

    async def run(c):
        for text in completions:  # sequential requests, as one rollout batch after another
            await c.post("/get_reward", json=openrlhf_body([("What is 3+4?", "7", text)]))
        return (await c.post("/step")).json()  # the last, partial step is closed by the trainer

    _serve_in_process(app, run)
    store = RunStore(store_path)
    [run_record] = store.runs(kind="train")
    steps = store.steps(run_record.id)
    assert run_record.status == "complete" and run_record.suite == "served-grpo"
    assert sorted(steps) == [1, 2, 3]
    assert steps[1]["train_reward"] == 0.75 and steps[1]["rule_accuracy"] == 0.75 and steps[1]["agreement"] == 1.0
    assert steps[3]["train_reward"] == 0.0 and steps[3]["response_chars"] == len("\\boxed{1}")
    assert run_record.metric("steps") == 3.0


def test_cooper_learns_at_step_boundaries(tmp_path):
    from ..models import tiny_classifier

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


def test_two_real_replicas_on_loopback():
    ports = [free_port(), free_port()]
    with serving("rule", ports[0]), serving("rule", ports[1]):
        body = openrlhf_body([("What is 6*7?", "42", "\\boxed{42}")])
        for port in ports:  # OpenRLHF spreads requests over a comma-separated list of such URLs
            response = httpx.post(f"http://127.0.0.1:{port}/get_reward", json=body, timeout=60)
            assert response.status_code == 200 and response.json()["rewards"] == [1.0]


HANGING_SERVER = """
import sys
from harness.server import ServerConfig
from harness.server.process import run_server
from tests.harness.test_server import HangsOnPoison
run_server(HangsOnPoison(), ServerConfig("hang", deadline_s=600), "127.0.0.1", int(sys.argv[1]),
           on_ready=lambda address: print("ready", address, flush=True))
"""


async def _until(client, key: str, at_least: int) -> None:
    """Wait until the server's /metrics counts ``key`` at ``at_least`` (events, not time, order the test)."""
    for _ in range(2000):
        if (await client.get("/metrics")).json()[key] >= at_least:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"/metrics never reached {key} >= {at_least}")


def _wait_for_metric(port: int, key: str, at_least: int) -> None:
    for _ in range(2000):
        if httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).json()[key] >= at_least:
            return
        time.sleep(0.01)
    raise AssertionError(f"/metrics never reached {key} >= {at_least}")


def test_sigterm_stops_the_server_quickly_and_answers_waiting_requests(tmp_path):
    import signal
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", HANGING_SERVER, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("ready http://127.0.0.1:")
        with ThreadPoolExecutor(4) as pool:
            body = openrlhf_body([("q", "1", "POISON")])
            waiting = [pool.submit(httpx.post, f"http://127.0.0.1:{port}/get_reward", json=body, timeout=120)
                       for _ in range(3)]
            _wait_for_metric(port, "requests", 3)  # all three wait on the hung batch (the deadline is 600 s)
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)  # a guard against a hang, not a measure: the server stops by itself
            answers = [w.result(timeout=60) for w in waiting]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert [a.json()["rewards"] for a in answers] == [[0.0]] * 3
    assert all("the reward server is stopping" in a.json()["errors"][0] for a in answers)


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
                await _until(c, "in_flight_batches", 1)  # the slow item is now in its own batch
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


def test_a_hung_item_costs_no_batch_mate_its_reward():
    """The case of a rule reward with a long timeout behind a short request deadline: every item scored before the
    deadline keeps its score, in the hung item's request and in the others gathered into its batch."""
    from rewards.rule import RuleReward

    reward = RuleReward(workers=3, timeout=120)  # two hung items below hold two workers; the third serves the rest
    app = create_app(reward, ServerConfig("rule:timeout=120", max_wait_ms=50, deadline_s=3))
    hung = ("x+1", "\\boxed{(10^{8})! + x}")

    async def run():
        transport = httpx.ASGITransport(app=app)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=transport, base_url="http://test", timeout=60) as c:
                async def post(pairs):
                    return (await c.post("/get_reward", json=openrlhf_body([("q", *p) for p in pairs]))).json()

                singles = [post([hung])] + [post([(str(i), f"\\boxed{{{i}}}")]) for i in range(8)]
                together = post([hung, ("x+1", "\\boxed{1+x}"), ("5", "\\boxed{6}")])  # mates in the same request
                answers = await asyncio.gather(*singles, together)
                return answers, (await c.get("/metrics")).json()

    try:
        answers, stats = asyncio.run(run())
    finally:
        reward.close()
    assert answers[0]["rewards"] == [0.0] and answers[0]["errors"][0].startswith("timeout: not scored within the 3s")
    assert all(a["rewards"] == [1.0] and a["errors"] == [None] for a in answers[1:9])
    assert answers[9]["rewards"] == [0.0, 1.0, 0.0] and answers[9]["errors"][0].startswith("timeout")
    assert answers[9]["errors"][1:] == [None, None]
    assert stats["timed_out_items"] == 2  # the hung item in each of its two requests, nothing else
