"""Loopback ports for servers the harness starts itself (the reward server behind OpenRLHF, test servers)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
