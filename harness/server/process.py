"""Running the reward server: in this process (:func:`run_server`, behind ``harness serve``), or as a child
process that callers start and wait for (:func:`serving`, used by the OpenRLHF trainer, the benchmarks and the
tests: one start-and-wait helper for all of them).

On SIGTERM or Ctrl-C the server first answers every request still waiting for a reward (reward 0, cause "the
reward server is stopping"), so uvicorn's graceful shutdown has nothing left to wait for, then stops within
``shutdown_grace_s`` whatever a hung reward thread is doing.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from harness.optional import require
from harness.server.app import ServerConfig, create_app
from rewards.contract import Reward


def run_server(
    reward: Reward, config: ServerConfig, host: str, port: int, *, on_ready: Callable[[str], None] | None = None,
    shutdown_grace_s: float = 5.0,
) -> None:
    """Serve until SIGTERM or Ctrl-C; ``on_ready`` gets the address once the socket accepts connections."""
    uvicorn = require("uvicorn", "the reward server")
    app = create_app(reward, config)

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if on_ready is not None and self.started:
                on_ready(f"http://{host}:{port}")

        def handle_exit(self, sig: int, frame: Any) -> None:
            batcher = app.state.batcher
            loop = getattr(batcher, "_loop", None)
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(batcher.answer_waiting, "the reward server is stopping")
            super().handle_exit(sig, frame)

    settings = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=shutdown_grace_s)
    Server(settings).run()


def serve_command_line(reward: str, port: int, options: Sequence[str] = (), store: str | None = None) -> list[str]:
    """The ``harness serve`` command line for a child process on loopback."""
    head = [sys.executable, "-m", "harness"] + (["--store", store] if store else [])
    return head + ["serve", "--reward", reward, "--host", "127.0.0.1", "--port", str(port), *options]


def start_serving(command: Sequence[str], port: int, timeout: float = 300.0, quiet: bool = True) -> subprocess.Popen:
    """Start a ``harness serve`` child process and return once ``/health`` answers; RuntimeError, with the child
    stopped, when it exits or does not answer in ``timeout`` seconds."""
    httpx = require("httpx", "talking to the reward server")
    out = subprocess.DEVNULL if quiet else None
    proc = subprocess.Popen(list(command), stdout=out, stderr=out)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the reward server exited with code {proc.returncode} before it was ready: {' '.join(command)}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.3)
    stop_serving(proc)
    raise RuntimeError(f"the reward server did not answer /health within {timeout:g}s: {' '.join(command)}")


def stop_serving(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds; returns the exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
    return proc.returncode


@contextmanager
def serving(reward: str, port: int, options: Sequence[str] = (), store: str | None = None,
            timeout: float = 300.0) -> Iterator[subprocess.Popen]:
    """A ``harness serve`` child process on loopback, healthy on entry and stopped on exit whatever happens."""
    proc = start_serving(serve_command_line(reward, port, options, store), port, timeout)
    try:
        yield proc
    finally:
        stop_serving(proc)
