"""The math benchmarks for policy evaluation, normalised to (prompt, answer) records.

The benchmarks are declared in ``suites/data/suites.yaml`` (files, a prompt template, the reference field);
their files in ``../shared/data/math`` have quirks the declarations name and this module implements: GSM8K's
``####``, SVAMP's float answers, OlympiadBench's answer lists, Math Odyssey's one-problem-per-key lines, AIME's
zero-padded answers, Minerva's answer inside the solution's last box. Every reference is then cleaned of its
typesetting (:func:`harness.core.answers.clean_reference`: Math Odyssey's ``\\frac{40}{243}$.``, OlympiadBench's
``$2^{1009}$``). The lm-eval task definitions are YAML too (``harness/tasks``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from harness.core.answers import boxed_answers, clean_reference, gsm8k_final
from suites.declarations import PolicyDeclaration, declarations
from suites.loading import DataError, resolve_data_path
from suites.sampling import sampled
from suites.math_data import PROMPT_SUFFIX, load_problems


def _number(value: Any) -> str:
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else text


def _odyssey_records(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            for value in json.loads(line).values():  # {"Problem_N": {...}}; some values are dict reprs
                yield value if isinstance(value, dict) else ast.literal_eval(value)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


# How a reference is read from its field, by the name a declaration gives in ``parse``.
PARSERS: dict[str, Callable[[Any], str]] = {
    "text": lambda value: str(value),
    "number": _number,  # SVAMP's floats, AIME's zero padding
    "gsm8k_final": lambda value: gsm8k_final(str(value)) or "",
    "joined": lambda value: ", ".join(map(str, value)),  # OlympiadBench's answer lists
    "last_box": lambda value: boxed_answers(str(value), limit=1)[0],  # Minerva: the solution's last box
}
# How a benchmark's files are laid out, by the name a declaration gives in ``reader``.
READERS: dict[str, Callable[[Path], Iterator[dict[str, Any]]]] = {"jsonl": _jsonl, "keyed_lines": _odyssey_records}


def _named(table: Mapping[str, Any], name: str, what: str, benchmark: str) -> Any:
    if name not in table:
        raise DataError(f"benchmark {benchmark!r} declares {what} {name!r}; known: {', '.join(table)}")
    return table[name]


def benchmarks() -> Mapping[str, PolicyDeclaration]:
    """The declared math benchmarks for policies, by name."""
    return declarations().policy


def table3() -> tuple[str, ...]:
    """Cooper's Table 3 benchmarks, in its order (the one definition; harness.tables reads it)."""
    return declarations().cooper_table3


def display_name(name: str) -> str:
    """The column name of a benchmark: Table 3's for the named ones, the file's stem for a jsonl file."""
    declared = benchmarks().get(name)
    if declared is not None:
        return declared.display
    return Path(name).stem if name.endswith(".jsonl") else name


def task_name(name: str) -> str:
    """An lm-eval task name for a benchmark (letters, digits and underscores only)."""
    return "harness_" + re.sub(r"\W", "_", name if name in benchmarks() else Path(name).stem)


def _prompt(template: str, record: Mapping[str, Any]) -> str:
    values = {k: v.strip() if isinstance(v, str) else v for k, v in record.items()}
    return template.format_map(values).strip()


def normalised_records(name: str, limit: int | None = None) -> list[dict[str, str]]:
    """(prompt, answer) records of a named benchmark, or of a jsonl file with question and answer fields; with
    ``limit``, a seeded sample of that many problems, as ``eval --limit`` samples a suite's items."""
    return sampled(_all_records(name), limit)


def _all_records(name: str) -> list[dict[str, str]]:
    bench = benchmarks().get(name)
    if bench is None:
        if not name.endswith(".jsonl"):
            raise DataError(f"unknown benchmark {name!r}; known: {', '.join(benchmarks())}, or a .jsonl file with "
                            "question and answer fields")
        return [{"prompt": p.question.strip() + PROMPT_SUFFIX, "answer": p.answer} for p in load_problems(name, "test")]
    parse = _named(PARSERS, bench.parse, "parser", name)
    read = _named(READERS, bench.reader, "reader", name)
    out = []
    for file in bench.files:
        for i, record in enumerate(read(resolve_data_path(f"math/{file}"))):
            try:
                answer = clean_reference(parse(record[bench.answer]))
                out.append({"prompt": _prompt(bench.question, record) + PROMPT_SUFFIX, "answer": answer})
            except KeyError as exc:
                raise DataError(f"math/{file}: record {i} has no field {exc} (declared for benchmark {name!r}; its "
                                f"fields: {', '.join(sorted(record))})") from None
    return out
