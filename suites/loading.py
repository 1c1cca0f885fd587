"""Finding and reading suite data: the data root, local jsonl files or folders, Hugging Face datasets.

The data root is ``$HARNESS_DATA_ROOT`` when set, else the first existing of ``./shared/data`` and
``../shared/data`` (the layout of a checkout next to its shared data). Relative ``--data`` paths are tried
as given, then under the data root; a miss names every place that was looked at.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from harness.core.errors import UserError
from harness.core.optional import require

DATA_ROOT_ENV = "HARNESS_DATA_ROOT"
PACKAGE_PREFIX = "package:"


class DataError(UserError, ValueError):
    """Suite data is missing or malformed; the message says where and what to fix."""


def data_root_candidates() -> list[Path]:
    env = os.environ.get(DATA_ROOT_ENV)
    if env:
        return [Path(env).expanduser()]
    cwd = Path.cwd()
    return [cwd / "shared" / "data", cwd.parent / "shared" / "data"]


def data_root() -> Path | None:
    """The data root, or None when no candidate exists."""
    for candidate in data_root_candidates():
        if candidate.is_dir():
            return candidate
    return None


def resolve_data_path(path: str | os.PathLike[str], option: str = "--data") -> Path:
    """An existing file or folder for ``path``: as given, else under the data root. ``option`` is the command's
    option that gave the path, which the error names."""
    given = Path(path).expanduser()
    tried = [given.resolve()]
    if given.exists():
        return given
    if not given.is_absolute():
        for root in data_root_candidates():
            candidate = root / given
            tried.append(candidate.resolve())
            if candidate.exists():
                return candidate
    looked = "\n  ".join(str(t) for t in tried)
    raise DataError(
        f"data not found: {path}\nlooked in:\n  {looked}\n"
        f"Give an existing file or folder with {option}, or set {DATA_ROOT_ENV} to the folder that holds it; "
        "`harness data fetch` downloads the public sets into the data root."
    )


@dataclass(frozen=True)
class Records:
    rows: list[dict[str, Any]]
    source: str
    content_hash: str
    origins: tuple[str, ...] = ()  # "file:line" of each row, for messages that point where an editor can go

    def where(self, index: int) -> str:
        """Where row ``index`` is: ``file:line`` (lines counted from 1, as editors and JSON errors count them), or
        the record's number from 1 when the source has no lines."""
        return self.origins[index] if index < len(self.origins) else f"{self.source}, record {index + 1}"


def _jsonl_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix == ".jsonl")
    if not files:
        raise DataError(f"no .jsonl files directly inside {path}; give a .jsonl file or a folder of them")
    return files


def iter_jsonl(path: Path, digest: Any = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number from 1, object) for each non-blank line; a line that is not a JSON object is a
    :class:`DataError` naming the file and the line. ``digest`` (a hashlib object) takes in every byte read."""
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if digest is not None:
                digest.update(raw)
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one object") from None
            if not isinstance(record, dict):
                raise DataError(f"{path}:{lineno}: expected a JSON object, got {type(record).__name__}")
            yield lineno, record


def read_local(path: str | os.PathLike[str]) -> Records:
    """Rows of a jsonl file, or of every ``*.jsonl`` directly in a folder (in name order)."""
    if str(path).startswith(PACKAGE_PREFIX):
        return read_packaged(str(path)[len(PACKAGE_PREFIX) :])
    resolved = resolve_data_path(path)
    digest = hashlib.sha256()
    rows: list[dict[str, Any]] = []
    origins: list[str] = []
    for file in _jsonl_files(resolved):
        for lineno, record in iter_jsonl(file, digest):
            rows.append(record)
            origins.append(f"{file}:{lineno}")
    return Records(rows, str(resolved), "sha256:" + digest.hexdigest(), tuple(origins))


def read_packaged(name: str) -> Records:
    """A jsonl file shipped inside the ``suites`` package (``suites/data/NAME``)."""
    resource = resources.files("suites") / "data" / name
    if not resource.is_file():
        raise DataError(f"no packaged suite data named {name!r} (looked in suites/data)")
    data = resource.read_bytes()
    digest = hashlib.sha256(data)
    rows, origins = [], []
    for lineno, line in enumerate(data.decode("utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DataError(f"packaged {name}:{lineno}: not valid JSON ({exc.msg})") from None
            origins.append(f"packaged {name}:{lineno}")
    return Records(rows, PACKAGE_PREFIX + name, "sha256:" + digest.hexdigest(), tuple(origins))


def read_hub(dataset: str, split: str, config: str | None = None) -> Records:
    """Rows of a Hugging Face dataset split (needs the ``hub`` extra and network or a local HF cache)."""
    datasets = require("datasets", f"loading {dataset} from the Hugging Face hub")
    try:
        ds = datasets.load_dataset(dataset, config, split=split)
    except Exception as exc:  # the hub raises many types; all mean "could not load it"
        raise DataError(
            f"could not load {dataset!r} split {split!r} from the Hugging Face hub: {exc}\n"
            "Without hub access, pass a local copy with --data FILE_OR_FOLDER."
        ) from exc
    rows = [dict(r) for r in ds]
    # our own digest of what was read, not datasets' private fingerprint: it names the data, not how it was cached
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True, default=str).encode())
    return Records(rows, f"hf:{dataset}[{split}]", "sha256:" + digest.hexdigest())
