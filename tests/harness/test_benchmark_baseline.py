"""The speed benchmark's baseline is math-verify called the way RL trainers call it, not a weaker call of it."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.eval_command import PLAIN, write_items
from rewards.plain_math_verify import plain_verdict

# A reference written in LaTeX without delimiters: parsed bare it reads as nothing and every answer is "wrong";
# boxed, as verl boxes it, it is read.
_LATEX_REFERENCE = {"question": "", "reference": "\\frac{1}{2}",
                    "completion": "So the answer is $\\boxed{\\frac{1}{2}}$.", "label": True}


def test_the_plain_loop_gives_verls_verdicts(tmp_path, data_root):
    data = tmp_path / "items.jsonl"
    write_items(data, 40)
    with data.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(_LATEX_REFERENCE) + "\n")
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
    done = subprocess.run([sys.executable, "-c", PLAIN, str(data)], check=True, capture_output=True, text=True)
    verdicts = json.loads(done.stdout.strip().splitlines()[-1])["verdicts"]
    assert verdicts == [plain_verdict(r["reference"], r["completion"], gold="boxed") for r in rows]
    assert verdicts[-1] is True
    assert any(verdicts) and not all(verdicts)
