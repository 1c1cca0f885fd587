"""The killable pool on functions that hang where no Python timeout reaches, crash, or eat memory."""

import os
import signal
import threading
import time

from rewards.sandbox import FAILURE_CRASHED, FAILURE_MEMORY, FAILURE_TIMEOUT, KillablePool, Submitter


def square(x):
    return x * x


def hang_blocking_signals(x):
    """Blocks SIGALRM first: a signal-based timeout (math-verify's) cannot stop this."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGINT})
    if x < 0:
        time.sleep(600)
    return x


def die(x):
    if x < 0:
        os._exit(3)
    return x


def allocate(mb):
    return len(bytearray(mb * 1024 * 1024))


def raise_value_error(x):
    if x < 0:
        raise ValueError("bad input")
    return x


class Escapes(BaseException):
    """Like math-verify's TimeoutException: not an Exception, so ``except Exception`` lets it through."""


def raise_base_exception(x):
    if x < 0:
        raise Escapes("timed out inside the worker")
    return x


def in_main_thread(_):
    return threading.current_thread() is threading.main_thread()


def test_results_in_order_and_in_worker_main_thread():
    with KillablePool(2, deadline_s=10) as pool:
        assert [o.value for o in pool.map(square, [(i,) for i in range(20)])] == [i * i for i in range(20)]
        assert all(o.value for o in pool.map(in_main_thread, [(0,)] * 4))


def test_hung_item_is_killed_and_batch_mates_finish():
    with KillablePool(2, deadline_s=1.0) as pool:
        outcomes = pool.map(hang_blocking_signals, [(1,), (-1,), (2,), (3,), (-1,), (4,)])
        assert [o.failure for o in outcomes] == [None, FAILURE_TIMEOUT, None, None, FAILURE_TIMEOUT, None]
        assert [o.value for o in outcomes if o.failure is None] == [1, 2, 3, 4]
        # each hung item cost one deadline and was killed, not left to its 600 s sleep
        assert [o.detail for o in outcomes if o.failure] == ["killed after 1s"] * 2
        # the pool replaced the killed workers and keeps working
        assert [o.value for o in pool.map(square, [(3,), (4,)])] == [9, 16]


def test_crash_and_exceptions_are_recorded_per_item():
    with KillablePool(2, deadline_s=10) as pool:
        outcomes = pool.map(die, [(1,), (-1,), (2,)])
        assert [o.failure for o in outcomes] == [None, FAILURE_CRASHED, None]
        assert "exit code 3" in outcomes[1].detail
        outcomes = pool.map(raise_value_error, [(-1,), (5,)])
        assert outcomes[0].failure == FAILURE_CRASHED and "ValueError: bad input" in outcomes[0].detail
        assert outcomes[1].value == 5


def test_base_exception_in_a_worker_is_an_outcome_not_a_raise():
    with KillablePool(2, deadline_s=10) as pool:
        outcomes = pool.map(raise_base_exception, [(1,), (-1,), (2,)])
    assert [o.failure for o in outcomes] == [None, FAILURE_CRASHED, None]
    assert outcomes[1].detail == "Escapes: timed out inside the worker"
    assert [outcomes[0].value, outcomes[2].value] == [1, 2]


def test_memory_limit_per_worker():
    with KillablePool(1, deadline_s=20, memory_limit_mb=1024) as pool:
        outcomes = pool.map(allocate, [(2048,), (10,)])
        assert outcomes[0].failure == FAILURE_MEMORY
        assert outcomes[1].value == 10 * 1024 * 1024


def test_concurrent_callers_share_the_pool():
    results = {}
    with KillablePool(2, deadline_s=10) as pool:

        def call(k):
            results[k] = [o.value for o in pool.map(square, [(k * 100 + i,) for i in range(25)])]

        threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert {k: v for k, v in results.items()} == {k: [(k * 100 + i) ** 2 for i in range(25)] for k in range(4)}


def record_call(path, x):
    """Appends one line per call: how many times the pool really ran each item."""
    with open(path, "a") as fh:
        fh.write(f"{x}\n")
    return x * 10


def test_chunks_run_each_item_once_in_order(tmp_path):
    log = tmp_path / "calls.txt"
    with KillablePool(2, deadline_s=10) as pool:
        outcomes = pool.map(record_call, [(str(log), i) for i in range(40)], chunk_size=4)
    assert [o.value for o in outcomes] == [i * 10 for i in range(40)]
    assert sorted(int(x) for x in log.read_text().split()) == list(range(40))  # no item ran twice


def test_a_hung_item_in_a_chunk_times_out_alone():
    with KillablePool(2, deadline_s=1.0) as pool:
        outcomes = pool.map(hang_blocking_signals, [(1,), (2,), (-1,), (3,), (4,), (5,)], chunk_size=3)
    assert [o.failure for o in outcomes] == [None, None, FAILURE_TIMEOUT, None, None, None]
    assert [o.value for o in outcomes if o.failure is None] == [1, 2, 3, 4, 5]


class _StartingPool:
    """A pool that is still starting (its fork server importing sympy) until ``ready`` is set."""

    def __init__(self, fail: bool = False) -> None:
        self.ready = threading.Event()
        self.submitted: list[list[tuple]] = []
        self.fail = fail

    def submit(self, fn, arg_tuples):
        self.ready.wait(60)
        if self.fail:
            raise RuntimeError("the fork server could not start")
        self.submitted.append(arg_tuples)
        return len(self.submitted)


def test_a_submitter_never_waits_for_the_pool_and_keeps_the_order():
    pool = _StartingPool()
    submitter = Submitter(pool, square)
    for key in "abc":
        submitter.put(key, [(ord(key),)])
    assert pool.submitted == []  # put returned while the pool was still starting
    pool.ready.set()
    assert submitter.tasks() == [("a", 1), ("b", 2), ("c", 3)]
    assert pool.submitted == [[(97,)], [(98,)], [(99,)]]


def test_a_pool_that_cannot_start_is_raised_to_the_caller():
    pool = _StartingPool(fail=True)
    submitter = Submitter(pool, square)
    submitter.put("a", [(1,)])
    pool.ready.set()
    try:
        submitter.tasks()
    except RuntimeError as exc:
        assert "could not start" in str(exc)
    else:
        raise AssertionError("the failure to start was lost")
