"""Writes the data of the Cooper-regime experiment: two-step arithmetic word problems in three disjoint sets.

- ``sft.jsonl``: problems with worked solutions in the answer format (``a + b = s``, ``s - c = r``,
  ``\\boxed{r}``), for the supervised warm-up;
- ``train.jsonl``: problems for GRPO (question and answer);
- ``heldout.jsonl``: problems for the held-out checks and the final evaluation.

No (template, operands) combination appears in two sets, so the held-out accuracy is measured on problems the
policy never saw. Two steps (add then subtract, or add three numbers) keep SmolLM2-135M, after the warm-up,
right on part of its samples and wrong on the rest, which is the regime GRPO and Cooper need.

    python experiments/cooper_regime/make_data.py --out runs/cooper_regime [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TEMPLATES = (
    ("Sam has {a} marbles. He finds {b} more and then gives away {c}. How many marbles does Sam have now?", "-"),
    ("A shelf holds {a} books. {b} books are added and {c} are taken away. How many books are on the shelf?", "-"),
    ("A bus carries {a} people. At the first stop {b} get on and {c} get off. How many people are on the bus?", "-"),
    ("Mia reads {a} pages on Monday, {b} on Tuesday and {c} on Wednesday. How many pages does she read?", "+"),
    ("A farm has {a} hens, {b} ducks and {c} geese. How many birds does the farm have?", "+"),
)


def record(template: str, op: str, a: int, b: int, c: int) -> dict[str, str]:
    s = a + b
    r = s - c if op == "-" else s + c
    solution = f"{a} + {b} = {s}\n{s} {op} {c} = {r}\n\\boxed{{{r}}}"
    return {"question": template.format(a=a, b=b, c=c), "answer": str(r), "solution": solution}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sft", type=int, default=480)
    parser.add_argument("--train", type=int, default=400)
    parser.add_argument("--heldout", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    combos = set()
    while len(combos) < args.sft + args.train + args.heldout:
        t = rng.randrange(len(TEMPLATES))
        a, b = rng.randint(10, 60), rng.randint(10, 60)
        c = rng.randint(5, a + b - 5) if TEMPLATES[t][1] == "-" else rng.randint(10, 60)
        combos.add((t, a, b, c))
    ordered = sorted(combos)
    rng.shuffle(ordered)
    args.out.mkdir(parents=True, exist_ok=True)
    sizes = {"sft.jsonl": args.sft, "train.jsonl": args.train, "heldout.jsonl": args.heldout}
    start = 0
    for name, n in sizes.items():
        with (args.out / name).open("w", encoding="utf-8") as fh:
            for t, a, b, c in ordered[start : start + n]:
                rec = record(*TEMPLATES[t], a, b, c)
                if name != "sft.jsonl":
                    rec.pop("solution")
                fh.write(json.dumps(rec) + "\n")
        start += n
        print(args.out / name)


if __name__ == "__main__":
    main()
