"""Composite rewards against their parts on real labelled data: accuracy, precision, recall, the share of items the
second stage of a cascade saw, and the time each took, all in one run on the same items.

The items are a trained VerifyRM's held-out rows (``OUTPUT/heldout.jsonl`` of ``harness train-rm``: ProcessBench,
MathCheck-GSM and the VerifyBench-Hard subset, split by question so the model never saw them), so the model part
is scored only where it was not trained.

    python benchmarks/composite_accuracy.py --model runs/verifyrm-minilm [--limit N] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from harness.core.store import RunStore
from harness.evaluate import EvalRequest, evaluate_reward
from rewards import build_reward
from rewards.contract import close_reward


def specs(model: str) -> list[tuple[str, str]]:
    rm = f"verifyrm:model={model}"
    return [
        ("rule", "rule"),
        ("verifyrm", rm),
        ("cascade: rule, then verifyrm on rule-rejected", f"cascade:first=rule,then=[{rm}]"),
        ("all (rule and verifyrm agree)", f"all:rewards=[rule;{rm}]"),
        ("any (rule or verifyrm)", f"any:rewards=[rule;{rm}]"),
        ("mean (equal weights, threshold 0.5)", f"mean:rewards=[rule;{rm}]"),
    ]


def measure(model: str, limit: int | None) -> list[dict]:
    heldout = Path(model) / "heldout.jsonl"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "runs.sqlite")
        for name, spec in specs(model):
            reward = build_reward(spec)
            try:
                began = time.perf_counter()
                run = evaluate_reward(EvalRequest(spec, "jsonl:category=source", str(heldout), limit), store,
                                      reward=reward)
                seconds = time.perf_counter() - began
            finally:
                close_reward(reward)
            items = store.items(run.id)
            second = sum(1 for i in items if i.detail.startswith("decided by verifyrm"))
            rows.append({
                "reward": name, "n": run.n_items, "accuracy": run.metric("accuracy"),
                "precision": run.metric("precision"), "recall": run.metric("recall"), "f1": run.metric("f1"),
                "second_stage_share": second / len(items) if name.startswith("cascade") else None,
                "seconds": seconds,
            })
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a harness train-rm output folder (with heldout.jsonl)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    args = parser.parse_args()
    rows = measure(args.model, args.limit)
    base = rows[0]["seconds"]
    print("| reward | items | accuracy | precision | recall | F1 | seen by 2nd stage | seconds | x rule's time |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        share = "—" if r["second_stage_share"] is None else f"{100 * r['second_stage_share']:.1f}%"
        print(f"| {r['reward']} | {r['n']} | {100 * r['accuracy']:.1f} | {r['precision']:.3f} | {r['recall']:.3f} | "
              f"{r['f1']:.3f} | {share} | {r['seconds']:.1f} | {r['seconds'] / base:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
