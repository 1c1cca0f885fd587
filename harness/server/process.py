"""Running the reward server in this process: :func:`serve_spec` from a reward spec (what ``harness serve`` calls,
and what a Python user calls), :func:`run_server` for a reward already built; as a child process,
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


def serve_spec(
    reward_spec: str, config: ServerConfig, host: str = "127.0.0.1", port: int = 8000, *,
    record: tuple[str, str, str, int] | None = None, on_ready: Callable[[ServerConfig, str], None] | None = None,
) -> None:
    """Build the reward, check it can start (nothing recorded if not), record the served run when asked
    (``record`` = (store path, existing run id or "", new run name or "", alarm window)), serve until SIGTERM or
    Ctrl-C, and release the reward. ``on_ready(config, address)`` once connections are accepted."""
    from dataclasses import replace

    from harness.core.readiness import ensure_ready
    from harness.server.observer import Recording
    from rewards import build_reward
    from rewards.contract import close_reward

    for module in ("fastapi", "pydantic", "uvicorn"):
        require(module, "the reward server")
    reward = build_reward(reward_spec)
    try:
        ensure_ready([reward], f"serving {reward_spec}")  # before a recorded run exists
        if record is not None:
            store_path, run_id, name, window = record
            config = replace(config, recording=Recording(store_path, run_id, name, config.items_per_step, window))
        run_server(reward, config, host, port,
                   on_ready=(lambda address: on_ready(config, address)) if on_ready else None)
    finally:
        close_reward(reward)
