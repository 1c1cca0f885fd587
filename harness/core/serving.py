"""Reward servers as child processes: a free loopback port, the ``harness serve`` command line, start and wait for
``/health``, stop. The one start-and-wait helper of the project (the OpenRLHF trainer, the benchmarks and the
tests use it); it knows the server only by its command line and its routes.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from harness.core.optional import require


def free_port() -> int:
    """A port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
