"""An example third-party reward: exact match of the completion's last line against the reference.

It imports only the harness's public contract and is registered through the ``harness.rewards`` entry
point in this package's pyproject.toml, with no change to the harness.
"""

from __future__ import annotations

from collections.abc import Sequence

from rewards import Item, Score


class ExactMatchReward:
    """Exact match of the completion's last non-empty line with the reference."""

    def __init__(self, case_sensitive: bool = False) -> None:
        self.case_sensitive = case_sensitive

    def _norm(self, text: str) -> str:
        text = text.strip()
        return text if self.case_sensitive else text.lower()

    def score(self, items: Sequence[Item]) -> list[Score]:
        out = []
        for item in items:
            lines = [line for line in item.completion.splitlines() if line.strip()]
            if not lines:
                out.append(Score.incorrect("no_answer_found"))
                continue
            last = lines[-1]
            if self._norm(last) == self._norm(item.reference):
                out.append(Score.correct("exact", last.strip()))
            else:
                out.append(Score.incorrect("mismatch", last.strip()))
        return out
