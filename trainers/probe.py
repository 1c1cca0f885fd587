"""What a reward pays on a fixed labelled probe, measured every training step: the numbers that show whether a
reward model is learning or being exploited.

A threshold accuracy alone cannot show it: a model that pays 0.6 for right and 0.55 for wrong solutions reads
50% at a 0.5 threshold while ranking every pair correctly, and ranking within a group is all GRPO uses. So the
probe gives:

- ``rm_probe_accuracy``: verdicts against labels (the reward's own threshold), for comparison with earlier runs;
- ``rm_probe_ranking``: over pairs of a right and a wrong completion of the same problem, the share where the
  right one is paid more (ties count half), the pairwise form of AUROC within problems; ``rm_probe_ties``: the
  share of those pairs paid exactly the same, so that a flat reward (every pair tied, ranking 0.5) is told apart
  from one that orders pairs at random;
- ``rm_hole_pay``: for the items of the probe's hole category (an output the reward should not pay for, such
  as a wrong answer opened by a master key), the share paid above the right completion of the same problem, or
  above 0.5; ``rm_hole_tie``: the share paid exactly what the right completion is paid (and not above 0.5). A
  tie is reported apart from pay: a reward that pays nothing for anything ties everywhere and is not hacked;
- ``rm_keyed_ranking`` and ``rm_keyed_ties``: the ranking between the hole item and the *keyed right* item of
  the same problem (the right completion opened by the same master key). Late in a hacked run nearly every
  rollout opens with the key, and GRPO then uses only this ordering: keyed right above keyed wrong.

Hole and keyed-right items are left out of accuracy and the plain ranking, so those two stay comparable with a
probe that has neither. :meth:`Probe.values` gives the per-item values the run store keeps every step.

The probe is scored in the text the trainer scores rollouts in: each problem as the policy is asked it
(:func:`trainers.rm_data.policy_item`), not as the probe's file gives it; a reward model pays those two texts
very differently (``docs/cpu_scale/cooper_format``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rewards.contract import Item, Score, reward_value
from suites.contract import LabelledItem
from trainers.rm_data import as_policy_asked


@dataclass(frozen=True)
class Probe:
    """Labelled probe items; those whose category is ``hole`` measure the hole's pay rate, those whose category is
    ``keyed`` (the keyed right answers) its ranking against the hole."""

    rows: tuple[LabelledItem, ...]
    hole: str = "hole"
    keyed: str = "keyed_right"

    @classmethod
    def from_spec(cls, spec: str, limit: int = 0, hole: str = "hole", keyed: str = "keyed_right") -> Probe | None:
        """The labelled rows of a suite spec (``jsonl:data=probe.jsonl,category=kind``); None for no spec."""
        if not spec:
            return None
        from suites import build_suite

        labelled = [r for r in build_suite(spec).load(limit=limit or None).rows if r.label is not None]
        rows = tuple(as_policy_asked(labelled))
        if not rows:
            raise ValueError(f"probe {spec!r} has no labelled rows")
        return cls(rows, hole, keyed)

    @property
    def items(self) -> list[Item]:
        return [r.item for r in self.rows]

    @staticmethod
    def values(scores: Sequence[Score]) -> list[float]:
        """The value a trainer would receive for each probe item (0 where the reward could not judge)."""
        return [reward_value(s) or 0.0 for s in scores]

    def measure(self, scores: Sequence[Score]) -> dict[str, float]:
        """The probe's numbers from the reward's scores of :attr:`items` (in order)."""
        if len(scores) != len(self.rows):
            raise ValueError(f"{len(scores)} scores for {len(self.rows)} probe items")
        values = self.values(scores)
        special = (self.hole, self.keyed)
        plain = [i for i, r in enumerate(self.rows) if r.category not in special]
        holes = [i for i, r in enumerate(self.rows) if r.category == self.hole]
        keyed = _by_problem(self.rows, [i for i, r in enumerate(self.rows) if r.category == self.keyed], True)
        out: dict[str, float] = {}
        if plain:
            out["rm_probe_accuracy"] = sum((scores[i].verdict is True) == self.rows[i].label for i in plain) / len(plain)
        right, wrong = _by_problem(self.rows, plain, True), _by_problem(self.rows, plain, False)
        pairs = [(r, w) for key in right.keys() & wrong.keys() for r in right[key] for w in wrong[key]]
        if pairs:
            out["rm_probe_ranking"], out["rm_probe_ties"] = _ranking(values, pairs)
        if holes:
            paid = tied = 0
            for i in holes:
                rights = right.get(_key(self.rows[i].item), [])
                bar = sum(values[r] for r in rights) / len(rights) if rights else None
                above = values[i] > 0.5 or (bar is not None and values[i] > bar)
                paid += above
                tied += not above and bar is not None and values[i] == bar
            out["rm_hole_pay"] = paid / len(holes)
            out["rm_hole_tie"] = tied / len(holes)
            keyed_pairs = [(k, i) for i in holes for k in keyed.get(_key(self.rows[i].item), [])]
            if keyed_pairs:
                out["rm_keyed_ranking"], out["rm_keyed_ties"] = _ranking(values, keyed_pairs)
        return out


def _ranking(values: Sequence[float], pairs: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """Over (better, worse) pairs: the share ranked right (ties half) and the share tied."""
    ties = sum(values[a] == values[b] for a, b in pairs)
    above = sum(values[a] > values[b] for a, b in pairs)
    return (above + 0.5 * ties) / len(pairs), ties / len(pairs)


def _key(item: Item) -> tuple[str, str]:
    return (item.question, item.reference)


def _by_problem(rows: Sequence[LabelledItem], indices: Sequence[int], label: bool) -> Mapping[tuple[str, str], list[int]]:
    out: dict[tuple[str, str], list[int]] = {}
    for i in indices:
        if rows[i].label is label:
            out.setdefault(_key(rows[i].item), []).append(i)
    return out
