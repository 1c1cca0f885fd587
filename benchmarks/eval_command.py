"""Whole commands, start-up included: ``harness eval --reward rule`` against a plain math-verify loop run as its
own Python command, on the same 2,000 real items (ProcessBench, MathCheck-GSM, the VerifyBench-Hard subset),
each command timed from launch to exit, alternately, ``--rounds`` times. Prints a table with the ratio of the
medians; one run, one machine.

    HARNESS_DATA_ROOT=../shared/data python -m benchmarks.eval_command [--items 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.workload import real_rows

PLAIN = """
import json, logging, sys
from math_verify import parse, verify
logging.getLogger("math_verify").setLevel(logging.ERROR)
rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
right = 0
for row in rows:
    try:
        right += bool(verify(parse(row["reference"]), parse(row["completion"]))) == row["label"]
    except BaseException:
        pass
print(f"plain loop: {right} of {len(rows)} agree with the labels")
"""


def write_items(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in real_rows(n):
            fh.write(json.dumps({"question": row.item.question, "reference": row.item.reference,
                                 "completion": row.item.completion, "label": row.label}) + "\n")


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "items.jsonl"
        write_items(data, args.items)
        commands = {
            "plain math-verify loop": [sys.executable, "-c", PLAIN, str(data)],
            "harness eval --reward rule": [sys.executable, "-m", "harness", "eval", "--reward", "rule",
                                           "--suite", "jsonl", "--data", str(data), "--store",
                                           str(Path(tmp) / "runs.sqlite"), "--format", "json"],
        }
        seconds: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, command in commands.items():
                seconds[name].append(timed(command))
    base = statistics.median(seconds["plain math-verify loop"])
    print(f"{'command':32} {'median s':>9} {'items/s':>8} {'x plain':>8}   rounds")
    for name, values in seconds.items():
        median = statistics.median(values)
        print(f"{name:32} {median:9.2f} {args.items / median:8.1f} {base / median:8.2f}   "
              + ", ".join(f"{v:.1f}" for v in values))


if __name__ == "__main__":
    main()
