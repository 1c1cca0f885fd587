"""Where triples to label come from: a file of Cooper's columns (labels optional) or a verifier suite."""

from __future__ import annotations

import json

from harness.labelling import Triple
from rewards.contract import Item
from suites import build_suite
from suites.jsonl import as_label, as_text
from suites.loading import DataError, resolve_data_path


def load_triples(input_file: str | None, suite_spec: str | None, data: str | None, limit: int | None) -> list[Triple]:
    if bool(input_file) == bool(suite_spec):
        raise DataError("give exactly one of --input FILE and --suite NAME")
    if suite_spec:
        rows = build_suite(suite_spec).load(data, limit).rows
        return [Triple(r.item, r.label) for r in rows]
    path = resolve_data_path(input_file)  # type: ignore[arg-type]
    if path.suffix == ".parquet":
        from harness.optional import require

        records = require("pyarrow.parquet", "reading parquet").read_table(path).to_pylist()
    else:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    triples = []
    for i, rec in enumerate(records[:limit]):
        try:
            item = Item(as_text(rec["question"]), as_text(rec["reference_answer"]), as_text(rec["completion"]))
        except KeyError as exc:
            raise DataError(f"{path}: row {i} lacks {exc}; triples need question, reference_answer, completion") from None
        gold = as_label(rec["label"]) if rec.get("label") is not None else None
        triples.append(Triple(item, gold))
    return triples
