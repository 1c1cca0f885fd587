"""Dynamic batching: concurrent requests are gathered into one reward batch, and every request is answered.

OpenRLHF sends one sample per request, many at once; scoring each alone wastes a model's batch dimension.
Requests wait at most ``max_wait_s`` (or until ``max_batch`` items are queued), then the whole batch is scored in
one call on a thread of its own. When ``items_per_step`` is set and the reward learns (Cooper), the scored items
accumulate and the reward learns from them once a step's worth has been scored, before the next batch is scored;
``step()`` forces that boundary.

What the reward does cannot hold a request past its deadline (``deadline_s``): whatever it raises
(``BaseException`` subclasses included, such as math-verify's ``TimeoutException``), a batch that fails is retried
item by item so that only the failing items fail, with their cause. A reward that scores item by item
(:class:`~rewards.contract.ScoresEach`, the rule reward) hands each score to its request as it comes, so a
request is answered as soon as its own items are scored; at the deadline only the items still running get
``timeout`` and every other item its own score, in the hung item's request and in the others of its batch. A
batch still running then is left to finish on its thread in the background while new batches start beside it. Every task the batcher starts is kept and its exceptions are read, so nothing fails
silently; ``Stats`` counts failed and timed-out items as they happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewards.contract import (
    REASON_CRASHED,
    REASON_TIMEOUT,
    Item,
    LearnsFromFeedback,
    Reward,
    Score,
    ScoresEach,
    check_scores,
)
from rewards.sandbox import describe

log = logging.getLogger("harness.server")


BatchListener = Callable[[list[Item], list[Score]], None]
UpdateListener = Callable[[dict[str, float]], None]


@dataclass
class Stats:
    requests: int = 0
    items: int = 0
    batches: int = 0
    failed_items: int = 0
    timed_out_items: int = 0
    abandoned_batches: int = 0  # batches still running past the deadline (their threads finish in the background)
    in_flight_batches: int = 0  # batches being scored now (abandoned ones included until their threads end)
    updates: int = 0
    failed_updates: int = 0
    max_batch_seen: int = 0
    refused_requests: int = 0  # answered 4xx: bad input, a body over the limit, a wrong token
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
            "timed_out_items": self.timed_out_items, "abandoned_batches": self.abandoned_batches,
            "refused_requests": self.refused_requests,
            "in_flight_batches": self.in_flight_batches,
            "latency_p50_s": pct(0.5), "latency_p99_s": pct(0.99),
            "reward_updates": self.updates, "failed_updates": self.failed_updates, "last_update": self.last_update,
        }


@dataclass(eq=False)  # compared and hashed by identity: requests are kept in a set until answered
class _Pending:
    items: list[Item]
    future: asyncio.Future
    enqueued: float
    results: list[Score | None] = field(default_factory=list)  # filled item by item (rewards that score each)

    def __post_init__(self) -> None:
        self.results = [None] * len(self.items)


class DynamicBatcher:
    def __init__(
        self, reward: Reward, max_batch: int = 64, max_wait_s: float = 0.01, items_per_step: int = 0,
        concurrent_batches: int = 4, deadline_s: float = 60.0, on_batch: BatchListener | None = None,
        on_update: UpdateListener | None = None,
    ) -> None:
        if deadline_s <= 0:
            raise ValueError(f"the request deadline must be positive, got {deadline_s}")
        self.reward = reward
        self.max_batch = max_batch
        self.max_wait_s = max_wait_s
        self.items_per_step = items_per_step
        self.deadline_s = deadline_s
        self.on_batch = on_batch  # with each scored batch, just before its results are handed out (must be quick)
        self.on_update = on_update  # after each update of a learning reward, with its metrics
        self.learns = isinstance(reward, LearnsFromFeedback)
        # A stateless reward scores several batches at once, so one slow item (a rule verification waiting for
        # its deadline) holds up only its own batch. A learning reward sees one batch at a time.
        self.concurrent_batches = 1 if self.learns else max(1, concurrent_batches)
        self._slots: asyncio.Semaphore | None = None
        self.stats = Stats()
        self._queue: asyncio.Queue[_Pending] | None = None
        self._tasks: set[asyncio.Task] = set()
        self._pending: set[_Pending] = set()
        self._step_items: list[Item] = []
        self._step_scores: list[Score] = []
        self._reward_lock = threading.Lock()  # for a learning reward, batches and updates never overlap
        self._stats_lock = threading.Lock()
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._slots = asyncio.Semaphore(self.concurrent_batches)
        self._spawn(self._run(), "batch gatherer")

    def answer_waiting(self, why: str) -> None:
        """Answer every request still waiting with a failure (``crashed``, ``why``); called on the event loop."""
        for pending in list(self._pending):
            _resolve(pending.future, [Score.failed(REASON_CRASHED, why)] * len(pending.items))

    def answer_waiting_threadsafe(self, why: str) -> None:
        """:meth:`answer_waiting` from any thread (a signal handler): scheduled on the batcher's loop, if it runs."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.answer_waiting, why)

    async def stop(self) -> None:
        """Answer every request still waiting (the server is stopping) and end the tasks."""
        self._stopping = True
        self.answer_waiting("the reward server is stopping")
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def _spawn(self, coro: Any, name: str) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:  # never silent: a task that died is logged, and its requests were answered
            log.error("%s failed: %s", task.get_name(), describe(exc))

    async def score(self, items: Sequence[Item]) -> list[Score]:
        """One result per item, within ``deadline_s`` whatever the reward does."""
        assert self._queue is not None, "batcher not started"
        future = asyncio.get_running_loop().create_future()
        pending = _Pending(list(items), future, time.perf_counter())
        self._pending.add(pending)
        self.stats.requests += 1
        try:
            await self._queue.put(pending)
            return await asyncio.wait_for(asyncio.shield(future), self.deadline_s)
        except asyncio.TimeoutError:
            # the items scored by now keep their scores; only those still running get the timeout
            failed = Score.failed(REASON_TIMEOUT, f"not scored within the {self.deadline_s:g}s request deadline")
            with self._stats_lock:
                answered = [failed if r is None else r for r in pending.results]
                self.stats.timed_out_items += sum(r is None for r in pending.results)
            _resolve(future, answered)
            return future.result()
        finally:
            self._pending.discard(pending)

    async def _run(self) -> None:
        assert self._queue is not None and self._slots is not None
        while not self._stopping:
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
            batch = [p for p in batch if not p.future.done()]  # requests already answered (timed out) drop out
            if not batch:
                continue
            await self._slots.acquire()
            self._spawn(self._dispatch(batch), f"batch of {size} items")

    async def _dispatch(self, batch: list[_Pending]) -> None:
        """Score ``batch`` on a thread of its own; give the slot back when it ends or when its deadline passes
        (a reward that hangs then holds only its own thread)."""
        assert self._slots is not None
        loop = asyncio.get_running_loop()
        done = loop.create_future()

        def work() -> None:
            with self._stats_lock:
                self.stats.in_flight_batches += 1
            try:
                self._score_batch(batch)
                outcome: tuple = (_resolve, done, None)
            except BaseException as exc:  # noqa: BLE001 - reported through the future, never lost
                outcome = (_fail, done, exc)
            finally:
                with self._stats_lock:
                    self.stats.in_flight_batches -= 1
            with contextlib.suppress(RuntimeError):  # the server stopped while this batch hung: nobody waits
                loop.call_soon_threadsafe(*outcome)

        threading.Thread(target=work, name="reward-batch", daemon=True).start()
        try:
            await asyncio.wait_for(asyncio.shield(done), self.deadline_s)
        except asyncio.TimeoutError:
            with self._stats_lock:
                self.stats.abandoned_batches += 1
            log.warning("a batch of %d items is still being scored after %gs; its requests are answered as timeouts",
                        sum(len(p.items) for p in batch), self.deadline_s)
        except BaseException as exc:  # the batch's own failure: its requests get the cause
            detail = describe(exc)
            for p in batch:
                _resolve_threadsafe(p.future, [Score.failed(REASON_CRASHED, detail)] * len(p.items))
            raise
        finally:
            self._slots.release()

    def _score_batch(self, batch: list[_Pending]) -> None:
        items = [it for p in batch for it in p.items]
        with self._reward_lock if self.learns else _NO_LOCK:
            if isinstance(self.reward, ScoresEach) and not self.learns:
                results = self._score_each(batch, items)
            else:
                results = self._score_isolating(items)
            with self._stats_lock:
                self.stats.batches += 1
                self.stats.items += len(items)
                self.stats.max_batch_seen = max(self.stats.max_batch_seen, len(items))
            if self.learns:
                for it, r in zip(items, results):
                    if not r.is_failure:
                        self._step_items.append(it)
                        self._step_scores.append(r)
        if self.on_batch is not None:  # before the answers go out, so that a /step behind them sees this batch
            try:
                self.on_batch(items, results)
            except Exception as exc:  # an observer's failure is logged and never touches the rewards
                log.error("the training-run observer failed: %s", describe(exc))
        # hand the scores out before any update (Cooper's order), then learn if a step is complete
        start = 0
        now = time.perf_counter()
        for p in batch:
            part = results[start : start + len(p.items)]
            start += len(p.items)
            self.stats.latencies.append(now - p.enqueued)
            _resolve_threadsafe(p.future, part)
        if self.learns and self.items_per_step and len(self._step_items) >= self.items_per_step:
            self.step_now()

    def _score_each(self, batch: list[_Pending], items: list[Item]) -> list[Score]:
        """Scores handed to their requests as they come: a request is answered when its own items are scored,
        whatever its batch-mates are doing; an item the reward fails on is isolated as in
        :meth:`_score_isolating`. A recorded run's observer must see a batch before its answers go out (a /step
        behind them counts it), so with one the answers wait for the batch; a request whose deadline passes
        first still gets every score that exists by then."""
        owners = [(p, j) for p in batch for j in range(len(p.items))]
        early = self.on_batch is None

        def on_score(i: int, score: Score, seconds: float = 0.0) -> None:
            pending, j = owners[i]
            with self._stats_lock:
                if pending.results[j] is not None:
                    return
                pending.results[j] = score
                complete = all(r is not None for r in pending.results)
            if complete and early:
                _resolve_threadsafe(pending.future, list(pending.results))

        try:
            self.reward.score_each(items, on_score)  # type: ignore[attr-defined]
        except BaseException:  # noqa: BLE001 - the items not scored yet are scored one by one, failures isolated
            for i, (pending, j) in enumerate(owners):
                if pending.results[j] is None:
                    on_score(i, self._score_isolating([items[i]])[0])
        return [pending.results[j] for pending, j in owners]  # type: ignore[misc]

    def _score_isolating(self, items: list[Item]) -> list[Score]:
        try:
            return list(check_scores(items, self.reward.score(items), type(self.reward).__name__))
        except BaseException as exc:  # noqa: BLE001 - any failure of the reward is data about its items
            if len(items) == 1:
                with self._stats_lock:
                    self.stats.failed_items += 1
                log.warning("the reward failed on an item: %s", describe(exc))
                return [Score.failed(REASON_CRASHED, describe(exc))]
        out: list[Score] = []
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
            try:
                metrics = dict(self.reward.learn(items, scores))  # type: ignore[attr-defined]
            except Exception as exc:  # a failed update leaves the weights as they were; it is counted and logged
                with self._stats_lock:
                    self.stats.failed_updates += 1
                log.error("the reward's update failed: %s", describe(exc))
                return {}
            self.stats.updates += 1
            self.stats.last_update = metrics
        if self.on_update is not None:
            self.on_update(metrics)
        return metrics


_NO_LOCK = contextlib.nullcontext()


def _resolve(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(describe(exc)))


def _resolve_threadsafe(future: asyncio.Future, value: Any) -> None:
    loop = future.get_loop()
    if loop.is_closed():
        return
    with contextlib.suppress(RuntimeError):  # the loop closed in between: nobody waits any more
        loop.call_soon_threadsafe(_resolve, future, value)
