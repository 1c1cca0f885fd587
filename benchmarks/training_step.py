"""A training step's reward work, before and after a change: the trainer's reward function (the bridge) called on
a step's rollouts with Cooper as the reward (group negatives, the packaged MiniLM VerifyRM base), which scores them,
checks them with the rule reward and updates Cooper. Each checkout runs in a process of its own, alternately,
``--rounds`` times; the table prints the median seconds a step and the ratio. One run, one machine.

    HARNESS_DATA_ROOT=../shared/data python -m benchmarks.training_step --against OTHER_CHECKOUT [--rounds 3]

The rollouts are real MathCheck-GSM completions, eight for each of eight questions (64 a step, as
``--num-generations 8 --prompts-per-step 8``): a question's own two, and six written for other questions, so that
every group has right and wrong rollouts as in training.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

STEP = """
import json, sys, time
from collections import defaultdict
from suites import build_suite
from rewards import Item, build_reward
from trainers.grpo import RewardBridge, StepRecords
if __name__ == "__main__":
    by_question = defaultdict(list)
    for row in build_suite("mathcheck-gsm").load().rows:
        by_question[(row.item.question, row.item.reference)].append(row.item.completion)
    keys = list(by_question)
    groups = []  # a prompt's own completions, and six of other prompts': wrong for it, as a group's misses are
    for k, (question, reference) in enumerate(keys[:8]):
        borrowed = [c for other in keys[8 + 3 * k : 11 + 3 * k] for c in by_question[other]]
        groups.append([Item(question, reference, c) for c in (by_question[(question, reference)] + borrowed)[:8]])
    steps = int(sys.argv[1])
    reward = build_reward("cooper:model=minilm-l6,negatives=group,dtype=float32")
    bridge = RewardBridge(reward, StepRecords())
    items = [it for group in groups for it in group]
    args = ([it.question for it in items], [it.completion for it in items], [it.reference for it in items])
    bridge(*args)  # the first step starts the workers and loads the model: not timed
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        bridge(*args)
        times.append(time.perf_counter() - start)
    bridge.rule.close()
    reward.close()
    print(json.dumps({"seconds": times, "rollouts": len(items)}))
"""


def run(tree: Path, steps: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", STEP, str(steps)], check=True, capture_output=True, text=True,
                          cwd=tree, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout (before the change)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=3, help="timed steps a round, after one untimed")
    args = parser.parse_args()
    trees = {"this checkout": HERE, str(args.against): args.against.resolve()}
    seconds: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            seconds[name] += run(tree, args.steps)
    base = statistics.median(seconds[str(args.against)])
    print(f"{'checkout':40} {'median s/step':>14} {'x before':>9}   steps")
    for name, values in seconds.items():
        median = statistics.median(values)
        print(f"{name:40} {median:14.3f} {base / median:9.2f}   " + ", ".join(f"{v:.2f}" for v in values))


if __name__ == "__main__":
    main()
