"""Files in the columns of Cooper's released VerifyRM data: ``question``, ``reference_answer``, ``completion``,
``label``, as jsonl or parquet. The one reader of them: reward-model training needs the label, hybrid labelling
reads the triples with or without it."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.items import Item
from harness.core.optional import require
from suites.contract import LabelledItem
from suites.jsonl import as_label, as_text
from suites.loading import DataError, resolve_data_path

COOPER_COLUMNS = ("question", "reference_answer", "completion", "label")


def _records(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        return require("pyarrow.parquet", "reading parquet data").read_table(path).to_pylist()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    raise DataError(f"{path}: expected a .jsonl or .parquet file with the columns {', '.join(COOPER_COLUMNS)}")


def read_cooper_file(path: str, *, labels: bool = True, limit: int | None = None) -> list[LabelledItem]:
    """The file's rows as labelled items (category: the file's name). With ``labels=False`` the label column may
    be missing or empty, and such rows carry ``label=None``."""
    resolved = resolve_data_path(path)
    needed = COOPER_COLUMNS if labels else COOPER_COLUMNS[:3]
    out = []
    for i, rec in enumerate(_records(resolved)[:limit] if limit else _records(resolved)):
        missing = [c for c in needed if c not in rec]
        if missing:
            raise DataError(f"{resolved}: row {i} lacks {', '.join(missing)}; the file needs the columns "
                            f"{', '.join(needed)}")
        item = Item(as_text(rec["question"]), as_text(rec["reference_answer"]), as_text(rec["completion"]))
        label = as_label(rec["label"]) if rec.get("label") is not None else None
        out.append(LabelledItem(item, label, resolved.name))
    return out
