"""The reward server: any registered reward over HTTP, with dynamic batching (``harness serve``).

Its names are imported on first use, so that a command which only needs one of the server's error types (every
``harness`` command does) does not import the web stack."""

from typing import Any

__all__ = ["ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from harness.server import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
