"""Hostile HTTP against a real server on loopback: bodies refused as their bytes arrive (chunked or not), slow
senders cut off, bad inputs answered with 4xx or scored, every answer valid JSON, memory bounded; the adapters
never raise for an input and see a refused token at once; OpenRLHF's URL-only client can send the token."""

import json
import select
import socket
import subprocess
import sys

import httpx
import pytest

import harness.integrations.openrlhf_reward_func as openrlhf_module
from harness.core.serving import free_port, serving
from harness.integrations import _shared
from harness.integrations.verl_compute_score import compute_score, compute_score_batch

SERVER = """
import os, sys
if __name__ == "__main__":
    from harness.server.app import ServerConfig
    from harness.server.process import run_server
    from rewards.rule import RuleReward
    run_server(RuleReward(workers=1), ServerConfig("rule", max_body_bytes=4_000_000, body_timeout_s=2,
                                                          header_timeout_s=2),
               "127.0.0.1", int(sys.argv[1]), on_ready=lambda address: print("ready", os.getpid(), flush=True))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    script = tmp_path_factory.mktemp("srv") / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("ready"), line
        yield f"http://127.0.0.1:{port}", int(line.split()[1])
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _rss_mb(pid: int) -> float:
    status = open(f"/proc/{pid}/status").read()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS")).split()[1]) / 1024


def test_a_chunked_body_is_refused_as_it_arrives_and_memory_stays_bounded(server):
    url, pid = server
    sent = 0

    def body():  # 256 MB offered in 64 KB chunks, with no Content-Length
        nonlocal sent
        for _ in range(4096):
            sent += 1
            yield b"x" * 65536

    try:
        response = httpx.post(f"{url}/get_reward", content=body(), timeout=60)
        assert response.status_code == 413 and "4000000-byte limit" in response.json()["detail"]
    except httpx.HTTPError:  # the server closed the connection after its 413: the body was not read whole either
        pass
    assert sent < 4096  # the sender was stopped long before the end
    assert _rss_mb(pid) < 600


def test_a_slow_sender_gets_408(server):
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        assert s.recv(1000).startswith(b"HTTP/1.1 408")


def test_a_sender_that_trickles_its_headers_gets_408_and_is_let_go(server):
    """Slowloris: a header line every half second, never the blank line that ends them; uvicorn alone keeps such a
    connection open for as long as the sender goes on."""
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"POST /get_reward HTTP/1.1\r\nHost: x\r\n")
        answer = b""
        for k in range(40):  # 20 s of trickling at most; the server's limit is 2 s
            # wait for the answer before each next line: a line sent after the server has answered and closed
            # draws a reset, which can discard the answer still unread here
            if select.select([s], [], [], 0.5)[0]:
                answer = s.recv(1000)
                break
            try:
                s.sendall(b"X-Slow-%d: 1\r\n" % k)
            except OSError:  # closed before its answer could be read
                break
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"headers did not arrive within 2s" in answer


def test_a_kept_alive_connection_gets_the_same_header_deadline_for_its_next_request(server):
    url, _ = server
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while not first.endswith(b"}"):  # the whole first answer, head and body
            first += s.recv(1000)
        assert first.startswith(b"HTTP/1.1 200")
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # and never the end of the headers
        assert s.recv(1000).startswith(b"HTTP/1.1 408")


@pytest.mark.parametrize("labels, status", [
    (["1" * 1_000_001], 200),  # a number too long for decimal arithmetic is compared as text
    (['{"a":' * 1000 + "1" + "}" * 1000], 400),  # JSON nested too deep: named, not a 500
    ([["6"]], 400),
])
def test_bad_labels_are_answered_not_500(server, labels, status):
    url, _ = server
    response = httpx.post(f"{url}/get_reward", json={"query": ["q 1"], "prompts": ["q"], "labels": labels}, timeout=60)
    assert response.status_code == status, response.text
    if status == 400:
        assert "labels[0]" in response.json()["detail"]


def test_an_echoed_lone_surrogate_is_valid_json(server):
    url, _ = server
    body = json.dumps({"items": [{"question": "q", "reference": "1", "completion": "\\boxed{1} \ud800"}]})
    response = httpx.post(f"{url}/score", content=body, headers={"content-type": "application/json"}, timeout=60)
    assert response.status_code == 200 and response.json()["scores"][0]["value"] == 1.0


def test_adapters_never_raise_and_agree_in_process_and_remote(in_process_reward, server, monkeypatch):
    in_process_reward("rule:workers=1")
    class Unreadable:
        def __str__(self):
            raise ValueError("no text")

    rows = [("math", "\\boxed{1} \ud800", "1", None), ("math", "\\boxed{5}", "1" * 1_000_001, None),
            ("math", "\\boxed{5}", Unreadable(), None), ("math", "\\boxed{7}", 7.0, None)]
    local = compute_score_batch(*zip(*rows))
    assert local == [1.0, 0.0, 0.0, 1.0]  # the unreadable ground truth scores 0, and the others their own
    monkeypatch.setenv("HARNESS_REWARD_URL", server[0])
    _shared.close_server_client()
    try:
        assert [compute_score(*row) for row in rows] == local
        out = openrlhf_module.reward_func(["q 1", "q 2"], ["q", "q"], [["1"], "2"])
        assert out["rewards"].tolist() == [0.0, 1.0] and out["extra_logs"]["reward_failed"].tolist() == [1.0, 0.0]
        assert "labels[0]" in out["errors"][0]
    finally:
        _shared.close_server_client()


def test_a_refused_token_is_an_error_at_the_first_call_and_the_url_can_carry_it(monkeypatch):
    port = free_port()
    with serving("rule", port, ["--token", "s3cret"]):
        url = f"http://127.0.0.1:{port}"
        monkeypatch.setenv("HARNESS_REWARD_URL", url)
        monkeypatch.delenv("HARNESS_SERVER_TOKEN", raising=False)
        _shared.close_server_client()
        with pytest.raises(_shared.ServerRefused, match="HARNESS_SERVER_TOKEN"):
            compute_score("math", "\\boxed{1}", "1")
        monkeypatch.setenv("HARNESS_SERVER_TOKEN", "s3cret")
        _shared.close_server_client()
        assert compute_score("math", "\\boxed{1}", "1") == 1.0
        body = {"query": ["q 1"], "prompts": ["q"], "labels": ["1"]}  # OpenRLHF's client: a URL and nothing else
        assert httpx.post(f"{url}/get_reward", json=body, timeout=60).status_code == 401
        assert httpx.post(f"{url}/get_reward?token=s3cret", json=body, timeout=60).json()["rewards"] == [1.0]
    _shared.close_server_client()
