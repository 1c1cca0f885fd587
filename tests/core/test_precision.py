"""dtype=auto: chosen from measured matmul rates on a CPU, from bfloat16 support on a GPU; progress lines in logs."""

import logging
from types import SimpleNamespace

import pytest
import torch

from harness.core.precision import PrecisionChooser, matmul_rates
from harness.core.progress import ProgressLog


def chooser(float32, bfloat16):
    calls = []

    def probe(torch_module):
        calls.append(1)
        return {"float32": float32, "bfloat16": bfloat16}

    return PrecisionChooser(probe), calls


def test_auto_picks_bfloat16_where_the_cpu_runs_it_faster():
    fast, calls = chooser(float32=150.0, bfloat16=900.0)  # AMX / AVX-512 BF16
    choice = fast.choose("auto", "cpu", torch)
    assert choice.dtype == "bfloat16" and choice.bf16 and choice.rates["bfloat16"] == 900.0
    assert "bfloat16 900 GFLOP/s, float32 150 GFLOP/s" in choice.reason
    fast.choose("auto", "cpu", torch)
    assert calls == [1]  # measured once per process


def test_auto_keeps_float32_where_bfloat16_is_slow():
    slow, _ = chooser(float32=156.0, bfloat16=0.9)  # an EPYC without bfloat16 instructions
    assert slow.choose("auto", "cpu", torch).dtype == "float32"
    close, _ = chooser(float32=100.0, bfloat16=110.0)  # not enough faster to give up precision for
    assert close.choose("auto", "cpu", torch).dtype == "float32"


def test_a_forced_slow_bfloat16_runs_with_a_warning_giving_both_rates():
    slow, _ = chooser(float32=156.0, bfloat16=0.9)
    with pytest.warns(UserWarning, match=r"bfloat16 1 GFLOP/s, float32 156 GFLOP/s"):
        assert slow.choose("bfloat16", "cpu", torch).dtype == "bfloat16"
    fast, _ = chooser(float32=150.0, bfloat16=900.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fast.choose("bfloat16", "cpu", torch).dtype == "bfloat16"  # no warning where it is fast
    assert slow.choose("float32", "cpu", torch).reason == "requested"


def test_gpu_choice_follows_bfloat16_support_without_a_probe():
    never, calls = chooser(0.0, 0.0)
    for supported, expected in ((True, "bfloat16"), (False, "float32")):
        fake = SimpleNamespace(cuda=SimpleNamespace(is_bf16_supported=lambda s=supported: s))
        assert never.choose("auto", "cuda", fake).dtype == expected
    assert calls == []


def test_the_probe_runs_on_a_tiny_matmul():
    rates = matmul_rates(torch, size=16, seconds=0.0)
    assert set(rates) == {"float32", "bfloat16"} and all(r > 0 for r in rates.values())


def test_progress_lines_at_a_steady_interval():
    now = [0.0]
    lines = []
    progress = ProgressLog("train-rm", "steps", interval_s=30.0, clock=lambda: now[0], emit=lines.append)
    for step in range(1, 101):
        now[0] = step * 1.0  # one step a second
        progress.update(step, 100)
    assert lines[0] == "train-rm: 30/100 steps (1.00/s, about 70 s left)"
    assert len(lines) == 4 and lines[-1] == "train-rm: 100/100 steps (1.00/s, 1.7 min in all)"


def test_a_step_longer_than_the_interval_still_gets_a_line_within_it():
    """A judge's first batch of eight generations can take minutes on a CPU: the heartbeat writes a line while it
    runs, with the progress so far, and never more than one an interval (the clock is the test's; the heartbeat
    looks every 10 ms)."""
    import time

    now = [0.0]
    lines = []
    progress = ProgressLog("eval: scoring", "items", interval_s=30.0, clock=lambda: now[0], emit=lines.append)

    def wait_for(n):
        deadline = time.monotonic() + 10.0
        while len(lines) < n and time.monotonic() < deadline:
            time.sleep(0.01)

    with progress.heartbeat(every_s=0.01):
        progress.update(0, 42)
        now[0] = 31.0  # the one long step: no update() while it runs
        wait_for(1)
        assert lines == ["eval: scoring: 0/42 items (0.00/s)"]
        time.sleep(0.1)
        assert len(lines) == 1  # within the interval: no second line
        now[0] = 62.0
        wait_for(2)
        assert len(lines) == 2
    now[0] = 200.0
    time.sleep(0.1)
    assert len(lines) == 2  # the thread stopped with the block


def test_commands_write_progress_lines_when_no_terminal_is_attached(tmp_path):
    from click.testing import CliRunner

    from harness.cli import main

    logging.getLogger("harness").handlers.clear()
    result = CliRunner().invoke(main, ["--store", str(tmp_path / "s.sqlite"), "eval", "--reward", "rule:workers=1",
                                       "--suite", "sample", "--batch-size", "8"])
    assert result.exit_code == 0, result.output
    assert "eval: scoring: 42/42 items (" in result.stderr
