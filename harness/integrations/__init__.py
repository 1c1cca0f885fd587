"""Adapters that let other RL frameworks call the harness's rewards in-process or through its server."""
