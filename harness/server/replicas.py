"""The reward served by Ray Serve replicas: ``harness serve --replicas N``.

OpenRLHF and verl users already run Ray; a reward that one process cannot keep up with is deployed there as a Ray
Serve deployment of N replicas. Each replica builds the reward and runs the same application as the
single-process server (:func:`harness.server.app.create_app`): the same routes and protocols, its own dynamic
batcher, deadlines and per-item failures. Ray Serve's proxy spreads the requests over the replicas and replaces a
replica that dies.

``GET /metrics``, answered by whichever replica gets it, is the sum over replicas with each replica's own counters
under ``replicas``: every replica reports its counters to one small actor (:class:`MetricsBoard`) twice a second
and when asked, so another replica's counters are at most half a second old. A learning reward (``cooper``, or a composite holding one) has one owner of its weights, so it is
served by one replica only.

What Ray's proxy does is Ray's: a request that was on a replica when the replica died is answered 500 by the proxy
(not left waiting); OpenRLHF's and verl's clients retry such a request. The byte-counting body limit and read
timeouts run inside each replica, behind Ray's proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.errors import UserError
from harness.core.optional import require
from rewards.contract import LearnsFromFeedback, Reward, close_reward

if TYPE_CHECKING:
    from harness.server.app import ServerConfig

NAMESPACE = "harness"
APP_NAME = "harness-reward"
REPORT_EVERY_S = 0.5
# Counters that add up over replicas; the rest of a snapshot is combined in :func:`aggregate`.
_SUMMED = ("requests", "items", "batches", "failed_items", "timed_out_items", "abandoned_batches", "in_flight_batches",
           "reward_updates", "failed_updates", "refused_requests")


@dataclass(frozen=True)
class ReplicaSettings:
    """How the reward is deployed on Ray: ``replicas`` copies, each asking Ray for ``cpus_per_replica`` CPUs, on the
    cluster at ``ray_address`` ("" starts a local Ray in this process, stopped with it)."""

    replicas: int
    ray_address: str = ""
    cpus_per_replica: float = 1.0

    def __post_init__(self) -> None:
        if self.replicas < 1:
            raise ValueError(f"--replicas must be at least 1, got {self.replicas}")


class NotReplicable(UserError, ValueError):
    """The reward cannot be served by more than one replica."""


def check_replicable(reward: Reward, spec: str, settings: ReplicaSettings, recording: bool) -> None:
    """Refuse what N replicas would get wrong: a learning reward (N copies of its weights would each learn from a
    part of the rollouts and drift apart) and a recorded run (N recorders of one run)."""
    if settings.replicas == 1:
        return
    if isinstance(reward, LearnsFromFeedback):
        raise NotReplicable(
            f"{spec!r} learns from the rollouts it scores, and its weights have one owner: serve it with --replicas 1 "
            f"(or without --replicas), not {settings.replicas}")
    if recording:
        raise NotReplicable(f"a recorded run has one recorder: --record needs --replicas 1, not {settings.replicas}")


def aggregate(reports: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One ``/metrics`` answer from every replica's counters: counts summed, the largest batch, and the slowest
    replica's latency percentiles (percentiles of parts do not add up to the percentile of the whole). A replica
    that died and was replaced keeps its counters here: the requests it answered were answered."""
    parts = list(reports.values())
    total: dict[str, Any] = {key: sum(part.get(key) or 0 for part in parts) for key in _SUMMED}
    total["mean_batch_size"] = total["items"] / total["batches"] if total["batches"] else None
    total["max_batch_size"] = max((part.get("max_batch_size") or 0 for part in parts), default=0)
    for key in ("latency_p50_s", "latency_p99_s"):
        values = [part[key] for part in parts if part.get(key) is not None]
        total[key] = max(values) if values else None
    total["replicas"] = {name: dict(part) for name, part in reports.items()}
    return total


class MetricsBoard:
    """A Ray actor holding each replica's latest counters (with how long ago it reported)."""

    def __init__(self) -> None:
        self._reports: dict[str, tuple[float, dict[str, Any]]] = {}

    def report(self, replica: str, snapshot: dict[str, Any]) -> None:
        self._reports[replica] = (time.monotonic(), snapshot)

    def reports(self) -> dict[str, dict[str, Any]]:
        now = time.monotonic()
        return {name: {**snapshot, "reported_s_ago": round(now - at, 3)} for name, (at, snapshot) in self._reports.items()}


class RewardReplica:
    """One replica: the reward, built where the replica runs, behind the server's application."""

    def __init__(self, reward_spec: str, config: ServerConfig, board: str) -> None:
        from ray import serve

        from rewards import build_reward

        self.reward = build_reward(reward_spec)
        self.config = config
        self.board_name = board
        self.replica = serve.get_replica_context().replica_id.unique_id
        self.board: Any = None
        self.application: Any = None
        self.reporter: asyncio.Task | None = None

    async def __serve_build_asgi_app__(self) -> Any:
        import ray

        from harness.server.app import create_app  # imported where a replica serves it, not by every command

        self.board = ray.get_actor(self.board_name, namespace=NAMESPACE)
        self.application = create_app(self.reward, self.config, metrics_view=self.all_replicas)
        self.reporter = asyncio.get_running_loop().create_task(self.report_forever())
        return self.application

    def own(self, snapshot: dict[str, Any] | None = None) -> dict[str, Any]:
        return {**(snapshot or self.application.state.batcher.stats.snapshot()), "pid": os.getpid()}

    async def report_forever(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # the board is gone while Serve shuts down: nothing to report to
                await self.board.report.remote(self.replica, self.own())
            await asyncio.sleep(REPORT_EVERY_S)

    async def all_replicas(self, snapshot: dict[str, Any]) -> dict[str, Any]:
        await self.board.report.remote(self.replica, self.own(snapshot))
        return aggregate(await self.board.reports.remote())

    def __del__(self) -> None:  # attributes read with defaults: Serve calls this on a replica that failed to start
        reporter = getattr(self, "reporter", None)
        if reporter is not None:
            reporter.cancel()
        close_reward(getattr(self, "reward", None))


def serve_replicas(
    reward_spec: str, config: ServerConfig, settings: ReplicaSettings, host: str, port: int, *,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Deploy ``reward_spec`` on Ray Serve with ``settings.replicas`` replicas behind ``host:port``; serve until
    SIGTERM or Ctrl-C, then delete the deployment (and stop the local Ray this started)."""
    ray = require("ray", "serving on Ray Serve replicas")
    serve = require("ray.serve", "serving on Ray Serve replicas")
    local = not settings.ray_address
    on_sigterm = signal.getsignal(signal.SIGTERM)
    ray.init(
        address=settings.ray_address or None, namespace=NAMESPACE, include_dashboard=False, log_to_driver=False,
        logging_level=logging.WARNING, configure_logging=False,
        **({"num_cpus": max(os.cpu_count() or 1, int(settings.replicas * settings.cpus_per_replica) + 1)} if local else {}),
    )
    if threading.current_thread() is threading.main_thread() and callable(on_sigterm):
        # ray.init puts its own SIGTERM handler in place, which ends the process at once; ours stops it in order
        signal.signal(signal.SIGTERM, on_sigterm)
    board_name, board = f"{APP_NAME}-metrics-{port}", None
    try:
        board = ray.remote(MetricsBoard).options(name=board_name, namespace=NAMESPACE, num_cpus=0).remote()
        serve.start(http_options={"host": host, "port": port}, logging_config={"log_level": "WARNING"})
        replica = serve.deployment(
            serve.ingress()(RewardReplica), name="reward", num_replicas=settings.replicas,
            # OpenRLHF sends one item per request, many at once: a replica takes enough of them to fill its batches
            max_ongoing_requests=config.max_batch * max(1, config.concurrent_batches),
            ray_actor_options={"num_cpus": settings.cpus_per_replica},
        )
        serve.run(replica.bind(reward_spec, config, board_name), name=APP_NAME, route_prefix="/")
        if on_ready is not None:
            on_ready(f"http://{host}:{port}")
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:  # SIGTERM (raised as Terminated) or Ctrl-C: the server's normal end
        pass
    finally:
        with _signals_held(), contextlib.suppress(Exception):
            if local:
                serve.shutdown()
            else:  # a shared cluster: remove what this command deployed, nothing else
                serve.delete(APP_NAME)
                if board is not None:
                    ray.kill(board)
        ray.shutdown()


@contextlib.contextmanager
def _signals_held() -> Any:
    """A second SIGTERM or Ctrl-C while Serve and Ray stop (a supervisor that signals twice) does not cut the
    shutdown short and leave replicas behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
