"""A reward built on first use, under a lock: for hooks that other frameworks import as plain functions
(OpenRLHF's ``reward_func``, verl's ``compute_score``, lm-eval's ``process_results``) and call from threads."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rewards.contract import close_reward


class LazyReward:
    def __init__(self, spec: Callable[[], str]) -> None:
        self._spec = spec  # read at first use, so environment variables set after import still count
        self._lock = threading.Lock()
        self._reward: Any = None

    def get(self) -> Any:
        with self._lock:
            if self._reward is None:
                from rewards import build_reward

                self._reward = build_reward(self._spec())
            return self._reward

    @property
    def built(self) -> bool:
        return self._reward is not None

    def close(self) -> None:
        with self._lock:
            if self._reward is not None:
                close_reward(self._reward)
            self._reward = None
