"""How far the ``mathverify`` baseline row is from the graders RL trainers run, on every real labelled item here.

For each labelled source (ProcessBench with references, MathCheck-GSM, the VerifyBench-Hard subset): accuracy of
``mathverify`` under each convention, of verl 0.9.1's own ``math_verify.compute_score`` and of its DAPO grader,
and how many items ``mathverify`` (the default, verl's convention) and verl's function judge differently. Needs
verl (``pip install '.[verl]'``).

    python -m benchmarks.baseline_agreement [--json FILE]
"""

from __future__ import annotations

import argparse
import json

from rewards import build_reward
from rewards.contract import close_reward
from suites import build_suite

LABELLED = (
    ("processbench", None),
    ("mathcheck-gsm", None),
    ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench"),
)
ROWS = ("mathverify:workers=2", "mathverify:gold=dollar,workers=2", "mathverify:gold=raw,workers=2",
        "verl-math-verify", "verl-dapo")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    out: dict[str, dict[str, float]] = {}
    totals = {"items": 0, "differ": 0}
    for spec, data in LABELLED:
        rows = build_suite(spec).load(data).rows
        items, labels = [r.item for r in rows], [r.label for r in rows]
        verdicts = {}
        for reward_spec in ROWS:
            reward = build_reward(reward_spec)
            try:
                verdicts[reward_spec] = [s.verdict is True for s in reward.score(items)]
            finally:
                close_reward(reward)
        differ = sum(a != b for a, b in zip(verdicts[ROWS[0]], verdicts["verl-math-verify"]))
        out[spec] = {"items": len(items), "differ": differ,
                     **{r: sum(v == y for v, y in zip(verdicts[r], labels)) / len(items) for r in ROWS}}
        totals["items"] += len(items)
        totals["differ"] += differ
    print(f"{'source':<18}{'items':>6}" + "".join(f"{r.split(',workers')[0]:>34}" for r in ROWS) + f"{'differ':>8}")
    for spec, row in out.items():
        print(f"{spec:<18}{row['items']:>6}" + "".join(f"{100 * row[r]:>34.2f}" for r in ROWS) + f"{row['differ']:>8}")
    print(f"mathverify and verl's compute_score judge {totals['differ']} of {totals['items']} items differently "
          f"({100 * totals['differ'] / totals['items']:.2f}%)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"sources": out, **totals}, fh, indent=1)


if __name__ == "__main__":
    main()
