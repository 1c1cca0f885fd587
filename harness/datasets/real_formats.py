"""The ``real-formats`` set built from its four public sources: real completions in the formats models write, each
labelled as its source graded it (the set's SOURCE.md gives the sources, strides and labels).

- zero-shot chain of thought (kojima-takeshi188/zero_shot_cot's logs, text-davinci-002): "Therefore, the answer
  (arabic numerals) is N", labelled by the source's string comparison of its extracted prediction with the gold
  answer (a gold answer written with thousands commas relabelled, as the comparison could never match it);
- ToRA-70B on GSM8K (microsoft/ToRA): code, its output block and prose, labelled by the recorded prediction
  against the recorded gold answer as numbers;
- GAOKAO-Bench's GPT-4 answers (OpenLMLab/GAOKAO-Bench): Chinese answer markers, multiple choice labelled by the
  source's own letter comparison, fill-in-the-blank by GPT-4-1106's marks (full marks right, none wrong, partial
  marks left out);
- ZeroEval's JSON answers (yuchenlin/ZeroEval, gemma-2-2b-it and Mistral-Nemo), labelled by ZeroEval's rule:
  the answer field's first number against the gold answer's, as floats.

Every source is kept in its order and thinned by a fixed stride: the build is deterministic, and its bytes are
checked by their git blob SHA-1 like every other derived file (``harness/data/data_sources.yaml``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

_HERE = "verifier/real_formats/originals"

# one record of a zero-shot-CoT log, as its main.py printed it
_ZSCOT_RECORD = re.compile(
    r"^(\d+)(?:st|nd|rd|th) data\n1_th_sampling\nQ: (.*?)\nA: (.*?)\npred_before : .*?\n"
    r"pred_after : (.*?)\npred_list : .*?\npred_mode : (.*?)\nGT : (.*?)$", re.S)
_ZSCOT_SEPARATOR = re.compile(r"\n\*{25}\n\*{25}\n|\n\*{25}\n")
_MONEY = re.compile(r"\$\s?\d")
_FIRST_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def _item(item_id: str, source: str, question: str, reference: str, completion: str, label: bool,
          form: str) -> dict[str, Any]:
    return {"id": item_id, "source": source, "question": question, "reference": reference,
            "completion": completion, "label": label, "format": form}


def zero_shot_cot(root: Path, name: str, dataset: str, stride: int) -> Iterator[dict[str, Any]]:
    text = (root / _HERE / "zero_shot_cot" / name).read_text(encoding="utf-8")
    for block in _ZSCOT_SEPARATOR.split(text):
        found = _ZSCOT_RECORD.search(block)
        if found is None:
            continue
        number, question, completion, predicted, _, gold = found.groups()
        index = int(number) - 1
        if index % stride:
            continue
        predicted, gold = predicted.strip(), gold.strip()
        label = predicted == gold or predicted == gold.replace(",", "")
        form = "answer-is-dollar" if _MONEY.search(completion) else "answer-is"
        yield _item(f"zscot-{dataset}-{index:04d}", f"kojima-takeshi188/zero_shot_cot log/{name}", question.strip(),
                    gold, completion, label, form)


def _same_number(a: Any, b: Any) -> bool:
    try:
        return abs(float(str(a).replace(",", "")) - float(str(b).replace(",", ""))) < 1e-4
    except ValueError:
        return str(a).strip() == str(b).strip()


def tora(root: Path, name: str, stride: int) -> Iterator[dict[str, Any]]:
    with (root / _HERE / "tora" / name).open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record["idx"] % stride:
                continue
            yield _item(f"tora70b-gsm8k-{record['idx']:04d}",
                        "microsoft/ToRA src/outputs/llm-agents/tora-70b-v1.0/gsm8k/" + name.split("_gsm8k_")[1],
                        record["question"], record["gt"], record["code"][0],
                        bool(_same_number(record["pred"][0], record["gt"])), "tora-boxed")


def _gaokao(root: Path, name: str) -> list[dict[str, Any]]:
    return json.loads((root / _HERE / "gaokao_bench" / name).read_text(encoding="utf-8"))["example"]


def gaokao_choice(root: Path, name: str, tag: str, stride: int) -> Iterator[dict[str, Any]]:
    for record in _gaokao(root, name):
        if record["index"] % stride:
            continue
        yield _item(f"gaokao-{tag}-mcq-{record['index']:03d}", f"OpenLMLab/GAOKAO-Bench Results/gpt_4_0314_obj/{name}",
                    record["question"], "".join(record["standard_answer"]), record["model_output"],
                    record["model_answer"] == record["standard_answer"], "zh-mcq-letter")


def gaokao_blank(root: Path, name: str, tag: str) -> Iterator[dict[str, Any]]:
    for record in _gaokao(root, name):
        marks, full = record["model_correction_score"], float(record["score"])
        if not marks or len(marks) != 1 or marks[0] not in (0.0, full):
            continue  # partial credit: neither right nor wrong
        yield _item(f"gaokao-{tag}-fill-{record['index']:03d}",
                    "OpenLMLab/GAOKAO-Bench Results/gpt_4_0314_sub/"
                    f"gpt-4-1106-preview_correction_wo_marking_criterion/{name}",
                    record["question"], record["standard_answer"].strip(), record["model_output"], marks[0] == full,
                    "zh-marker")


def _first_object(text: str) -> Any:
    """The first balanced top-level ``{...}`` of ``text``, read as JSON once its newlines are dropped."""
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                try:
                    return json.loads(text[start : i + 1].replace("\n", ""))
                except json.JSONDecodeError:
                    return None
    return None


_ANSWER_FIELDS = (r'"answer"\s*:\s*"([^"]*?)"', r'"answer"\s*:\s*"(.*?)"', r'"answer"\s*:\s*([^,\s]*)',
                  r'answer\s*:\s*([^,\s]*)')


def _answer_field(output: str) -> str | None:
    parsed = _first_object(output)
    if isinstance(parsed, dict) and "answer" in parsed:
        return str(parsed["answer"])
    for pattern in _ANSWER_FIELDS:
        found = re.search(pattern, output, re.S)
        if found:
            return found.group(1)
    return None


def _plain(value: str) -> str:
    value = value.replace("$", "").strip().replace(",", "")
    fraction = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*/\s*(-?\d+(?:\.\d+)?)\s*", value)
    if fraction and float(fraction.group(2)) != 0:
        value = str(float(fraction.group(1)) / float(fraction.group(2)))
    return value


def zeroeval_right(output: str, gold: str) -> bool:
    """ZeroEval's math rule: the answer field's first number equals the gold answer's, as floats."""
    answer = _answer_field(output)
    if answer is None:
        return False
    ours, theirs = _FIRST_NUMBER.search(_plain(answer)), _FIRST_NUMBER.search(_plain(gold.replace("#", "").strip()))
    return bool(ours and theirs and float(ours.group()) == float(theirs.group()))


def zeroeval(root: Path, model: str, form: str, stride: int) -> Iterator[dict[str, Any]]:
    records = json.loads((root / _HERE / "zeroeval" / f"{model}.json").read_text(encoding="utf-8"))
    for k, record in enumerate(records):
        if k % stride:
            continue
        output = record["output"][0]
        yield _item(f"zeroeval-{model}-gsm-{k:04d}", f"yuchenlin/ZeroEval result_dirs/gsm/{model}.json",
                    record["question"], record["answer"].replace("#", "").strip(), output,
                    zeroeval_right(output, record["answer"]), form)


def real_formats(root: Path, args: Mapping[str, Any]) -> list[str]:
    """The set's items in its order: zero-shot CoT (GSM8K, MultiArith), ToRA, GAOKAO multiple choice and
    fill-in-the-blank (Math I, Math II), ZeroEval (gemma, Mistral-Nemo)."""
    def parts() -> Iterator[dict[str, Any]]:
        yield from zero_shot_cot(root, "gsm8k_zero_shot_cot.log", "gsm8k", 5)
        yield from zero_shot_cot(root, "multiarith_zero_shot_cot.log", "multiarith", 5)
        yield from tora(root, "tora-70b-v1.0_gsm8k_test_tora_-1_seed0_t0.0_s0_e1319.jsonl", 6)
        for tag, paper in (("math1", "I"), ("math2", "II")):
            yield from gaokao_choice(root, f"gpt-4-0314_2010-2022_Math_{paper}_MCQs.json", tag, 3)
        for tag, paper in (("math1", "I"), ("math2", "II")):
            name = f"gpt-4-0314_2010-2022_Math_{paper}_Fill-in-the-Blank_wo_marking_criterion.json"
            yield from gaokao_blank(root, name, tag)
        yield from zeroeval(root, "gemma-2-2b-it", "json", 5)
        yield from zeroeval(root, "Mistral-Nemo-Instruct-2407", "json-chat-remnant", 5)

    return [json.dumps(item, ensure_ascii=False) + "\n" for item in parts()]
