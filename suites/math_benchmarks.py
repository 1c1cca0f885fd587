"""The math benchmarks for policy evaluation, normalised to (prompt, answer) records.

Each benchmark's files in ``../shared/data/math`` have their own fields and quirks (GSM8K's ``####``, SVAMP's
body + question and float answers, OlympiadBench's answer lists, Math Odyssey's one-problem-per-key lines and
trailing LaTeX, AIME's zero-padded answers, Minerva's answer inside the solution's last box). What YAML cannot
say lives here; the task definitions themselves are lm-eval YAML (``harness/tasks``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.answers import boxed_answers, gsm8k_final
from suites.loading import DataError, resolve_data_path
from suites.math_data import PROMPT_SUFFIX, load_problems


def _number(value: Any) -> str:
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else text


def _odyssey_answer(answer: str) -> str:
    text = answer.strip()
    for tail in ("\\noindent", "\\\\"):
        while text.endswith(tail):
            text = text[: -len(tail)].strip()
    return text.strip("$ ")


def _odyssey_records(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            for value in json.loads(line).values():  # {"Problem_N": {...}}; some values are dict reprs
                yield value if isinstance(value, dict) else ast.literal_eval(value)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


@dataclass(frozen=True)
class Benchmark:
    files: tuple[str, ...]
    question: Callable[[dict[str, Any]], str]
    answer: Callable[[dict[str, Any]], str]
    reader: Callable[[Path], Iterator[dict[str, Any]]] = _jsonl


BENCHMARKS: dict[str, Benchmark] = {
    "gsm8k": Benchmark(("gsm8k/test.jsonl",), lambda r: r["question"], lambda r: gsm8k_final(r["answer"]) or ""),
    "svamp": Benchmark(("svamp/test.jsonl",), lambda r: f"{r['Body'].strip()} {r['Question'].strip()}", lambda r: _number(r["Answer"])),
    "math500": Benchmark(("math500/test.jsonl",), lambda r: r["problem"], lambda r: str(r["answer"])),
    "olympiadbench": Benchmark(("olympiadbench/test.jsonl",), lambda r: r["question"], lambda r: ", ".join(map(str, r["final_answer"]))),
    "math_odyssey": Benchmark(("math_odyssey/final-odyssey-math-with-levels.jsonl",), lambda r: r["question"],
                              lambda r: _odyssey_answer(str(r["answer"])), _odyssey_records),
    "aime24": Benchmark(("aime24/test.jsonl",), lambda r: r["problem"], lambda r: _number(r["answer"])),
    "aime25": Benchmark(("aime25/test2025-I.jsonl", "aime25/test2025-II.jsonl"), lambda r: r["problem"], lambda r: _number(r["answer"])),
    "amc23": Benchmark(("amc23/test.jsonl",), lambda r: r["problem"], lambda r: _number(r["answer"])),
    "minerva_math": Benchmark(("minerva_math/test.jsonl",), lambda r: r["problem"], lambda r: boxed_answers(r["solution"], limit=1)[0]),
}

# Cooper's Table 3 columns, in order, and the names tables print (the one definition; harness.tables reads it).
TABLE3 = ("gsm8k", "svamp", "math500", "olympiadbench", "math_odyssey")
DISPLAY = {"gsm8k": "GSM8K", "svamp": "SVAMP", "math500": "MATH500", "olympiadbench": "OB-EN", "math_odyssey": "Odyssey",
           "aime24": "AIME24", "aime25": "AIME25", "amc23": "AMC23", "minerva_math": "Minerva"}


def display_name(name: str) -> str:
    """The column name of a benchmark: Table 3's for the named ones, the file's stem for a jsonl file."""
    return DISPLAY.get(name, Path(name).stem if name.endswith(".jsonl") else name)


def task_name(name: str) -> str:
    """An lm-eval task name for a benchmark (letters, digits and underscores only)."""
    return "harness_" + re.sub(r"\W", "_", name if name in BENCHMARKS else Path(name).stem)


def normalised_records(name: str, limit: int | None = None) -> list[dict[str, str]]:
    """(prompt, answer) records of a named benchmark, or of a jsonl file with question and answer fields."""
    if name not in BENCHMARKS:
        if not name.endswith(".jsonl"):
            raise DataError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}, or a .jsonl file with "
                            "question and answer fields")
        return [{"prompt": p.question.strip() + PROMPT_SUFFIX, "answer": p.answer} for p in load_problems(name, "test", limit)]
    bench = BENCHMARKS[name]
    out = []
    for file in bench.files:
        for record in bench.reader(resolve_data_path(f"math/{file}")):
            out.append({"prompt": bench.question(record).strip() + PROMPT_SUFFIX, "answer": bench.answer(record)})
    return out[:limit] if limit else out
