"""The speed benchmark's baseline is math-verify called the way RL trainers call it, not a weaker call of it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rewards.plain_math_verify import plain_verdict
from suites import build_suite

REPO = Path(__file__).resolve().parents[2]
# A reference written in LaTeX without delimiters: parsed bare it reads as nothing and every answer is "wrong";
# boxed, as verl boxes it, it is read.
_LATEX_REFERENCE = {"question": "", "reference": "2 \\sqrt{3} + 3",
                    "completion": "So the sum is \\[ \\boxed{2\\sqrt{3} + 3} \\]", "label": True}


def test_the_plain_loop_gives_verls_verdicts(tmp_path, data_root):
    rows = [{"question": r.item.question, "reference": r.item.reference, "completion": r.item.completion,
             "label": r.label}
            for spec in ("processbench", "mathcheck-gsm") for r in build_suite(spec).load().rows[::97]]
    rows.append(_LATEX_REFERENCE)
    data = tmp_path / "items.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "benchmarks.eval_command", "--plain-only", str(data)], cwd=REPO,
                          check=True, capture_output=True, text=True)
    verdicts = json.loads(done.stdout.strip().splitlines()[-1])["verdicts"]
    assert verdicts == [plain_verdict(r["reference"], r["completion"], gold="boxed") for r in rows]
    assert verdicts[-1] is True
    assert any(verdicts) and not all(verdicts)
