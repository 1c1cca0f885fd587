"""Atomic checkpoints of a classifier with its optimizer: a folder that is either whole or absent.

Written to a temporary sibling, then swapped in with ``os.replace``; a crash at any point leaves the previous
checkpoint (or none), never a half-written one. Used by ``harness train-rm`` and the ``cooper`` reward.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

STATE = "state.json"
OPTIMIZER = "optimizer.pt"


def read_state(folder: Path) -> dict[str, Any] | None:
    path = Path(folder) / STATE
    return json.loads(path.read_text()) if path.is_file() else None


def write_checkpoint(folder: Path, classifier: Any, optimizer_states: dict[str, Any], state: dict[str, Any]) -> None:
    """Save model + tokenizer (``save_pretrained``), optimizer/scheduler states and ``state.json`` atomically."""
    folder = Path(folder)
    tmp = folder.with_name(f".{folder.name}.tmp")
    old = folder.with_name(f".{folder.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    classifier.model.save_pretrained(tmp)
    classifier.tokenizer.save_pretrained(tmp)
    classifier.torch.save(optimizer_states, tmp / OPTIMIZER)
    (tmp / STATE).write_text(json.dumps(state))  # last: its presence marks a complete folder
    shutil.rmtree(old, ignore_errors=True)
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)


def write_weights(folder: Path, classifier: Any) -> None:
    """Save model + tokenizer alone (no optimizer) atomically: a snapshot to score with, not to resume from."""
    folder = Path(folder)
    tmp = folder.with_name(f".{folder.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    classifier.model.save_pretrained(tmp)
    classifier.tokenizer.save_pretrained(tmp)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)


def weights_digest(folder: Path) -> str:
    """SHA-256 over the folder's weight files (``*.safetensors``, ``*.bin``), by name: the model's identity."""
    digest = hashlib.sha256()
    files = sorted(p for p in Path(folder).iterdir() if p.suffix in (".safetensors", ".bin"))
    if not files:
        raise FileNotFoundError(f"no weight files in {folder}")
    for path in files:
        digest.update(path.name.encode() + b"\0")
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def load_optimizer_states(folder: Path, torch: Any) -> dict[str, Any]:
    return torch.load(Path(folder) / OPTIMIZER, weights_only=False)
