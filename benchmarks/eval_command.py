"""Whole commands, start-up included: ``harness eval --reward rule`` against a plain math-verify loop (math-verify
called as verl calls it, the reference boxed) run as its own Python command, on the same 2,000 real items
(ProcessBench, MathCheck-GSM, the VerifyBench-Hard subset), each command timed from launch to exit, alternately,
``--rounds`` times. Prints a table with the ratio of the medians; one run, one machine.

``--warm`` adds the reward as a training run meets it: two workers started and warmed on the 748 other real items
of the same sources, then the 2,000 timed in the process, against the plain loop in a process of its own.
``--bare-too`` adds the plain loop on the bare reference with math-verify's defaults, the call this benchmark once
made (it reads a reference in LaTeX without delimiters as nothing): how much of a ratio is the baseline's call
rather than the reward. ``--against DIR`` times another checkout of this project (an older commit, say) the same
way, alternating with this one in the same run, so that the two are compared on the same machine at the same moments.

Below the table, each case's ratio round by round (the plain loop's time in a round over the case's in the same
round): their geometric mean and its 95% t-interval, as the host's speed drifts between rounds.

    HARNESS_DATA_ROOT=../shared/data python -m benchmarks.eval_command [--items 2000] [--rounds 3] [--warm]
        [--bare-too] [--against DIR]
    python -m benchmarks.eval_command --plain-only ROWS.jsonl    # the plain loop's verdicts on the rows, as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.workload import real_rows
from harness.core.uncertainty import paired_t_interval

HERE = Path(__file__).resolve().parents[1]

# The baseline is math-verify called as RL trainers call it, item by item in one process: what verl 0.9.1's
# ``verl.utils.reward_score.math_verify.compute_score`` (Cooper's trainer scores with it) runs for each item in its
# pool. The reference is boxed and read by LaTeX extraction, the completion by expression and LaTeX extraction, and
# the item is right when a gold parse verifies against a prediction; any error is a "no". Written out here rather
# than imported from rewards.plain_math_verify, so that the loop's command pays math-verify's imports only;
# tests/harness/test_benchmark_baseline.py holds it to that module's verdicts.
PLAIN = """
import json, logging, sys, time
from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
logging.getLogger("math_verify").setLevel(logging.ERROR)
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
start = time.perf_counter()
verdicts = []
for row in rows:
    right = False
    try:
        if sys.argv[2:] == ["bare"]:  # the call verl does not make: the bare reference, math-verify's defaults
            right = bool(verify(parse(row["reference"]), parse(row["completion"])))
        else:
            gold = parse("\\\\boxed{" + row["reference"] + "}", (LatexExtractionConfig(),))
            predicted = parse(row["completion"], (ExprExtractionConfig(), LatexExtractionConfig()))
            right = bool(gold and predicted and any(verify(g, p) for p in predicted for g in gold))
    except BaseException:
        pass
    verdicts.append(right)
seconds = time.perf_counter() - start
agree = sum(v == row["label"] for v, row in zip(verdicts, rows))
print(json.dumps({"seconds": seconds, "agree": agree, "verdicts": verdicts}))
"""

# Run with the checkout under test first on sys.path: its rewards, its workload.
WARM = """
import json, logging, sys, time
from benchmarks.workload import other_items, real_items
from rewards.rule import RuleReward
if __name__ == "__main__":
    logging.getLogger("math_verify").setLevel(logging.ERROR)
    items = real_items(int(sys.argv[1]))
    with RuleReward(workers=2) as reward:
        reward.start()
        reward.score(other_items(len(items)))
        reward.decided_here = reward.sent_to_workers = 0
        start = time.perf_counter()
        reward.score(items)
        print(json.dumps({"seconds": time.perf_counter() - start, "decided_here": reward.decided_here / len(items)}))
"""


# The plain loop each case is a ratio to, by what is timed: a whole command, or the seconds inside the process.
BASELINES = {"plain math-verify loop": "command", "plain loop, in-process": "in-process"}


def write_items(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in real_rows(n):
            fh.write(json.dumps({"question": row.item.question, "reference": row.item.reference,
                                 "completion": row.item.completion, "label": row.label}) + "\n")


def run(command: list[str], tree: Path) -> tuple[float, str]:
    """Seconds from launch to exit, and stdout, of ``command`` run in ``tree`` with ``tree`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=tree, env=env)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", action="store_true", help="also time the warm reward in-process")
    parser.add_argument("--bare-too", action="store_true", help="also time the plain loop on the bare reference")
    parser.add_argument("--against", type=Path, default=None, help="another checkout, timed alternately with this one")
    parser.add_argument("--plain-only", type=Path, default=None, metavar="JSONL",
                        help="only run the plain loop on these rows and print its JSON (seconds, verdicts)")
    args = parser.parse_args()
    if args.plain_only is not None:
        print(run([sys.executable, "-c", PLAIN, str(args.plain_only)], HERE)[1], end="")
        return
    trees = {"this checkout": HERE}
    if args.against is not None:
        trees[f"{args.against}"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "items.jsonl"
        write_items(data, args.items)
        commands: dict[str, tuple[list[str], Path, str]] = {  # name -> command, tree, what is timed
            "plain math-verify loop": ([sys.executable, "-c", PLAIN, str(data)], HERE, "command")}
        if args.bare_too:
            commands["plain loop, bare reference (not verl's call)"] = (
                [sys.executable, "-c", PLAIN, str(data), "bare"], HERE, "command")
        for name, tree in trees.items():
            commands[f"harness eval --reward rule ({name})"] = (
                [sys.executable, "-m", "harness", "eval", "--reward", "rule", "--suite", "jsonl", "--data", str(data),
                 "--store", str(Path(tmp) / f"runs-{len(commands)}.sqlite"), "--format", "json"], tree, "command")
        if args.warm:
            commands["plain loop, in-process"] = ([sys.executable, "-c", PLAIN, str(data)], HERE, "in-process")
            for name, tree in trees.items():
                commands[f"warm, 2 workers, in-process ({name})"] = (
                    [sys.executable, "-c", WARM, str(args.items)], tree, "in-process")
        seconds: dict[str, list[float]] = {name: [] for name in commands}
        shares: dict[str, float] = {}
        for _ in range(args.rounds):
            for name, (command, tree, timed) in commands.items():
                wall, out = run(command, tree)
                report = json.loads(out.strip().splitlines()[-1]) if timed == "in-process" else {}
                seconds[name].append(report.get("seconds", wall))
                if "decided_here" in report:
                    shares[name] = report["decided_here"]
    plain = {timed: seconds[name] for name, timed in BASELINES.items() if name in seconds}  # what is timed -> rounds
    print(f"{'case':58} {'median s':>9} {'items/s':>8} {'x plain':>8}   rounds")
    for name, values in seconds.items():
        median = statistics.median(values)
        base = statistics.median(plain[commands[name][2]])
        print(f"{name:58} {median:9.2f} {args.items / median:8.1f} {base / median:8.2f}   "
              + ", ".join(f"{v:.2f}" for v in values))
    for name, values in seconds.items():
        if name in BASELINES:
            continue
        ratios = [b / v for b, v in zip(plain[commands[name][2]], values)]
        interval = paired_t_interval([math.log(r) for r in ratios])
        if interval is not None:
            mean, low, high = interval
            print(f"x plain round by round, {name}: {math.exp(mean):.2f}x (95% interval {math.exp(low):.2f}x to "
                  f"{math.exp(high):.2f}x): " + ", ".join(f"{r:.2f}" for r in ratios))
    for name, share in shares.items():
        print(f"decided in the calling process, {name}: {100 * share:.1f}%")


if __name__ == "__main__":
    main()
