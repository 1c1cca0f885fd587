"""Math problems (question + reference answer) for policy training and evaluation.

``gsm8k`` reads ``math/gsm8k/{split}.jsonl`` under the data root when present, else the Hugging Face dataset
``openai/gsm8k`` (config ``main``); the reference is the text after GSM8K's ``####``. Any other name is a
jsonl file with ``question`` and ``answer`` fields (an ``answer`` ending in ``#### n`` is cut to ``n``).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.answers import gsm8k_final
from suites.loading import DataError, read_hub, read_local, resolve_data_path

PROMPT_SUFFIX = "\nPlease reason step by step, and put your final answer within \\boxed{}."


@dataclass(frozen=True)
class Problem:
    question: str
    answer: str

    def messages(self) -> list[dict[str, str]]:
        return [{"role": "user", "content": self.question + PROMPT_SUFFIX}]


def _final(answer: str) -> str:
    final = gsm8k_final(answer)
    return answer.strip() if final is None else final


def load_problems(name: str, split: str = "train", limit: int | None = None) -> list[Problem]:
    if name == "gsm8k":
        try:
            records = read_local(f"math/gsm8k/{split}.jsonl")
        except DataError:
            records = read_hub("openai/gsm8k", split, "main")
    else:
        try:
            resolve_data_path(name)
        except DataError as exc:
            raise DataError(f"unknown dataset {name!r}: use gsm8k or a jsonl file with question and answer fields\n{exc}") from None
        records = read_local(name)
    problems = []
    rows = records.rows
    for i, rec in enumerate(rows[:limit] if limit else rows):
        if "question" not in rec or "answer" not in rec:
            raise DataError(f"{records.where(i)}: needs question and answer fields (has {', '.join(sorted(rec))})")
        problems.append(Problem(str(rec["question"]), _final(str(rec["answer"]))))
    return problems
