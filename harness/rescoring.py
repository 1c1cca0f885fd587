"""Re-scoring a stored run with another reward, without generating again.

VerifyBench's point is that the verifier changes the benchmark: a policy's accuracy is a property of the policy
and of whatever judged it. A stored run keeps what it scored (an evaluation re-reads its suite's items, checked
by content hash; a policy evaluation keeps every generation), so any registered reward can score the same texts.
The result is a new run of the same kind that names its source (``rescored_from`` in its config), compared item by
item with it (:func:`harness.report.paired_table`).
"""

from __future__ import annotations

from harness.core.readiness import ensure_ready
from harness.core.records import ItemRow, ItemText, NewRun, RunKind, RunRecord
from harness.core.spec import ComponentSpec
from harness.core.store import RunStore, StoreError
from harness.core.versions import package_versions
from harness.evaluate import ProgressCallback, data_places, score_and_store, score_in_batches, scored_data
from rewards import build_reward
from rewards.contract import Item, close_reward
from suites import build_suite


class RescoreError(StoreError):
    """A run cannot be re-scored: it keeps no texts, or its data is gone or changed. The message says which."""


def rescore(store: RunStore, source_ref: str, reward_spec: str, *, batch_size: int = 64,
            progress: ProgressCallback | None = None) -> RunRecord:
    """Score what run ``source_ref`` scored with the reward ``reward_spec`` and store it as a new run."""
    source = store.get(source_ref)
    if source.status != "complete":
        raise RescoreError(f"run {source.id} is {source.status_text}: only a complete run is re-scored")
    spec = str(ComponentSpec.parse(reward_spec))
    if source.kind == RunKind.REWARD_EVAL:
        data = scored_data(source)
        if data is None:
            tried = ", ".join(p or f"{source.suite}'s default data" for p in data_places(source))
            raise RescoreError(f"run {source.id}'s data is not where it was, or has changed since (its content hash "
                               f"differs); looked at {tried}: the texts it scored cannot be read again")
        suite = build_suite(source.suite)
    elif source.kind == RunKind.POLICY_EVAL:
        texts = store.texts(source.id)
        items = store.items(source.id)
        if not texts:
            raise RescoreError(f"run {source.id} kept no generations (a policy evaluation stored before they were "
                               "kept): run eval-policy again")
        if sorted(texts) != [i.idx for i in items]:
            raise RescoreError(f"run {source.id} keeps {len(texts)} generations for {len(items)} items, not one "
                               "for each: its store was changed since; run eval-policy again")
    else:
        raise RescoreError(f"run {source.id} is a {source.kind} run; only evaluations (eval, eval-policy) keep what "
                           "they scored")
    reward = build_reward(spec)
    try:
        ensure_ready([reward], f"re-scoring with {spec}")  # before a run exists: nothing half-recorded
        config = {**source.config, "rescored_from": source.id}
        if source.kind == RunKind.REWARD_EVAL:
            return store.get(score_and_store(suite, data, reward, spec, source.suite, config, store, batch_size,
                                             progress))
        return _rescore_policy(store, source, items, texts, reward, spec, config, batch_size, progress)
    finally:
        close_reward(reward)


def _rescore_policy(store: RunStore, source: RunRecord, items: list[ItemRow], texts: dict[int, ItemText],
                    reward: object, spec: str, config: dict, batch_size: int,
                    progress: ProgressCallback | None) -> RunRecord:
    import time

    from harness.policy_eval import policy_metrics

    benchmarks = tuple(source.config.get("benchmarks") or ())
    with store.recording(NewRun(kind=RunKind.POLICY_EVAL, reward=spec, suite=source.suite,
                                data_source=source.data_source, data_hash=source.data_hash, n_items=source.n_items,
                                config=config, versions=package_versions())) as run_id:
        began = time.perf_counter()
        ordered = [texts[i.idx] for i in items]
        scored = score_in_batches(reward, [Item(t.question, t.reference, t.completion) for t in ordered],  # type: ignore[arg-type]
                                  batch_size, progress)
        rows = [ItemRow(i.idx, i.uid, i.category, None, s.value, s.verdict, s.reason, s.answer, seconds, s.detail)
                for i, (s, seconds) in zip(items, scored)]
        store.log_items(run_id, rows, ordered)
        store.complete(run_id, [], policy_metrics(rows, benchmarks), time.perf_counter() - began)
    return store.get(run_id)
