"""The reward server: any registered reward over HTTP, with dynamic batching (``harness serve``)."""

from harness.server.app import ServerConfig, create_app

__all__ = ["ServerConfig", "create_app"]
