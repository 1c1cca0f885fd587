"""Scoring a reward on a suite and storing the run: the library call behind ``harness eval``."""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.core.readiness import ensure_ready
from harness.core.records import Metric
from harness.core.spec import ComponentSpec
from harness.core.store import ItemRow, NewRun, RunFailed, RunKind, RunRecord, RunStore
from harness.core.versions import package_versions
from rewards import build_reward
from rewards.contract import (
    REASON_CRASHED,
    Item,
    Reward,
    Score,
    ScoresEach,
    StartsEarly,
    TimedReward,
    check_scores,
    close_reward,
)
from rewards.sandbox import describe
from suites import build_suite
from suites.contract import SuiteData, VerifierSuite

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class EvalRequest:
    """What to evaluate. ``reward`` and ``suite`` are specs (``rule``, ``jsonl:label=ok``)."""

    reward: str
    suite: str
    data: str | None = None
    limit: int | None = None
    batch_size: int = 64


def score_in_batches(
    reward: Reward, items: Sequence[Item], batch_size: int, progress: ProgressCallback | None = None
) -> list[tuple[Score, float]]:
    """Scores with per-item latency in seconds (the reward's own timing when it reports one).

    A reward that scores each item as it finishes (:class:`~rewards.contract.ScoresEach`: the rule reward) gets
    every item at once, so that its workers never wait for a batch's slowest item; progress is still reported
    every ``batch_size`` items. Other rewards get batches of ``batch_size`` (a model's batch)."""
    if batch_size < 1:
        raise ValueError(f"batch size must be positive, got {batch_size}")
    if isinstance(reward, ScoresEach):
        return _score_streaming(reward, items, batch_size, progress)
    out: list[tuple[Score, float]] = []
    for start in range(0, len(items), batch_size):
        batch = items[start : start + batch_size]
        if isinstance(reward, TimedReward):
            pairs = list(reward.score_timed(batch))
            check_scores(batch, [s for s, _ in pairs], type(reward).__name__)
        else:
            began = time.perf_counter()
            scores = _scores_or_failures(reward, batch)
            each = (time.perf_counter() - began) / len(batch)
            pairs = [(s, each) for s in scores]
        out.extend(pairs)
        if progress is not None:
            progress(len(out), len(items))
    return out


def raised(reward: object, exc: BaseException) -> str:
    """One line naming which reward raised what, and where: ``lastnum raised ValueError: ... (lastnum.py:12)``."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" ({Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(reward).__name__} raised {describe(exc)}{where}"


def _scores_or_failures(reward: Reward, batch: Sequence[Item]) -> list[Score]:
    """The batch's scores; where the reward raises, each item again alone, and an item it raises on is a failed
    item naming the error (as the reward server does), so one bad item costs neither its batch-mates nor the run."""
    try:
        scores = reward.score(batch)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # noqa: BLE001 - a reward's own error is its items' result, not the command's end
        if len(batch) == 1:
            return [Score.failed(REASON_CRASHED, raised(reward, exc))]
        return [s for it in batch for s in _scores_or_failures(reward, [it])]
    return check_scores(batch, scores, type(reward).__name__)  # a broken contract is the reward's bug: the run fails


def _score_streaming(
    reward: ScoresEach, items: Sequence[Item], every: int, progress: ProgressCallback | None
) -> list[tuple[Score, float]]:
    results: list[tuple[Score, float] | None] = [None] * len(items)
    done = [0]
    lock = threading.Lock()

    def on_score(i: int, score: Score, seconds: float) -> None:
        with lock:
            if results[i] is not None:
                return
            results[i] = (score, seconds)
            done[0] += 1
            report = progress is not None and (done[0] % every == 0 or done[0] == len(items))
        if report:
            assert progress is not None
            progress(done[0], len(items))

    reward.score_each(items, on_score)
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        raise RuntimeError(f"{type(reward).__name__}.score_each gave no score for {len(missing)} of {len(items)} "
                           f"items (the first: item {missing[0]})")
    scored = [r for r in results if r is not None]  # all of them: none is missing
    check_scores(items, [score for score, _ in scored], type(reward).__name__)
    return scored


# A run with more failed items than this (crashed, timed out, out of memory) has no accuracy worth a table.
MAX_FAILED_SHARE = 0.5


def refuse_failed_run(run_id: str, reward_spec: str, scores: Sequence[Score]) -> None:
    """Raise :class:`RunFailed` (the run is then stored as ``failed``, without numbers) when more than
    :data:`MAX_FAILED_SHARE` of the items failed: an accuracy made of a broken reward's zeros is the share of wrong
    labels, not a measurement."""
    failed = [s for s in scores if s.is_failure]
    if scores and len(failed) > MAX_FAILED_SHARE * len(scores):
        first = failed[0]
        raise RunFailed(f"{reward_spec} failed on {len(failed)} of {len(scores)} items (more than "
                        f"{MAX_FAILED_SHARE:.0%}), so run {run_id} is stored as failed, without numbers; the first: "
                        f"{first.reason}: {first.detail or 'no detail'}")


def score_and_store(suite: VerifierSuite, data: SuiteData, reward: Reward, reward_spec: str, suite_spec: str,
                    config: dict, store: RunStore, batch_size: int, progress: ProgressCallback | None = None) -> str:
    """Score loaded suite data with a reward and store it as a ``reward-eval`` run (its items, the suite's
    metrics and the speed): the one path of ``eval`` and of re-scoring a stored run. Returns the run id."""
    with store.recording(
        NewRun(kind=RunKind.REWARD_EVAL, reward=reward_spec, suite=suite_spec, data_source=data.source,
               data_hash=data.content_hash, n_items=len(data.rows), config=config, versions=package_versions())
    ) as run_id:
        began = time.perf_counter()
        scored = score_in_batches(reward, [r.item for r in data.rows], batch_size, progress)
        refuse_failed_run(run_id, reward_spec, [s for s, _ in scored])
        metrics = suite.metrics(data, [s for s, _ in scored])
        wall = time.perf_counter() - began
        store.complete(run_id, _item_rows(data, scored), [*metrics, *speed_metrics([t for _, t in scored], wall)],
                       wall)
    return run_id


def evaluate_reward(
    request: EvalRequest,
    store: RunStore,
    *,
    progress: ProgressCallback | None = None,
    reward: Reward | None = None,
) -> RunRecord:
    """Load the suite, score every row, compute metrics, and store the run; returns the stored run.

    Everything that can be checked (specs, data) is checked before the run is recorded. A failure or Ctrl-C
    while scoring marks the run ``failed`` / ``interrupted`` without metrics, then re-raises. Pass an
    already-built ``reward`` to reuse its worker processes across calls.
    """
    suite: VerifierSuite = build_suite(request.suite)
    owned = reward is None
    reward = build_reward(request.reward) if reward is None else reward
    try:
        if isinstance(reward, StartsEarly):
            reward.start_early()  # its workers start while the data is read
        data: SuiteData = suite.load(request.data, request.limit)
        ensure_ready([reward], f"scoring with {request.reward}")  # before a run exists: nothing half-recorded
        config = {"limit": request.limit, "batch_size": request.batch_size, "data": request.data,
                  "category_name": data.category_name}
        run_id = score_and_store(suite, data, reward, str(ComponentSpec.parse(request.reward)),
                                 str(ComponentSpec.parse(request.suite)), config, store, request.batch_size, progress)
        return store.get(run_id)
    finally:
        if owned:
            close_reward(reward)


def scored_data(run: RunRecord) -> SuiteData | None:
    """The rows an evaluation run scored, loaded again (:func:`located_data`), or None."""
    found = located_data(run)
    return None if found is None else found[0]


def data_places(run: RunRecord) -> list[str | None]:
    """Where an evaluation's data is looked for, in order: the path the run recorded (resolved when it ran), then
    its ``--data`` as given (a relative path found under the data root set now), then the suite's default (None)."""
    places: list[str | None] = [run.data_source, run.config.get("data"), None]
    return list(dict.fromkeys(places))


def located_data(run: RunRecord) -> tuple[SuiteData, str] | None:
    """The rows an evaluation run scored, loaded again from the first of :func:`data_places` that holds them
    unchanged (the same content hash and count), with the place they were read from; None when none does, or for
    a run that is not an evaluation. The store keeps scores, not texts: this is how a reader sees the reference
    and the completion behind a score. The recorded path comes first: a run read from another folder, with the
    file in place and unchanged, is found whatever the data root is now."""
    if run.kind != RunKind.REWARD_EVAL.value:
        return None
    suite = build_suite(run.suite)
    for place in data_places(run):
        try:
            data = suite.load(place, run.config.get("limit"))
        except Exception:  # noqa: BLE001 - not there, or not readable: the next place, else the scores stand alone
            continue
        if data.content_hash == run.data_hash and len(data.rows) == run.n_items:
            return data, data.source
    return None


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile (0 < q <= 100) of the values, None without values."""
    if not values:
        return None
    ranked = sorted(values)
    return ranked[max(0, min(len(ranked) - 1, -(-len(ranked) * q // 100) - 1))]


def speed_metrics(latencies: Sequence[float], wall_seconds: float) -> list[Metric]:
    """What a reward costs: items per second over the whole scoring (batching and workers included), and the
    median and 99th-percentile seconds of one item (the reward's own timing of it)."""
    n = len(latencies)
    return [
        Metric("items_per_second", n / wall_seconds if wall_seconds > 0 else None, True, n, "speed"),
        Metric("seconds_p50", percentile(latencies, 50), False, n, "speed"),
        Metric("seconds_p99", percentile(latencies, 99), False, n, "speed"),
    ]


def _item_rows(data: SuiteData, scored: Sequence[tuple[Score, float]]) -> list[ItemRow]:
    return [
        ItemRow(
            idx=i,
            uid=row.item.uid,
            category=row.category,
            label=row.label,
            value=score.value,
            verdict=score.verdict,
            reason=score.reason,
            answer=score.answer,
            latency_s=latency,
            detail=score.detail,
        )
        for i, (row, (score, latency)) in enumerate(zip(data.rows, scored))
    ]
