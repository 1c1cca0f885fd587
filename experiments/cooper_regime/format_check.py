"""The fourth test's step 1 (``docs/cpu_scale/cooper_format``): the static reward model's scores of the same rollouts
and probe in the text it was trained on, with the policy's instruction after the question, and in the text it
receives during RL, built by the trainer's own code.

    python experiments/cooper_regime/format_check.py --static runs/cooper_ratio/verifyrm \\
        --data docs/cpu_scale/cooper_released/data --out docs/cpu_scale/cooper_format/format_check.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from harness.core.uncertainty import paired_comparison, paired_t_interval, wilson
from harness.core.versions import code_commit
from rewards import build_reward
from rewards.contract import Item, Score
from suites import build_suite
from suites.contract import LabelledItem
from suites.math_data import PROMPT_SUFFIX, Problem
from trainers.grpo import RewardBridge

THRESHOLD = 0.5


def mean_interval(values: Sequence[float]) -> list[float] | None:
    """The mean with its 95% t interval (None under two values)."""
    return list(paired_t_interval(values)) if len(values) > 1 else None


def share(k: int, n: int) -> list[float]:
    return [k / n, *(wilson(k, n) or (0.0, 1.0))]
SETS = {  # name: (file, suite options)
    "p1_rollouts": ("rmtest_rollouts.jsonl", "reference=reference_answer"),
    "step0_rollouts": ("step0_rollouts.jsonl", "reference=reference_answer"),
    "probe": ("probe.jsonl", "category=kind"),
}


def trained(rows: Sequence[LabelledItem]) -> list[Item]:
    """The items as the training data, the static checks and the probe read them."""
    return [r.item for r in rows]


def suffix(rows: Sequence[LabelledItem]) -> list[Item]:
    return [Item(r.item.question + PROMPT_SUFFIX, r.item.reference, r.item.completion, r.item.metadata) for r in rows]


def rl(rows: Sequence[LabelledItem]) -> list[Item]:
    """The items the trainer's reward function builds: the prompt row of the TRL backend (``Problem.messages()``,
    the reference as the dataset holds it) and the completion as an assistant message, through
    ``RewardBridge.items``."""
    bridge = RewardBridge.__new__(RewardBridge)  # items() reads nothing of the bridge's state
    prompts = [Problem(r.item.question, r.item.reference).messages() for r in rows]
    completions = [[{"role": "assistant", "content": r.item.completion}] for r in rows]
    return bridge.items(prompts, completions, [r.item.reference for r in rows])


FORMATS: dict[str, Callable[[Sequence[LabelledItem]], list[Item]]] = {"trained": trained, "suffix": suffix, "rl": rl}


def margins(rows: Sequence[LabelledItem], values: Sequence[float]) -> dict[str, float]:
    """Per question with right and wrong rollouts: mean reward of the right minus mean reward of the wrong."""
    groups: dict[str, dict[bool, list[float]]] = defaultdict(lambda: {True: [], False: []})
    for r, v in zip(rows, values):
        groups[r.item.question][bool(r.label)].append(v)
    return {q: sum(g[True]) / len(g[True]) - sum(g[False]) / len(g[False])
            for q, g in groups.items() if g[True] and g[False]}


def figures(rows: Sequence[LabelledItem], scores: Sequence[Score]) -> dict:
    values = [s.value or 0.0 for s in scores]
    n = len(rows)
    paid = sum(v >= THRESHOLD for v in values)
    right = sum((v >= THRESHOLD) == bool(r.label) for r, v in zip(rows, values))
    m = margins(rows, values)
    return {
        "n": n,
        "mean_reward": mean_interval(values),
        "paid": share(paid, n),
        "accuracy": share(right, n),
        "margin": mean_interval(list(m.values())),
        "margin_groups": len(m),
        "values": values,
    }


def paired(rows: Sequence[LabelledItem], a: dict, b: dict) -> dict:
    """b against a on the same items: accuracy by exact McNemar, the margin by a t interval over questions."""
    ok_a = [(v >= THRESHOLD) == bool(r.label) for r, v in zip(rows, a["values"])]
    ok_b = [(v >= THRESHOLD) == bool(r.label) for r, v in zip(rows, b["values"])]
    test = paired_comparison(ok_a, ok_b)
    out: dict = {"accuracy_change": [test.difference, test.low, test.high], "mcnemar_p": test.p_value,
                 "flips_to_right": test.only_b, "flips_to_wrong": test.only_a}
    ma, mb = margins(rows, a["values"]), margins(rows, b["values"])
    diffs = [mb[q] - ma[q] for q in ma if q in mb]
    out["margin_change"] = mean_interval(diffs)
    return out


def _pct(x: list[float] | None) -> str:
    return "—" if x is None else f"{100 * x[0]:.1f} [{100 * x[1]:.1f}, {100 * x[2]:.1f}]"


def _num(x: list[float] | None) -> str:
    return "—" if x is None else f"{x[0]:+.3f} [{x[1]:+.3f}, {x[2]:+.3f}]"


def render(report: dict) -> str:
    """The step's Markdown table, from the JSON alone (a test renders it again from the committed file)."""
    lines = [f"Static model `{report['static']}`, commit {report['commit']['commit'][:7]} "
             f"(uncommitted changes: {report['commit']['dirty']}), threshold {report['threshold']}.", "",
             "| set | format | n | mean reward | paid (%) | accuracy (%) | within-group margin | questions |",
             "|---|---|---:|---|---|---|---|---:|"]
    for name, s in report["sets"].items():
        for fmt, f in s["formats"].items():
            lines.append(f"| {name} | {fmt} | {f['n']} | {_num(f['mean_reward'])} | {_pct(f['paid'])} | "
                         f"{_pct(f['accuracy'])} | {_num(f['margin'])} | {f['margin_groups']} |")
    lines += ["", "Paired against the trained format on the same items (accuracy: exact McNemar and its interval; "
              "margin: t interval over questions):", "",
              "| set | format | accuracy change (points) | McNemar p | to right / to wrong | margin change | "
              "texts equal to suffix's |", "|---|---|---|---|---|---|---:|"]
    for name, s in report["sets"].items():
        for fmt in ("suffix", "rl"):
            v = s[f"{fmt}_vs_trained"]
            lines.append(f"| {name} | {fmt} | {_pct(v['accuracy_change'])} | {v['mcnemar_p']:.2g} | "
                         f"{v['flips_to_right']} / {v['flips_to_wrong']} | {_num(v['margin_change'])} | "
                         f"{s['rl_equals_suffix'] if fmt == 'rl' else '—'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", required=True, help="the static VerifyRM's folder")
    parser.add_argument("--data", type=Path, required=True, help="the folder of the rollouts and the probe")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    reward = build_reward(f"verifyrm:model={args.static}")
    report: dict = {"commit": code_commit(), "static": str(args.static), "threshold": THRESHOLD, "sets": {}}
    for name, (file, options) in SETS.items():
        rows = [r for r in build_suite(f"jsonl:data={args.data / file},{options}").load().rows if r.label is not None]
        per = {fmt: figures(rows, reward.score(make(rows))) for fmt, make in FORMATS.items()}
        texts = {fmt: make(rows) for fmt, make in FORMATS.items()}
        report["sets"][name] = {
            "formats": per,
            "rl_vs_trained": paired(rows, per["trained"], per["rl"]),
            "suffix_vs_trained": paired(rows, per["trained"], per["suffix"]),
            "rl_equals_suffix": sum(reward.format.render(x.question, x.reference, x.completion)
                                    == reward.format.render(y.question, y.reference, y.completion)
                                    for x, y in zip(texts["rl"], texts["suffix"])),
        }
        print(f"{name}: done", file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = render(report)  # before the JSON exists: a report that cannot be rendered leaves nothing behind
    args.out.write_text(json.dumps(report, indent=1))
    args.out.with_suffix(".md").write_text(text)


if __name__ == "__main__":
    main()
