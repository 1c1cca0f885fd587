"""latex2sympy's parse of real answers from a cold start, as a rule-reward worker meets them: plain LL prediction
(latex2sympy as shipped) against the two-stage parse of ``rewards/math/prediction.py``, each in a fresh
process (ANTLR's prediction cache starts empty in a worker), alternately, ``--rounds`` times. The answers are
``suites.answers.real_answers``, which the parse's differential test reads too. Prints the medians and their ratio;
one run, one machine.

    HARNESS_DATA_ROOT=../shared/data python -m benchmarks.parse_stages [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from suites.answers import real_answers

HERE = Path(__file__).resolve().parents[1]

PARSE = """
import json, sys, time
if sys.argv[2] == "two-stage":
    from rewards.math.prediction import use_two_stage_prediction
    use_two_stage_prediction()
from latex2sympy2_extended.latex2sympy2 import latex2sympy
texts = json.load(open(sys.argv[1], encoding="utf-8"))
start = time.perf_counter()
failed = 0
for text in texts:
    try:
        latex2sympy(text)  # with its own normalization: these are raw answers, not math-verify's cut
    except Exception:
        failed += 1
print(json.dumps({"seconds": time.perf_counter() - start, "failed": failed}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    texts = real_answers()
    seconds: dict[str, list[float]] = {"plain LL": [], "two-stage": []}
    failures: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "answers.json"
        data.write_text(json.dumps(texts), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(HERE)}
        for _ in range(args.rounds):
            for name in seconds:
                done = subprocess.run([sys.executable, "-c", PARSE, str(data), name], check=True, capture_output=True,
                                      text=True, cwd=HERE, env=env)
                report = json.loads(done.stdout.strip().splitlines()[-1])
                seconds[name].append(report["seconds"])
                failures[name] = report["failed"]
    base = statistics.median(seconds["plain LL"])
    print(f"{len(texts)} distinct real answers, each parse from a cold start")
    print(f"{'parse':12} {'median s':>9} {'x plain':>8} {'failed':>7}   rounds")
    for name, values in seconds.items():
        median = statistics.median(values)
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:12} {median:9.2f} {base / median:8.2f} {failures[name]:7d}   {rounds}")


if __name__ == "__main__":
    main()
