"""The speed figures of docs/results.md are recomputed from the benchmark's own printed output, kept beside them."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from harness.core.uncertainty import paired_t_interval

RECORDS = Path(__file__).resolve().parents[2] / "docs" / "benchmarks" / "eval-command-2026-11-28"
VERL_CALL = RECORDS.parent / "eval-command-verl-call"
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results.md"
# case, median s, items/s, x plain, then each round's seconds: the benchmark's own line format
_ROW = re.compile(r"(?P<case>\S.*?)\s+(?P<median>[\d.]+)\s+[\d.]+\s+(?P<ratio>[\d.]+)   (?P<rounds>[\d., ]+)")


def _rows(name: str, folder: Path = RECORDS) -> dict[str, tuple[float, float, list[float]]]:
    """Each case of a run: (median s, x plain, the rounds' seconds)."""
    rows = {}
    for line in (folder / name).read_text().splitlines()[1:]:
        row = _ROW.fullmatch(line)
        if row is not None:
            rows[row["case"]] = (float(row["median"]), float(row["ratio"]),
                                 [float(v) for v in row["rounds"].split(",")])
    return rows


def _paired(names: list[str], folder: Path = RECORDS) -> tuple[float, float, float, int]:
    """Mean of (this tree - 030a9a1) over the alternating pairs of the runs, its 95% t-interval, pairs faster."""
    diffs = []
    for name in names:
        rows = _rows(name, folder)
        this = rows["harness eval --reward rule (this checkout)"][2]
        base = next(v for k, v in rows.items() if k.startswith("harness eval") and "this checkout" not in k)[2]
        diffs += [a - b for a, b in zip(this, base)]
    interval = paired_t_interval(diffs)
    assert interval is not None
    return (*interval, sum(d < 0 for d in diffs))


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


_COMMAND = "harness eval --reward rule (this checkout)"
_WARM = "warm, 2 workers, in-process (this checkout)"
_BARE = "plain loop, bare reference (not verl's call)"


def _geometric(ratios: list[float]) -> tuple[float, float, float]:
    """The geometric mean of per-round ratios with its 95% t-interval, as the benchmark prints it."""
    interval = paired_t_interval([math.log(r) for r in ratios])
    assert interval is not None
    return tuple(math.exp(v) for v in interval)  # type: ignore[return-value]


def _round_ratios(names: list[str], case: str, base: str) -> list[float]:
    ratios = []
    for name in names:
        rows = _rows(name, VERL_CALL)
        ratios += [b / v for b, v in zip(rows[base][2], rows[case][2])]
    return ratios


@pytest.mark.parametrize(("name", "command", "warm"), [
    ("run1-59d60bf.txt", "**6.94x**", "**12.19x**"),
    ("run2-59d60bf.txt", "**6.15x** / 5.19x", "**10.75x** / 11.35x"),
    ("run3-eaccfad.txt", "**5.86x** / 4.99x", "**14.29x** / 11.29x"),
    ("run4-eaccfad.txt", "**6.35x** / 5.94x", "**11.37x** / 11.42x"),
])
def test_each_verl_call_row_is_the_runs_output(name, command, warm):
    rows = _rows(name, VERL_CALL)
    commands = [f"{v[1]:.2f}x" for k, v in rows.items() if k.startswith("harness eval")]
    warms = [f"{v[1]:.2f}x" for k, v in rows.items() if k.startswith("warm")]
    assert command.replace("**", "").split(" / ") == commands
    assert warm.replace("**", "").split(" / ") == warms
    run = name.split("-")[0].removeprefix("run")
    plain = rows["plain math-verify loop"][0]
    commit = name.split("-")[1].removesuffix(".txt")
    assert f"| {run}: {commit} | {plain:.2f} s | {command} | {warm} |" in RESULTS.read_text()


def test_the_pooled_verl_call_ratios_are_those_of_the_runs():
    text = " ".join(RESULTS.read_text().split())
    runs = ["run2-59d60bf.txt", "run3-eaccfad.txt", "run4-eaccfad.txt"]
    command = _round_ratios(runs, _COMMAND, "plain math-verify loop")
    mean, low, high = _geometric(command)
    assert len(command) == 15 and low > 5
    assert (f"whole command: {mean:.2f}x** (95% interval {low:.2f}x to {high:.2f}x); "
            f"no round below {min(command):.2f}x") in text
    mean, low, high = _geometric(_round_ratios(runs, _WARM, "plain loop, in-process"))
    assert f"warm, 2 workers: {mean:.2f}x** (95% interval {low:.2f}x to {high:.2f}x)" in text
    bare = _round_ratios(runs[1:], _COMMAND, _BARE)
    mean, low, high = _geometric(bare)
    assert len(bare) == 10 and f"**{mean:.2f}x** (95% interval {low:.2f}x to {high:.2f}x)" in text
    mean, low, high, faster = _paired(runs, VERL_CALL)
    assert (f"faster in {faster} of 15 pairs, by {-mean:.2f} s on average "
            f"(95% t-interval {-high:.2f} to {-low:.2f} s)") in text


@pytest.mark.parametrize("name", ["run3-eaccfad.txt", "run4-eaccfad.txt"])
def test_the_printed_round_by_round_intervals_are_recomputed(name):
    """The benchmark's own interval lines agree with the rounds it printed (to the rounding of those rounds)."""
    text = (VERL_CALL / name).read_text()
    for case, base in [(_BARE, "plain math-verify loop"), (_COMMAND, "plain math-verify loop"),
                       (_WARM, "plain loop, in-process")]:
        line = next(x for x in text.splitlines() if x.startswith(f"x plain round by round, {case}:"))
        printed = [float(v) for v in re.findall(r"([\d.]+)x", line.split(": ", 1)[1])[:3]]
        assert all(abs(a - b) <= 0.02 * b for a, b in zip(printed, _geometric(_round_ratios([name], case, base))))
    results = " ".join(RESULTS.read_text().split())
    bare = next(x for x in text.splitlines() if x.startswith(f"x plain round by round, {_BARE}:"))
    mean, low, high = re.findall(r"([\d.]+)x", bare.split(": ", 1)[1])[:3]
    assert f"{mean}x" in results and f"{low}x to {high}x" in results


def test_the_bare_reference_calls_figures_are_named_where_they_appear():
    """The plain loop's figures of the bare-reference call (ProcessBench 91.5, VerifyBench-Hard 86.4), which read a
    reference in LaTeX without delimiters as nothing, are never shown as if they were verl's call: each paragraph
    or table that gives them names that call."""
    text = RESULTS.read_text(encoding="utf-8")
    blocks = re.split(r"\n\s*\n", text)
    for block in blocks:
        if re.search(r"\b(91\.50?|86\.39?|86\.4)\b", block) and re.search(r"plain (math-verify )?loop", block):
            assert "bare" in block, block[:300]
