"""Writes the arithmetic training and held-out sets of the CPU-scale experiment (question/answer jsonl).

SmolLM2-135M-Instruct solves 0 of 40 SVAMP and 1 of 40 GSM8K test problems greedily, so GRPO on those gets no
signal at this size; two-number addition it gets right about one time in seven when sampling, which gives
groups with both right and wrong rollouts. The sets are disjoint in their (a, b) pairs.

    python experiments/cpu_scale/make_arithmetic.py --out runs/cpu_scale [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TEMPLATES = (
    "What is {a} + {b}?",
    "Compute {a} plus {b}.",
    "Sam has {a} marbles and finds {b} more. How many marbles does Sam have now?",
    "A shelf holds {a} books and {b} more are added. How many books are on the shelf?",
)


def problems(rng: random.Random, pairs: list[tuple[int, int]]) -> list[dict[str, str]]:
    return [{"question": rng.choice(TEMPLATES).format(a=a, b=b), "answer": str(a + b)} for a, b in pairs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train", type=int, default=400)
    parser.add_argument("--test", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pairs = [(a, b) for a in range(2, 40) for b in range(2, 40)]
    rng.shuffle(pairs)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, chosen in (("arithmetic_train.jsonl", pairs[: args.train]),
                         ("arithmetic_test.jsonl", pairs[args.train: args.train + args.test])):
        with (args.out / name).open("w", encoding="utf-8") as fh:
            for record in problems(rng, chosen):
                fh.write(json.dumps(record) + "\n")
        print(args.out / name)


if __name__ == "__main__":
    main()
