"""Files in the columns of Cooper's released VerifyRM data: ``question``, ``reference_answer``, ``completion``,
``label``, as jsonl or parquet. The one reader of them: reward-model training needs the label, hybrid labelling
reads the triples with or without it."""

from __future__ import annotations

from pathlib import Path

from harness.core.items import Item
from harness.core.optional import require
from suites.contract import LabelledItem
from suites.jsonl import as_label, as_reference, as_text
from suites.loading import DataError, iter_jsonl, resolve_data_path

COOPER_COLUMNS = ("question", "reference_answer", "completion", "label")


def _records(path: Path) -> list[tuple[str, dict]]:
    """(where, record) pairs: ``line N`` of a jsonl (counted from 1, as an editor and ``harness validate`` count
    them; blank lines skipped), ``row N`` of a parquet table (from 1)."""
    if path.suffix == ".parquet":
        table = require("pyarrow.parquet", "reading parquet data").read_table(path).to_pylist()
        return [(f"row {n}", rec) for n, rec in enumerate(table, 1)]
    if path.suffix == ".jsonl":
        return [(f"line {n}", rec) for n, rec in iter_jsonl(path)]
    raise DataError(f"{path}: expected a .jsonl or .parquet file with the columns {', '.join(COOPER_COLUMNS)}")


def read_cooper_file(path: str, *, labels: bool = True, limit: int | None = None,
                     option: str = "--data") -> list[LabelledItem]:
    """The file's rows as labelled items (category: the file's name). With ``labels=False`` the label column may
    be missing or empty, and such rows carry ``label=None``. ``option`` names the command's option for errors."""
    resolved = resolve_data_path(path, option)
    needed = COOPER_COLUMNS if labels else COOPER_COLUMNS[:3]
    out = []
    records = _records(resolved)
    for where, rec in records[:limit] if limit else records:
        missing = [c for c in needed if c not in rec]
        if missing:
            raise DataError(f"{resolved}: {where} lacks {', '.join(missing)}; the file needs the columns "
                            f"{', '.join(needed)}")
        item = Item(as_text(rec["question"]), as_reference(rec["reference_answer"]), as_text(rec["completion"]))
        label = as_label(rec["label"]) if rec.get("label") is not None else None
        out.append(LabelledItem(item, label, resolved.name))
    return out
