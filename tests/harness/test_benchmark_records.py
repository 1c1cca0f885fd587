"""The speed figures of docs/results.md are recomputed from the benchmark's own printed output, kept beside them."""

from __future__ import annotations

import math
import re
import statistics
from pathlib import Path

import pytest

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "eval-command-2026-11-28"
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results.md"
T_975 = {4: 2.776, 9: 2.262}
# case, median s, items/s, x plain, then each round's seconds: the benchmark's own line format
_ROW = re.compile(r"(?P<case>\S.*?)\s+(?P<median>[\d.]+)\s+[\d.]+\s+(?P<ratio>[\d.]+)   (?P<rounds>[\d., ]+)")  # Student's t, two-sided 95%, by degrees of freedom


def _rows(name: str) -> dict[str, tuple[float, float, list[float]]]:
    """Each case of a run: (median s, x plain, the rounds' seconds)."""
    rows = {}
    for line in (RECORDS / name).read_text().splitlines()[1:]:
        row = _ROW.fullmatch(line)
        if row is not None:
            rows[row["case"]] = (float(row["median"]), float(row["ratio"]),
                                 [float(v) for v in row["rounds"].split(",")])
    return rows


def _paired(names: list[str]) -> tuple[float, float, float, int]:
    """Mean of (this tree - 030a9a1) over the alternating pairs of the runs, its 95% t-interval, pairs faster."""
    diffs = []
    for name in names:
        rows = _rows(name)
        this = rows["harness eval --reward rule (this checkout)"][2]
        base = next(v for k, v in rows.items() if k.startswith("harness eval") and "this checkout" not in k)[2]
        diffs += [a - b for a, b in zip(this, base)]
    mean = statistics.mean(diffs)
    half = T_975[len(diffs) - 1] * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean, mean - half, mean + half, sum(d < 0 for d in diffs)


@pytest.mark.parametrize(("name", "ratios"), [
    ("run1-1f6430b.txt", ("4.24x / 4.14x", "9.73x** / 9.11x")),
    ("run2-418c207.txt", ("5.05x** / 4.62x", "8.35x** / 7.83x")),
    ("run3-418c207.txt", ("4.91x / 4.78x", "8.89x** / 9.33x")),
    ("run4-f9ba523.txt", ("4.07x / 4.15x", "8.02x** / 8.93x")),
])
def test_each_table_row_is_the_runs_output(name, ratios):
    rows = _rows(name)
    command = [v[1] for k, v in rows.items() if k.startswith("harness eval")]
    warm = [v[1] for k, v in rows.items() if k.startswith("warm")]
    assert ratios[0].replace("**", "") == f"{command[0]:.2f}x / {command[1]:.2f}x"
    assert ratios[1].replace("**", "") == f"{warm[0]:.2f}x / {warm[1]:.2f}x"
    text = RESULTS.read_text()
    assert f"{command[0]:.2f}x" in text and f"{command[1]:.2f}x" in text


def test_the_paired_intervals_are_those_of_the_runs():
    text = " ".join(RESULTS.read_text().split())  # sentences run across lines
    mean, low, high, faster = _paired(["run1-1f6430b.txt"])
    assert f"saved {-mean:.2f} s (interval {-high:.2f} to {-low:.2f} s" in text
    mean, low, high, faster = _paired(["run2-418c207.txt"])
    assert faster == 5 and f"by {-mean:.2f} s on average (95% t-interval {-high:.2f} to {-low:.2f} s" in text
    mean, low, high, faster = _paired(["run2-418c207.txt", "run3-418c207.txt"])
    assert faster == 7 and f"{-mean:.2f} s on average, with a 95% t-interval of {-high:.2f} to {-low:.2f} s" in text
    mean, low, high, faster = _paired(["run4-f9ba523.txt"])
    assert faster == 3 and f"by {-mean:.2f} s on average (interval {-high:.2f} to {-low:.2f} s)" in text
