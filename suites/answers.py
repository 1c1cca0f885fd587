"""The distinct final answers written in the real data here, as plain strings: both sides of the
answer-equivalence fixtures, the VerifyBench-Hard subset's references and the last boxed answer of each of its
completions, and MATH-500's answers. They are the inputs an answer parser meets, held out of any suite's
scoring: the parser's benchmark and its differential test read the same list.
"""

from __future__ import annotations

from harness.core.answers import boxed_answers
from suites.fixtures import FIXTURE_DIR
from suites.loading import read_local

VERIFYBENCH_HARD_SUBSET = "verifier/verifybench_hard_subset_longjudgebench"
MATH500 = "math/math500/test.jsonl"


def real_answers() -> list[str]:
    """Each distinct non-blank answer once, in a fixed order (the files' order, then the lines')."""
    texts: list[object] = []
    for row in read_local(FIXTURE_DIR).rows:
        texts += [row.get("gold"), row.get("pred")]
    for row in read_local(VERIFYBENCH_HARD_SUBSET).rows:
        texts += [row["answer"], *boxed_answers(row["completion"])[-1:]]
    texts += [row["answer"] for row in read_local(MATH500).rows]
    return list(dict.fromkeys(t for t in texts if isinstance(t, str) and t.strip()))
