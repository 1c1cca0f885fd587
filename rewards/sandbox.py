"""Worker processes that can be killed: per-item deadlines, a memory cap, crash isolation.

Why processes and not threads: math-verify's timeouts are ``signal.alarm`` and only work in a main thread,
and some inputs (power towers, huge factorials) hang inside sympy's C code where no Python timeout reaches.
Each item therefore runs in a pebble worker's main thread; when its deadline passes, pebble kills that
worker and starts a new one, and the item is recorded as ``timeout``. Its batch-mates are not affected.
"""

from __future__ import annotations

import multiprocessing
import queue
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pebble import ProcessExpired, ProcessPool

R = TypeVar("R")

FAILURE_TIMEOUT = "timeout"
FAILURE_CRASHED = "crashed"
FAILURE_MEMORY = "out_of_memory"


@dataclass(frozen=True)
class Outcome(Generic[R]):
    """The result of one task: ``value`` when it finished, else ``failure`` (timeout, crashed, ...)."""

    value: R | None
    failure: str | None
    seconds: float
    detail: str = ""


def describe(exc: BaseException) -> str:
    """``Type: message``, cut to 500 characters: the cause kept with a failed item."""
    return f"{type(exc).__name__}: {exc}"[:500]


def _limit_memory(limit_mb: int) -> None:
    if limit_mb <= 0:
        return
    import resource

    limit = limit_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _worker_init(limit_mb: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    _limit_memory(limit_mb)
    if initializer is not None:
        initializer(*initargs)


def _timed_call(fn: Callable[..., R], args: tuple) -> tuple[R, float]:
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def _timed_chunk(fn: Callable[..., R], arg_tuples: list[tuple]) -> list[tuple[R, float]]:
    return [_timed_call(fn, args) for args in arg_tuples]


@dataclass(frozen=True)
class Task:
    """A chunk of calls submitted to a :class:`KillablePool`."""

    fn: Callable[..., Any]
    arg_tuples: list[tuple]
    future: Any


class KillablePool:
    """A lazily started pool of ``workers`` processes; :meth:`map` never hangs and never raises per item.

    ``preload`` names modules the fork server imports once, so that a worker restarted after a kill is
    ready in milliseconds instead of re-importing sympy. Thread-safe: several threads may call :meth:`map`
    at once and share the workers.
    """

    def __init__(
        self,
        workers: int,
        deadline_s: float,
        *,
        memory_limit_mb: int = 2048,
        initializer: Callable[..., None] | None = None,
        initargs: tuple = (),
        preload: Sequence[str] = (),
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if deadline_s <= 0:
            raise ValueError(f"the per-item deadline must be positive, got {deadline_s}")
        self.workers = workers
        self.deadline_s = deadline_s
        self.memory_limit_mb = memory_limit_mb
        self._initializer = initializer
        self._initargs = initargs
        self._preload = tuple(preload)
        self._pool: ProcessPool | None = None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    def _ensure_pool(self) -> ProcessPool:
        with self._lock:
            if self._pool is None or not self._pool.active:
                context = multiprocessing.get_context("forkserver")
                if self._preload:
                    # Only takes effect if this interpreter's fork server is not running yet; harmless if it is.
                    context.set_forkserver_preload(list(self._preload))
                self._pool = ProcessPool(
                    max_workers=self.workers,
                    context=context,
                    initializer=_worker_init,
                    initargs=(self.memory_limit_mb, self._initializer, self._initargs),
                )
                self._finalizer = weakref.finalize(self, _stop_pool, self._pool)
            return self._pool

    def start(self) -> None:
        """Start the workers now (the fork server, its imports, the forks), rather than on the first submission."""
        self._ensure_pool().schedule(_started)

    def map(self, fn: Callable[..., R], arg_tuples: Sequence[tuple], chunk_size: int = 1) -> list[Outcome[R]]:
        """Run ``fn(*args)`` for each tuple; outcomes come back in input order.

        With ``chunk_size`` > 1, tuples travel to the workers in chunks (one round trip for several items)."""
        tasks = [self.submit(fn, list(arg_tuples[i : i + chunk_size])) for i in range(0, len(arg_tuples), max(1, chunk_size))]
        return [outcome for task in tasks for outcome in self.outcomes(task)]

    def submit(self, fn: Callable[..., R], arg_tuples: list[tuple]) -> Task:
        """Start ``fn(*args)`` for a chunk of tuples now; :meth:`outcomes` waits for them. A chunk has the
        per-item deadline for all of its items together: one that runs past it, or whose worker dies, is run
        again one item per task, so a hung item costs its chunk-mates at most one deadline more and still ends
        as its own ``timeout``."""
        pool = self._ensure_pool()
        if len(arg_tuples) == 1:
            return Task(fn, arg_tuples, pool.schedule(_timed_call, args=(fn, arg_tuples[0]), timeout=self.deadline_s))
        return Task(fn, arg_tuples, pool.schedule(_timed_chunk, args=(fn, arg_tuples), timeout=self.deadline_s))

    def outcomes(self, task: Task) -> list[Outcome[Any]]:
        """The outcomes of a submitted chunk, in order; never raises for what the items did."""
        if len(task.arg_tuples) == 1:
            return [self._collect(task.future)]
        whole = self._collect(task.future, chunked=True)
        if whole.failure is None:
            return [Outcome(value, None, seconds) for value, seconds in whole.value]
        return self._map_items(task.fn, task.arg_tuples)

    def _map_items(self, fn: Callable[..., R], arg_tuples: Sequence[tuple]) -> list[Outcome[R]]:
        pool = self._ensure_pool()
        futures = [pool.schedule(_timed_call, args=(fn, args), timeout=self.deadline_s) for args in arg_tuples]
        return [self._collect(f) for f in futures]

    def _collect(self, future: Any, chunked: bool = False) -> Outcome[Any]:
        try:
            if chunked:  # a list of (value, seconds), one per item of the chunk
                return Outcome(future.result(), None, 0.0)
            value, seconds = future.result()
            return Outcome(value, None, seconds)
        except FutureTimeout:
            return Outcome(None, FAILURE_TIMEOUT, self.deadline_s, f"killed after {self.deadline_s:g}s")
        except ProcessExpired as exc:
            return Outcome(None, FAILURE_CRASHED, 0.0, f"worker died with exit code {exc.exitcode}")
        except MemoryError:
            return Outcome(None, FAILURE_MEMORY, 0.0, f"over the {self.memory_limit_mb} MB worker limit")
        except BaseException as exc:
            # Whatever the task raised is recorded as data, BaseException subclasses included (math-verify's
            # TimeoutException is one); its batch-mates still count. Only an interrupt of this process itself
            # (Ctrl-C while waiting, so the future is not done) goes on up.
            if isinstance(exc, (KeyboardInterrupt, SystemExit)) and not future.done():
                raise
            return Outcome(None, FAILURE_CRASHED, 0.0, describe(exc))

    def close(self) -> None:
        with self._lock:
            if self._finalizer is not None:
                self._finalizer()
            self._pool = None

    def __enter__(self) -> KillablePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Submitter(Generic[R]):
    """Submits chunks of calls to a :class:`KillablePool` from a thread of its own, in the order given.

    The first submission to a pool that has not started waits for the fork server to import its modules and fork
    the workers: half a second, in which the caller of a scoring call can decide half of a batch's items by
    itself. With a submitter it does: :meth:`put` returns at once, and :meth:`tasks` waits for the submissions.
    The workers begin on the first chunk as soon as they are up, as they would have.
    """

    def __init__(self, pool: KillablePool, fn: Callable[..., R]) -> None:
        self._pool = pool
        self._fn = fn
        self._queue: queue.SimpleQueue[tuple[Any, list[tuple]] | None] = queue.SimpleQueue()
        self._tasks: list[tuple[Any, Task]] = []
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None

    def put(self, key: Any, arg_tuples: list[tuple]) -> None:
        """Submit ``fn(*args)`` for each tuple of the chunk, soon; ``key`` comes back with its task."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pool-submitter", daemon=True)
            self._thread.start()
        self._queue.put((key, arg_tuples))

    def tasks(self) -> list[tuple[Any, Task]]:
        """Every chunk put, as ``(key, task)`` in the order put, once all are submitted. Raises what a submission
        raised (a pool that could not start)."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if self._failure is not None:
            raise self._failure
        return self._tasks

    def _run(self) -> None:
        while (entry := self._queue.get()) is not None:
            if self._failure is None:
                try:
                    self._tasks.append((entry[0], self._pool.submit(self._fn, entry[1])))
                except BaseException as exc:  # noqa: BLE001 - handed to the caller by tasks()
                    self._failure = exc


def _started() -> None:
    """What :meth:`KillablePool.start` has a worker run: nothing; starting the pool is the point."""


def _stop_pool(pool: ProcessPool) -> None:
    pool.stop()
    pool.join(timeout=5)
