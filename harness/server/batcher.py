"""Dynamic batching: concurrent requests are gathered into one reward batch.

OpenRLHF sends one sample per request, many at once; scoring each alone wastes a model's batch dimension.
Requests wait at most ``max_wait_s`` (or until ``max_batch`` items are queued), then the whole batch is
scored in one call on a worker thread; batches run one after another, so a stateful reward sees a clean
sequence of batches. When ``items_per_step`` is set and the reward learns (Cooper), the scored items
accumulate and the reward learns from them once a step's worth has been scored, before the next batch is
scored; ``step()`` forces that boundary.

A batch whose scoring raises is retried item by item, so one bad item fails alone and its batch-mates are
still answered.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rewards.contract import Item, LearnsFromFeedback, Reward, Score, check_scores


@dataclass
class Stats:
    requests: int = 0
    items: int = 0
    batches: int = 0
    failed_items: int = 0
    max_batch_seen: int = 0
    updates: int = 0
    last_update: dict[str, float] = field(default_factory=dict)
    latencies: deque = field(default_factory=lambda: deque(maxlen=10_000))

    def snapshot(self) -> dict[str, Any]:
        lat = sorted(self.latencies)

        def pct(p: float) -> float | None:
            return lat[min(len(lat) - 1, int(p * len(lat)))] if lat else None

        return {
            "requests": self.requests, "items": self.items, "batches": self.batches,
            "mean_batch_size": self.items / self.batches if self.batches else None,
            "max_batch_size": self.max_batch_seen, "failed_items": self.failed_items,
            "latency_p50_s": pct(0.5), "latency_p99_s": pct(0.99),
            "reward_updates": self.updates, "last_update": self.last_update,
        }


@dataclass
class _Pending:
    items: list[Item]
    future: asyncio.Future
    enqueued: float


class ItemFailed(Exception):
    """Scoring this item raised; the message says why."""


class DynamicBatcher:
    def __init__(
        self, reward: Reward, max_batch: int = 64, max_wait_s: float = 0.01, items_per_step: int = 0,
        concurrent_batches: int = 4,
    ) -> None:
        self.reward = reward
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self.items_per_step = items_per_step
        self.learns = isinstance(reward, LearnsFromFeedback)
        # A stateless reward scores several batches at once, so one slow item (a rule verification waiting for
        # its deadline) holds up only its own batch. A learning reward sees one batch at a time.
        self.concurrent_batches = 1 if self.learns else max(1, concurrent_batches)
        self._slots: asyncio.Semaphore | None = None
        self.stats = Stats()
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task | None = None
        self._step_items: list[Item] = []
        self._step_scores: list[Score] = []
        self._reward_lock = threading.Lock()  # for a learning reward, batches and updates never overlap
        self._stats_lock = threading.Lock()

    async def start(self) -> None:
        self._queue = asyncio.Queue()
        self._slots = asyncio.Semaphore(self.concurrent_batches)
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def score(self, items: Sequence[Item]) -> list[Score | ItemFailed]:
        assert self._queue is not None, "batcher not started"
        future = asyncio.get_running_loop().create_future()
        await self._queue.put(_Pending(list(items), future, time.perf_counter()))
        self.stats.requests += 1
        return await future

    async def _run(self) -> None:
        assert self._queue is not None
        while True:
            first = await self._queue.get()
            batch = [first]
            size = len(first.items)
            deadline = time.perf_counter() + self.max_wait_s
            while size < self.max_batch:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    break
                try:
                    nxt = await asyncio.wait_for(self._queue.get(), remaining)
                except asyncio.TimeoutError:
                    break
                batch.append(nxt)
                size += len(nxt.items)
            assert self._slots is not None
            await self._slots.acquire()
            asyncio.create_task(self._dispatch(batch))

    async def _dispatch(self, batch: list[_Pending]) -> None:
        assert self._slots is not None
        try:
            await asyncio.to_thread(self._score_batch, batch)
        finally:
            self._slots.release()

    def _score_batch(self, batch: list[_Pending]) -> None:
        items = [it for p in batch for it in p.items]
        with self._reward_lock if self.learns else _NO_LOCK:
            results: list[Score | ItemFailed] = self._score_isolating(items)
            with self._stats_lock:
                self.stats.batches += 1
                self.stats.items += len(items)
                self.stats.max_batch_seen = max(self.stats.max_batch_seen, len(items))
            if self.learns:
                for it, r in zip(items, results):
                    if isinstance(r, Score):
                        self._step_items.append(it)
                        self._step_scores.append(r)
        # hand the scores out before any update (Cooper's order), then learn if a step is complete
        start = 0
        now = time.perf_counter()
        for p in batch:
            part = results[start : start + len(p.items)]
            start += len(p.items)
            self.stats.latencies.append(now - p.enqueued)
            p.future.get_loop().call_soon_threadsafe(_resolve, p.future, part)
        if self.learns and self.items_per_step and len(self._step_items) >= self.items_per_step:
            self.step_now()

    def _score_isolating(self, items: list[Item]) -> list[Score | ItemFailed]:
        try:
            return list(check_scores(items, self.reward.score(items), type(self.reward).__name__))
        except Exception:
            if len(items) == 1:
                with self._stats_lock:
                    self.stats.failed_items += 1
                return [ItemFailed("the reward failed on this item")]
        out: list[Score | ItemFailed] = []
        for it in items:
            out += self._score_isolating([it])
        return out

    def step_now(self) -> dict[str, float]:
        """Learn from the items scored since the last step (a training-step boundary)."""
        with self._reward_lock:
            items, scores = self._step_items, self._step_scores
            self._step_items, self._step_scores = [], []
            if not (self.learns and items):
                return {}
            metrics = dict(self.reward.learn(items, scores))  # type: ignore[attr-defined]
            self.stats.updates += 1
            self.stats.last_update = metrics
            return metrics


_NO_LOCK = contextlib.nullcontext()


def _resolve(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)
