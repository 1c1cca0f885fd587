"""Running the reward server in this process (:func:`run_server`, behind ``harness serve``); as a child process,
:mod:`harness.core.serving` starts and waits for it.

On SIGTERM or Ctrl-C the server first answers every request still waiting for a reward (reward 0, cause "the
reward server is stopping"), so uvicorn's graceful shutdown has nothing left to wait for, then stops within
``shutdown_grace_s`` whatever a hung reward thread is doing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.core.optional import require
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
            app.state.batcher.answer_waiting_threadsafe("the reward server is stopping")
            super().handle_exit(sig, frame)

    settings = uvicorn.Config(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=shutdown_grace_s)
    Server(settings).run()
