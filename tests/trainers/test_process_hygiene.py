"""Process hygiene: SIGTERM to ``harness train --trainer openrlhf`` stops its reward server and its launcher's whole
process group, marks the run interrupted with the cause and prints a message; a run whose process died without
ending it is shown as such."""

import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx

from harness.core.store import NewRun, RunStatus, RunStore


def _pids_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _wait(predicate, what: str, tries: int = 600):
    for _ in range(tries):  # a guard against a hang, in steps of 0.5 s; the test orders by events, not time
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"never happened: {what}")


def test_sigterm_stops_server_and_launcher_and_marks_the_run(tmp_path, data_root):
    marker = f"launcher-{uuid.uuid4().hex[:8]}"
    store_path = tmp_path / "s.sqlite"
    # the launcher stands in for OpenRLHF (no GPU here) and starts a child of its own, as Ray does
    launcher = f"{sys.executable} -c \"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', " \
               f"'import time; time.sleep(600)', '{marker}']); time.sleep(600)\" {marker}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "--store", str(store_path), "train", "--trainer", "openrlhf",
         "--reward", "rule", "--dataset", "gsm8k", "--limit", "2", "--output", str(tmp_path / "out"),
         "--launcher", launcher], stderr=subprocess.PIPE, text=True)
    try:
        _wait(lambda: len(_pids_with(marker)) >= 2, "the launcher and its child started")
        [run] = RunStore(store_path).runs(kind="train")
        port = int(next(p for p in _server_cmdlines() if str(store_path) in p).split("--port")[1].split()[0])
        assert httpx.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=120) == 143
        stderr = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "stopped: terminated by SIGTERM" in stderr and "Traceback" not in stderr
    _wait(lambda: not _pids_with(marker), "the launcher's group stopped", tries=40)
    assert not any(str(store_path) in p for p in _server_cmdlines())  # the reward server stopped
    record = RunStore(store_path).get(run.id)
    assert record.status is RunStatus.INTERRUPTED and record.error == "terminated by SIGTERM"


def _server_cmdlines() -> list[str]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if " harness " in cmd and " serve " in cmd:
                out.append(cmd)
    return out


def test_a_run_whose_process_died_is_shown_as_such(tmp_path):
    from click.testing import CliRunner

    from harness.cli import main

    store_path = tmp_path / "s.sqlite"
    code = ("import os, sys; from harness.core.store import NewRun, RunStore; "
            "RunStore(sys.argv[1]).begin(NewRun('reward-eval', 'rule', 'sample', 'x', '', 1, {}, {})); os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(store_path)], check=True)
    mine = RunStore(store_path).begin(NewRun("reward-eval", "rule", "sample", "x", "", 1, {}, {}))  # alive: this one
    records = {r.id: r for r in RunStore(store_path).runs()}
    [dead] = [r for i, r in records.items() if i != mine]
    assert dead.orphaned and dead.status_text == "running (process gone)" and not records[mine].orphaned
    listed = CliRunner().invoke(main, ["--store", str(store_path), "runs", "--format", "csv"]).output
    assert f"{dead.id},running (process gone)" in listed and f"{mine},running," in listed
