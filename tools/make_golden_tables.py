"""Regenerates tests/golden/*: the paper-layout tables rendered from runs of the rule reward and plain
math-verify, which are deterministic, on the packaged sample suite, the VerifyBench-Hard subset in ../shared/data and the robustness
suite, with the papers' published figures beside them where a paper has the same row. Run from the repository root after a deliberate change to the rule reward or the layouts:
``HARNESS_DATA_ROOT=../shared/data python tools/make_golden_tables.py``."""

from __future__ import annotations

import tempfile
from pathlib import Path

from harness.core.store import RunStore
from harness.evaluate import EvalRequest, evaluate_reward
from harness.published import load_published
from harness.report import render_text
from harness.tables import paper_table, render_latex

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
CASES = {
    "verifybench_hard_rule": ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench", "verifybench-hard"),
    "verifybench_hard_mathverify": ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench",
                                    "verifybench-hard", "mathverify"),
    "sample_rule": ("sample", None, "verifybench"),
    "robustness_rule": ("robustness", None, "robustness"),
}


def render(store: RunStore, name: str) -> dict[str, str]:
    suite, data, layout, *reward = CASES[name]
    run = evaluate_reward(EvalRequest(reward[0] if reward else "rule", suite, data), store)
    table = paper_table(layout, [run], load_published())
    return {"md": render_text(table, "markdown") + "\n", "tex": render_latex(table) + "\n"}


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "runs.sqlite")
        for name in CASES:
            for ext, text in render(store, name).items():
                (GOLDEN / f"{name}.{ext}").write_text(text)
                print(f"wrote tests/golden/{name}.{ext}")


if __name__ == "__main__":
    main()
