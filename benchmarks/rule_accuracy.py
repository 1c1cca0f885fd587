"""The rule reward's accuracy on every real labelled source here, and on the robustness suite per family.

One table for a before/after comparison of a change to the grader: accuracy on ProcessBench (with references),
MathCheck-GSM and the VerifyBench-Hard subset, agreement with each answer-equivalence fixture source, and the
false-positive and false-negative rates of each robustness family; each labelled source also per split or answer
type. ``--plain`` adds plain math-verify called as RL trainers call it (verl's convention: the reference boxed, see
:mod:`rewards.plain_math_verify`) on the same labelled items, in a plain loop.

    python -m benchmarks.rule_accuracy [--plain] [--json FILE] [--show-misses N]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

from benchmarks.fixture_agreement import agreement
from rewards import Item
from rewards.plain_math_verify import plain_verdict
from rewards.rule import RuleReward
from suites import build_suite

LABELLED = (
    ("processbench", None),
    ("mathcheck-gsm", None),
    ("verifybench-hard", "verifier/verifybench_hard_subset_longjudgebench"),
)


def _plain_verdicts(items: list[Item]) -> list[bool]:
    return [plain_verdict(it.reference, it.completion, "boxed") for it in items]


def measure(reward: RuleReward, plain: bool, show_misses: int) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    for spec, data in LABELLED:
        loaded = build_suite(spec).load(data)
        items = [r.item for r in loaded.rows]
        scores = reward.score(items)
        right = [(s.verdict is True) == r.label for s, r in zip(scores, loaded.rows)]
        rows[spec] = {"n": len(items), "rule": sum(right) / len(items)}
        if plain:
            verdicts = _plain_verdicts(items)
            rows[spec]["plain"] = sum(v == r.label for v, r in zip(verdicts, loaded.rows)) / len(items)
        categories: dict[str, list[int]] = defaultdict(list)
        for k, r in enumerate(loaded.rows):
            categories[r.category].append(k)
        for category, ks in sorted(categories.items()) if len(categories) > 1 else ():
            # ProcessBench's splits, VerifyBench's answer types: a change may help one and cost another
            rows[f"{spec} / {category}"] = {"n": len(ks), "rule": sum(right[k] for k in ks) / len(ks)}
            if plain:
                rows[f"{spec} / {category}"]["plain"] = sum(verdicts[k] == loaded.rows[k].label for k in ks) / len(ks)
        misses = [(r, s) for r, s, ok in zip(loaded.rows, scores, right) if not ok]
        for r, s in misses[:show_misses]:
            print(f"[{spec}] label={r.label} got {s.reason} {s.answer!r} ref={r.item.reference[:80]!r}")
    per_source, _ = agreement(reward)
    for source, (agree, n) in sorted(per_source.items()):
        rows[f"fixtures: {source}"] = {"n": n, "rule": agree / n}
    suite = build_suite("robustness")
    data = suite.load()
    scores = reward.score([r.item for r in data.rows])
    per_family: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r, s in zip(data.rows, scores):
        per_family[r.category].append((r.label, s.verdict is True))
    for family, pairs in sorted(per_family.items()):
        rejects = [got for want, got in pairs if not want]
        accepts = [got for want, got in pairs if want]
        rows[f"robustness: {family}"] = {
            "n": len(pairs),
            "rule": sum(want == got for want, got in pairs) / len(pairs),
            "fpr": sum(rejects) / len(rejects) if rejects else float("nan"),
            "fnr": sum(not g for g in accepts) / len(accepts) if accepts else float("nan"),
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plain", action="store_true", help="also score plain math-verify, called as verl calls it")
    parser.add_argument("--json", default=None, help="write the figures to this file too")
    parser.add_argument("--show-misses", type=int, default=0, help="print up to N misses per labelled source")
    args = parser.parse_args()
    with RuleReward(workers=2) as reward:
        rows = measure(reward, args.plain, args.show_misses)
    print(f"{'source':<52}{'items':>7}{'rule':>8}{'plain':>8}{'FPR':>7}{'FNR':>7}")
    for name, r in rows.items():
        cells = [f"{100 * r[k]:.1f}" if k in r and r[k] == r[k] else "-" for k in ("rule", "plain", "fpr", "fnr")]
        print(f"{name:<52}{int(r['n']):>7}" + "".join(f"{c:>{w}}" for c, w in zip(cells, (8, 8, 7, 7))))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
