"""The distinct final answers written in the real data here, as plain strings: both sides of the
answer-equivalence fixtures, the VerifyBench-Hard subset's references and the last boxed answer of each of its
completions, and MATH-500's answers. They are the inputs an answer parser meets, held out of any suite's
scoring: the parser's benchmark and its differential test read the same list.
"""

from __future__ import annotations

import json

from harness.core.answers import boxed_answers
from suites.fixtures import FIXTURE_DIR
from suites.loading import resolve_data_path

VERIFYBENCH_HARD_SUBSET = "verifier/verifybench_hard_subset_longjudgebench"
MATH500 = "math/math500/test.jsonl"


def real_answers() -> list[str]:
    """Each distinct non-blank answer once, in a fixed order (the files' order, then the lines')."""
    texts: list[str] = []
    for path in sorted(resolve_data_path(FIXTURE_DIR).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row.get("gold"), row.get("pred")]
    for path in sorted(resolve_data_path(VERIFYBENCH_HARD_SUBSET).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["answer"], *boxed_answers(row["completion"])[-1:]]
    for line in resolve_data_path(MATH500).read_text(encoding="utf-8").splitlines():
        texts.append(json.loads(line)["answer"])
    return list(dict.fromkeys(t for t in texts if isinstance(t, str) and t.strip()))
