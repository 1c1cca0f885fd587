"""Gives the evaluation runs of a store made before intervals were kept their 95% intervals, from their stored items.

Each run's metrics are recomputed from its items (labels, scores, categories) by the suites' own metric code; an
interval is kept only where the recomputed value equals the stored one, so nothing a run reported changes. Run
once over a committed store, then commit it:

    python tools/backfill_intervals.py docs/verifiers/runs.sqlite
"""

from __future__ import annotations

import argparse

from harness.core.items import Score
from harness.core.store import RunKind, RunStore
from suites.metrics import backfill_intervals


def backfill(store: RunStore) -> dict[str, int]:
    """Intervals given, per run id."""
    done: dict[str, int] = {}
    for run in store.runs(kind=RunKind.REWARD_EVAL.value, status="complete", limit=1_000_000):
        items = store.items(run.id)
        if not items or any(i.label is None for i in items):
            continue
        scores = [Score(i.value, i.verdict if i.value is not None else None, i.reason) for i in items]
        intervals = backfill_intervals([bool(i.label) for i in items], scores, [i.category or "" for i in items],
                                       run.metrics)
        if intervals:
            store.set_intervals(run.id, intervals)
            done[run.id] = len(intervals)
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stores", nargs="+")
    for path in parser.parse_args().stores:
        done = backfill(RunStore(path))
        print(f"{path}: {sum(done.values())} intervals over {len(done)} runs")


if __name__ == "__main__":
    main()
