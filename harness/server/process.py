"""Running the reward server in this process: :func:`serve_spec` from a reward spec (what ``harness serve`` calls,
and what a Python user calls), :func:`run_server` for a reward already built; as a child process,
:mod:`harness.core.serving` starts and waits for it.

On SIGTERM or Ctrl-C the server first answers every request still waiting for a reward (reward 0, cause "the
reward server is stopping"), so uvicorn's graceful shutdown has nothing left to wait for, then stops within
``shutdown_grace_s`` whatever a hung reward thread is doing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from harness.core.optional import require
from harness.server.app import ServerConfig, create_app
from harness.server.replicas import ReplicaSettings, check_replicable, serve_replicas
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
            app.state.batcher.answer_waiting_threadsafe("the reward server is stopping")
            super().handle_exit(sig, frame)

    settings = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=shutdown_grace_s,
                              http=header_deadline_protocol(config.header_timeout_s))
    Server(settings).run()


def header_deadline_protocol(seconds: float) -> type:
    """uvicorn's HTTP protocol (httptools where installed, as uvicorn picks it, else h11) with a deadline on the
    request line and headers: a connection that has not sent them whole within ``seconds`` of opening, or of its
    previous response, gets 408 and is closed. uvicorn has no such limit, so a sender that trickles its headers
    (slowloris) holds a connection for ever; :class:`~harness.server.app.BodyGuard` covers the body.

    Both of uvicorn's protocols set ``self.cycle`` to a new request cycle exactly when a request's headers are
    complete; the deadline is lifted there."""
    import asyncio
    import importlib.util

    if importlib.util.find_spec("httptools") is not None:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    else:
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base
    body = json.dumps({"detail": f"the request line and headers did not arrive within {seconds:g}s"}).encode()
    refusal = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
               b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)

    class HeaderDeadline(Base):
        _deadline: asyncio.TimerHandle | None = None
        _cycle: Any = None

        @property
        def cycle(self) -> Any:
            return self._cycle

        @cycle.setter
        def cycle(self, value: Any) -> None:
            self._cycle = value
            if value is not None:
                self._lift()

        def _arm(self) -> None:
            self._lift()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _lift(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.write(refusal)
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            self._arm()  # first: a pipelined request parsed below lifts it at once
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._lift()
            super().connection_lost(exc)

    return HeaderDeadline


def serve_spec(
    reward_spec: str, config: ServerConfig, host: str = "127.0.0.1", port: int = 8000, *,
    record: tuple[str, str, str, int] | None = None, on_ready: Callable[[ServerConfig, str], None] | None = None,
    replicas: ReplicaSettings | None = None,
) -> None:
    """Build the reward, check it can start (nothing recorded if not), record the served run when asked
    (``record`` = (store path, existing run id or "", new run name or "", alarm window)), serve until SIGTERM or
    Ctrl-C, and release the reward. ``on_ready(config, address)`` once connections are accepted. With
    ``replicas``, the reward is checked here and served by Ray Serve replicas that each build their own."""
    from dataclasses import replace

    from harness.core.readiness import ensure_ready
    from harness.server.observer import Recording
    from rewards import build_reward
    from rewards.contract import close_reward

    for module in ("fastapi", "pydantic", "uvicorn"):
        require(module, "the reward server")
    if replicas is not None:
        require("ray.serve", "serving on Ray Serve replicas")
    reward = build_reward(reward_spec)
    try:
        ensure_ready([reward], f"serving {reward_spec}")  # before a recorded run exists
        if replicas is not None:
            check_replicable(reward, reward_spec, replicas, recording=record is not None)
        if record is not None:
            store_path, run_id, name, window = record
            config = replace(config, recording=Recording(store_path, run_id, name, config.items_per_step, window))
        if replicas is not None:
            close_reward(reward)  # each replica builds its own
            serve_replicas(reward_spec, config, replicas, host, port,
                           on_ready=(lambda address: on_ready(config, address)) if on_ready else None)
            return
        run_server(reward, config, host, port,
                   on_ready=(lambda address: on_ready(config, address)) if on_ready else None)
    finally:
        close_reward(reward)
