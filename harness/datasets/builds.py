"""The derived files of the data root, built from the upstream files they join, as their SOURCE.md describes.

A derived file is made here, never downloaded: only the public upstream files travel, and each build writes the
same bytes the published copy has (checked by its git blob SHA-1 in ``harness/data/data_sources.yaml``). Each builder reads its
inputs by their place under the data root and returns the lines to write.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness.datasets.fixtures import lighteval_fixtures, math_verify_fixtures, unittest_fixtures
from harness.datasets.real_formats import real_formats

Builder = Callable[[Path, Mapping[str, Any]], list[str]]


def _line(record: Mapping[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def processbench_gsm8k(root: Path, args: Mapping[str, Any]) -> list[str]:
    """ProcessBench's gsm8k solutions with GSM8K test's final answer (the text after the last ``####``), joined
    on the problem text with whitespace collapsed."""
    source = args["reference"]
    by_text: dict[str, tuple[int, str]] = {}
    for index, record in enumerate(_jsonl(root / source["path"])):
        by_text.setdefault(_collapsed(record["question"]), (index, record["answer"].split("####")[-1].strip()))
    out = []
    for record in json.loads((root / args["original"]).read_text(encoding="utf-8")):
        index, answer = by_text[_collapsed(record["problem"])]
        out.append(_line({**record, "reference_answer": answer, "reference_source": {
            "repo": source["repo"], "commit": source["commit"], "path": source["source"], "line_index": index,
            "field": "answer (text after the last '####', stripped)"}}))
    return out


def processbench_math(root: Path, args: Mapping[str, Any]) -> list[str]:
    """ProcessBench's MATH solutions with MARIO_EVAL's annotated answer of the same problem in the full MATH test
    set (and its human answer type), joined on the problem text with whitespace collapsed."""
    source = args["reference"]
    annotated = json.loads((root / source["path"]).read_text(encoding="utf-8"))
    by_text = {}
    for record in annotated:
        by_text.setdefault(_collapsed(record["question"]), record)
    out = []
    for record in json.loads((root / args["original"]).read_text(encoding="utf-8")):
        match = by_text[_collapsed(record["problem"])]
        out.append(_line({**record, "reference_answer": match["answer"],
                          "reference_answer_type_human": match["human_type"], "reference_source": {
                              "repo": source["repo"], "commit": source["commit"], "path": source["source"],
                              "index": int(match["index"]), "field": "answer"}}))
    return out


def mathcheck_outcome_judging(root: Path, args: Mapping[str, Any]) -> list[str]:
    """MathCheck-GSM's outcome-judging items, each with the answer of the solving item of its group and question
    variant (the same question text) as its reference."""
    items = json.loads((root / args["original"]).read_text(encoding="utf-8"))
    solving = {(i["group_id"], i["question_type"]): i for i in items if i["task_type"] == "solving"}
    out = []
    for item in items:
        if item["task_type"] != "outcome_judging":
            continue
        solved = solving[(item["group_id"], item["question_type"])]
        out.append(_line({
            "id": item["id"], "group_id": item["group_id"], "question_type": item["question_type"],
            "question": item["question"], "reference_answer": solved["answer"],
            "reference_answer_from_id": solved["id"], "solution": item["solution"],
            "label": item["answer"] == "Correct", "label_raw": item["answer"]}))
    return out


def verifybench_hard_subset(root: Path, args: Mapping[str, Any]) -> list[str]:
    """LongJudgeBench's VerifyBench-Hard records back in VerifyBench's own field names, the items joined with
    their human labels on ``id``; ``part`` picks one of ``parts`` equal pieces (each file stays under 4 MiB)."""
    labels = {r["id"]: r for r in _jsonl(root / args["labels"])}
    rows = []
    for record in _jsonl(root / args["items"]):
        gt, meta, response = labels[record["id"]], record["meta"], record["responses"][0]
        rows.append(_line({
            "question_id": meta["question_id"], "completion_id": meta["completion_id"],
            "question": record["instruction"], "answer": gt["answer"], "completion": response["content"],
            "completion_model": response["model"], "gold_correct": bool(gt["gold_correct"]),
            "answer_type": gt["answer_type"], "answer_subtype": gt["answer_subtype"], "source": gt["source"],
            "annotator": meta["annotators"]}))
    size = -(-len(rows) // args["parts"])
    return rows[(args["part"] - 1) * size : args["part"] * size]


BUILDERS: dict[str, Builder] = {
    "processbench_gsm8k": processbench_gsm8k,
    "processbench_math": processbench_math,
    "mathcheck_outcome_judging": mathcheck_outcome_judging,
    "verifybench_hard_subset": verifybench_hard_subset,
    "math_verify_fixtures": math_verify_fixtures,
    "lighteval_fixtures": lighteval_fixtures,
    "unittest_fixtures": unittest_fixtures,
    "real_formats": real_formats,
}
