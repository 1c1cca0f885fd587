"""The experiment trackers, read back with their own formats: TensorBoard's reader for its event files; W&B's
offline run file, read as W&B writes it (its record log of protobuf ``Record`` messages)."""

import json
import os
import signal
import struct
from contextlib import contextmanager
from pathlib import Path

import pytest

from trainers.trackers import PREFIX, open_tracker

STEPS = {1: {"train_reward": 0.5, "rule_accuracy": 0.25}, 2: {"train_reward": 0.75, "rm_valid_pairs": 3.0}}


def tensorboard_scalars(folder: Path) -> dict[tuple[str, int], float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder / "tensorboard"))
    events.Reload()
    return {(tag, e.step): e.value for tag in events.Tags()["scalars"] for e in events.Scalars(tag)}


def wandb_history(folder: Path) -> dict[tuple[str, int], float]:
    """The history records of the offline run: W&B's record log (a 7-byte file header, then 32 KiB blocks of
    records, each a 7-byte header of checksum, length and type, full or in pieces) of ``Record`` messages."""
    from wandb.proto import wandb_internal_pb2

    [path] = (folder / "wandb" / "wandb").glob("offline-run-*/run-*.wandb")
    data, pos, piece, out = path.read_bytes(), 7, b"", {}
    assert data[:4] == b":W&B"
    while pos + 7 <= len(data):
        if 32768 - pos % 32768 < 7:
            pos += 32768 - pos % 32768
            continue
        _, length, kind = struct.unpack("<IHB", data[pos : pos + 7])
        if (length, kind) == (0, 0):
            break
        piece += data[pos + 7 : pos + 7 + length]
        pos += 7 + length
        if kind in (1, 4):  # a full record, or the last piece of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(piece)
            piece = b""
            if record.WhichOneof("record_type") == "history":
                items = {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in record.history.item}
                out.update({(k, items["_step"]): v for k, v in items.items() if k.startswith(PREFIX)})
    return out


READERS = {"tensorboard": tensorboard_scalars, "wandb": wandb_history}


def child_pids() -> list[int]:
    """This process's children (W&B's service is one)."""
    import psutil  # W&B's own dependency: there whenever W&B is

    return [child.pid for child in psutil.Process().children()]


@contextmanager
def frozen(pids: list[int]):
    """Stop these processes while the block runs: whatever they had not written when it began stays unwritten."""
    stopped = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        except ProcessLookupError:  # it has exited: nothing of it is left to write
            pass
    try:
        yield
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_tracker_holds_each_steps_numbers(name, tmp_path, monkeypatch):
    """Each run of a process (a sweep opens several) is whole on disk when its tracker's close() returns."""
    pytest.importorskip(name)
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    monkeypatch.delenv("WANDB_MODE", raising=False)
    monkeypatch.chdir(tmp_path)  # W&B writes settings beside the working folder
    expected = {(PREFIX + k, step): v for step, values in STEPS.items() for k, v in values.items()}
    for run in range(8):
        tracker = open_tracker(name, tmp_path / f"out{run}", f"run-{run}")
        for step, values in STEPS.items():
            tracker.log(step, values)
        helpers = child_pids()  # W&B writes its run file in a service process of its own
        tracker.close()
        with frozen(helpers):  # so the file must be whole when close() returns, not a moment later
            written = READERS[name](tmp_path / f"out{run}")
        assert written == pytest.approx(expected), f"run {run}"


def test_an_unknown_tracker_is_refused(tmp_path):
    with pytest.raises(ValueError, match="tensorboard or wandb"):
        open_tracker("mlflow", tmp_path, "run")


def test_tensorboard_steps_reach_disk_as_they_are_logged(tmp_path):
    """A live TensorBoard reads a run while it trains, and a run killed part-way keeps the steps it logged: each
    step is on disk when ``log`` returns, not when ``close`` does (the writer otherwise holds up to 10 events or
    2 minutes). Read before closing, with TensorBoard's own reader."""
    pytest.importorskip("tensorboard")
    tracker = open_tracker("tensorboard", tmp_path, "run")
    try:
        for step, values in STEPS.items():
            tracker.log(step, values)
            written = tensorboard_scalars(tmp_path)
            assert {(PREFIX + k, step): v for k, v in values.items()}.items() <= written.items(), f"step {step}"
    finally:
        tracker.close()
